"""Sinks: bytes of tbl, csv and parquet files from Arrow batches."""
