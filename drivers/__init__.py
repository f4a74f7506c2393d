"""Engines and the TPC-H test sequencer: load, power and throughput tests, refresh functions."""
