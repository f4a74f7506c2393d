"""The report's content, independent of its format: headline, runs, compliance, cost.

Every renderer (terminal, Markdown, HTML, JSON) formats the same :class:`Report`, so the
numbers cannot disagree between formats. Secrets are removed from the result first.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from dbbench.reports.tpch import metrics, priced
from dbbench.reports.tpch.acid import acid_line
from dbbench.reports.tpch.analysis import RunSummary, summarise_run
from dbbench.reports.tpch.compliance import evaluate, messages
from dbbench.reports.tpch.costsheet import CostSheet
from dbbench.reports.tpch.model import BenchmarkResult, Compliance
from dbbench.reports.tpch.plans import QueryPlan, query_plans, read_texts
from dbbench.reports.tpch.reasons import reason
from dbbench.reports.tpch.redact import redact_result
from dbbench.reports.tpch.settings import SettingRow, setting_rows
from dbbench.reports.tpch.telemetry import summarise as summarise_telemetry

DISCLOSURE = (
    "These results are derived from the TPC-H benchmark and are not comparable with "
    "published TPC-H results: the run was not audited and may deviate from the "
    "specification. TPC-H is a trademark of the Transaction Processing Performance Council."
)


@dataclass
class Headline:
    """The executive-summary box."""

    scale_factor: float
    qphh: float | None
    qphh_note: str
    power: float | None
    throughput: float | None
    reported_run: int | None
    total_cost: Decimal | None
    currency: str
    price_performance: Decimal | None
    availability_date: dt.date | None
    database: str
    os: str
    processors: str
    memory: str
    storage_ratio: float | None
    memory_percent: float | None
    load_time: str | None
    streams: int


@dataclass
class Report:
    result: BenchmarkResult  # redacted copy
    headline: Headline
    runs: list[RunSummary]
    compliance: Compliance
    cost_sheet: CostSheet | None = None
    notes: list[str] = field(default_factory=list)
    disclosure: str = DISCLOSURE
    plans: list[QueryPlan] = field(default_factory=list)  # each query's plan (texts read)
    settings: list[SettingRow] = field(default_factory=list)  # the engine's, marked

    @property
    def reasons(self) -> list[str]:
        """The compliance reasons in plain words."""
        return messages(self.compliance)


def _reported(runs: list[RunSummary]) -> tuple[RunSummary | None, str]:
    """The run with the lower QphH, or why no QphH can be reported."""
    if not runs:
        return None, "no performance run was recorded"
    missing = [r for r in runs if r.qphh is None]
    if missing:
        nums = ", ".join(str(r.number) for r in missing)
        return None, f"not computed: run {nums} has failed or missing intervals"
    lower = metrics.lower_qphh(runs, lambda r: r.qphh or 0.0)
    if len(runs) == 1:
        return lower, "only one run: the spec reports the lower of two"
    return lower, f"the lower of {len(runs)} runs: run {lower.number}"


def _processors(result: BenchmarkResult) -> str:
    s = result.system
    parts = [
        f"{n} {label}"
        for n, label in ((s.chips, "chips"), (s.cores, "cores"), (s.threads, "threads"))
        if n is not None
    ]
    text = " / ".join(parts)
    return f"{s.cpu_model} ({text})" if s.cpu_model and text else s.cpu_model or text or "unknown"


def _memory(result: BenchmarkResult, sheet: CostSheet | None) -> tuple[str, float | None]:
    sf = result.scale_factor
    if sheet is not None and sheet.memory_gib is not None:
        return f"{sheet.memory_gib:g} GiB (priced)", metrics.memory_percent(sheet.memory_gib, sf)
    if result.system.memory_bytes:
        gib = Decimal(result.system.memory_bytes) / metrics.GIB
        label = f"{metrics.round_half_up(gib, 1):g} GiB (measured, not priced)"
        return label, metrics.memory_percent(gib, sf)
    return "unknown", None


def _load_time(result: BenchmarkResult) -> str | None:
    if result.load is None or result.load.reused:
        return None
    return metrics.hms(result.load.seconds)


def build_report(
    result: BenchmarkResult,
    cost_sheet: CostSheet | None = None,
    source: Path | None = None,
    runs: list[RunSummary] | None = None,
) -> Report:
    """Analyse a result (and optionally its priced configuration) into a :class:`Report`;
    ``source``: its run directory, where the plan texts are; ``runs``: the summaries of
    ``result.runs`` made already (``verify``'s), used when redaction leaves the runs as they
    are."""
    clean = redact_result(result)
    if runs is None or clean.runs is not result.runs or len(runs) != len(clean.runs):
        runs = [summarise_run(run, clean.scale_factor) for run in clean.runs]
    compliance = evaluate(clean, runs)
    differs = priced.mismatches(clean.system, cost_sheet) if cost_sheet else []
    if differs:  # a price of another system: a warning everywhere, never compliant
        extra = [reason("priced-differs", what=w) for w in differs]
        compliance = Compliance(False, [*compliance.reasons, *extra])
    reported, note = _reported(runs)
    qphh = reported.qphh if reported else None
    memory, memory_pct = _memory(clean, cost_sheet)
    storage_gib = cost_sheet.storage_gib if cost_sheet else None
    total = cost_sheet.total_3y if cost_sheet else None
    engine = clean.engine
    headline = Headline(
        scale_factor=clean.scale_factor,
        qphh=qphh,
        qphh_note=note,
        power=reported.power if reported else None,
        throughput=reported.throughput if reported else None,
        reported_run=reported.number if reported else None,
        total_cost=total,
        currency=cost_sheet.currency if cost_sheet else "",
        price_performance=(
            metrics.price_performance(total, qphh) if total is not None and qphh else None
        ),
        availability_date=cost_sheet.availability_date if cost_sheet else None,
        database=database_label(engine.name, engine.version),
        os=" ".join(p for p in (clean.system.os, clean.system.kernel) if p) or "unknown",
        processors=_processors(clean),
        memory=memory,
        storage_ratio=(
            metrics.storage_ratio(storage_gib, clean.scale_factor)
            if storage_gib is not None
            else None
        ),
        memory_percent=memory_pct,
        load_time=_load_time(clean),
        streams=clean.streams,
    )
    notes = [f"warning: {w}" for w in differs] + [p for r in runs for p in r.problems]
    tel = summarise_telemetry(clean)
    if tel is not None and tel.busy:  # noise of other work: the timings are suspect
        notes = [f"HOST BUSY: {b}" for b in tel.busy] + notes
    notes.insert(0, acid_line(clean))  # "ACID: not run (...)" when none is attached
    if cost_sheet is None:
        notes.append("no cost sheet given: price, $/QphH and storage ratio are not reported")
    texts = read_texts(result, source)
    if texts.note is not None:
        notes.append(texts.note)
    plans = query_plans(result, texts)
    settings = setting_rows(clean, cost_sheet)
    unpriced = [r.name for r in settings if r.priced == "UNPRICED"]
    if unpriced:
        notes.insert(
            0, f"warning: the cost sheet does not name the URL settings {', '.join(unpriced)}"
        )
    return Report(
        clean, headline, runs, compliance, cost_sheet, notes, plans=plans, settings=settings
    )


def database_label(name: str, version: str) -> str:
    """``postgresql 16.4``, but ``DuckDB 2.0.0`` rather than ``duckdb DuckDB 2.0.0`` (and
    ``Apache Spark 4.2.1`` rather than ``spark Apache Spark 4.2.1``) when the engine's
    version string already names the product: the one rule of every report's database."""
    if version and name and re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", version, re.I):
        return version
    return " ".join(p for p in (name, version) if p)
