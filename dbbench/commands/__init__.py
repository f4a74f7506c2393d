"""One module per CLI command, each with ``register(app)``."""
