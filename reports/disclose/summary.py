"""The Executive Summary (clause 8.4): three printed pages, each a document of its own
rendered by the one HTML renderer: (1) the overview, (2) the pricing spreadsheet, (3) the
numerical quantities (every stream's seed, start and end, every query and refresh time).
A cost sheet longer than its page is never cut: the pricing page then runs on over as many
printed pages as it needs, and the numerical quantities start on the page after it."""

from __future__ import annotations

from dbbench.reports import formatting as fmt
from dbbench.reports.document import Document, Facts, Items, Paragraph, Table
from dbbench.reports.renderers import html
from dbbench.reports.tpch.analysis import COLUMNS
from dbbench.reports.tpch.costsheet import CostSheet
from dbbench.reports.tpch.reasons import messages
from dbbench.reports.tpch.summary import Report

#: Print layout: one A4/Letter page per ``section.page`` (its content fits the page's
#: printable area at these sizes; a page never grows past it, so the PDF has three pages),
#: but the pricing page (``flows``): at least one page, more for a long cost sheet.
PRINT_CSS = """
<style>
@page { size: A4; margin: 10mm; }
body { max-width: 190mm; margin: 0 auto; }
section.page { break-after: page; page-break-after: always; overflow: hidden; }
section.page:last-of-type { break-after: auto; page-break-after: auto; }
section.page h1 { font-size: 16pt; margin: 0 0 4pt; }
section.page h2 { font-size: 11pt; margin: 6pt 0 2pt; }
section.page table { font-size: 7.5pt; }
section.page td, section.page th { padding: 1px 4px; }
section.page .wide { overflow: visible; }
section.page.many table { font-size: 5pt; }
section.page.many td, section.page.many th { padding: 0 1px; }
@media screen { section.page { border-bottom: 1px dashed #999; margin-bottom: 12px; } }
@media print { section.page { height: 272mm; }
  section.page.flows { height: auto; min-height: 272mm; overflow: visible; } }
</style>
"""


#: more stream columns than this on page 3 (2 runs of S + 1 streams): a smaller type
MANY_COLUMNS = 10


def overview(report: Report, sponsor: str = "") -> Document:
    h = report.headline
    sf = fmt.sf(h.scale_factor)
    sheet = report.cost_sheet
    doc = Document(f"Executive Summary: {h.database} @ SF {sf}", report.disclosure)
    doc.section(
        "Overview",
        Facts(
            [
                ("Benchmark sponsor", sponsor or "not stated"),
                ("System", sheet.system if sheet and sheet.system else "not stated"),
                ("Database", h.database),
                ("Operating system", h.os),
                ("Availability date", fmt.day(h.availability_date)),
                ("Total system cost (3 years)", fmt.money_whole(h.total_cost, h.currency)),
                (f"QphH@{sf}", f"{fmt.num1(h.qphh)} ({h.qphh_note})"),
                (f"Power@{sf}", fmt.num1(h.power)),
                (f"Throughput@{sf}", fmt.num1(h.throughput)),
                (f"Price/QphH@{sf}", fmt.money(h.price_performance, h.currency)),
            ]
        ),
    )
    doc.section(
        "Configuration summary",
        Facts(
            [
                ("Processors", h.processors),
                ("Memory", h.memory),
                ("Storage ratio", fmt.num2(h.storage_ratio)),
                ("Query streams", str(h.streams)),
                ("Load time", h.load_time or fmt.NA),
                ("Engine URL (no password)", report.result.engine.url),
            ]
        ),
    )
    doc.judge("compliance", "compliant" if report.compliance.compliant else "not compliant",
              "pass" if report.compliance.compliant else "fail")  # fmt: skip
    if not report.compliance.compliant:
        doc.section("Why not compliant", Items(messages(report.compliance)))
    return doc


