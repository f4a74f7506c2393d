"""The TPC-H run's report as a format-neutral :class:`~reports.document.Document`: the
executive summary, the runs, each run's query times (with its chart), the compliance
verdict and its reasons, the configuration warnings and the notes. Its ``data`` is the
JSON report every earlier version gave (``dbbench-report``)."""

from __future__ import annotations

import json

from dbbench.reports import formatting as fmt
from dbbench.reports.document import Document, Facts, Figure, Paragraph, Table
from dbbench.reports.tpch.analysis import COLUMNS
from dbbench.reports.tpch.fairness import preflight_result
from dbbench.reports.tpch.render import chart_svg, headline_facts, render_json
from dbbench.reports.tpch.settings import settings_table
from dbbench.reports.tpch.summary import Report

RUNS_HEADER = ["run", "streams", "Power@Size", "Throughput@Size", "QphH@Size", "Ts"]


def compliance_outcome(report: Report) -> str:
    return "compliant" if report.compliance.compliant else "not compliant"


def tpch_document(report: Report) -> Document:
    h = report.headline
    sf = fmt.sf(h.scale_factor)
    doc = Document(
        f"TPC-H-derived benchmark report: {h.database} @ SF {sf}",
        report.disclosure,
        data=json.loads(render_json(report)),
        notes=list(report.notes),
    )
    doc.section(
        "Executive summary",
        Facts(headline_facts(report)),
    )
    runs = [
        [str(r.number), str(r.streams), fmt.num1(r.power), fmt.num1(r.throughput),
         fmt.num1(r.qphh), fmt.duration(r.ts_seconds)]
        for r in report.runs
    ]  # fmt: skip
    doc.section("Runs", Table(RUNS_HEADER, runs, frozenset(range(5))))
    settings = settings_table(report)
    if settings is not None:
        doc.section("Engine settings", settings)
    for run in report.runs:
        rows = [
            [c, fmt.num1(run.power_times.get(c)), fmt.num1(run.throughput_means.get(c))]
            for c in COLUMNS
        ]
        doc.section(
            f"Run {run.number}: power test and throughput-test mean per query (seconds)",
            Paragraph(
                f"Power geometric mean: {fmt.num1(run.power_geomean)} s; throughput "
                f"arithmetic mean: {fmt.num1(run.throughput_mean)} s."
            ),
            Figure(chart_svg(run), f"run {run.number}: power-test times and throughput means"),
            Table(["query", "power test", "throughput mean"], rows, frozenset({1, 2})),
            level=3,
        )
    doc.judge(
        "compliance", compliance_outcome(report), "pass" if report.compliance.compliant else "fail"
    )
    for reason in report.reasons:
        doc.judge("non-compliant", reason, "fail")
    for line in preflight_result(report.result):
        doc.warn(line)
    return doc
