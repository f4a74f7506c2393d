"""The comparison a suite writes: every entry's headline, per-query times side by side with
the speed-up against a baseline entry, and the landscape of :mod:`reports.tpch.compare`.

Built from the suite's index (``suite.json``: which entry ran where, and how it ended) and
each entry's own ``result.json``, so it can be rebuilt without any engine. Per-query figures
and speed-ups follow the one comparison rule of :mod:`reports.tpch.fair` (Q1-Q22 power-test
times, failures charged a penalty, repetitions paired with the baseline's); RF1/RF2 medians
are shown apart. The headline metrics (QphH, Power, Throughput) stay the spec's.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import escape

from dbbench.reports import formatting as fmt
from dbbench.reports import renderers
from dbbench.reports.chart import svg_text
from dbbench.reports.document import Document, Figure, Items, Paragraph, Section, Table
from dbbench.reports.errors import ReportsError
from dbbench.reports.loading import load_result
from dbbench.reports.safeio import write_text
from dbbench.reports.studies.suite_index import INDEX_FILE as INDEX_FILE
from dbbench.reports.studies.suite_index import INDEX_SCHEMA as INDEX_SCHEMA
from dbbench.reports.studies.suite_index import EntryRecord as EntryRecord
from dbbench.reports.studies.suite_index import SuiteIndex as SuiteIndex
from dbbench.reports.tpch import answers, fair, plan_compare
from dbbench.reports.tpch.acid import acid_data, acid_document
from dbbench.reports.tpch.analysis import QUERY_COLUMNS
from dbbench.reports.tpch.compare import build_landscape, row_from_report
from dbbench.reports.tpch.costsheet import load_cost_sheet
from dbbench.reports.tpch.fair import DIRECTION, PENALTY_RULE, Fair
from dbbench.reports.tpch.latency import distributions
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.passes import PassTable, pass_table
from dbbench.reports.tpch.passes_document import passes_section
from dbbench.reports.tpch.plan_compare import PlanGroup, plan_groups
from dbbench.reports.tpch.summary import DISCLOSURE, build_report
from dbbench.reports.tpch.telemetry import summarise


@dataclass
class EntryView:
    """What the comparison shows of one entry."""

    label: str
    record: EntryRecord
    result: BenchmarkResult | None = None
    database: str = ""
    qphh: float | None = None
    price_performance: str = ""  # $/QphH with its currency, when the entry has a cost sheet
    power: float | None = None
    throughput: float | None = None
    load_seconds: float | None = None
    resources: str = ""
    medians: dict[str, float] = field(default_factory=dict)
    answers: str = ""  # ``reports.tpch.answers.answers_line``


@dataclass
class QueryLine:
    column: str
    medians: list[float | None]  # per entry, seconds (charged: a failure is its penalty)
    speedups: list[float | None]  # baseline time / entry time: > 1 is faster
    penalised: list[bool] = field(default_factory=list)  # per entry: a penalty was charged


@dataclass
class Comparison:
    scale_factor: float
    baseline: str
    entries: list[EntryView]
    queries: list[QueryLine]
    geomean_speedups: list[float | None]
    warnings: list[str] = field(default_factory=list)
    passes: PassTable | None = None  # cold and hot passes (--cold, --repetitions)
    plans: list[PlanGroup] = field(default_factory=list)  # repetitions of one engine
    refresh: list[QueryLine] = field(default_factory=list)  # RF1/RF2, never in the headline
    fair: Fair | None = None  # entries pooled over their repetitions, with intervals
    direction: str = DIRECTION
    penalty_rule: str = PENALTY_RULE


def _label(record: EntryRecord, repetitions: int) -> str:
    return record.name if repetitions <= 1 else f"{record.name} #{record.repetition}"


def _view(out_dir: Path, record: EntryRecord, label: str) -> EntryView:
    view = EntryView(label, record)
    path = out_dir / record.run_dir
    if record.status == "failed" and not (path / "result.json").exists():
        return view
    try:
        result = load_result(path)
    except ReportsError as exc:
        record.message = record.message or str(exc)
        return view
    sheet = None
    if record.cost_sheet:
        try:
            sheet = load_cost_sheet(Path(record.cost_sheet))
        except ReportsError as exc:
            record.message = record.message or f"cost sheet: {exc}"
    report = build_report(result, sheet)
    view.result = result
    h = report.headline
    if h.price_performance is not None:
        view.price_performance = f"{h.price_performance:,.2f} {h.currency}".strip()
    view.database = report.headline.database
    view.qphh, view.power, view.throughput = (
        report.headline.qphh,
        report.headline.power,
        report.headline.throughput,
    )
    if result.load is not None and not result.load.reused:
        view.load_seconds = result.load.seconds
    tel = summarise(result)
    view.resources = tel.headline if tel else ""
    view.medians = {d.column: d.median for d in distributions(result)}
    view.answers = h.answers
    if answers.disagreements(result):  # verify --answers found a wrong output: invalid
        if record.status == "ok":
            record.status = "invalid"
        record.message = record.message or f"answers: {h.answers}"
    failed = fair.sample(result).failed
    if failed:  # charged a penalty: never a valid entry, whatever the run said
        if record.status == "ok":
            record.status = "invalid"
        listed = ", ".join(c for c in QUERY_COLUMNS if c in failed)
        record.message = record.message or f"failed or timed out: {listed} (penalty charged)"
    return view


def _pairs(views: list[EntryView], baseline: str) -> list[tuple[EntryView, EntryView | None]]:
    """Each view with the baseline's view of the same repetition (else its first)."""
    base = {v.record.repetition: v for v in views if v.record.name == baseline and v.result}
    first = next(iter(base.values()), None)
    return [(v, base.get(v.record.repetition, first)) for v in views]


