"""A HammerDB result's report as a format-neutral :class:`~reports.document.Document`: its
headline, response times (with the box plot), transactions per minute, query times, its
errors (a section of their own) and its status as the verdict."""

from __future__ import annotations

import dataclasses

from dbbench.reports import renderers
from dbbench.reports.document import Document, Facts, Figure, Items, Table
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.hammerdb.render import (
    _DISCLAIMER,
    _TIMING_COLS,
    REPORT_SCHEMA,
    _headline,
    _n,
    _query_summary,
    _timing_row,
    bars_svg,
    boxplot_svg,
    line_svg,
)
from dbbench.reports.noise import add_noise


def status_verdict(r: HammerDBResult) -> str:
    """The run's status in words, with its errors' count."""
    return r.status + ("" if not r.errors else f" ({len(r.errors)} errors)")


def hammerdb_document(r: HammerDBResult) -> Document:
    data = {
        "schema": REPORT_SCHEMA,
        "schema_version": 1,
        "headline": dict(_headline(r)),
        "query_summary": [{"query": q, "seconds": s, "runs": n} for q, s, n in _query_summary(r)],
        "result": dataclasses.asdict(r),
    }
    doc = Document(f"HammerDB {r.benchmark} report", _DISCLAIMER, data=data)
    doc.section("Summary", Facts(_headline(r)))
    if r.response_times:
        header = ["transaction", *_TIMING_COLS]
        numbers = frozenset(range(1, len(header)))
        doc.section(
            "Response times (ms, all virtual users)",
            Table(header, [_timing_row(t) for t in r.response_times], numbers, row_headers=True),
            Figure(boxplot_svg(r.response_times), "response time box plot per transaction"),
        )
    if r.transaction_counts:
        points = r.transaction_counts
        doc.section(
            "Transactions per minute over time",
            Figure(
                line_svg([p.value for p in points], [p.timestamp for p in points],
                         "Transactions per minute"),
                "transactions per minute over the run's time",
            ),
            Table(["time", "tpm"], [[p.timestamp, _n(p.value)] for p in points], frozenset({1})),
        )  # fmt: skip
    if r.query_times:
        summary = _query_summary(r)
        doc.section(
            "Query times (seconds, mean over virtual users and sets)",
            Figure(
                bars_svg([(f"Q{q}", s) for q, s, _ in summary], "Seconds per query (mean)"),
                "mean seconds per query",
            ),
            Table(
                ["query", "seconds", "runs"],
                [[f"Q{q}", f"{s:.3f}", str(n)] for q, s, n in summary],
                frozenset({1, 2}),
            ),
        )
    if r.errors:  # what HammerDB said went wrong, each as it said it
        doc.section("Errors", Items(r.errors))
    add_noise(doc, r.config)
    doc.judge("run", status_verdict(r), "pass" if r.status == "complete" else "fail")
    return doc


def render(r: HammerDBResult, fmt: str) -> str:
    """The HammerDB result's report in the format called ``fmt``."""
    return renderers.render(hammerdb_document(r), fmt)
