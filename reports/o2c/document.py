"""The o2c result's report as a format-neutral :class:`~reports.document.Document`: the
results summary of its headline probe, its response times per transaction and per step,
its nodes, throughput over time and charts, the studies' tables, and every warning, reason
and verdict it states."""

from __future__ import annotations

from dbbench.reports import renderers
from dbbench.reports.document import Document, Facts, Figure, Items, Paragraph, Table
from dbbench.reports.noise import add_noise
from dbbench.reports.o2c.charts import histogram_svg, timeline_svg
from dbbench.reports.o2c.metrics import DISCLAIMER
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.o2c.render import (
    NODE_HEADER,
    NODE_NOTE,
    NODES_HEADER,
    NODES_NOTE,
    REPEAT_HEADER,
    RT_HEADER,
    SCALE_HEADER,
    SCALE_NOTE,
    SEARCH_HEADER,
    TIMELINE_HEADER,
    _headline,
    _json,
    _probes_svg,
    node_rows,
    nodes_rows,
    repeat_rows,
    scale_rows,
    search_rows,
    step_rows,
    summary_rows,
    timeline_rows,
    transaction_rows,
)
from dbbench.reports.o2c.series import logged_on_series, window_response_times

NO_PASS = "No passing probe: no number of users met the response-time limit."


def _numbers(header: list[str], text: frozenset[int] = frozenset({0})) -> frozenset[int]:
    return frozenset(range(len(header))) - text


def o2c_document(result: O2CResult) -> Document:
    title, probe, probes = _headline(result)
    title += " (SD-like order-to-cash, NOT an SAP-certified result)"
    doc = Document(title, DISCLAIMER, data=_json(result, probe, probes))
    if result.errors:
        doc.section("Errors", Items([f"error: {e}" for e in result.errors]))
    if probe is None:
        doc.judge("result", NO_PASS, "fail")
    else:
        raw = next(p for p in result.probes if p.users == probe.users and p.role == probe.role)
        doc.judge(f"{probe.users:,} users", "PASS" if probe.passed else "FAIL",
                  "pass" if probe.passed else "fail")  # fmt: skip
        doc.section("Results summary", Facts(summary_rows(result, probe)))
        doc.section(
            "Dialog response time per transaction",
            Table(RT_HEADER, transaction_rows(probe), _numbers(RT_HEADER), row_headers=True),
        )
        doc.section(
            "Per dialog step",
            Table(RT_HEADER, step_rows(probe), _numbers(RT_HEADER), row_headers=True),
        )
        nodes = node_rows(raw)
        if nodes:
            doc.section(
                "Per database node",
                Paragraph(NODE_NOTE),
                Table(NODE_HEADER, nodes, _numbers(NODE_HEADER), row_headers=True),
            )
        timeline = timeline_rows(raw, probe)
        if timeline:
            doc.section(
                "Throughput over time",
                Table(TIMELINE_HEADER, timeline, frozenset({2}), row_headers=True),
            )
        doc.section(
            "Charts",
            Figure(
                timeline_svg(raw, probe.throughput, logged_on_series(raw)),
                "dialog steps per second and users logged on over the probe's time",
            ),
            Figure(
                histogram_svg(window_response_times(raw), result.rt_limit),
                "the distribution of the window's dialog response times, with the limit",
            ),
        )
        for reason in probe.reasons:
            doc.judge(f"{probe.users:,} users", f"Not valid: {reason}", "fail")
        for warning in probe.warnings:
            doc.warn(warning)
    if result.kind == "nodes":
        doc.section(
            "Scaling by database nodes",
            Paragraph(NODES_NOTE),
            Table(NODES_HEADER, nodes_rows(result), _numbers(NODES_HEADER, frozenset({2})),
                  row_headers=True),
        )  # fmt: skip
    if result.kind == "scale":
        doc.section(
            "Scaling by users",
            Paragraph(SCALE_NOTE),
            Figure(_probes_svg(probes, result.rt_limit), "average RT against users"),
            Table(SCALE_HEADER, scale_rows(probes), _numbers(SCALE_HEADER, frozenset({7})),
                  row_headers=True),
        )  # fmt: skip
    again = repeat_rows(probes)
    if again:
        doc.section("Repeated runs", Table(REPEAT_HEADER, again, frozenset({0, 1})))
    if result.kind != "scale" and (result.kind == "search" or len(probes) > 1):
        doc.section(
            "Probes",
            Figure(_probes_svg(probes, result.rt_limit), "average RT against users"),
            Table(SEARCH_HEADER, search_rows(probes), _numbers(SEARCH_HEADER, frozenset({8})),
                  row_headers=True),
        )  # fmt: skip
    add_noise(doc, result.config)
    return doc


def render_o2c(result: O2CResult, fmt: str = "text") -> str:
    """The o2c result's report in the format called ``fmt``."""
    return renderers.render(o2c_document(result), fmt)
