"""The measuring loop the load benchmarks share: alternate the contenders, keep each one's
best run, print every phase and the ratio of the totals.

Alternating (dbbench, peer, dbbench, peer, ...) rather than running each in a block keeps a
change in machine load from favouring one side.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable

#: One run of a contender: seconds per phase, with the whole under "total".
Timings = dict[str, float]
#: Every total measured, per contender (for the spread).
TOTALS: dict[str, list[float]] = {}


def best_of(repeat: int, contenders: dict[str, Callable[[], Timings]]) -> dict[str, Timings]:
    """Run each contender ``repeat`` times, alternating; the fastest total of each wins."""
    best: dict[str, Timings] = {}
    for _ in range(repeat):
        for label, run in contenders.items():
            got = run()
            print(f"  run: {label:8} total {got['total']:.2f} s", flush=True)
            TOTALS.setdefault(label, []).append(got["total"])
            if label not in best or got["total"] < best[label]["total"]:
                best[label] = got
    return best


def spread(label: str, best: Timings) -> float:
    """How far a contender's slowest total was above its fastest, in percent."""
    totals = TOTALS.get(label, [best["total"]])
    return (max(totals) - min(totals)) / min(totals) * 100


def print_ratio(sf: float, repeat: int, best: dict[str, Timings], target: float) -> None:
    """The report both load benchmarks print; the ratio is dbbench's total over the peer's."""
    print(
        f"SF {sf:g}, {os.cpu_count()} CPUs, best of {repeat}, load average {os.getloadavg()[0]:.1f}"
    )
    for label, got in best.items():
        parts = ", ".join(f"{k} {v:.2f} s" for k, v in got.items())
        print(f"  {label:8} {parts} (spread {spread(label, got):.0f} %)")
    ratio = best["dbbench"]["total"] / best["peer"]["total"]
    print(f"  dbbench / peer = {ratio:.2f} (target <= {target:.2f})")


def alternate_pairs(
    pairs: int, first: Callable[[], Timings], second: Callable[[], Timings]
) -> list[tuple[Timings, Timings]]:
    """``pairs`` pairs of runs, the order swapped from one pair to the next (A B, B A,
    A B, ...), so that a drift in the machine's load falls on both sides alike; each
    pair's (first, second) timings, with the 1-minute load average when each run ended
    under ``"load"``."""
    done: list[tuple[Timings, Timings]] = []
    for i in range(pairs):
        sides = [(0, first), (1, second)]
        got: dict[int, Timings] = {}
        for side, run in sides if i % 2 == 0 else sides[::-1]:
            got[side] = run() | {"load": os.getloadavg()[0]}
        done.append((got[0], got[1]))
    return done


def median_and_spread(values: list[float], fmt: str = "{:.4f}") -> str:
    """``median m (min..max)`` of ratios or shares, for the line that reports them."""
    shown = [fmt.format(v) for v in (statistics.median(values), min(values), max(values))]
    return f"median {shown[0]} ({shown[1]}..{shown[2]})"
