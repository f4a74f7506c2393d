"""The analytical engines (chDB, DataFusion, Polars, Hyper; DuckDB for reference), each side
by side with its own native path: generate+load, harness overhead per query, peak memory.

* load, dbbench: ``load_database(open_engine(URL), sf)``: the schema, the eight tables
  streamed from the generator's worker processes into the engine as Arrow batches (Hyper
  reads files only: its batches are spooled as Arrow IPC files and COPYed), the row counts
  checked. No text or Parquet files.
* load, peer: ``tpchgen-cli parquet -s SF`` (Rust, all cores) into a scratch folder, then the
  engine's own fastest Parquet ingest, table after table (each engine reads one file on all
  cores): chDB ``CREATE TABLE t ENGINE = MergeTree ORDER BY (key) AS SELECT * FROM
  file('t.parquet')`` (the kit's ordering), DataFusion ``register_parquet`` then the table
  materialised into a memory table, Polars ``pl.read_parquet``, Hyper ``CREATE TABLE t AS
  SELECT * FROM external('t.parquet')``, DuckDB ``CREATE TABLE t AS SELECT * FROM
  read_parquet('t.parquet')`` into a file.
* memory: every load runs in a child process of its own; the peak of the summed RSS of that
  process and its descendants (the generator's workers, ``tpchgen-cli``, ``hyperd``), sampled
  every 50 ms, and the Python process's own peak RSS are reported.
* overhead: a database loaded at SF 0.01, then the same small query (``SELECT n_nationkey,
  n_name FROM nation WHERE n_regionkey = 1``) run by the engine's own API (rows fetched as
  the API gives them) and by the kit's session ``query`` (rows as Python tuples), alternating
  in ten blocks; the difference of the medians is the harness's cost per query (target < 1 ms).

Runs alternate (dbbench, peer, dbbench, peer, ...) per engine so that a busy machine hurts
both alike; the best of ``--repeat`` is kept. The load target (issue 22) is <= 1.0 of the
peer's time.

Run: ``python benchmarks/engines_load.py [--sf 1] [--repeat 1] [--engines chdb,...]
[--queries 200] [--skip-load] [--skip-overhead]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dbbench.dbgen.api import row_count
from dbbench.dbgen.schema import TABLES
from dbbench.drivers.engine import Engine
from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine

BIN = Path(sys.executable).parent
TPCHGEN = shutil.which("tpchgen-cli", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
ENGINES = ("chdb", "datafusion", "polars", "hyper", "duckdb")
SQL = "SELECT n_nationkey, n_name FROM nation WHERE n_regionkey = 1"


def url_of(engine: str, scratch: Path) -> str:
    return {
        "chdb": "chdb",
        "datafusion": "datafusion://",
        "polars": "polars://",
        "hyper": f"hyper:///{scratch / 'ours.hyper'}",
        "duckdb": f"duckdb:///{scratch / 'ours.duckdb'}",
    }[engine]


# -- one load, in a child process -----------------------------------------------------------
def ours(engine_name: str, sf: float, scratch: Path) -> dict[str, float]:
    start = time.perf_counter()
    engine = open_engine(url_of(engine_name, scratch))
    try:
        stats = load_database(engine, sf)
        total = time.perf_counter() - start
        expected = {t: row_count(t, sf) for t in TABLES}
        if engine.row_counts() != expected:  # a fast load of the wrong rows counts for nothing
            raise SystemExit(f"dbbench loaded {engine.row_counts()}, expected {expected}")
    finally:
        engine.close()
    return {"generate+load": stats.seconds["load"], "total": total}


def _generate(sf: float, folder: Path) -> None:
    assert TPCHGEN is not None
    subprocess.run(
        [TPCHGEN, "parquet", "-s", f"{sf:g}", "-o", str(folder), "--quiet"],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _ingest_chdb(folder: Path, scratch: Path) -> dict[str, int]:
    import chdb

    conn = chdb.connect(":memory:")  # type: ignore[no-untyped-call]
    counts = {}
    for table, spec in TABLES.items():
        order = ", ".join(spec.primary_key)
        conn.query(
            f"CREATE TABLE {table} ENGINE = MergeTree ORDER BY ({order}) "
            f"AS SELECT * FROM file('{folder / table}.parquet', Parquet)"
        )
        found = conn.query(f"SELECT count() FROM {table}", "ArrowTable")
        counts[table] = int(found.column(0)[0].as_py())
    conn.close()
    return counts


def _ingest_datafusion(folder: Path, scratch: Path) -> dict[str, int]:
    import datafusion

    ctx = datafusion.SessionContext()
    counts = {}
    for table in TABLES:
        ctx.register_parquet(f"{table}_file", str(folder / f"{table}.parquet"))
        parts = ctx.table(f"{table}_file").collect_partitioned()
        ctx.register_record_batches(table, parts)
        ctx.deregister_table(f"{table}_file")
        counts[table] = sum(b.num_rows for p in ctx.table(table).collect_partitioned() for b in p)
    return counts


def _ingest_polars(folder: Path, scratch: Path) -> dict[str, int]:
    import polars as pl

    frames = {t: pl.read_parquet(folder / f"{t}.parquet") for t in TABLES}
    return {t: f.height for t, f in frames.items()}


def _ingest_hyper(folder: Path, scratch: Path) -> dict[str, int]:
    import tableauhyperapi as hapi

    counts = {}
    telemetry = hapi.Telemetry.DO_NOT_SEND_USAGE_DATA_TO_TABLEAU
    with (
        hapi.HyperProcess(telemetry=telemetry, parameters={"log_dir": str(scratch)}) as hyper,
        hapi.Connection(
            hyper.endpoint, str(scratch / "peer.hyper"), hapi.CreateMode.CREATE_AND_REPLACE
        ) as conn,
    ):
        for table in TABLES:
            source = folder / f"{table}.parquet"
            conn.execute_command(f"CREATE TABLE {table} AS (SELECT * FROM external('{source}'))")
            counts[table] = int(conn.execute_scalar_query(f"SELECT count(*) FROM {table}"))
    return counts


def _ingest_duckdb(folder: Path, scratch: Path) -> dict[str, int]:
    import duckdb

    con = duckdb.connect(str(scratch / "peer.duckdb"))
    counts = {}
    try:
        for table in TABLES:
            source = folder / f"{table}.parquet"
            con.execute(f"CREATE TABLE {table} AS SELECT * FROM read_parquet('{source}')")
            row = con.execute(f"SELECT count(*) FROM {table}").fetchone()
            counts[table] = int(row[0]) if row else 0
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return counts


INGEST: dict[str, Callable[[Path, Path], dict[str, int]]] = {
    "chdb": _ingest_chdb,
    "datafusion": _ingest_datafusion,
    "polars": _ingest_polars,
    "hyper": _ingest_hyper,
    "duckdb": _ingest_duckdb,
}


def peer(engine_name: str, sf: float, scratch: Path) -> dict[str, float]:
    folder = scratch / "parquet"
    start = time.perf_counter()
    _generate(sf, folder)
    generated = time.perf_counter()
    counts = INGEST[engine_name](folder, scratch)
    done = time.perf_counter()
    expected = {t: row_count(t, sf) for t in TABLES}
    if counts != expected:
        raise SystemExit(f"the peer loaded {counts}, expected {expected}")
    return {"generate": generated - start, "load": done - generated, "total": done - start}


class TreeMemory:
    """Peak of the summed RSS of this process and all its descendants (the generator's
    workers, ``tpchgen-cli``, ``hyperd``), sampled every 50 ms in a thread. Shared pages
    (the loader's spool in /dev/shm) count once per process that maps them: an upper bound."""

    def __init__(self) -> None:
        import psutil

        self.me = psutil.Process()
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _sample(self) -> int:
        total = 0
        for proc in [self.me, *self.me.children(recursive=True)]:
            with contextlib.suppress(Exception):  # gone between listing and reading
                total += proc.memory_info().rss
        return total

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, self._sample())

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak / 2**20


