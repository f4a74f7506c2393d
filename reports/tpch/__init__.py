"""The TPC-H run's result family (``dbbench-result``): its model, upgrade chain, metrics,
compliance, figures, reports, compare landscape and site row.

Importing the package imports nothing: its model module is part of the result contract the
drivers write through, and loads alone.
"""
