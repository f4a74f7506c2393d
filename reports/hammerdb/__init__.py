"""HammerDB's result family (``dbbench-hammerdb-result``): model, reports, compare section, the job-
report export.

Importing the package imports nothing: its model module is part of the result contract the
drivers write through, and loads alone.
"""
