"""The options that shape a benchmark, and the checks of what cannot run at all.

Whether a run is compliant is not decided here: the drivers record facts and
``reports.compliance`` judges them. The spec's stream table is ``reports.model.MIN_STREAMS``.
"""

from __future__ import annotations

from dataclasses import dataclass

from dbbench.dbgen.api import validate_scale
from dbbench.dbgen.errors import DbgenError
from dbbench.drivers.errors import DriversError

#: dbgen's update-set numbering stops matching the spec beyond this set (tpch.md 3.4).
MAX_UPDATE_SET = 1000


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


def check_scale_factor(sf: float) -> None:
    """A scale factor the generator can make (``dbgen.api.validate_scale``'s rule)."""
    try:
        validate_scale(sf)
    except DbgenError as exc:
        raise DriversError(str(exc)) from None


def check_options(options: RunOptions) -> None:
    """Reject what cannot run at all (non-compliant but runnable choices are allowed)."""
    check_scale_factor(options.sf)
    if options.streams < 1:
        raise DriversError(f"--streams must be at least 1, not {options.streams}")
    if options.runs < 1:
        raise DriversError(f"--runs must be at least 1, not {options.runs}")
    if options.query_timeout is not None and options.query_timeout <= 0:
        raise DriversError(f"--query-timeout must be positive, not {options.query_timeout}")
    if options.telemetry_interval is not None and not options.telemetry_interval > 0:
        raise DriversError(
            f"--telemetry-interval must be positive, not {options.telemetry_interval}"
        )
