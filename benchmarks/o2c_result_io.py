"""Writing and reading a large o2c result: the kit's writer next to ``dataclasses.asdict``.

A long o2c search keeps every dialog step (millions, in columns of plain numbers). The kit
writes a result through ``model.plain``, which copies each step column as a whole list; the
peer is the same compact JSON made through ``dataclasses.asdict``, which copies the columns
one element at a time. Both sides make the same text (checked), alternating, best of
``--repeat``; the read of the written file and the summary of its probe are timed too.

Run: ``python benchmarks/o2c_result_io.py [--steps 1000000] [--repeat 3]``. The result is
synthetic (12,800 users, steps of a 900-s window rounded to the microsecond as the
simulator records them); nothing touches a database.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np
from _sidebyside import Timings, best_of, spread

from dbbench.reports.model import EngineInfo, SystemInfo
from dbbench.reports.o2c.metrics import summarize
from dbbench.reports.o2c.model import O2CProbe, O2CResult, O2CSteps


def synthetic(steps: int, seed: int = 1) -> O2CResult:
    """One complete probe of ``steps`` dialog steps, as the simulator would record them."""
    rng = np.random.default_rng(seed)
    columns = O2CSteps(
        step=rng.integers(1, 16, steps).tolist(),
        user=rng.integers(0, 12_800, steps).tolist(),
        due=np.round(np.sort(rng.random(steps) * 1_050.0), 6).tolist(),
        wait=np.round(rng.random(steps) * 0.01, 6).tolist(),
        db=np.round(rng.random(steps) * 0.01, 6).tolist(),
        ok=[1] * steps,
    )
    probe = O2CProbe(
        users=12_800, think=10.0, think_dist="fixed", work_processes=4, rampup=150.0,
        start=0.0, window_start=150.0, window_end=1_050.0, end=1_060.0, status="complete",
        logged_on=12_800, steps=columns,
    )  # fmt: skip
    engine = EngineInfo("postgresql", "postgresql://127.0.0.1/tpch")
    return O2CResult(
        "search", 1.0, 1, 1.0, engine=engine, system=SystemInfo(), kit_version="0", probes=[probe]
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    result = synthetic(args.steps)
    kit = result.to_json()
    peer_doc = dataclasses.asdict(result)
    peer_doc["status"] = result.to_dict()["status"]  # the family's own status, as to_dict
    if json.dumps(peer_doc, separators=(",", ":")) != kit:
        raise SystemExit("the kit's writer and asdict made different text")
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "result.json"

        def kit_write() -> Timings:
            begin = time.perf_counter()
            result.write(path)
            return {"total": time.perf_counter() - begin}

        def peer_write() -> Timings:
            begin = time.perf_counter()
            doc = dataclasses.asdict(result)
            path.write_text(json.dumps(doc, separators=(",", ":")))
            return {"total": time.perf_counter() - begin}

        print(f"o2c result of {args.steps:,} steps; {platform.python_version()}")
        best = best_of(args.repeat, {"dbbench": kit_write, "peer": peer_write})
        result.write(path)
        size = path.stat().st_size
        begin = time.perf_counter()
        again = O2CResult.read(path)
        read = time.perf_counter() - begin
        begin = time.perf_counter()
        summarize(again.probes[0], again.rt_limit)
        summary = time.perf_counter() - begin
    print(f"{os.cpu_count()} CPUs, best of {args.repeat}, load average {os.getloadavg()[0]:.1f}")
    for label, got in best.items():
        print(f"  write {label:8} {got['total']:.2f} s (spread {spread(label, got):.0f} %)")
    print(f"  dbbench / peer = {best['dbbench']['total'] / best['peer']['total']:.2f}")
    print(
        f"  file {size / 1e6:.0f} MB ({size / args.steps:.0f} bytes a step); read {read:.2f} s, "
        f"its probe's summary {summary:.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