def _fair_lines(
    views: list[EntryView], baseline: str
) -> tuple[list[QueryLine], list[float | None]]:
    """Per query, each entry's charged time and speed-up against the baseline of its
    repetition; and each entry's geometric mean over Q1-Q22."""
    results = [v.result for v in views if v.result is not None]
    penalty = fair.penalties([[fair.sample(r) for r in results]])
    lines = {c: QueryLine(c, [], [], []) for c in QUERY_COLUMNS}
    geo: list[float | None] = []
    for view, base in _pairs(views, baseline):
        own = fair.sample(view.result) if view.result else None
        ref = fair.sample(base.result) if base and base.result else None
        logs = []
        for col, line in lines.items():
            t = fair.charged(own, col, penalty) if own else None
            b = fair.charged(ref, col, penalty) if ref else None
            line.medians.append(t)
            line.penalised.append(bool(own and col in own.failed))
            ratio = b / t if t and b else None
            line.speedups.append(ratio)
            if ratio is not None:
                logs.append(math.log(ratio))
        whole = ref is not None and len(logs) == sum(
            1 for c in QUERY_COLUMNS if c in ref.times or c in ref.failed
        )
        geo.append(math.exp(sum(logs) / len(logs)) if logs and whole else None)
    kept = [line for line in lines.values() if any(m is not None for m in line.medians)]
    return kept, geo


def _pooled(views: list[EntryView], baseline: str) -> Fair | None:
    """The entries pooled over their repetitions (the baseline first), when any repeats."""
    groups: dict[str, list[BenchmarkResult]] = {}
    for v in sorted(views, key=lambda v: (v.record.name != baseline, v.record.repetition)):
        if v.result is not None:
            groups.setdefault(v.record.name, []).append(v.result)
    if baseline not in groups or max(len(g) for g in groups.values()) < 2:
        return None
    built = fair.build(list(groups.items()))
    # compare's guards: entries of other kits or seeds (a resumed suite) name no winner
    built.not_comparable = fair.differences([r for g in groups.values() for r in g])
    return built