def child_load(engine_name: str, side: str, sf: float) -> dict[str, float]:
    memory = TreeMemory()
    with tempfile.TemporaryDirectory(prefix="dbbench-bench-") as tmp:
        run = ours if side == "dbbench" else peer
        got = run(engine_name, sf, Path(tmp))
    got["tree_mb"] = memory.stop()
    got["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    return got


# -- harness overhead, in a child process ----------------------------------------------------
def _raw(engine_name: str, engine: Engine) -> Callable[[], Any]:
    """The engine's own API on the same loaded database, as it hands back rows."""
    if engine_name == "datafusion":
        ctx = engine.ctx  # type: ignore[attr-defined]
        return lambda: ctx.sql(SQL).to_arrow_table()
    if engine_name == "polars":
        import polars as pl

        context = pl.SQLContext({t: f.lazy() for t, f in engine.frames.items()})  # type: ignore[attr-defined]
        return lambda: context.execute(SQL).collect()
    conn = engine.session().conn  # type: ignore[attr-defined]
    if engine_name == "chdb":
        return lambda: conn.query(SQL, "ArrowTable")
    if engine_name == "hyper":
        return lambda: conn.execute_list_query(SQL)
    return lambda: conn.execute(SQL).fetchall()


def _timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def child_overhead(engine_name: str, queries: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="dbbench-bench-") as tmp:
        engine = open_engine(url_of(engine_name, Path(tmp)))
        try:
            load_database(engine, 0.01)
            raw = _raw(engine_name, engine)
            session = engine.session()

            def kit() -> Any:
                return session.query(SQL)

            if len(kit().rows) != 5:
                raise SystemExit(f"{engine_name}: the query returned {kit().rows}")
            block = max(1, queries // 10)
            _timed(raw, block), _timed(kit, block)  # warm up both paths
            raw_s: list[float] = []
            kit_s: list[float] = []
            for _ in range(10):
                raw_s += _timed(raw, block)
                kit_s += _timed(kit, block)
            session.close()
        finally:
            engine.close()
    raw_us, kit_us = statistics.median(raw_s) * 1e6, statistics.median(kit_s) * 1e6
    return {"raw_us": raw_us, "kit_us": kit_us, "overhead_us": kit_us - raw_us, "n": len(raw_s)}


# -- the parent: alternate children, print the table -------------------------------------------
def _child(*args: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", *args], capture_output=True, text=True
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"child {' '.join(args)} failed: {' | '.join(tail)}")
    got: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return got


def _versions() -> str:
    from importlib.metadata import version

    packages = ("chdb", "datafusion", "polars", "tableauhyperapi", "duckdb", "tpchgen-cli")
    shown = []
    for name in packages:
        try:
            shown.append(f"{name} {version(name)}")
        except Exception:
            shown.append(f"{name} ?")
    return ", ".join(shown)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--skip-overhead", action="store_true")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, engine_name, *rest = args.child
        if kind == "load":
            got = child_load(engine_name, rest[0], float(rest[1]))
        else:
            got = child_overhead(engine_name, int(rest[0]))
        print(json.dumps(got))
        return 0
    if TPCHGEN is None:
        print("tpchgen-cli is not installed (pip install tpchgen-cli)", file=sys.stderr)
        return 2
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        print(f"unknown engine {unknown[0]!r} (known: {', '.join(ENGINES)})", file=sys.stderr)
        return 2
    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    print(
        f"{platform.platform()}, {os.cpu_count()} CPUs, {mem_gb:.0f} GB, "
        f"Python {platform.python_version()}; {_versions()}",
        flush=True,
    )
    failed = 0
    if not args.skip_load:
        best: dict[str, dict[str, dict[str, float]]] = {}
        totals: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.repeat):
            for engine_name in engines:
                for side in ("dbbench", "peer"):
                    try:
                        got = _child("load", engine_name, side, f"{args.sf:g}")
                    except RuntimeError as exc:
                        print(f"  {engine_name} {side}: {exc}", flush=True)
                        failed += 1
                        continue
                    split = (
                        f" ({got['generate']:.1f} + {got['load']:.1f})" if side == "peer" else ""
                    )
                    print(
                        f"  run: {engine_name:10} {side:7} total {got['total']:.2f} s{split}, "
                        f"peak {got['tree_mb']:.0f} MB ({got['rss_mb']:.0f}), "
                        f"load average {os.getloadavg()[0]:.1f}",
                        flush=True,
                    )
                    totals.setdefault((engine_name, side), []).append(got["total"])
                    mine = best.setdefault(engine_name, {})
                    if side not in mine or got["total"] < mine[side]["total"]:
                        mine[side] = got
        print(
            f"load at SF {args.sf:g}, best of {args.repeat}, load average {os.getloadavg()[0]:.1f}"
        )
        print(
            f"  {'engine':10} {'dbbench s':>9} {'peer s':>7} {'(gen + ingest)':>15} "
            f"{'ratio':>6} {'dbbench MB':>15} {'peer MB':>12}"
        )
        for engine_name, sides in best.items():
            if len(sides) < 2:
                continue
            ours_, peer_ = sides["dbbench"], sides["peer"]
            ratio = ours_["total"] / peer_["total"]
            split = f"{peer_['generate']:.1f} + {peer_['load']:.1f}"
            own = f"{ours_['tree_mb']:.0f} ({ours_['rss_mb']:.0f})"
            other = f"{peer_['tree_mb']:.0f} ({peer_['rss_mb']:.0f})"
            print(
                f"  {engine_name:10} {ours_['total']:9.2f} {peer_['total']:7.2f} {split:>15} "
                f"{ratio:6.2f} {own:>15} {other:>12}"
            )
        print(
            "  (ratio: dbbench / peer, target <= 1.00; memory: peak RSS of the process tree "
            "(of the Python process alone))"
        )
    if not args.skip_overhead:
        print(f"harness overhead per query ({SQL!r}, SF 0.01, medians of {args.queries})")
        for engine_name in engines:
            try:
                got = _child("overhead", engine_name, str(args.queries))
            except RuntimeError as exc:
                print(f"  {engine_name}: {exc}", flush=True)
                failed += 1
                continue
            print(
                f"  {engine_name:10} own API {got['raw_us']:8.1f} us   dbbench session.query "
                f"{got['kit_us']:8.1f} us   overhead {got['overhead_us']:7.1f} us (target < 1000)",
                flush=True,
            )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
