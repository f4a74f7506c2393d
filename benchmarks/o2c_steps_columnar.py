"""An o2c result's steps in a Parquet file beside its JSON, against the same steps inline.

A long o2c search records every dialog step (5.2 million in the PostgreSQL SF 1 search; 267
MB of JSON, about 51 bytes a step). Since schema version 3 a result of many steps keeps them
in a Parquet file beside the JSON (``O2CResult.write(path, columnar=True)``: integer
microseconds, zstd), the JSON only the probes' heads. This script builds one synthetic
result (one probe of ``--steps`` steps, as ``o2c_result_io.py`` does), then times, for both
layouts side by side: the write, the read back (``O2CResult.read``: JSON and, columnar,
the steps file hashed and split), the summary of the probe (``summarize``: every metric of
the report), and the size of the files. The columnar read is checked to give the very
steps written; the ratios are columnar / inline.

Targets (issue 38): 5 million steps written in under 10 s, read back and summarised in
under 5 s, the files at most a quarter of the inline JSON's size.

Run: ``python benchmarks/o2c_steps_columnar.py [--steps 5000000]`` (once: a run of both
layouts at 5 million steps takes about a minute and a few GB of memory).
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

from o2c_result_io import synthetic

from dbbench.reports.o2c.metrics import summarize
from dbbench.reports.o2c.model import O2CResult


def measure(result: O2CResult, folder: Path, columnar: bool) -> dict[str, float]:
    """Write, read back, summarise: wall and CPU seconds of each, the bytes of the files."""
    folder.mkdir()
    path = folder / "result.json"
    got: dict[str, float] = {}

    def timed(name: str, begin: tuple[float, float]) -> None:
        got[name] = time.perf_counter() - begin[0]
        got[name + "_cpu"] = time.process_time() - begin[1]

    begin = (time.perf_counter(), time.process_time())
    result.write(path, columnar=columnar)
    timed("write", begin)
    got["bytes"] = float(sum(f.stat().st_size for f in folder.iterdir()))
    begin = (time.perf_counter(), time.process_time())
    again = O2CResult.read(path)
    timed("read", begin)
    begin = (time.perf_counter(), time.process_time())
    summary = summarize(again.probes[0], again.rt_limit)
    timed("summary", begin)
    if again.probes[0].steps != result.probes[0].steps:
        raise SystemExit(f"the {'columnar' if columnar else 'inline'} read changed the steps")
    if summary.steps == 0:
        raise SystemExit("the summary measured no step")
    return got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5_000_000)
    args = ap.parse_args()
    begin = time.perf_counter()
    result = synthetic(args.steps)
    print(f"o2c result of {args.steps:,} steps built in {time.perf_counter() - begin:.1f} s")
    with tempfile.TemporaryDirectory() as scratch:
        got = {
            "columnar": measure(result, Path(scratch) / "columnar", columnar=True),
            "inline": measure(result, Path(scratch) / "inline", columnar=False),
        }
    print(
        f"{platform.python_version()}, {os.cpu_count()} CPUs, once, "
        f"load average {os.getloadavg()[0]:.1f}; seconds wall (CPU)"
    )
    print(f"  {'':9} {'write':>13} {'read':>13} {'summary':>13} {'read+summary':>13} files")
    for label, g in got.items():
        cells = [(g[k], g[k + "_cpu"]) for k in ("write", "read", "summary")]
        cells.append((g["read"] + g["summary"], g["read_cpu"] + g["summary_cpu"]))
        shown = " ".join(f"{w:6.2f} ({c:5.2f})" for w, c in cells)
        per_step = g["bytes"] / args.steps
        print(f"  {label:9} {shown} {g['bytes'] / 1e6:.1f} MB ({per_step:.1f} B/step)")
    c, i = got["columnar"], got["inline"]
    both = (c["read"] + c["summary"]) / (i["read"] + i["summary"])
    print(
        f"  columnar / inline (wall): write {c['write'] / i['write']:.2f}, "
        f"read {c['read'] / i['read']:.2f}, read+summary {both:.2f}, "
        f"size {c['bytes'] / i['bytes']:.3f}"
    )
    met = {True: "met", False: "MISSED"}
    print(
        f"  targets: write < 10 s {met[c['write'] < 10]}; read+summary < 5 s "
        f"{met[c['read'] + c['summary'] < 5]}; size <= 1/4 {met[c['bytes'] <= i['bytes'] / 4]}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
