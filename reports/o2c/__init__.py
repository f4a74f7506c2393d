"""The o2c workload's result family (``dbbench-o2c-result``): model, metrics, charts, reports,
compare section.

Importing the package imports nothing: its model module is part of the result contract the
drivers write through, and loads alone.
"""
