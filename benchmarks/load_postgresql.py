"""Generate and load a TPC-H database into PostgreSQL: dbbench against the usual recipe.

* dbbench: ``load_database(open_engine(url), sf)``: the schema, the eight tables COPYed
  in parallel straight from the generator's worker processes (CSV formatted by pyarrow, no
  files), then primary and foreign keys, the allowed indexes and ANALYZE.
* peer: ``tpchgen-cli`` (Rust, all cores) writes the tables to a scratch folder, then one
  ``psql -c "\\copy ..."`` per table, all eight at once, then the very same keys, indexes
  and ANALYZE (dbbench's ``finish_load``), so only the data path differs. The peer writes
  CSV rather than .tbl: the trailing ``|`` of .tbl lines needs a ``sed`` pass before COPY
  accepts them, which would only slow the peer down.

Each side gets a fresh database on the same server (created and dropped here). Runs
alternate so that a busy machine hurts both alike; the best of ``--repeat`` is kept. The
target is to be no slower than the peer.

Run: ``python benchmarks/load_postgresql.py [--url postgresql://postgres@127.0.0.1/test]
[--sf 1] [--repeat 1] [--jobs N]``.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from _sidebyside import Timings, best_of, print_ratio

from dbbench.dbgen.api import row_count
from dbbench.dbgen.schema import TABLES
from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine
from dbbench.drivers.url import parse_url

BIN = Path(sys.executable).parent
TPCHGEN = shutil.which("tpchgen-cli", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
PSQL = shutil.which("psql")


@contextmanager
def fresh_database(base: str) -> Iterator[str]:
    name = f"dbbench_bench_{secrets.token_hex(4)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield base.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def ours(url: str, sf: float, jobs: int | None) -> dict[str, float]:
    engine = open_engine(url)
    try:
        start = time.perf_counter()
        stats = load_database(engine, sf, jobs=jobs)
        total = time.perf_counter() - start
        expected = {t: row_count(t, sf) for t in TABLES}
        if engine.row_counts() != expected:  # a fast load of the wrong rows counts for nothing
            raise SystemExit(f"dbbench loaded {engine.row_counts()}, expected {expected}")
    finally:
        engine.close()
    finish = total - stats.seconds["load"] - stats.seconds["create_schema"]
    return {"generate+copy": stats.seconds["load"], "keys+analyze": finish, "total": total}


def peer(url: str, sf: float, scratch: Path) -> dict[str, float]:
    assert TPCHGEN is not None and PSQL is not None
    engine = open_engine(url)
    try:
        start = time.perf_counter()
        engine.create_schema()
        subprocess.run(
            [TPCHGEN, "csv", "-s", f"{sf:g}", "-o", str(scratch), "--quiet"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        generated = time.perf_counter()
        _parallel_copy(url, scratch)
        copied = time.perf_counter()
        engine.finish_load()
        done = time.perf_counter()
    finally:
        engine.close()
    return {
        "generate": generated - start,
        "copy": copied - generated,
        "keys+analyze": done - copied,
        "total": done - start,
    }


def _parallel_copy(url: str, folder: Path) -> None:
    parsed = parse_url(url)
    env = {**os.environ, "PGPASSWORD": parsed.password or ""}
    conn = [
        "-h", parsed.host or "127.0.0.1", "-p", str(parsed.port or 5432),
        "-U", parsed.username or "postgres", "-d", parsed.database or "postgres",
    ]  # fmt: skip
    procs = []
    for table in TABLES:
        copy = f"\\copy {table} FROM '{folder / (table + '.csv')}' WITH (FORMAT csv, HEADER)"
        command = [PSQL or "psql", *conn, "-v", "ON_ERROR_STOP=1", "-q", "-c", copy]
        procs.append(subprocess.Popen(command, env=env))
    failed = [table for table, p in zip(TABLES, procs, strict=True) if p.wait() != 0]
    if failed:
        raise SystemExit(f"psql \\copy failed for {', '.join(failed)}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args(argv)
    if TPCHGEN is None or PSQL is None:
        print("needs tpchgen-cli and psql on PATH", file=sys.stderr)
        return 2

    def run_ours() -> Timings:
        with fresh_database(args.url) as url:
            return ours(url, args.sf, args.jobs)

    def run_peer() -> Timings:
        with fresh_database(args.url) as url, tempfile.TemporaryDirectory() as tmp:
            return peer(url, args.sf, Path(tmp))

    best = best_of(args.repeat, {"dbbench": run_ours, "peer": run_peer})
    print_ratio(args.sf, args.repeat, best, target=1.00)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
