"""The run rules that shape a benchmark: streams per scale factor and compliance reasons.

Pure functions only, so the rules of TPC-H clauses 4.1.3 and 5.3.4 are tested on their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from dbbench.drivers.errors import DriversError
from dbbench.queries.params import MAX_SEED, check_seed

#: Official scale factors (clause 4.1.3) with the minimum throughput streams (Table 11).
MIN_STREAMS: dict[float, int] = {
    1: 2,
    10: 3,
    30: 4,
    100: 5,
    300: 6,
    1000: 7,
    3000: 8,
    10000: 9,
    30000: 10,
    100000: 11,
}

#: Below SF 1 the spec has no rule; SF 1's two streams keep small runs shaped like real ones.
SMALL_SF_STREAMS = 2

#: dbgen's update-set numbering stops matching the spec beyond this set (tpch.md 3.4).
MAX_UPDATE_SET = 1000
#: A query timeout beyond this (a year, in seconds) is no timeout: threading refuses it.
MAX_QUERY_TIMEOUT = 365 * 24 * 3600.0


@dataclass(frozen=True)
class RunOptions:
    """What the user chose for a benchmark; built once by the CLI and passed down."""

    sf: float
    streams: int
    runs: int = 2
    seed: int | None = None  # fixed seed0 for every run; None: from the end-of-load time
    query_timeout: float | None = None  # seconds; None: no limit
    jobs: int | None = None  # load parallelism; None: the loader's choice


def check_scale_factor(sf: float) -> None:
    if not sf > 0 or sf != sf or sf == float("inf"):
        raise DriversError(f"scale factor must be a positive number, not {sf}")


def min_streams(sf: float) -> int:
    """The spec's minimum S for ``sf``; between official SFs, the lower neighbour's rule."""
    check_scale_factor(sf)
    best = SMALL_SF_STREAMS
    for official, streams in MIN_STREAMS.items():
        if sf >= official:
            best = streams
    return best


def check_options(options: RunOptions) -> None:
    """Reject what cannot run at all (non-compliant but runnable choices are allowed)."""
    check_scale_factor(options.sf)
    if options.streams < 1:
        raise DriversError(f"--streams must be at least 1, not {options.streams}")
    if options.runs < 1:
        raise DriversError(f"--runs must be at least 1, not {options.runs}")
    timeout = options.query_timeout
    if timeout is not None and not (0 < timeout < MAX_QUERY_TIMEOUT):
        raise DriversError(
            f"--query-timeout must be positive and finite (seconds), not {timeout:g}"
        )
    if options.jobs is not None and options.jobs < 1:
        raise DriversError(f"--jobs must be at least 1, not {options.jobs}")
    needed = options.runs * (options.streams + 1)
    if needed > MAX_UPDATE_SET:
        raise DriversError(
            f"--runs {options.runs} with --streams {options.streams} need {needed} update "
            f"sets; dbgen defines {MAX_UPDATE_SET}"
        )
    if options.seed is not None:
        last = options.seed + options.streams
        if not 1 <= options.seed <= last <= MAX_SEED:
            raise DriversError(
                f"--seed {options.seed}: the seeds of the {options.streams + 1} streams "
                f"(seed, seed+1, ... seed+{options.streams}) must lie in 1..{MAX_SEED}"
            )
        for seed in range(options.seed, last + 1):
            check_seed(seed)  # 0 mod 2**31-1: qgen would hang


def setup_reasons(options: RunOptions) -> list[str]:
    """Why a benchmark with these options cannot be compliant, before it even starts."""
    reasons: list[str] = []
    if options.sf not in MIN_STREAMS:
        official = ", ".join(f"{k:g}" for k in MIN_STREAMS)
        reasons.append(f"scale factor {options.sf:g} is not an official one ({official})")
    minimum = min_streams(options.sf)
    if options.streams < minimum:
        reasons.append(
            f"{options.streams} throughput streams, fewer than the minimum {minimum} "
            f"for SF {options.sf:g}"
        )
    if options.runs != 2:
        reasons.append(f"{options.runs} performance run(s); the spec requires exactly 2")
    return reasons
