"""TPC-H data generation, byte-identical to the reference dbgen.

Entry point: :mod:`dbgen.api` (tables and update sets as Arrow batches) and
:mod:`dbgen.formats.tbl` (dbgen's flat-file bytes). Inside:

* :mod:`dbgen.rng`: the 48 Park–Miller streams, skip-ahead, per-row draw matrices, and the
  64-bit LCG used at SF >= 30000;
* :mod:`dbgen.dists`: the weighted word lists; :mod:`dbgen.textpool`: the 300 MiB text pool,
  built vectorised and cached on disk; :mod:`dbgen.scale`: row counts and chunk ranges;
* :mod:`dbgen.columns`: shared column builders (money, dates, pool slices, addresses);
* :mod:`dbgen.tables`: one module per table, parent/child pairs together.
"""
