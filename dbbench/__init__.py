"""dbbench: the command line that wires dbgen, queries, drivers and reports together."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    # ``__version__`` on first use: reading it loads the report model (packaging metadata),
    # which ``dbbench gen`` does not otherwise need at start-up.
    if name == "__version__":
        from dbbench.reports.model import kit_version

        return kit_version()
    raise AttributeError(f"module 'dbbench' has no attribute {name!r}")
