"""Renderers of the performance landscape (``dbbench compare``): text, Markdown, HTML.

Which format names exist, and which renderer each one means: ``reports.tpch.formats``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup
from rich.console import Console
from rich.table import Table
from rich.text import Text

from dbbench.reports import formatting as fmt
from dbbench.reports.model import RESULT_FILE
from dbbench.reports.templating import environment
from dbbench.reports.tpch.compare import (
    Landscape,
    Row,
    build_landscape,
    row_from_published,
    row_from_report,
)
from dbbench.reports.tpch.costsheet import CostSheet
from dbbench.reports.tpch.fair import Fair
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.published import PublishedResult
from dbbench.reports.tpch.summary import DISCLOSURE, build_report


def rows_for(
    inputs: list[tuple[str, BenchmarkResult | PublishedResult, CostSheet | None]],
) -> list[Row]:
    """Landscape rows from labelled local results (with their cost sheets) and records."""
    rows = []
    for label, item, sheet in inputs:
        if isinstance(item, PublishedResult):
            rows.append(row_from_published(label, item))
        else:
            rows.append(row_from_report(label, build_report(item, sheet)))
    return rows


def render_text(landscape: Landscape, width: int = 160) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, no_color=True, highlight=False)
    table = Table(title="Performance landscape (ch/co/th = chips/cores/threads)")
    heads = ("System", "ch/co/th", "Processor", "Database", "SF", "QphH", "$/QphH", "Price")
    for head in (*heads, "Disks", "Available", "Rel. QphH", "Kind"):
        table.add_column(head, justify="right" if head in ("QphH", "$/QphH", "Price") else "left")
    for r in landscape.rows:
        kind = r.kind + ("" if r.kind == "published" or r.compliant else " (non-compliant)")
        cells = (
            r.system,
            f"{fmt.opt(r.chips)}/{fmt.opt(r.cores)}/{fmt.opt(r.threads)}",
            r.processor,
            r.database,
            fmt.sf(r.scale_factor),
            fmt.num1(r.qphh),
            fmt.money(r.price_performance),
            fmt.money_whole(r.total_price, r.currency),
            fmt.opt(r.disks),
            fmt.day(r.availability),
            fmt.ratio(r.relative_qphh),
            kind,
        )  # Text: a result's strings are shown as they are, never parsed as markup
        table.add_row(*(Text(fmt.plain(c)) for c in cells))
    console.print(table)
    for warning in landscape.warnings:
        console.print(Text(fmt.plain(f"warning: {warning}")))
    console.print(DISCLOSURE, markup=False)
    return buffer.getvalue()


def render_markdown(landscape: Landscape) -> str:
    env = environment(markdown=True)
    return env.get_template("compare.md.j2").render(l=landscape, disclosure=DISCLOSURE)


def render_html(landscape: Landscape, sections: Sequence[str] = ()) -> str:
    """The landscape's page; ``sections``: other families' parts of the comparison, HTML
    fragments their renderers escaped (placed before the footer, never spliced in text)."""
    env = environment()
    css = env.get_template("report.css").render()
    return env.get_template("compare.html.j2").render(
        l=landscape, disclosure=DISCLOSURE, css=css, sections=[Markup(s) for s in sections]
    )


def landscape_for(
    inputs: list[tuple[str, BenchmarkResult | PublishedResult, CostSheet | None]],
    sort: str = "qphh",
    force: bool = False,
) -> Landscape:
    """The landscape of the inputs; refuses incomparable inputs unless ``force``."""
    return build_landscape(rows_for(inputs), sort=sort, force=force)


def label_for(path: Path) -> str:
    """A short label for an input: the run directory's name, or the file's without its
    ``.json``/``.toml`` suffix (never cut at another dot: ``duckdb-sf0.1`` stays whole)."""
    if path.name == RESULT_FILE:
        return path.resolve().parent.name
    if path.is_dir():
        return path.resolve().name
    return path.name.removesuffix(".json").removesuffix(".toml")


def unique_labels(labels: Sequence[str]) -> list[str]:
    """``labels`` with a repeated one numbered (``x``, ``x (2)``): no two inputs collide."""
    out: list[str] = []
    for label in labels:
        shown, n = label, 1
        while shown in out:
            n += 1
            shown = f"{label} ({n})"
        out.append(shown)
    return out


def compare_json(
    landscape: Landscape, speedups: Fair | None, acid: dict[str, Any] | None = None
) -> str:
    """The comparison as JSON: the landscape's rows, warnings and per-query power times, the
    one rule's speed-ups with their intervals and verdicts, and ``acid``: each local result's
    ACID verdict (:func:`reports.tpch.acid.acid_data`)."""
    rows = [
        {
            "label": r.label,
            "kind": r.kind,
            "system": r.system,
            "database": r.database,
            "scale_factor": r.scale_factor,
            "qphh": r.qphh,
            "power": r.power,
            "throughput": r.throughput,
            "price_performance": None if r.price_performance is None else str(r.price_performance),
            "compliant": r.compliant,
            "relative_qphh": r.relative_qphh,
        }
        for r in landscape.rows
    ]
    data = {
        "baseline": landscape.baseline,
        "rows": rows,
        "warnings": landscape.warnings,
        "power_seconds": {
            col: dict(zip(landscape.ratio_labels, [c[1] for c in cells], strict=True))
            for col, cells in landscape.ratios
        },
        "speedups": speedups.plain() if speedups else None,
        "acid": acid,
    }
    return json.dumps(data, indent=2) + "\n"