def build_comparisons(out_dir: Path, index: SuiteIndex) -> list[Comparison]:
    """One comparison per scale factor of the suite."""
    reps = max((e.repetition for e in index.entries), default=1)
    out = []
    for sf in sorted({e.scale_factor for e in index.entries}):
        records = [e for e in index.entries if e.scale_factor == sf]
        views = [_view(out_dir, r, _label(r, reps)) for r in records]
        base = next((v for v in views if v.record.name == index.baseline and v.medians), None)
        warnings = [
            f"{v.label}: {v.record.status}" + (f": {v.record.message}" if v.record.message else "")
            for v in views
            if v.record.status != "ok"
        ]
        if base is None:
            warnings.append(f"the baseline {index.baseline!r} has no measured queries at SF {sf:g}")
        queries, geo = _fair_lines(views, index.baseline)
        refresh = [
            QueryLine(col, [v.medians.get(col) for v in views], [None for _ in views])
            for col in ("RF1", "RF2")
            if any(v.medians.get(col) is not None for v in views)
        ]
        comparison = Comparison(
            sf, base.label if base else index.baseline, views, queries, geo, warnings
        )
        comparison.refresh = refresh
        comparison.fair = _pooled(views, index.baseline)
        comparison.passes = pass_table([(v.label, v.result) for v in views])
        measured = [(v.label, v.result) for v in views if v.result is not None]
        sources = {v.label: out_dir / v.record.run_dir for v in views}
        comparison.plans = plan_groups(measured, sources)
        _landscape(comparison)
        comparison.warnings += answer_partings(views, index.baseline)
        out.append(comparison)
    return out


def answer_partings(views: list[EntryView], baseline: str) -> list[str]:
    """Each entry whose kept digests part from the baseline's (else the first entry with
    kept answers): the first query, in the baseline's order, both ran at the same state
    with the same parameters and digested differently (``reports.tpch.answers``)."""
    kept = [(v, answers.comparable_digests(v.result)) for v in views if v.result is not None]
    kept = [(v, d) for v, d in kept if d]
    ref = next(((v, d) for v, d in kept if v.record.name == baseline), kept[0] if kept else None)
    if ref is None:
        return []
    base, base_digests = ref
    lines = []
    for view, digests in kept:
        if view is base:
            continue
        parted = answers.first_parting(base_digests, digests)
        if parted is None:
            continue
        (run, stream, query), theirs, ours = parted
        lines.append(
            f"answers: {view.label} parts from {base.label} first at run {run} stream "
            f"{stream} Q{query} ({ours.rows} rows against {theirs.rows}, digests "
            f"{ours.sha256[:12]} and {theirs.sha256[:12]}; of "
            f"{answers.shared(base_digests, digests)} executions both ran at the same state: "
            "dbbench verify RUN --answers judges by value)"
        )
    return lines


def _landscape(comparison: Comparison) -> None:
    """The landscape's comparability warnings (kit versions, non-compliant runs)."""
    rows = [
        row_from_report(v.label, build_report(v.result)) for v in comparison.entries if v.result
    ]
    if not rows:
        return
    try:
        landscape = build_landscape(rows, force=True)
    except ReportsError as exc:
        comparison.warnings.append(str(exc))
        return
    comparison.warnings += [w for w in landscape.warnings if w not in comparison.warnings]


# ---------------------------------------------------------------- rendering


PALETTE = 12  # distinct entry colours of report.css (.e0 .. .e11)


