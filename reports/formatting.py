"""How numbers, money and times look in every report (the spec's precisions, [SPEC 8.4.4]).

All times are shown in UTC so that the same result renders the same text on every machine.
"""

from __future__ import annotations

import datetime as dt
import functools
from decimal import ROUND_HALF_UP, Decimal

from dbbench.reports import escape
from dbbench.reports.tpch import metrics

NA = "n/a"


@functools.lru_cache(maxsize=4096, typed=True)
def num1(value: float | None) -> str:
    """Power, Throughput, QphH and intervals: to 0.1, with thousands separators. (A
    report's hundreds of intervals and statistics are reported ones, already to 0.1 s: the
    same few dozen values, each formatted once.)"""
    return NA if value is None else f"{metrics.round_half_up(value, 1):,.1f}"


def num2(value: float | None) -> str:
    return NA if value is None else f"{metrics.round_half_up(value, 2):,.2f}"


def sf(value: float) -> str:
    return f"{value:g}"


def money(value: Decimal | None, currency: str = "") -> str:
    """Prices to the cent ($/QphH) with the currency code."""
    if value is None:
        return NA
    text = f"{value:,.2f}"
    return f"{text} {currency}".strip()


def money_whole(value: Decimal | None, currency: str = "") -> str:
    """Total system cost is shown to the whole currency unit [SPEC Table 13]."""
    if value is None:
        return NA
    whole = value.quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return f"{whole:,.0f} {currency}".strip()


def when(epoch: float | None) -> str:
    """A wall-clock instant as yyyy-mm-dd hh:mm:ss UTC."""
    if epoch is None or epoch <= 0:
        return NA
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def duration(seconds: float | None) -> str:
    return NA if seconds is None else metrics.hms(seconds)


def day(value: dt.date | None) -> str:
    return NA if value is None else value.isoformat()


def gib(nbytes: int | None) -> str:
    if not nbytes:
        return NA
    return f"{metrics.round_half_up(nbytes / metrics.GIB, 2):,.2f} GiB"


def folded(value: object) -> str:
    """``value`` on one line (runs of whitespace folded): the ``md`` filter of a Markdown
    environment, whose finalizer escapes what is printed."""
    return " ".join(str(value).split())


def md(value: object) -> str:
    """A Markdown table cell: pipes escaped, newlines folded."""
    return " ".join(str(value).split()).replace("|", "\\|")


def opt(value: object) -> str:
    """An optional value: blank when unknown."""
    return "" if value is None else str(value)


def ratio(value: float | None) -> str:
    return NA if value is None else f"{value:.2f}x"


def ms(seconds: float | None) -> str:
    """A measured interval in milliseconds (full resolution, not the spec's rounding)."""
    return NA if seconds is None else f"{seconds * 1000:,.1f}"


def pct(value: float | None) -> str:
    return NA if value is None else f"{value:.2f} %"


def pct100(value: float | None) -> str:
    """A fraction (0.87) as a whole percentage (87 %)."""
    return NA if value is None else f"{value * 100:.0f} %"


FILTERS = {
    "pct100": pct100,
    "ms": ms,
    "pct": pct,
    "opt": opt,
    "ratio": ratio,
    "num1": num1,
    "num2": num2,
    "sf": sf,
    "money": money,
    "money_whole": money_whole,
    "when": when,
    "duration": duration,
    "day": day,
    "gib": gib,
    "md": md,
}


def plain(text: object) -> str:
    """A string from a result file, safe for a terminal: control characters (an ANSI escape
    in a captured CPU model, say) and bidi overrides are removed (:func:`escape.terminal`)."""
    return escape.terminal(text, keep_newlines=True)
