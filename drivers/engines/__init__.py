"""One module per engine (``duckdb``, ``postgresql``, ``mysql``, ``sqlite``, and
``sqlalchemy`` for any other SQLAlchemy URL) over the shared SQL layer in ``common``. Every
module here that declares ``ENGINE = EngineSpec(...)`` is an engine: :mod:`drivers.registry`
finds it and maps URLs to it."""
