"""HammerDB results in the landscape of ``dbbench compare``: a section of their own beside the
TPC-H table (TPROC-C has no QphH), and for a TPROC-H result with a dbbench TPC-H result of the
same engine and scale factor, their per-query times side by side."""

from __future__ import annotations

from dbbench.reports import renderers
from dbbench.reports.document import Document, Paragraph, Table
from dbbench.reports.hammerdb.document import status_verdict
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.noise import warn_busy
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.summary import build_report

SAME_QUERIES_NOTE = (
    "Same 22 queries, different parameters and sequencing: HammerDB's TPROC-H draws its own "
    "substitution values, dbbench uses qgen's; compare the shape, not query by query to the "
    "millisecond."
)


def _rows(items: list[tuple[str, HammerDBResult]]) -> list[list[str]]:
    rows = []
    for label, r in items:
        if r.benchmark == "TPROC-C":
            metric = f"{r.nopm:,.0f} NOPM / {r.tpm:,.0f} TPM" if r.nopm and r.tpm else "-"
            size = f"{r.config.get('warehouses', '-')} wh, {r.config.get('virtual_users', '-')} VU"
        else:
            geo = r.geomean_seconds
            metric = f"geomean {geo:.3f} s" if geo is not None else "-"
            size = (
                f"SF {r.config.get('scale_factor', '-')}, {r.config.get('virtual_users', '-')} VU"
            )
        database = " ".join(p for p in (r.engine.name, r.engine.version) if p)
        rows.append([label, r.benchmark, database, size, metric, r.status, r.source])
    return rows


def _power_times(result: BenchmarkResult) -> dict[int, float]:
    report = build_report(result)
    run = next((x for x in report.runs if x.number == report.headline.reported_run), None)
    if run is None and report.runs:
        run = report.runs[0]
    if run is None:
        return {}
    return {int(k[1:]): v for k, v in run.power_times.items() if k.startswith("Q")}


def side_by_side(
    hdb: list[tuple[str, HammerDBResult]], tpch: list[tuple[str, BenchmarkResult]]
) -> list[tuple[str, str, list[list[str]]]]:
    """(TPROC-H label, TPC-H label, rows of query, HammerDB s, dbbench s, ratio)."""
    out = []
    for hlabel, h in hdb:
        if h.benchmark != "TPROC-H" or not h.query_times:
            continue
        for tlabel, t in tpch:
            same_engine = h.engine.name == t.engine.name
            if not same_engine or float(h.config.get("scale_factor", 0)) != t.scale_factor:
                continue
            mine = _power_times(t)
            theirs: dict[int, list[float]] = {}
            for q in h.query_times:
                theirs.setdefault(q.query, []).append(q.seconds)
            rows = []
            for query in range(1, 23):
                a = sum(theirs[query]) / len(theirs[query]) if query in theirs else None
                b = mine.get(query)
                ratio = f"{a / b:.2f}" if a is not None and b else "-"
                rows.append(
                    [
                        f"Q{query}",
                        "-" if a is None else f"{a:.3f}",
                        "-" if b is None else f"{b:.3f}",
                        ratio,
                    ]
                )
            out.append((hlabel, tlabel, rows))
    return out


_HEAD = ["Result", "Benchmark", "Database", "Size", "Metric", "Status", "Source"]
_QHEAD = ["Query", "HammerDB TPROC-H (s)", "dbbench TPC-H power (s)", "ratio"]


def compare_document(
    hdb: list[tuple[str, HammerDBResult]], tpch: list[tuple[str, BenchmarkResult]]
) -> Document:
    """The HammerDB part of the landscape: every result's row and status (its verdict), and
    each TPROC-H result beside a TPC-H one of the same engine and scale factor, per query."""
    doc = Document("HammerDB results", name="hammerdb")
    doc.section("Results", Table(_HEAD, _rows(hdb)))
    for hl, tl, rows in side_by_side(hdb, tpch):
        doc.section(
            f"TPROC-H {hl} vs TPC-H {tl}, per query",
            Table(_QHEAD, rows, frozenset({1, 2, 3}), row_headers=True),
            Paragraph(SAME_QUERIES_NOTE),
            level=3,
        )
    for label, r in hdb:
        doc.judge(label, status_verdict(r), "pass" if r.status == "complete" else "fail")
    warn_busy(doc, list(hdb))
    return doc


def render_section(
    hdb: list[tuple[str, HammerDBResult]], tpch: list[tuple[str, BenchmarkResult]], fmt: str
) -> str:
    """The HammerDB part of the landscape in the format called ``fmt``."""
    if not hdb:
        return ""
    return renderers.render_part(compare_document(hdb, tpch), fmt)
