"""The options that shape a benchmark, and the checks of what cannot run at all.

Whether a run is compliant is not decided here: the drivers record facts and
``reports.tpch.compliance`` judges them. The spec's stream table is
``reports.tpch.model.MIN_STREAMS``.
"""

from __future__ import annotations

from dataclasses import dataclass

from dbbench.dbgen.api import validate_scale
from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.scale import MAX_UPDATE_SET
from dbbench.drivers.errors import DriversError
from dbbench.queries.params import MAX_SEED, check_seed
from dbbench.reports.tpch.model import PlanMode

#: ``--plans`` choices
PLAN_MODES: tuple[PlanMode, ...] = ("off", "explain", "analyze")

#: A query timeout beyond this (a year, in seconds) is no timeout: threading refuses it.
MAX_QUERY_TIMEOUT = 365 * 24 * 3600.0
#: The most passes of the 22 queries a study may ask for (``--repetitions 1000000000`` ran
#: until killed): as many as the update sets dbgen defines.
MAX_REPETITIONS = MAX_UPDATE_SET


@dataclass(frozen=True)
class RunOptions:
    """What the user chose for a benchmark; built once by the CLI and passed down."""

    sf: float
    streams: int
    runs: int = 2
    seed: int | None = None  # fixed seed0 for every run; None: from the end-of-load time
    query_timeout: float | None = None  # seconds; None: no limit
    jobs: int | None = None  # load parallelism; None: the loader's choice
    telemetry_interval: float | None = 1.0  # seconds between resource samples; None: off
    #: each query's plan after the measured work: EXPLAIN, an executed plan (an extra
    #: untimed pass), or none (``sequencer.plans``)
    plans: PlanMode = "explain"
    #: a study's passes of the 22 queries after the performance runs (``sequencer.passes``):
    #: ``repetitions`` hot ones, and as many cold ones before them with ``cold``
    repetitions: int = 0
    cold: bool = False
    #: keep every query's output beside the result (``sequencer.answers``)
    answers: bool = True
    #: load into a database that holds tables dbbench did not create (``--force``)
    load_beside: bool = False


def check_scale_factor(sf: float) -> None:
    """A scale factor the generator can make (``dbgen.api.validate_scale``'s rule)."""
    try:
        validate_scale(sf)
    except DbgenError as exc:
        raise DriversError(str(exc)) from None


def check_options(options: RunOptions, *, scale_factor: bool = True) -> None:
    """Reject what cannot run at all (non-compliant but runnable choices are allowed).

    Every command and study calls it for each benchmark it will run before it writes or
    opens anything (a suite's entries, a scaling study's steps, a mixed grid's stream
    counts). ``scale_factor=False``: the scale factor is not known yet (a mixed run reads
    it from the database) and is checked later."""
    if scale_factor:
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
        given = f"--runs {options.runs} with " if options.runs > 1 else ""
        raise DriversError(
            f"{given}--streams {options.streams} need{'s' if not given else ''} {needed} "
            f"update sets; dbgen defines {MAX_UPDATE_SET}"
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
    if options.repetitions < 0 or (options.cold and options.repetitions < 1):
        raise DriversError(
            f"--repetitions must be at least {1 if options.cold else 0} "
            f"{'with --cold ' if options.cold else ''}(the passes of the 22 queries), "
            f"not {options.repetitions}"
        )
    if options.repetitions > MAX_REPETITIONS:
        raise DriversError(
            f"--repetitions {options.repetitions}: at most {MAX_REPETITIONS} passes of the "
            "22 queries"
        )
    if options.plans not in PLAN_MODES:
        raise DriversError(f"--plans must be one of {', '.join(PLAN_MODES)}, not {options.plans}")
    if options.telemetry_interval is not None and not options.telemetry_interval > 0:
        raise DriversError(
            f"--telemetry-interval must be positive, not {options.telemetry_interval}"
        )
