"""dbbench: the command line that wires dbgen, queries, drivers and reports together."""

from dbbench.reports.model import kit_version

__version__ = kit_version()
