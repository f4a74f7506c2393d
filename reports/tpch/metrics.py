"""The spec's metrics as pure functions (TPC-H 2.17.3 clauses 5.3.7, 5.4, 8.3.7, 8.4.4).

Nothing here reads a file or a result: callers pass numbers in and get the numbers the spec
reports back, already rounded the way the spec reports them. Keeping the formulas free of I/O
lets the tests check them against hand-worked numbers and a published result.

Choices where the spec is silent (each one documented in docs/metrics.md):

* Power@Size uses the *reported* intervals (0.1 s, halves up, at least 0.1 s). The spec says
  the small-query cap value is "treated as a timing interval as specified in 5.3.7.5", which
  implies the rounded values feed the metric.
* Throughput@Size uses the raw measurement interval Ts; Ts is *reported* to 1 s. Rounding Ts
  first would make a sub-second throughput test undefined.
* Storage ratio: priced durable storage in GiB (2**30 bytes) over SF, rounded half up to
  0.01. Decimal disk capacities ("146 GB" = 146e9 bytes) are converted to GiB first. This is
  the convention that reproduces the published 76.82 of the Sun Fire X4600 M2 @ 300 GB
  (168 x 146 GB + 3 x 73 GB = 23,047.44 GiB / 300 = 76.8248 -> 76.82); without the
  conversion the ratio would be 82.49.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal
from typing import TypeVar

from dbbench.reports.errors import ReportsError

# The spec's table of scale factors and minimum streams is stated once, in the result
# contract (the drivers need it too); re-exported here with the other rules.
from dbbench.reports.tpch.model import MIN_STREAMS as MIN_STREAMS
from dbbench.reports.tpch.model import OFFICIAL_SCALE_FACTORS as OFFICIAL_SCALE_FACTORS
from dbbench.reports.tpch.model import is_official_scale_factor as is_official_scale_factor
from dbbench.reports.tpch.model import min_streams as min_streams

T = TypeVar("T")

QUERIES = 22
GIB = 2**30
SMALL_QUERY_RATIO = 1000


#: 10**n for the places :func:`round_half_up` takes its quick way for (each one exact)
_TENS = tuple(10.0**n for n in range(16))


def round_half_up(value: float | Decimal, places: int) -> float:
    """Round like the spec's examples (23.75 -> 23.8), not like Python's banker's rounding.

    The value goes through ``repr`` so that a float such as 23.75 is rounded as written,
    not as its nearest binary approximation.
    """
    if type(value) is float and 0 <= places < len(_TENS):
        # Away from a tie (the scaled value's fraction not within its own rounding error of
        # .5), the float and its repr round to the same neighbour, so round() (correctly
        # rounded) gives the same float as the decimal rounding below, in a third the time.
        scaled = value * _TENS[places]
        size = abs(scaled)  # below 4e15: finite, with an exact fraction
        if size < 4e15 and abs(scaled - math.floor(scaled) - 0.5) > 1e-9 + size * 1e-15:
            return round(value, places)
    quantum = Decimal(1).scaleb(-places)
    exact = value if isinstance(value, Decimal) else Decimal(repr(float(value)))
    return float(exact.quantize(quantum, rounding=ROUND_HALF_UP))


def reported_interval(seconds: float) -> float:
    """A timing interval as reported [SPEC 5.3.7.5]: 0.1 s, halves up, never below 0.1 s."""
    if seconds < 0 or math.isnan(seconds):
        raise ReportsError(f"a timing interval cannot be {seconds!r} seconds")
    return max(0.1, round_half_up(seconds, 1))


def small_query_cap(query_seconds: Sequence[float]) -> list[float]:
    """Raise query times below max/1000 to max/1000 [SPEC 5.4.1.4].

    Only the 22 query intervals take part; refresh functions are neither in the ratio nor
    adjusted. The cap value is itself a reported interval (0.1 s, at least 0.1 s).
    """
    if not query_seconds:
        raise ReportsError("the small-query cap needs at least one query interval")
    longest, shortest = max(query_seconds), min(query_seconds)
    if shortest > 0 and longest / shortest <= SMALL_QUERY_RATIO:
        return list(query_seconds)
    floor = reported_interval(longest / SMALL_QUERY_RATIO)
    return [max(t, floor) for t in query_seconds]


def geometric_mean(values: Iterable[float]) -> float:
    """Geometric mean computed in log space so 24 long intervals cannot overflow."""
    logs = [math.log(v) for v in values]
    if not logs:
        raise ReportsError("a geometric mean needs at least one value")
    return math.exp(sum(logs) / len(logs))


def power_at_size(
    scale_factor: float, query_seconds: Sequence[float], rf_seconds: Sequence[float]
) -> float:
    """TPC-H Power@Size [SPEC 5.4.1]: 3600 * SF over the geometric mean of 24 intervals.

    ``query_seconds`` are the 22 power-test query intervals and ``rf_seconds`` RF1 and RF2,
    all as reported (see :func:`reported_interval`). Reported to 0.1.
    """
    if len(query_seconds) != QUERIES or len(rf_seconds) != 2:
        raise ReportsError(
            f"Power@Size needs 22 query and 2 refresh intervals, "
            f"got {len(query_seconds)} and {len(rf_seconds)}"
        )
    if min([*query_seconds, *rf_seconds]) <= 0:
        raise ReportsError("Power@Size needs positive intervals")
    capped = small_query_cap(query_seconds)
    return round_half_up(3600.0 * scale_factor / geometric_mean([*capped, *rf_seconds]), 1)


def throughput_at_size(scale_factor: float, streams: int, ts_seconds: float) -> float:
    """TPC-H Throughput@Size [SPEC 5.4.2]: S * 22 * 3600 / Ts * SF, reported to 0.1."""
    if streams < 1:
        raise ReportsError(f"Throughput@Size needs at least one stream, got {streams}")
    if ts_seconds <= 0:
        raise ReportsError(f"the throughput measurement interval must be positive: {ts_seconds}")
    return round_half_up(streams * QUERIES * 3600.0 / ts_seconds * scale_factor, 1)


def qphh_at_size(power: float, throughput: float) -> float:
    """QphH@Size [SPEC 5.4.3]: the geometric mean of Power and Throughput, reported to 0.1."""
    if power <= 0 or throughput <= 0:
        raise ReportsError("QphH@Size needs positive Power@Size and Throughput@Size")
    return round_half_up(math.sqrt(power * throughput), 1)


def lower_qphh(runs: Sequence[T], qphh: Callable[[T], float]) -> T:
    """The reported result is the run with the *lower* QphH [SPEC 5.3.2]: the one rule that
    the report's headline, ``verify`` and the site read."""
    if not runs:
        raise ReportsError("no run has a QphH@Size to report")
    return min(runs, key=qphh)


