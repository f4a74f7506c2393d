"""``dbbench compare`` over o2c results: a performance landscape across engines and
machines, with the seed's four published SD-Parallel records beside them, clearly marked as
real SAP certifications that are not comparable with any dbbench figure."""

from __future__ import annotations

import math
from dataclasses import dataclass

from dbbench.reports import renderers
from dbbench.reports.document import Document, Paragraph, Table
from dbbench.reports.noise import warn_busy
from dbbench.reports.o2c.metrics import DISCLAIMER, RATING_NAME, summarize_result
from dbbench.reports.o2c.model import O2CResult


@dataclass(frozen=True)
class LandscapeRow:
    label: str
    system: str
    database: str
    users: int | None
    avg_rt: float | None
    steps_per_hour: float | None
    rating: float | None  # O2C-SAPS (unofficial) for dbbench rows, SAPS for published rows
    note: str
    published: bool = False


#: SAP SD-Parallel 2-tier, SAP ERP 6.0 EHP4 Unicode (from the seed post; sap_sd.md section 6).
PUBLISHED_SD = (
    LandscapeRow(
        "SAP cert 2009041",
        "4 x Sun Blade X6270 (2 x Xeon X5570 each)",
        "Oracle 10g RAC",
        13_718,
        0.86,
        4_545_729,
        75_762,
        "2009-10-12",
        True,
    ),
    LandscapeRow(
        "SAP cert 2009040",
        "2 x Sun Blade X6270 (2 x Xeon X5570 each)",
        "Oracle 10g RAC",
        7_220,
        0.99,
        2_365_000,
        39_420,
        "2009-10-12",
        True,
    ),
    LandscapeRow(
        "SAP cert 2009039",
        "1 x Sun Blade X6270 (2 x Xeon X5570)",
        "Oracle 10g RAC",
        3_800,
        0.99,
        1_245_000,
        20_750,
        "2009-10-12",
        True,
    ),
    LandscapeRow(
        "SAP cert 2009033",
        "Sun Fire X4270 (2 x Xeon X5570)",
        "Oracle 10g",
        3_800,
        None,
        None,
        21_000,
        "2009-08-21",
        True,
    ),
)


def row_for(label: str, result: O2CResult) -> LandscapeRow:
    summary = summarize_result(result)
    best = summary.best
    sysinfo = result.system
    system = sysinfo.cpu_model or "unknown CPU"
    if sysinfo.cores:
        system += f" ({sysinfo.cores} cores)"
    database = f"{result.engine.version or result.engine.name}, TPC-H SF {result.scale_factor:g}"
    if best is None:
        return LandscapeRow(label, system, database, None, None, None, None, "no passing probe")
    note = f"{result.kind}, think {best.think:g} s, limit {result.rt_limit:g} s"
    return LandscapeRow(
        label, system, database, best.users, best.avg_rt, best.steps_per_hour, best.rating, note
    )


def _cell(v: float | None, digits: int = 0) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:,.{digits}f}"


HEADER = ["", "system", "database", "users", "avg RT s", "dialog steps/h", "rating", "note"]


def _rows(rows: list[LandscapeRow]) -> list[list[str]]:
    return [
        [
            r.label + (" (published SAP certification, not comparable)" if r.published else ""),
            r.system,
            r.database,
            _cell(r.users),
            _cell(r.avg_rt, 2),
            _cell(r.steps_per_hour),
            _cell(r.rating) + (" SAPS" if r.published else f" {RATING_NAME}"),
            r.note,
        ]
        for r in rows
    ]


TITLE = "o2c performance landscape (SD-like, unofficial)"
NOTE = (
    "The published rows are real SAP SD-Parallel certifications (SAP ERP 6.0 EHP4, "
    "Unicode) with an SAP application layer; they are shown for orientation only."
)


def landscape_document(results: list[tuple[str, O2CResult]]) -> Document:
    """The o2c results by rating, the published SD certifications below them."""
    own = sorted((row_for(label, r) for label, r in results), key=lambda r: -(r.rating or 0.0))
    rows = _rows(own) + _rows(list(PUBLISHED_SD))
    doc = Document(TITLE, DISCLAIMER, name="o2c")
    doc.section("Results", Paragraph(NOTE), Table(HEADER, rows, frozenset({3, 4, 5})))
    for row in own:
        if row.users is None:
            doc.judge(row.label, "no passing probe", "fail")
        else:
            doc.judge(row.label, f"{row.users:,} users within the limit", "pass")
    warn_busy(doc, list(results))
    return doc


def render_landscape(results: list[tuple[str, O2CResult]], fmt: str = "text") -> str:
    """The o2c landscape in the format called ``fmt`` (a part of a comparison)."""
    return renderers.render_part(landscape_document(results), fmt)
