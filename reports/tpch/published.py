"""Published results entered by hand as small TOML records (see docs/compare.md).

A published record carries only what a results page lists: the headline metrics, the price,
the system and its availability. It appears beside local runs in ``dbbench compare``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from dbbench.reports import inputs
from dbbench.reports.errors import ReportsError

_REQUIRED = ("system", "scale_factor", "qphh")


@dataclass(frozen=True)
class PublishedResult:
    """One published (audited) result as a results page lists it."""

    system: str
    scale_factor: float
    qphh: float
    chips: int | None = None
    cores: int | None = None
    threads: int | None = None
    processor: str = ""
    database: str = ""
    os: str = ""
    streams: int | None = None
    power: float | None = None
    throughput: float | None = None
    price_performance: Decimal | None = None
    total_price: Decimal | None = None
    currency: str = "USD"
    disks: int | None = None
    availability_date: date | None = None
    spec_version: str = ""
    source: str = ""
    notes: str = ""


def _field(name: str, key: str, problem: str) -> ReportsError:
    return ReportsError(f"published record {name}: field '{key}': {problem}")


def _typed(name: str, key: str, value: Any) -> Any:
    numeric = {"scale_factor", "qphh", "power", "throughput"}
    whole = {"chips", "cores", "threads", "streams", "disks"}
    money = {"price_performance", "total_price"}
    if key in whole:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _field(name, key, f"must be a whole number, got {value!r}")
        return value
    if key in numeric | money:
        if isinstance(value, bool) or not isinstance(value, int | Decimal) or value < 0:
            raise _field(name, key, f"must be a non-negative number, got {value!r}")
        return Decimal(value) if key in money else float(value)
    if key == "availability_date":
        if not isinstance(value, date):
            raise _field(name, key, f"must be a TOML date such as 2009-07-06, got {value!r}")
        return value
    if not isinstance(value, str):
        raise _field(name, key, f"must be text, got {value!r}")
    return value


def parse_published(text: str, name: str = "<published>") -> PublishedResult:
    try:
        data = inputs.parse_toml(text, f"published record {name}", parse_float=Decimal)
    except inputs.InputError as exc:
        raise ReportsError(str(exc)) from None
    known = {f.name for f in fields(PublishedResult)}
    for key in data:
        if key not in known:
            raise _field(name, key, "unknown field")
    for key in _REQUIRED:
        if key not in data:
            raise _field(name, key, "is missing")
    return PublishedResult(**{k: _typed(name, k, v) for k, v in data.items()})


def load_published(path: Path) -> PublishedResult:
    text = inputs.read_toml_text(path, "published record", ReportsError)
    return parse_published(text, path.name)