def price_performance(total_price: Decimal, qphh: float) -> Decimal:
    """$/QphH@Size [SPEC 5.4.4]: rounded *up* to the next cent ($12.123 -> $12.13)."""
    if qphh <= 0:
        raise ReportsError("price/performance needs a positive QphH@Size")
    exact = Decimal(total_price) / Decimal(repr(float(qphh)))
    return exact.quantize(Decimal("0.01"), rounding=ROUND_CEILING)


def decimal_gb_to_gib(gigabytes: float | Decimal) -> Decimal:
    """A marketed (decimal) capacity in GB, as GiB: 146 GB = 146e9 bytes = 135.97 GiB."""
    return Decimal(gigabytes) * Decimal(10**9) / Decimal(GIB)


def storage_ratio(priced_storage_gib: float | Decimal, scale_factor: float) -> float:
    """Data storage ratio [SPEC 4.1.3.3, 8.3.7.7]: priced durable GiB over SF, to 0.01.

    The nominal database size of SF is SF GiB (the spec's GB is 2**30 bytes).
    """
    if scale_factor <= 0:
        raise ReportsError(f"the scale factor must be positive, got {scale_factor}")
    return round_half_up(Decimal(priced_storage_gib) / Decimal(repr(float(scale_factor))), 2)


def memory_percent(priced_memory_gib: float | Decimal, scale_factor: float) -> float:
    """Memory to database size percentage [SPEC 8.3.7.10], rounded to 0.1."""
    if scale_factor <= 0:
        raise ReportsError(f"the scale factor must be positive, got {scale_factor}")
    ratio = Decimal(priced_memory_gib) * 100 / Decimal(repr(float(scale_factor)))
    return round_half_up(ratio, 1)


def hms(seconds: float) -> str:
    """hh:mm:ss with 1-second precision (load time, Ts, stream totals) [SPEC 8.4.4]."""
    if seconds < 0:
        raise ReportsError(f"a duration cannot be negative: {seconds}")
    total = int(Decimal(repr(float(seconds))).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    hours, rest = divmod(total, 3600)
    return f"{hours:02d}:{rest // 60:02d}:{rest % 60:02d}"


def arithmetic_mean(values: Sequence[float]) -> float:
    """Mean computed in decimal so that (3.6 + 4.1) / 2 is 3.85, not 3.8499999999999996."""
    if not values:
        raise ReportsError("an arithmetic mean needs at least one value")
    total = sum(map(_as_written, values), Decimal(0))
    return float(total / len(values))


@functools.lru_cache(maxsize=4096)
def _as_written(value: float) -> Decimal:
    """A number as its shortest text writes it (the reported intervals a mean is taken of
    are the same few dozen values to 0.1 s: each is converted once). Equal keys convert
    alike: the result depends on ``float(value)`` alone."""
    return Decimal(repr(float(value)))
