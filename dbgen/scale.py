"""Row counts and chunk ranges exactly as dbgen computes them (tpch.md §5.1, §5.2, §5.9).

For SF >= 1 dbgen scales its base counts by the *integer part* of the scale factor; below 1
it scales each base count by ``floor(1000·SF)/1000`` (minimum one row) and keeps an integer
scale of 1 for everything else (the clerk range, for instance). Both rules are reproduced,
so ``-s 1.5`` yields the SF1 data as dbgen does.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Base counts at SF1 of the units a table is generated in (partsupp in parts, lineitem in
#: orders).
BASE = {
    "part": 200_000,
    "supplier": 10_000,
    "customer": 150_000,
    "orders": 1_500_000,
}
UPD_PCT = 10
LARGE_SCALE = 30_000  # SF at and above which o_custkey and l_partkey use the 64-bit LCG


def int_scale(sf: float) -> int:
    """dbgen's integer ``scale``: 1 below SF1, else the integer part."""
    return 1 if sf < 1 else int(sf)


def base_count(unit: str, sf: float) -> int:
    """Rows of ``unit`` (part, supplier, customer or orders) at ``sf``."""
    base = BASE[unit]
    if sf < 1:
        return max(1, (int(1000 * sf) * base) // 1000)
    return base * int(sf)


@dataclass(frozen=True)
class Span:
    """A range of unit rows: 0-based ``start`` and ``count``."""

    start: int
    count: int


def chunk(total: int, part: int, parts: int) -> Span:
    """dbgen ``-C parts -S part``: equal chunks, the remainder going to the last one."""
    per = total // parts
    extra = total % parts if part == parts else 0
    return Span((part - 1) * per, per + extra)


#: dbgen's update-set numbering stops matching the spec beyond this set (tpch.md 3.4).
MAX_UPDATE_SET = 1000


def updates_per_set(sf: float) -> int:
    """Orders inserted (and deleted) by one update set: (orders base div 10000)·scale·10."""
    base = BASE["orders"] if sf >= 1 else base_count("orders", sf)
    return (base // 10_000) * int_scale(sf) * UPD_PCT
