"""The mixed workload's result family (``dbbench-mixed-result``): model, metrics, reports.

Importing the package imports nothing: its model module is part of the result contract the
drivers write through, and loads alone.
"""
