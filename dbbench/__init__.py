"""dbbench: the command line that wires dbgen, queries, drivers and reports together."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("dbbench")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"
