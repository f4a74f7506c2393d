"""Where the time of a DuckDB generate+load goes, phase by phase, in CPU and wall seconds.

The load path of ``dbbench load -e duckdb:///file`` taken apart at SF ``--sf``, each phase on
its own in this one process, so that its cost is not hidden by the overlap of the real load:

* ``generate``: every batch of the eight tables from ``dbgen.api`` (numpy), kept in memory;
* ``hand-over``: what passing a batch from a worker process to the loading thread adds: now
  an IPC file in shared memory, memory-mapped back; formerly Arrow IPC bytes pickled through
  a queue (serialisation, ``to_pybytes``, pickling, unpickling; the pipe itself, which cost
  as much again, is not counted);
* ``append``: the in-memory batches inserted into a fresh DuckDB file, as the engine does it
  (streaming ``INSERT ... SELECT`` from a record-batch reader, ``--connections`` of them on
  the large tables), then ``checkpoint``;
* ``append, uncompressed``: the same with ``force_compression='uncompressed'``: the
  difference is what DuckDB's compression costs;
* ``append, in memory``: into an in-memory database (no disk, no checkpoint);
* ``peer load``: ``CREATE TABLE AS SELECT * FROM read_parquet`` of ``tpchgen-cli parquet``
  files, then a checkpoint (the peer's load step; its generation is timed separately).

CPU seconds are the process's user+system time (all threads; children for tpchgen-cli): on
a shared machine they move much less than wall seconds. Memory: SF1 holds all of the data
(about 1.5 GB of Arrow) at once.

Run: ``python benchmarks/profile_duckdb_load.py [--sf 1] [--connections 2]``.
"""

from __future__ import annotations

import argparse
import os
import pickle
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import duckdb
import pyarrow as pa

from dbbench.dbgen import api
from dbbench.dbgen.schema import TABLES
from dbbench.dbgen.spool import spool_root
from dbbench.drivers import ddl
from dbbench.drivers.engines.duckdb import DDL
from dbbench.drivers.loader import SPOOL_MIN_BYTES, _take_batch

BIN = Path(sys.executable).parent
TPCHGEN = shutil.which("tpchgen-cli", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
BIG = ("lineitem", "orders", "partsupp", "part", "customer")


def _cpu(who: int = resource.RUSAGE_SELF) -> tuple[float, float]:
    r = resource.getrusage(who)
    return r.ru_utime, r.ru_stime


def timed(label: str, fn: Callable[[], object], who: int = resource.RUSAGE_SELF) -> object:
    wall0, cpu0 = time.perf_counter(), _cpu(who)
    out = fn()
    cpu1 = _cpu(who)
    user, system = cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]
    wall = time.perf_counter() - wall0
    print(
        f"  {label:<36} wall {wall:6.2f} s  cpu {user + system:6.2f} s (sys {system:5.2f})",
        flush=True,
    )
    return out


def generate(sf: float) -> dict[str, list[pa.RecordBatch]]:
    return {t: list(api.table_batches(t, sf)) for t in TABLES}


def generate_timed(sf: float) -> dict[str, list[pa.RecordBatch]]:
    out: dict[str, list[pa.RecordBatch]] = {}
    timed("generate (numpy, 1 thread)", lambda: out.update(generate(sf)))
    return out


def hand_over_pipe(data: dict[str, list[pa.RecordBatch]]) -> int:
    """The former hand-over: IPC bytes pickled through a queue (the pipe not counted)."""
    n = 0
    for table, batches in data.items():
        schema = TABLES[table].arrow_schema
        for batch in batches:
            wire = pickle.dumps(batch.serialize().to_pybytes(), protocol=pickle.HIGHEST_PROTOCOL)
            back = pa.ipc.read_record_batch(pa.py_buffer(pickle.loads(wire)), schema)
            n += back.num_rows
    return n