def pricing(sheet: CostSheet | None) -> Document:
    doc = Document("Executive Summary: pricing spreadsheet")
    if sheet is None:
        doc.section("Pricing", Paragraph("No cost sheet was given (--cost-sheet): no price."))
        return doc
    cur = sheet.currency
    rows = [
        [i.category, i.description, i.part_number, fmt.money(i.unit_price, cur), str(i.quantity),
         fmt.money(i.discount, cur), fmt.money(i.maintenance_3y, cur), fmt.money(i.total, cur)]
        for i in sheet.items
    ]  # fmt: skip
    header = ["category", "description", "part", "unit price", "qty", "discount",
              "3-yr maintenance", "3-yr total"]  # fmt: skip
    doc.section("Priced items", Table(header, rows, frozenset({3, 4, 5, 6, 7})))
    totals = [
        [t.category, fmt.money(t.purchase, cur), fmt.money(t.maintenance_3y, cur),
         fmt.money(t.total, cur)]
        for t in sheet.totals_by_category()
    ]  # fmt: skip
    totals.append(["total", "", "", fmt.money(sheet.total_3y, cur)])
    doc.section(
        "Totals",
        Table(
            ["category", "purchase (less discounts)", "3-yr maintenance", "3-yr total"],
            totals,
            frozenset({1, 2, 3}),
            row_headers=True,
        ),
        Facts(
            [
                ("Availability date", fmt.day(sheet.availability_date)),
                ("Currency", cur),
                ("Notes", sheet.notes or fmt.NA),
            ]
        ),
    )
    return doc


def quantities(report: Report) -> Document:
    h = report.headline
    result = report.result
    load = result.load
    doc = Document("Executive Summary: numerical quantities")
    facts = [
        ("Scale factor", fmt.sf(h.scale_factor)),
        ("Storage ratio", fmt.num2(h.storage_ratio)),
        ("Load start", fmt.when(load.start if load else None)),
        ("Load end", fmt.when(load.end if load else None)),
        ("Load time", h.load_time or fmt.NA),
        ("Query streams", str(h.streams)),
    ]
    for run in report.runs:
        facts.append((
            f"Run {run.number}",
            f"Power@Size {fmt.num1(run.power)}, Throughput@Size {fmt.num1(run.throughput)}, "
            f"QphH@Size {fmt.num1(run.qphh)}",
        ))  # fmt: skip
    facts.append(("Reported", h.qphh_note))
    doc.section("Numerical quantities", Facts(facts))
    header = ["", *(f"run {r.number} s{row.stream}" for r in report.runs for row in r.rows)]
    cells = [(r, row) for r in report.runs for row in r.rows]
    rows = [
        ["seed", *(str(row.seed) if row.seed is not None else fmt.NA for _, row in cells)],
        ["start", *(_clock(row.start) for _, row in cells)],
        ["end", *(_clock(row.end) for _, row in cells)],
    ]
    for column in COLUMNS:
        rows.append([column, *(_cell(row.cells, column) for _, row in cells)])
    numeric = frozenset(range(1, len(header)))
    doc.section(
        "Per stream: seed, start and end (UTC), every query and refresh time (seconds)",
        Table(header, rows, numeric, row_headers=True),
    )
    return doc


def _clock(epoch: float | None) -> str:
    """The time of day of an instant (the date is the load's, on the same page)."""
    text = fmt.when(epoch)
    return text[11:] if text != fmt.NA else text


def _cell(cells: dict[str, float | None], column: str) -> str:
    if column not in cells:
        return ""
    value = cells[column]
    return "failed" if value is None else fmt.num1(value)


def summary_html(report: Report, sponsor: str = "") -> str:
    """The three pages as one HTML page (each a ``section.page``)."""
    parts = [PRINT_CSS]
    columns = sum(len(run.rows) for run in report.runs)
    pages = (
        (overview(report, sponsor), ""),
        (pricing(report.cost_sheet), " flows"),
        (quantities(report), " many" if columns > MANY_COLUMNS else ""),
    )
    for doc, kind in pages:
        parts.append(f'<section class="page{kind}">' + "\n".join(html.body(doc)) + "</section>")
    return html.page(f"Executive Summary: {report.headline.database}", parts)
