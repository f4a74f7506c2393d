"""The performance landscape: local results and published records side by side.

Comparisons are refused (or, when forced, loudly flagged) when the numbers cannot mean the
same thing: different scale factors, or different query versions. Softer differences (kit
versions, non-compliant runs, audited vs. derived results) become warnings in the output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Literal

from dbbench.reports.errors import ReportsError
from dbbench.reports.tpch.analysis import COLUMNS, RunSummary
from dbbench.reports.tpch.published import PublishedResult
from dbbench.reports.tpch.summary import Report

SORT_KEYS: tuple[str, ...] = ("qphh", "price-performance", "price")


@dataclass
class Row:
    """One line of the landscape."""

    label: str
    kind: Literal["local", "published"]
    system: str
    chips: int | None
    cores: int | None
    threads: int | None
    processor: str
    database: str
    scale_factor: float
    qphh: float | None
    power: float | None
    throughput: float | None
    price_performance: Decimal | None
    total_price: Decimal | None
    currency: str
    disks: int | None
    availability: date | None
    compliant: bool | None  # None: published (audited elsewhere)
    kit_version: str = ""
    query_version: str = ""
    power_times: dict[str, float] = field(default_factory=dict)  # spec-rounded (0.1 s)
    power_exact: dict[str, float] = field(default_factory=dict)  # full resolution
    relative_qphh: float | None = None
    relative_throughput: float | None = None
    busy: list[str] = field(default_factory=list)  # the report's HOST BUSY notes
    answers: str = ""  # ``reports.tpch.answers.answers_line`` (local rows)
    answers_disagree: bool = False  # ``verify --answers`` found a wrong output


@dataclass
class Landscape:
    rows: list[Row]
    baseline: str
    warnings: list[str]
    #: column -> per local row: (spec-rounded seconds, full-resolution seconds, speed-up: the
    #: first local row's full-resolution time / this row's; above 1 faster)
    ratios: list[tuple[str, list[tuple[float | None, float | None, float | None]]]]
    ratio_labels: list[str] = field(default_factory=list)  # the local rows of ``ratios``

    @property
    def local_rows(self) -> list[Row]:
        return [r for r in self.rows if r.kind == "local"]


def _reported_run(report: Report) -> RunSummary | None:
    return next((r for r in report.runs if r.number == report.headline.reported_run), None)


def row_from_report(label: str, report: Report) -> Row:
    h, res, sheet = report.headline, report.result, report.cost_sheet
    run = _reported_run(report)
    return Row(
        label=label,
        kind="local",
        system=(sheet.system if sheet and sheet.system else res.system.hostname) or label,
        chips=res.system.chips,
        cores=res.system.cores,
        threads=res.system.threads,
        processor=res.system.cpu_model,
        database=h.database,
        scale_factor=res.scale_factor,
        qphh=h.qphh,
        power=h.power,
        throughput=h.throughput,
        price_performance=h.price_performance,
        total_price=h.total_cost,
        currency=h.currency,
        disks=sheet.disks if sheet else None,
        availability=h.availability_date,
        compliant=report.compliance.compliant,
        kit_version=res.kit_version,
        query_version=res.query_version,
        power_times=dict(run.power_times) if run else {},
        power_exact=dict(run.power_exact) if run else {},
        busy=[n.removeprefix("HOST BUSY: ") for n in report.notes if n.startswith("HOST BUSY")],
        answers=h.answers,
        answers_disagree=any(r.code == "answers-disagree" for r in report.compliance.reasons),
    )


def row_from_published(label: str, pub: PublishedResult) -> Row:
    return Row(
        label=label,
        kind="published",
        system=pub.system,
        chips=pub.chips,
        cores=pub.cores,
        threads=pub.threads,
        processor=pub.processor,
        database=pub.database,
        scale_factor=pub.scale_factor,
        qphh=pub.qphh,
        power=pub.power,
        throughput=pub.throughput,
        price_performance=pub.price_performance,
        total_price=pub.total_price,
        currency=pub.currency,
        disks=pub.disks,
        availability=pub.availability_date,
        compliant=None,
        query_version=pub.spec_version,
    )


def _problems(rows: list[Row]) -> tuple[list[str], list[str]]:
    """(reasons to refuse, warnings) for a set of rows."""
    refuse, warn = [], []
    sfs = sorted({r.scale_factor for r in rows})
    if len(sfs) > 1:
        listed = ", ".join(f"{sf:g}" for sf in sfs)
        refuse.append(f"scale factors differ ({listed}): TPC-H results are per database size")
    local = [r for r in rows if r.kind == "local"]
    qvs = sorted({r.query_version for r in local})
    if len(qvs) > 1:
        refuse.append(f"query versions differ ({', '.join(qvs)})")
    kits = sorted({r.kit_version for r in local})
    if len(kits) > 1:
        warn.append(f"results come from different dbbench versions ({', '.join(kits)})")
    if local and len(local) < len(rows):
        warn.append(
            "published results were audited under the TPC's rules; local runs are "
            "TPC-H-derived and not comparable with them"
        )
    currencies = sorted({r.currency for r in rows if r.currency and r.total_price is not None})
    if len(currencies) > 1:
        warn.append(
            f"prices are in different currencies ({', '.join(currencies)}): $/QphH and "
            "prices are not converted, so they cannot be compared"
        )
    for r in local:
        if not r.compliant:
            warn.append(f"{r.label} is not compliant (see its report for the reasons)")
        if r.qphh is None:
            warn.append(f"{r.label} has no QphH: a run has failed or missing intervals")
        if r.answers_disagree:
            warn.append(f"{r.label}: answers: {r.answers}: the result is invalid")
        if r.busy:
            warn.append(f"HOST BUSY: {r.label}: {'; '.join(r.busy)}: its times are suspect")
    return refuse, warn


def _ratio(value: float | None, base: float | None) -> float | None:
    if value is None or not base:
        return None
    return value / base


def _sort(rows: list[Row], key: str) -> list[Row]:
    if key not in SORT_KEYS:
        raise ReportsError(f"unknown sort key {key!r} (choose from {', '.join(SORT_KEYS)})")
    if key == "qphh":
        return sorted(rows, key=lambda r: (r.qphh is None, -(r.qphh or 0.0)))
    attr = "price_performance" if key == "price-performance" else "total_price"
    return sorted(rows, key=lambda r: (getattr(r, attr) is None, getattr(r, attr) or 0))


def build_landscape(rows: list[Row], sort: str = "qphh", force: bool = False) -> Landscape:
    """Check comparability, compute ratios against the first row, sort the rows."""
    if not rows:
        raise ReportsError("nothing to compare: give at least one result or published record")
    refuse, warnings = _problems(rows)
    if refuse and not force:
        raise ReportsError(
            "results are not comparable: " + "; ".join(refuse) + " (--force compares anyway)"
        )
    warnings = [f"NOT COMPARABLE: {r}" for r in refuse] + warnings
    base = rows[0]
    for r in rows:
        r.relative_qphh = _ratio(r.qphh, base.qphh)
        r.relative_throughput = _ratio(r.throughput, base.throughput)
    local = [r for r in rows if r.kind == "local" and r.power_times]
    ratios = []
    if local:  # full-resolution times: the spec's 0.1 s floor would make fast engines tie
        ref = local[0].power_exact
        for col in COLUMNS:
            cells = [
                (r.power_times.get(col), r.power_exact.get(col),
                 _ratio(ref.get(col), r.power_exact.get(col)))
                for r in local
            ]  # fmt: skip
            ratios.append((col, cells))
    labels = [r.label for r in local]
    return Landscape(_sort(rows, sort), base.label, warnings, ratios, labels)