def speedup_svg(comparison: Comparison) -> str:
    """Per query, one bar per entry: its speed-up against the baseline on a log2 axis."""
    n = len(comparison.entries)
    if not comparison.queries or n == 0:
        return ""
    width, left, right, top, row = 900, 60, 20, 20, 9 * n + 6
    height = top + row * len(comparison.queries) + 30
    span = 3.0  # 1/8x .. 8x

    def x(ratio: float) -> float:
        v = max(-span, min(span, math.log2(ratio)))
        return left + (width - left - right) * (v + span) / (2 * span)

    out = [
        f'<svg class="chart speedup" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="speed-up against the baseline" width="100%">'
    ]
    bottom = top + row * len(comparison.queries)
    for e in range(-3, 4):
        ratio = 2.0**e
        label = f"{ratio:g}x" if ratio >= 1 else f"1/{1 / ratio:g}x"
        out.append(
            f'<line x1="{x(ratio):.1f}" x2="{x(ratio):.1f}" y1="{top}" y2="{bottom}" '
            f'class="{"axis" if e == 0 else "grid"}"/><text x="{x(ratio):.1f}" '
            f'y="{bottom + 14}" text-anchor="middle" class="tick">{label}</text>'
        )
    for qi, q in enumerate(comparison.queries):
        y0 = top + qi * row
        out.append(svg_text(left - 6, y0 + row / 2 + 4, q.column, text_anchor="end", class_="cat"))
        for i, s in enumerate(q.speedups):
            if s is None:
                continue
            x0, x1 = sorted((x(1.0), x(s)))
            y = y0 + 3 + i * 9
            clipped = abs(math.log2(s)) > span
            out.append(
                f'<rect x="{x0:.1f}" y="{y:.1f}" width="{max(x1 - x0, 1):.1f}" '
                f'height="7" class="e{i % PALETTE}{" clipped" if clipped else ""}">'
                f"<title>{escape(comparison.entries[i].label)} "
                f"{escape(q.column)}: {s:.2f}x</title></rect>"
            )
            if clipped:  # beyond the axis: the bar ends at its edge, its value written there
                tx, anchor = (x1 - 2, "end") if s > 1 else (x0 + 2, "start")
                out.append(svg_text(tx, y + 6.5, f"{s:,.3g}x", text_anchor=anchor, class_="clip"))
    out.append("</svg>")
    return "".join(out)


def _measured(c: Comparison) -> list[tuple[str, BenchmarkResult]]:
    """The entries with a result (their ACID verdicts: :func:`reports.tpch.acid.acid_document`)."""
    return [(v.label, v.result) for v in c.entries if v.result is not None]


def _status(v: EntryView) -> str:
    status = "INVALID" if v.record.status == "invalid" else v.record.status
    return status + (f": {v.record.message}" if v.record.message else "")


ENTRY_HEADER = [
    "Entry", "Database", "Status", "QphH", "Price/QphH", "Power", "Throughput", "Load s",
    "Speed-up (geo. mean, Q1-Q22)", "Resources", "Run",
]  # fmt: skip


def _entries_table(c: Comparison) -> Table:
    rows = [
        [
            v.label, v.database, _status(v), fmt.num1(v.qphh), v.price_performance or "n/a",
            fmt.num1(v.power), fmt.num1(v.throughput), fmt.num1(v.load_seconds),
            fmt.ratio(c.geomean_speedups[i]), v.resources, v.record.run_dir if v.result else "",
        ]
        for i, v in enumerate(c.entries)
    ]  # fmt: skip
    run = ENTRY_HEADER.index("Run")
    links = {
        (i, run): f"{v.record.run_dir}/report.html"
        for i, v in enumerate(c.entries)
        if v.result and v.record.run_dir
    }
    return Table(ENTRY_HEADER, rows, frozenset(range(3, 9)), links=links)


def _queries_table(c: Comparison) -> Table:
    header = ["Query"] + [h for v in c.entries for h in (f"{v.label} ms", "speed-up")]
    rows = [
        [q.column]
        + [
            cell
            for i in range(len(c.entries))
            for cell in (
                fmt.ms(q.medians[i]) + (" PENALTY" if q.penalised[i] else ""),
                fmt.ratio(q.speedups[i]),
            )
        ]
        for q in c.queries
    ]
    return Table(header, rows, frozenset(range(1, len(header))))


def _refresh_text(c: Comparison) -> str:
    parts = [
        f"{q.column} "
        + ", ".join(f"{v.label} {fmt.ms(q.medians[i])} ms" for i, v in enumerate(c.entries))
        for q in c.refresh
    ]
    return (
        "Refresh functions apart (median of the measured times over every run; never in the "
        f"speed-up): {'; '.join(parts)}."
    )


