"""TPC-H data generation, byte-identical to the reference dbgen."""
