"""Preflight: is each engine configured to measure itself, or the disk?

A comparison is only as fair as each engine's configuration. From the settings dbbench
already captures (:class:`reports.model.EngineInfo`) and the database's size (measured, or
estimated from the scale factor), one warning line per setting that keeps the working set
off memory: MariaDB's ``innodb_buffer_pool_size`` (128 MiB by default) or PostgreSQL's
``shared_buffers`` (128 MB) against a 1.4 GiB SF 1 database, DuckDB's ``memory_limit`` below
it. Pure: the same lines are printed before a run and listed in its report.
"""

from __future__ import annotations

import re

from dbbench.reports.model import BenchmarkResult, EngineInfo

GIB = 1 << 30
#: Bytes on disk per unit of scale factor, measured at SF 1 here (tables and keys).
ROW_STORE_PER_SF = int(1.4 * GIB)
DUCKDB_PER_SF = int(0.3 * GIB)  # compressed columns

_UNITS = {
    "": 1,
    "b": 1,
    "k": 1 << 10,
    "kb": 1 << 10,
    "kib": 1 << 10,
    "m": 1 << 20,
    "mb": 1 << 20,
    "mib": 1 << 20,
    "g": 1 << 30,
    "gb": 1 << 30,
    "gib": 1 << 30,
    "t": 1 << 40,
    "tb": 1 << 40,
    "tib": 1 << 40,
}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$")


def size_bytes(text: str | None) -> int | None:
    """``128MB``, ``18.8 GiB``, ``134217728``, ``8kB`` as bytes (1024-based, as engines
    mean them); None when it is not a size."""
    if text is None:
        return None
    m = _SIZE.match(text)
    if not m or m.group(2).lower() not in _UNITS:
        return None
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def _gib(n: int) -> str:
    return f"{n / GIB:.2f} GiB" if n >= GIB else f"{n / (1 << 20):.0f} MiB"


def database_bytes(engine: EngineInfo, sf: float) -> tuple[int, str]:
    """The database's size and whether it was measured or estimated: the measured size when
    it is the larger (a database still empty, or loaded at a smaller SF, is not the one the
    run will read)."""
    per_sf = DUCKDB_PER_SF if engine.name == "duckdb" else ROW_STORE_PER_SF
    estimate = int(per_sf * sf)
    if engine.storage_bytes and engine.storage_bytes >= estimate:
        return engine.storage_bytes, "measured"
    return estimate, "estimated"


def preflight(engine: EngineInfo, sf: float, memory_bytes: int | None = None) -> list[str]:
    """One line per setting that keeps the working set off memory."""
    size, how = database_bytes(engine, sf)
    db = f"the {_gib(size)} database ({how}, SF {sf:g})"
    s = engine.settings
    out: list[str] = []
    name = engine.name
    if name in ("mysql", "mariadb") or "innodb_buffer_pool_size" in s:
        pool = size_bytes(s.get("innodb_buffer_pool_size"))
        if pool is not None and pool < size:
            out.append(
                f"{name}: innodb_buffer_pool_size {_gib(pool)} is smaller than {db}: InnoDB "
                "will read from disk; give it the database plus room (e.g. 50-75 % of RAM)"
            )
    if name == "postgresql":
        shared = size_bytes(s.get("shared_buffers"))
        quarter = memory_bytes // 4 if memory_bytes else None
        if shared is not None and shared < size and (quarter is None or shared < quarter):
            out.append(
                f"postgresql: shared_buffers {_gib(shared)} is smaller than {db}: it leans on "
                "the OS cache; a fair setting is about 25 % of RAM"
            )
        work = size_bytes(s.get("work_mem"))
        if work is not None and sf >= 1 and work < 64 << 20:
            out.append(
                f"postgresql: work_mem {_gib(work)} makes sorts and hashes of SF {sf:g} spill "
                "to disk; 64 MB or more per query stream is usual for TPC-H"
            )
    if name == "duckdb":
        limit = size_bytes(s.get("memory_limit"))
        if limit is not None and limit < size:
            out.append(
                f"duckdb: memory_limit {_gib(limit)} is smaller than {db}: DuckDB will spill "
                "to its temp directory"
            )
    return out


def preflight_result(result: BenchmarkResult) -> list[str]:
    """The preflight lines of a saved result (the report's disclosure of them)."""
    return preflight(result.engine, result.scale_factor, result.system.memory_bytes)
