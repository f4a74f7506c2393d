"""Scaling studies: the throughput test at a series of stream counts, in the seeds' table.

For each concurrency N (query streams): Ts, query sets per hour and per day (the seeds'
"runs per day": N complete query sets every Ts), the throughput relative to one stream,
the scaling efficiency (relative throughput / N) and the spec's Throughput@Size. Built from
the study's index (``scale.json``) and each step's ``result.json``. A study, labelled so:
the spec's minimum streams apply to a compliant run, not to the steps of a study.
With ``--repetitions`` (and ``--cold``), each step's cold and hot passes of the 22 queries
are tabled apart, per step, never averaged together (:mod:`reports.tpch.passes`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Self

from markupsafe import escape

from dbbench.reports import formatting as fmt
from dbbench.reports import renderers
from dbbench.reports.document import Document, Figure, Paragraph, Table
from dbbench.reports.errors import ReportsError
from dbbench.reports.loading import load_result
from dbbench.reports.safeio import write_text
from dbbench.reports.studies.indexfile import StudyIndex
from dbbench.reports.tpch import metrics
from dbbench.reports.tpch.analysis import summarise_run
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.passes import PassTable, pass_table
from dbbench.reports.tpch.passes_document import passes_section
from dbbench.reports.tpch.summary import database_label
from dbbench.reports.tpch.telemetry import summarise

INDEX_FILE = "scale.json"
INDEX_SCHEMA = "dbbench-scale"
DAY = 86_400.0


@dataclass
class StepRecord:
    streams: int
    run_dir: str
    status: str = "pending"  # ok, invalid, failed, pending
    message: str = ""


@dataclass
class ScaleIndex(StudyIndex, file=INDEX_FILE, schema=INDEX_SCHEMA, what="scaling index"):
    engine: str  # without password
    scale_factor: float
    steps: list[StepRecord] = field(default_factory=list)
    load_dir: str = "load"
    schema: str = INDEX_SCHEMA
    schema_version: int = 1

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        steps = [StepRecord(**s) for s in data.get("steps", [])]
        return cls(data["engine"], data["scale_factor"], steps, data.get("load_dir", "load"))


@dataclass
class ScaleRow:
    streams: int
    status: str
    message: str = ""
    ts_seconds: float | None = None
    sets_per_hour: float | None = None
    sets_per_day: float | None = None
    relative: float | None = None  # against the one-stream step (or the smallest)
    efficiency: float | None = None  # relative / (streams / reference streams)
    throughput_at_size: float | None = None
    cpu_busy: float | None = None  # % of all cores during the throughput test
    failed_queries: int = 0


@dataclass
class ScaleStudy:
    engine: str
    scale_factor: float
    rows: list[ScaleRow]
    reference_streams: int | None
    database: str = ""
    notes: list[str] = field(default_factory=list)
    passes: PassTable | None = None  # each step's cold and hot passes, apart


def _result(out_dir: Path, step: StepRecord) -> BenchmarkResult | None:
    try:
        return load_result(out_dir / step.run_dir)
    except ReportsError:
        return None


def _row(step: StepRecord, result: BenchmarkResult | None, sf: float) -> tuple[ScaleRow, str]:
    row = ScaleRow(step.streams, step.status, step.message)
    if result is None:
        return row, ""
    runs = [r for r in result.runs if any(iv.phase == "throughput" for iv in r.intervals)]
    if not runs:
        return row, ""
    run = runs[-1]
    summary = summarise_run(run, sf)
    row.failed_queries = sum(1 for iv in run.intervals if iv.status != "ok")
    row.ts_seconds = summary.ts_seconds
    if summary.ts_seconds and not row.failed_queries:
        row.sets_per_hour = step.streams * 3600.0 / summary.ts_seconds
        row.sets_per_day = step.streams * DAY / summary.ts_seconds
        row.throughput_at_size = metrics.throughput_at_size(sf, step.streams, summary.ts_seconds)
    tel = summarise(result)
    if tel is not None:
        phase = next((p for p in tel.phases if p.phase.endswith("throughput")), None)
        row.cpu_busy = phase.cpu_busy if phase else None
    return row, database_label(result.engine.name, result.engine.version).strip()


def build_study(out_dir: Path, index: ScaleIndex) -> ScaleStudy:
    rows, database = [], ""
    results: list[tuple[str, BenchmarkResult | None]] = []
    for step in sorted(index.steps, key=lambda s: s.streams):
        result = _result(out_dir, step)
        results.append((f"{step.streams} streams", result))
        row, db = _row(step, result, index.scale_factor)
        rows.append(row)
        database = database or db
    measured = [r for r in rows if r.sets_per_hour]
    ref = measured[0] if measured else None
    for r in rows:
        if ref is not None and ref.sets_per_hour and r.sets_per_hour:
            r.relative = r.sets_per_hour / ref.sets_per_hour
            r.efficiency = r.relative / (r.streams / ref.streams)
    notes = [
        "a scaling study, not a compliant run: each step is one throughput test (with its "
        "refresh stream) on the same loaded database, and the spec's minimum streams do not apply",
        "query sets per day = streams x 86,400 s / Ts: the seeds' 'runs per day'",
    ]
    if ref is not None and ref.streams != 1:
        notes.append(f"relative figures are against {ref.streams} streams (no one-stream step)")
    for r in rows:
        if r.status != "ok":
            notes.append(
                f"{r.streams} streams: {r.status}" + (f": {r.message}" if r.message else "")
            )
    return ScaleStudy(
        index.engine, index.scale_factor, rows, ref.streams if ref else None, database, notes,
        pass_table(results),
    )  # fmt: skip


def scaling_svg(study: ScaleStudy) -> str:
    """Relative throughput against concurrency, with the ideal (linear) line."""
    pts = [(r.streams, r.relative) for r in study.rows if r.relative is not None]
    if not pts or study.reference_streams is None:
        return ""
    width, height, left, bottom, top, right = 600, 320, 50, 40, 20, 20
    max_n = max(r.streams for r in study.rows)
    ideal_top = max_n / study.reference_streams
    top_value = max(ideal_top, *(p[1] for p in pts)) * 1.05

    def x(n: float) -> float:
        return left + (width - left - right) * (n / max_n)

    def y(v: float) -> float:
        return top + (height - top - bottom) * (1 - v / top_value)

    out = [
        f'<svg class="chart scaling" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="relative throughput by streams" width="100%">',
        f'<line x1="{x(0):.1f}" x2="{x(max_n):.1f}" y1="{y(0):.1f}" y2="{y(0):.1f}" class="axis"/>',
        f'<line x1="{x(0):.1f}" x2="{x(0):.1f}" y1="{y(0):.1f}" y2="{y(top_value):.1f}" '
        'class="axis"/>',
        f'<line x1="{x(0):.1f}" y1="{y(0):.1f}" x2="{x(max_n):.1f}" y2="{y(ideal_top):.1f}" '
        'class="gm"><title>ideal: linear scaling</title></line>',
    ]
    step = 1 if top_value <= 8 else 2 if top_value <= 16 else 5
    for tick in range(step, int(top_value) + 1, step):
        out.append(
            f'<line x1="{x(0):.1f}" x2="{x(max_n):.1f}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            f'class="grid"/><text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" '
            f'class="tick">{tick}x</text>'
        )
    for r in study.rows:
        out.append(
            f'<text x="{x(r.streams):.1f}" y="{height - bottom + 16}" text-anchor="middle" '
            f'class="tick">{r.streams}</text>'
        )
    path = " ".join(
        f"{'M' if i == 0 else 'L'}{x(n):.1f},{y(v):.1f}" for i, (n, v) in enumerate(pts)
    )
    out.append(f'<path d="{path}" class="ts cpu"/>')
    for n, v in pts:
        out.append(
            f'<circle cx="{x(n):.1f}" cy="{y(v):.1f}" r="3.5" class="p95">'
            f"<title>{escape(f'{n} streams: {v:.2f}x')}</title></circle>"
        )
    out.append(
        f'<text x="{x(max_n / 2):.1f}" y="{height - 6}" text-anchor="middle" class="tick">'
        "query streams</text></svg>"
    )
    return "".join(out)


SCALE_HEADER = [
    "Streams", "Ts (s)", "Query sets / hour", "Query sets / day", "Relative throughput",
    "Scaling efficiency", "Throughput@Size", "CPU busy %", "Status",
]  # fmt: skip


def scale_document(s: ScaleStudy) -> Document:
    """A scaling study's page: a row per stream count, the chart, its notes and passes."""
    where = f"{s.database or s.engine} @ SF {fmt.sf(s.scale_factor)}"
    doc = Document(f"Scaling study: {where}", data=asdict(s), notes=list(s.notes))
    rows = [
        [
            str(r.streams), fmt.num2(r.ts_seconds), fmt.num1(r.sets_per_hour),
            fmt.num1(r.sets_per_day), fmt.ratio(r.relative), fmt.pct100(r.efficiency),
            fmt.num1(r.throughput_at_size), fmt.num1(r.cpu_busy),
            r.status + (f" ({r.failed_queries} failed intervals)" if r.failed_queries else ""),
        ]
        for r in s.rows
    ]  # fmt: skip
    scaling = doc.section(
        "Throughput by query streams",
        Paragraph(
            "Throughput test at each number of concurrent query streams (a study, not a "
            "compliant run)."
        ),
        Table(SCALE_HEADER, rows, frozenset(range(8))),
    )
    chart = scaling_svg(s)
    if chart:
        scaling.blocks.append(
            Figure(chart, "measured relative throughput against ideal (linear) scaling")
        )
    if s.passes:
        doc.sections.append(passes_section(s.passes))
    for r in s.rows:
        if r.status != "ok":
            doc.judge(f"{r.streams} streams", r.status + (f": {r.message}" if r.message else ""),
                      "fail")  # fmt: skip
    ok = sum(r.status == "ok" for r in s.rows)
    doc.judge("study", f"{ok} of {len(s.rows)} steps ok", "pass" if ok == len(s.rows) else "fail")
    return doc


def render_study(study: ScaleStudy, format: str) -> str:
    """The study's page in the format called ``format``."""
    return renderers.render(scale_document(study), format)


def write_scale_reports(out_dir: Path) -> list[Path]:
    study = build_study(out_dir, ScaleIndex.read(out_dir))
    paths = []
    for name, format in (("scaling.md", "md"), ("scaling.html", "html"), ("scaling.json", "json")):
        path = out_dir / name
        write_text(path, render_study(study, format))
        paths.append(path)
    return paths
