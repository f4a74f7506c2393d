"""Substitution parameters exactly as qgen 2.17.3 draws them (tpch.md §4.2–4.3).

Each query q draws only from its own stream, seeded with the q-th Park–Miller successor of
the seed, so a query's values do not depend on which other queries are generated. Values
are returned as the strings qgen prints: they go into the SQL text and into the parameter
log unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import date, datetime, timedelta

from dbbench.queries.dists import (
    COLORS,
    MSEGMNT,
    NATION_REGION,
    NATIONS2,
    P_CNTR,
    P_TYPES,
    Q13A,
    Q13B,
    REGIONS,
    SMODE,
    permute,
)
from dbbench.queries.errors import QueriesError
from dbbench.queries.order import QUERY_NUMBERS
from dbbench.queries.rng import MODULUS, MULTIPLIER, Stream, query_streams

#: Largest seed whose first Park–Miller product still fits qgen's signed 64-bit ``long``.
MAX_SEED = (2**63 - 1) // MULTIPLIER

#: qgen's ``defaults`` table (qgen -d); Q11's fraction is replaced by 0.0001/SF in the text.
DEFAULTS: dict[int, tuple[str, ...]] = {
    1: ("90",),
    2: ("15", "BRASS", "EUROPE"),
    3: ("BUILDING", "1995-03-15"),
    4: ("1993-07-01",),
    5: ("ASIA", "1994-01-01"),
    6: ("1994-01-01", ".06", "24"),
    7: ("FRANCE", "GERMANY"),
    8: ("BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL"),
    9: ("green",),
    10: ("1993-10-01",),
    11: ("GERMANY", "0.0001"),
    12: ("MAIL", "SHIP", "1994-01-01"),
    13: ("special", "requests"),
    14: ("1995-09-01",),
    15: ("1996-01-01",),
    16: ("Brand#45", "MEDIUM POLISHED", "49", "14", "23", "45", "19", "3", "36", "9"),
    17: ("Brand#23", "MED BOX"),
    18: ("300",),  # outside the random range [312, 315], as the spec says
    19: ("Brand#12", "Brand#23", "Brand#34", "1", "10", "20"),
    20: ("forest", "1994-01-01", "CANADA"),
    21: ("SAUDI ARABIA",),
    22: ("13", "31", "23", "29", "30", "18", "17"),
}

_Q3_FIRST_DAY = date(1995, 3, 1)  # qgen: asc_date[1155], counted from 1992-01-01


def check_sf(sf: object) -> float:
    """A scale factor is a finite positive number (qgen divides Q11's fraction by it)."""
    if isinstance(sf, bool) or not isinstance(sf, int | float):
        raise QueriesError(f"scale factor must be a positive finite number, got {sf!r}")
    value = float(sf)
    if not math.isfinite(value) or value <= 0:
        raise QueriesError(f"scale factor must be a positive finite number, got {sf!r}")
    return value


def check_seed(seed: object) -> int:
    """A seed is an integer in 1..MAX_SEED (use :func:`qgen_seed` for qgen's -r parsing)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise QueriesError(f"seed must be a non-negative integer, not {seed!r}")
    if not 0 <= seed <= MAX_SEED:
        raise QueriesError(f"seed must be an integer from 1 to {MAX_SEED}, not {seed}")
    if seed % MODULUS == 0:  # Park–Miller stays at 0: every draw is equal, Q7 never ends
        raise QueriesError(f"seed {seed} is 0 mod 2147483647: every draw is equal and qgen hangs")
    return seed


def qgen_seed(text: str) -> int:
    """The seed qgen uses for ``-r text``: a negative value gets 2**31 - 1 added.

    Only the command line needs this compatibility rule; the library API takes the result.
    """
    try:
        value = int(text.strip())
    except ValueError:
        raise QueriesError(f"seed must be an integer, not {text!r}") from None
    if value < 0:
        value += MODULUS
    if value < 0:
        raise QueriesError(f"seed {text} is below qgen's range (-2147483647 or more)")
    return check_seed(value)


def seed_from_time(t: datetime) -> int:
    """The spec's seed: the end-of-load time written as the decimal number mmddhhmmss."""
    return int(t.strftime("%m%d%H%M%S"))


def q11_fraction(sf: float) -> str:
    """Q11's FRACTION, 0.0001/SF in C's ``%11.10f``; it is the only SF-dependent value."""
    return f"{0.0001 / check_sf(sf):11.10f}"


def _ymd(month_index: int) -> str:
    return f"19{93 + month_index // 12:02d}-{month_index % 12 + 1:02d}-01"


def _year(s: Stream) -> str:
    return f"19{s.unif_int(93, 97):02d}-01-01"


def _brand(s: Stream) -> str:
    m = s.unif_int(1, 5)
    return f"Brand#{m}{s.unif_int(1, 5)}"


def _distinct_pair(dist_pick: Callable[[], int], names: tuple[str, ...]) -> list[str]:
    """Q7/Q12: draw again until the second index differs from the first (qgen's loop)."""
    first = dist_pick()
    second = dist_pick()
    while second == first:
        second = dist_pick()
    return [names[first], names[second]]


def _q2(s: Stream) -> list[str]:
    size = s.unif_int(1, 50)
    ptype = P_TYPES.values[P_TYPES.pick(s)].rsplit(" ", 1)[1]
    return [str(size), ptype, REGIONS.values[REGIONS.pick(s)]]


def _q3(s: Stream) -> list[str]:
    segment = MSEGMNT.values[MSEGMNT.pick(s)]
    return [segment, (_Q3_FIRST_DAY + timedelta(days=s.unif_int(0, 30))).isoformat()]


def _q6(s: Stream) -> list[str]:
    year = _year(s)
    discount = f"0.{s.unif_int(2, 9):02d}"
    return [year, discount, str(s.unif_int(24, 25))]


def _q8(s: Stream) -> list[str]:
    nation = NATIONS2.pick(s)
    region = REGIONS.values[NATION_REGION[nation]]
    return [NATIONS2.values[nation], region, P_TYPES.values[P_TYPES.pick(s)]]


def _q12(s: Stream) -> list[str]:
    modes = _distinct_pair(lambda: SMODE.pick(s), SMODE.values)
    return [*modes, _year(s)]


def _q16(s: Stream) -> list[str]:
    brand = _brand(s)
    ptype = P_TYPES.values[P_TYPES.pick(s)].rsplit(" ", 1)[0]
    sizes = list(range(1, 51))
    permute(sizes, s)
    return [brand, ptype, *(str(v) for v in sizes[:8])]


def _q17(s: Stream) -> list[str]:
    brand = _brand(s)
    return [brand, P_CNTR.values[P_CNTR.pick(s)]]


def _q19(s: Stream) -> list[str]:
    brands = [_brand(s) for _ in range(3)]
    quantities = [s.unif_int(1, 10), s.unif_int(10, 20), s.unif_int(20, 30)]
    return [*brands, *(str(q) for q in quantities)]


def _q20(s: Stream) -> list[str]:
    color = COLORS.values[COLORS.pick(s)]
    year = _year(s)
    return [color, year, NATIONS2.values[NATIONS2.pick(s)]]


def _q22(s: Stream) -> list[str]:
    codes = list(range(25))
    permute(codes, s)
    return [str(10 + c) for c in codes[:7]]


#: One drawing function per query; the SF-dependent Q11 fraction is added afterwards.
_DRAW: dict[int, Callable[[Stream], list[str]]] = {
    1: lambda s: [str(s.unif_int(60, 120))],
    2: _q2,
    3: _q3,
    4: lambda s: [_ymd(s.unif_int(0, 57))],
    5: lambda s: [REGIONS.values[REGIONS.pick(s)], _year(s)],
    6: _q6,
    7: lambda s: _distinct_pair(lambda: NATIONS2.pick(s), NATIONS2.values),
    8: _q8,
    9: lambda s: [COLORS.values[COLORS.pick(s)]],
    10: lambda s: [_ymd(s.unif_int(1, 24))],
    11: lambda s: [NATIONS2.values[NATIONS2.pick(s)]],
    12: _q12,
    13: lambda s: [Q13A.values[Q13A.pick(s)], Q13B.values[Q13B.pick(s)]],
    14: lambda s: [_ymd(s.unif_int(0, 59))],
    15: lambda s: [_ymd(s.unif_int(0, 57))],
    16: _q16,
    17: _q17,
    18: lambda s: [str(s.unif_int(312, 315))],
    19: _q19,
    20: _q20,
    21: lambda s: [NATIONS2.values[NATIONS2.pick(s)]],
    22: _q22,
}


def stream_parameters(seed: int, sf: float) -> dict[int, list[str]]:
    """Parameters of all 22 queries for one stream: identical to ``qgen -r seed -s sf``.

    One call is one qgen invocation, so Q16's and Q22's permutations start from identity.
    """
    streams = query_streams(check_seed(seed))
    fraction = q11_fraction(sf)
    params = {q: _DRAW[q](streams[q]) for q in QUERY_NUMBERS}
    params[11].append(fraction)
    return params


def default_parameters(sf: float, *, logged: bool = False) -> dict[int, list[str]]:
    """The validation defaults (``qgen -d``) as substituted into the query text.

    qgen substitutes Q11's fraction as 0.0001/SF but logs its fixed table value "0.0001";
    ``logged=True`` returns what qgen writes to the ``-l`` log instead.
    """
    fraction = q11_fraction(sf)
    params = {q: list(DEFAULTS[q]) for q in QUERY_NUMBERS}
    if not logged:
        params[11][1] = fraction
    return params


def parameter_log(params: dict[int, list[str]], queries: list[int]) -> str:
    """qgen's ``-l`` format: the query number, a tab before each value, one line per query."""
    return "".join(str(q) + "".join(f"\t{value}" for value in params[q]) + "\n" for q in queries)
