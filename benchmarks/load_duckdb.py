"""Generate and load a TPC-H database into a DuckDB file: dbbench against the usual recipe.

* dbbench: ``load_database(open_engine("duckdb:///file"), sf)``: the schema, the eight
  tables streamed from the generator's worker processes into DuckDB as Arrow batches, and a
  checkpoint (the data in the file, not in the write-ahead log). No intermediate files.
* peer: ``tpchgen-cli parquet -s SF`` (Rust, all cores) into a scratch folder, then
  ``CREATE TABLE t AS SELECT * FROM read_parquet(...)`` for the eight tables into a fresh
  DuckDB file, then a checkpoint.

Both end with the same eight tables in a DuckDB file on the same disk. Runs alternate
(dbbench, peer, dbbench, ...) so that a busy machine hurts both alike; the best of
``--repeat`` is kept. The target (issue 13) is 0.8 of the peer's time. No keys on either side.

Run: ``python benchmarks/load_duckdb.py [--sf 1] [--repeat 1] [--jobs N]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
from _sidebyside import Timings, best_of, print_ratio

from dbbench.dbgen.api import row_count
from dbbench.dbgen.schema import TABLES
from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine

BIN = Path(sys.executable).parent
TPCHGEN = shutil.which("tpchgen-cli", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")


def ours(sf: float, jobs: int | None, scratch: Path) -> dict[str, float]:
    engine = open_engine(f"duckdb:///{scratch / 'ours.duckdb'}")
    try:
        start = time.perf_counter()
        stats = load_database(engine, sf, jobs=jobs)
        total = time.perf_counter() - start
        expected = {t: row_count(t, sf) for t in TABLES}
        if engine.row_counts() != expected:  # a fast load of the wrong rows counts for nothing
            raise SystemExit(f"dbbench loaded {engine.row_counts()}, expected {expected}")
    finally:
        engine.close()
    # The rest of the total: the schema, the checkpoint after the load, the state row.
    return {
        "generate+load": stats.seconds["load"],
        "checkpoint": stats.seconds.get("checkpoint", 0.0),
        "total": total,
    }


def peer(sf: float, scratch: Path) -> dict[str, float]:
    assert TPCHGEN is not None
    folder = scratch / "parquet"
    start = time.perf_counter()
    subprocess.run(
        [TPCHGEN, "parquet", "-s", f"{sf:g}", "-o", str(folder), "--quiet"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    generated = time.perf_counter()
    con = duckdb.connect(str(scratch / "peer.duckdb"))
    try:
        for table in TABLES:
            source = folder / f"{table}.parquet"
            con.execute(f"CREATE TABLE {table} AS SELECT * FROM read_parquet('{source}')")
        con.execute("CHECKPOINT")
    finally:
        con.close()
    done = time.perf_counter()
    return {"generate": generated - start, "load": done - generated, "total": done - start}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args(argv)
    if TPCHGEN is None:
        print("tpchgen-cli is not installed (pip install tpchgen-cli)", file=sys.stderr)
        return 2

    def run_ours() -> Timings:
        with tempfile.TemporaryDirectory(prefix="dbbench-bench-") as tmp:
            return ours(args.sf, args.jobs, Path(tmp))

    def run_peer() -> Timings:
        with tempfile.TemporaryDirectory(prefix="dbbench-bench-") as tmp:
            return peer(args.sf, Path(tmp))

    best = best_of(args.repeat, {"dbbench": run_ours, "peer": run_peer})
    print_ratio(args.sf, args.repeat, best, target=0.80)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
