"""``dbbench gen`` against ``tpchgen-cli`` (the Rust generator), side by side.

Both write the same bytes (.tbl) or the same values (Parquet, Snappy, the defaults of both),
so time is the only difference worth measuring: wall time, and the CPU time (user + system)
of the whole process tree, read from ``getrusage(RUSAGE_CHILDREN)`` around each run. Runs
alternate (dbbench, tpchgen,
dbbench, ...) so that a busy neighbour on the machine hurts both alike; each run writes to
the same scratch directory (same disk), whose output is removed before the next run; the
best of ``--repeat`` runs is kept, with the spread shown.

Then the peak resident memory of one ``dbbench gen`` process (the largest of the parent and
its workers, read with ``getrusage(RUSAGE_CHILDREN)`` in a fresh child so that nothing else
is counted) at two scale factors: it must not grow with SF, because every process holds
one generator batch (and the parent one Parquet row group) at a time. SF1 against all of
SF10 by default (about a minute and a half on 2 cores); ``--rss 1,10:4`` would measure SF10
restricted to ``--parts 4 --part 1`` where time is short.

Run: ``python benchmarks/gen_vs_tpchgen.py [--sf 1] [--repeat 3] [--rss 1,10] [--scratch DIR]
[--peer-row-group-bytes 17MiB]`` (the last gives both Parquet writers row groups of about
the same size; without it each uses its own default).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BIN = Path(sys.executable).parent
DBBENCH = str(BIN / "dbbench")
TPCHGEN = shutil.which("tpchgen-cli", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")

#: Runs a command and prints the largest RSS (KiB) of any process in its tree: the ru_maxrss
#: of RUSAGE_CHILDREN covers every descendant that has been waited for.
_RSS_PROBE = (
    "import resource, subprocess, sys\n"
    "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
    "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


@dataclass
class Timing:
    label: str
    seconds: list[float]
    nbytes: int
    cpu: list[float] = field(default_factory=list)

    @property
    def best(self) -> float:
        return min(self.seconds)

    @property
    def best_cpu(self) -> float:
        return min(self.cpu)

    def line(self) -> str:
        spread = (max(self.seconds) - self.best) / self.best * 100 if self.best else 0.0
        rate = self.nbytes / 1e6 / self.best if self.best else 0.0
        return (
            f"  {self.label:<9} best {self.best:7.2f} s  of {len(self.seconds)} "
            f"(spread {spread:4.0f} %)  CPU {self.best_cpu:7.2f} s  "
            f"{self.nbytes / 1e6:8.1f} MB  {rate:7.1f} MB/s"
        )


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(cmd: list[str], out: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the command's whole process tree, bytes written)."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    cpu0 = _children_cpu()
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    cpu = _children_cpu() - cpu0
    nbytes = _dir_bytes(out)
    shutil.rmtree(out)
    return seconds, cpu, nbytes


def compare(
    fmt: str, sf: str, repeat: int, scratch: Path, peer_parquet: list[str]
) -> tuple[Timing, Timing]:
    """Alternate the two generators ``repeat`` times each; keep every wall time."""
    assert TPCHGEN is not None
    ours = Timing("dbbench", [], 0)
    theirs = Timing("tpchgen", [], 0)
    mine = [DBBENCH, "gen", "-s", sf, "--format", fmt, "-q", "-f", "-o", str(scratch / "d")]
    peer = [TPCHGEN, *([] if fmt == "tbl" else [fmt]), "-s", sf, "--overwrite"]
    peer += ["--no-progress", "-o", str(scratch / "t")]
    if fmt == "parquet":
        peer += peer_parquet
    for _ in range(repeat):
        seconds, cpu, ours.nbytes = _timed(mine, scratch / "d")
        ours.seconds.append(seconds)
        ours.cpu.append(cpu)
        seconds, cpu, theirs.nbytes = _timed(peer, scratch / "t")
        theirs.seconds.append(seconds)
        theirs.cpu.append(cpu)
    return ours, theirs


def peak_rss_mib(sf: str, parts: int | None, scratch: Path) -> tuple[float, float]:
    """(peak RSS of the largest process in MiB, wall seconds) of one ``dbbench gen``."""
    out = scratch / "rss"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [DBBENCH, "gen", "-s", sf, "-q", "-o", str(out)]
    if parts:
        cmd += ["--parts", str(parts), "--part", "1"]
    start = time.perf_counter()
    probe = subprocess.run(
        [sys.executable, "-c", _RSS_PROBE, *cmd], check=True, capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    shutil.rmtree(out, ignore_errors=True)
    rc, kib = probe.stdout.split()
    if rc != "0":
        raise SystemExit(f"dbbench gen -s {sf} failed with exit code {rc}")
    return int(kib) / 1024, seconds


def _parse_rss(spec: str) -> list[tuple[str, int | None]]:
    """``1,10:4`` -> [("1", None), ("10", 4)]: SF, and optionally part 1 of that many."""
    runs: list[tuple[str, int | None]] = []
    for item in spec.split(","):
        sf, _, parts = item.partition(":")
        runs.append((sf, int(parts) if parts else None))
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sf", default="1", help="scale factor of the timed runs")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each tool per format")
    parser.add_argument("--formats", default="tbl,parquet")
    parser.add_argument(
        "--rss", default="1,10", help="SF[:N] list for the memory check ('' to skip)"
    )
    parser.add_argument("--scratch", type=Path, default=None, help="output disk (a temp dir)")
    parser.add_argument(
        "--peer-row-group-bytes",
        default=None,
        help="tpchgen-cli's Parquet row-group size (its default: 7MiB); dbbench's row groups "
        "are one per work unit, about 17.5 MiB of LINEITEM: 17MiB compares like with like",
    )
    args = parser.parse_args()
    peer_parquet = []
    if args.peer_row_group_bytes:
        peer_parquet = [f"--row-group-bytes={args.peer_row_group_bytes}"]
    if TPCHGEN is None:
        print("tpchgen-cli not found: pip install tpchgen-cli", file=sys.stderr)
        return 1
    scratch = Path(tempfile.mkdtemp(prefix="dbbench-gen-bench-", dir=args.scratch))
    version = subprocess.run([TPCHGEN, "--version"], capture_output=True, text=True).stdout
    print(f"# gen_vs_tpchgen: SF {args.sf}, best of {args.repeat}, alternating runs")
    print(f"# load average at the start: {os.getloadavg()[0]:.1f}")
    print(f"# {platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"# peer: {version.strip()}; dbbench and the peer use all cores; scratch {scratch}")
    try:
        for fmt in args.formats.split(","):
            ours, theirs = compare(fmt, args.sf, args.repeat, scratch, peer_parquet)
            print(f"{fmt}:")
            print(ours.line())
            print(theirs.line())
            print(
                f"  ratio dbbench/tpchgen: {ours.best / theirs.best:.2f}x the wall time, "
                f"{ours.best_cpu / theirs.best_cpu:.2f}x the CPU time"
            )
        if args.rss:
            print("peak RSS of the largest dbbench process:")
        for sf, parts in _parse_rss(args.rss) if args.rss else []:
            mib, seconds = peak_rss_mib(sf, parts, scratch)
            what = f"SF {sf}" + (f" --parts {parts} --part 1" if parts else " (all)")
            print(f"  {what:<28} {mib:8.0f} MiB   ({seconds:.1f} s)")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