def hand_over_spool(data: dict[str, list[pa.RecordBatch]], spool: str) -> int:
    """The loader's hand-over: an IPC file per batch in shared memory, memory-mapped back
    and unlinked (what the worker and the loading thread do, both ends in one process)."""
    n = 0
    for table, batches in data.items():
        for i, batch in enumerate(batches):
            path = os.path.join(spool, f"{table}-{i}.arrow")
            with pa.OSFile(path, "wb") as sink, pa.ipc.new_stream(sink, batch.schema) as ipc:
                ipc.write_batch(batch)
            back = _take_batch(path, TABLES[table].arrow_schema)
            n += back.num_rows
    return n


def _stream(batches: list[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    lock = threading.Lock()
    it = iter(batches)
    while True:
        with lock:
            batch = next(it, None)
        if batch is None:
            return
        yield batch


def append(
    con: duckdb.DuckDBPyConnection, data: dict[str, list[pa.RecordBatch]], conns: int
) -> None:
    """The eight tables as the DuckDB engine loads them: ``conns`` streaming inserts on the
    large tables, pulling from one shared stream."""
    for table in TABLES:
        con.execute(ddl.create_table(table, DDL, keys=False))
    for table, batches in data.items():
        shared = _stream(batches)
        n = conns if table in BIG else 1
        with ThreadPoolExecutor(n) as pool:
            list(pool.map(partial(_insert, con, table, shared), range(n)))


def _insert(
    con: duckdb.DuckDBPyConnection, table: str, shared: Iterator[pa.RecordBatch], _: int
) -> None:
    cur = con.cursor()
    reader = pa.RecordBatchReader.from_batches(TABLES[table].arrow_schema, shared)
    cur.register("src", reader)
    cur.execute(f"INSERT INTO {table} SELECT * FROM src")
    cur.close()


def _append_phases(conns: int, data: dict[str, list[pa.RecordBatch]], scratch: Path) -> None:
    for label, path, settings in (
        ("append", str(scratch / "a.duckdb"), {}),
        ("append, uncompressed", str(scratch / "u.duckdb"), {"force_compression": "uncompressed"}),
        ("append, in memory", ":memory:", {}),
    ):
        con = duckdb.connect(path)
        for key, value in settings.items():
            con.execute(f"SET {key} = '{value}'")
        timed(f"{label} ({conns} conn.)", partial(append, con, data, conns))
        if path != ":memory:":
            timed(f"{label}: checkpoint", partial(con.execute, "CHECKPOINT"))
        con.close()
        if path != ":memory:":
            print(f"    file {os.path.getsize(path) / 1e6:.0f} MB")
            os.unlink(path)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--connections", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    parser.add_argument("--skip-peer", action="store_true")
    args = parser.parse_args(argv)
    print(f"# SF {args.sf:g}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"# duckdb {duckdb.__version__}, pyarrow {pa.__version__}")
    scratch = Path(tempfile.mkdtemp(prefix="dbbench-profile-"))
    try:
        for _ in api.table_batches("region", args.sf):  # text pool built or mapped
            pass
        data = generate_timed(args.sf)
        timed("hand-over, former (IPC + pickle)", partial(hand_over_pipe, data))
        spool = tempfile.mkdtemp(prefix="dbbench-profile-", dir=spool_root(SPOOL_MIN_BYTES))
        try:
            timed("hand-over (spool file, mmap)", partial(hand_over_spool, data, spool))
        finally:
            shutil.rmtree(spool, ignore_errors=True)
        _append_phases(args.connections, data, scratch)
        del data
        if TPCHGEN and not args.skip_peer:
            folder = scratch / "parquet"
            cmd = [TPCHGEN, "parquet", "-s", f"{args.sf:g}", "-o", str(folder), "--quiet"]
            timed(
                "peer generate (tpchgen-cli parquet)",
                lambda: subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL),
                resource.RUSAGE_CHILDREN,
            )
            con = duckdb.connect(str(scratch / "p.duckdb"))

            def ctas() -> None:
                for t in TABLES:
                    src = folder / f"{t}.parquet"
                    con.execute(f"CREATE TABLE {t} AS SELECT * FROM read_parquet('{src}')")

            timed("peer load (read_parquet CTAS)", ctas)
            timed("peer load: checkpoint", lambda: con.execute("CHECKPOINT"))
            con.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
