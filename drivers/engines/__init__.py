"""One module per engine (``duckdb``, ``postgresql``, ``mysql``, ``sqlalchemy`` for SQLite and
any other SQLAlchemy URL) over the shared SQL layer in ``common``; :mod:`drivers.registry`
maps URLs to them."""
