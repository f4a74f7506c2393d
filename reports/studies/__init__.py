"""Studies over many TPC-H runs: suites, scaling series, the regression gate and their site pages.

Importing the package imports nothing: its model module is part of the result contract the
drivers write through, and loads alone.
"""