def _comparison_sections(c: Comparison) -> list[Section]:
    """One scale factor's parts: the entries, answers, the speed-up chart and table, the
    refresh functions, the repetitions' intervals, passes, plans and ACID tests."""
    sf = fmt.sf(c.scale_factor)
    main = Section(
        f"SF {sf}: {len(c.entries)} entries, baseline {c.baseline}",
        [
            Paragraph(
                f"Speed-up: {c.direction}; the geometric mean over Q1-Q22 of each entry's "
                f"power-test times (RF1/RF2 apart). Failures: {c.penalty_rule}."
            ),
            _entries_table(c),
            Paragraph("Answers (kept outputs, checked by dbbench verify RUN --answers):"),
            Items([f"{v.label}: {v.answers or 'no result'}" for v in c.entries]),
        ],
    )
    chart = speedup_svg(c)
    if chart:
        main.blocks.append(
            Figure(
                chart,
                f"Speed-up per query against {c.baseline} (power-test times; right of 1x: "
                "faster than the baseline; log scale; a bar beyond 1/8x or 8x ends at the "
                "edge, dashed, its value written on it)",
            )
        )
    main.blocks.append(
        Paragraph(
            "Per query: the power-test time (ms; median over the runs; PENALTY: a failure "
            f"charged), and the speed-up against {c.baseline} (baseline time / entry time; "
            "above 1x is faster)."
        )
    )
    main.blocks.append(_queries_table(c))
    if c.refresh:
        main.blocks.append(Paragraph(_refresh_text(c)))
    out = [main]
    if c.fair is not None:
        out.append(fair.fair_section(c.fair))
    if c.passes:
        out.append(passes_section(c.passes))
    for part in out[1:]:  # parts of the scale factor's section
        part.level = 3
    out += plan_compare.plan_sections(c.plans)
    return out


def suite_document(comparisons: list[Comparison]) -> Document:
    """The suite's comparison, every scale factor, in no format yet; its JSON data: each
    comparison's figures (``comparisons``)."""
    doc = Document(
        "Suite comparison",
        label=DISCLOSURE,
        data={"comparisons": [_plain(c) for c in comparisons]},
        name="suite",
    )
    several = len(comparisons) > 1
    for c in comparisons:
        where = f"SF {fmt.sf(c.scale_factor)}: " if several else ""
        doc.sections += _comparison_sections(c)
        measured = _measured(c)
        if measured:
            acid = acid_document(measured)
            for part in acid.sections:  # a part of the scale factor's section
                part.level = 3
            doc.sections += acid.sections
            for v in acid.verdicts:
                doc.judge(where + v.subject, v.outcome, v.passed)
        for w in c.warnings:
            doc.warn(where + w)
    return doc


def render_suite(comparisons: list[Comparison], format: str) -> str:
    """The suite's comparison in the format called ``format`` (any of the renderers')."""
    return renderers.render(suite_document(comparisons), format)


def _plain(c: Comparison) -> dict[str, Any]:
    return {
        "scale_factor": c.scale_factor,
        "baseline": c.baseline,
        "entries": [
            {
                "label": v.label,
                **asdict(v.record),
                "database": v.database,
                "qphh": v.qphh,
                "price_performance": v.price_performance,
                "power": v.power,
                "throughput": v.throughput,
                "load_seconds": v.load_seconds,
                "resources": v.resources,
                "medians": v.medians,
                "answers": v.answers,
            }
            for v in c.entries
        ],
        "direction": c.direction,
        "penalty_rule": c.penalty_rule,
        "queries": [asdict(q) for q in c.queries],
        "refresh": [asdict(q) for q in c.refresh],
        "geomean_speedups": c.geomean_speedups,
        "pooled": c.fair.plain() if c.fair else None,
        "warnings": c.warnings,
        "passes": asdict(c.passes) if c.passes else None,
        "plans": [{"engine": g.engine, "labels": g.labels, "rows": g.rows} for g in c.plans],
        "acid": acid_data(_measured(c)) if _measured(c) else None,
    }


def write_suite_reports(out_dir: Path) -> list[Path]:
    """comparison.md, comparison.html and comparison.json from the suite's index."""
    comparisons = build_comparisons(out_dir, SuiteIndex.read(out_dir))
    paths = []
    for name, format in (
        ("comparison.md", "md"),
        ("comparison.html", "html"),
        ("comparison.json", "json"),
    ):
        path = out_dir / name
        write_text(path, render_suite(comparisons, format))
        paths.append(path)
    return paths
