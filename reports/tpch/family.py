"""The TPC-H run's result family (``dbbench-result``): its reader (schema check of every
version, completion from the run directory's journal), its report formats and its part of a
comparison (the performance landscape, published records included)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dbbench.reports import renderers
from dbbench.reports.document import Document
from dbbench.reports.errors import ReportsError
from dbbench.reports.family import CompareContext, Family, RecordKind, RenderOptions
from dbbench.reports.model import RESULT_FILE
from dbbench.reports.tpch import fair, plan_compare
from dbbench.reports.tpch.acid import acid_data, acid_part
from dbbench.reports.tpch.compare import Landscape
from dbbench.reports.tpch.costsheet import CostSheet, load_cost_sheet
from dbbench.reports.tpch.document import tpch_document
from dbbench.reports.tpch.formats import FORMATS, render_landscape
from dbbench.reports.tpch.job_report import tpch_job_report
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.plan_compare import plan_groups
from dbbench.reports.tpch.published import PublishedResult, load_published
from dbbench.reports.tpch.recovery import recover
from dbbench.reports.tpch.render_compare import compare_json, landscape_for, render_html
from dbbench.reports.tpch.site import SITE, published_row
from dbbench.reports.tpch.summary import build_report
from dbbench.reports.tpch.validation import check_result_data
from dbbench.reports.tpch.verify import check


def read(path: Path, data: Any) -> tuple[BenchmarkResult, str | None]:
    """A TPC-H result: ``data`` (the parsed file) upgraded to the current version and checked
    against the schema (every version: a version 1 file is not trusted more), then completed
    from the run directory's journal; ``data`` None: rebuilt from the journal alone."""
    run_dir = path if path.is_dir() else path.parent
    if data is None:
        rebuilt = recover(path, None)
        if rebuilt is None:
            raise ReportsError(f"{path}: no result file, and its journal holds no benchmark")
        return rebuilt
    BenchmarkResult._check_envelope(data)
    upgraded = BenchmarkResult.upgrade_data(data)
    file = path / RESULT_FILE if path.is_dir() else path
    result = BenchmarkResult.built_from(data, upgraded)  # then it fits the schema
    if result is None:  # the checks say what does not fit, naming the field
        check_result_data(upgraded, str(file))
        result = BenchmarkResult.from_parsed(data)
    else:
        result.check()
    if path.is_dir() or path.name == RESULT_FILE:
        rebuilt = recover(run_dir, result)
        if rebuilt is not None:
            return rebuilt
    return result, None


def _renderer(name: str) -> Any:
    def render(result: BenchmarkResult, options: RenderOptions) -> str:
        report = build_report(result, _sheet(options), options.source)
        return FORMATS[name].report(report, options.color)

    return render


def _inputs(
    items: list[tuple[str, Any]], context: CompareContext
) -> list[tuple[str, BenchmarkResult | PublishedResult, CostSheet | None]]:
    local = [label for label, item in items if isinstance(item, BenchmarkResult)]
    if len(context.cost_sheets) > len(local):
        raise ReportsError(
            f"{len(context.cost_sheets)} cost sheets for {len(local)} local results: "
            "give at most one --cost-sheet per local result, in the same order"
        )
    sheets = [load_cost_sheet(s) for s in context.cost_sheets]  # n-th sheet, n-th result
    out: list[tuple[str, BenchmarkResult | PublishedResult, CostSheet | None]] = []
    n = 0
    for label, item in items:
        if isinstance(item, BenchmarkResult):
            out.append((label, item, sheets[n] if n < len(sheets) else None))
            n += 1
        else:
            out.append((label, item, None))
    return out


def _fair(items: list[tuple[str, Any]], landscape: Landscape) -> fair.Fair | None:
    """The one comparison rule's speed-ups, local results pooled over their repetitions;
    None with fewer than two entries."""
    groups = fair.grouped(_local(items))
    if len(groups) < 2:
        return None
    built = fair.build(groups)
    built.not_comparable = [
        w.removeprefix("NOT COMPARABLE: ") for w in landscape.warnings if "NOT COMPARABLE" in w
    ] + fair.differences([r for _, reps in groups for r in reps])
    return built


def compare_section(items: list[tuple[str, Any]], fmt: str, context: CompareContext) -> str:
    landscape = landscape_for(_inputs(items, context), context.sort, context.force)
    context.warnings.extend(landscape.warnings)
    if fmt == "html":
        return ""  # HTML: compare_page
    speedups = _fair(items, landscape)
    if fmt == "json":
        return compare_json(landscape, speedups, acid_data(_local(items)))
    parts = [p for p in _parts(items, context, speedups, fmt) if p]
    return render_landscape(landscape, fmt) + "".join("\n" + p for p in parts)


def compare_page(items: list[tuple[str, Any]], context: CompareContext, sections: list[str]) -> str:
    landscape = landscape_for(_inputs(items, context), context.sort, context.force)
    own = _parts(items, context, _fair(items, landscape), "html")
    return render_html(landscape, [*(p for p in own if p), *sections])


def _parts(
    items: list[tuple[str, Any]], context: CompareContext, speedups: fair.Fair | None, fmt: str
) -> list[str]:
    """The rule's speed-ups, the plans of results of one engine and each result's ACID
    verdict: documents, as parts of the comparison in ``fmt`` ("" where there is none)."""
    rule = (
        Document(RULE_TITLE, sections=[fair.fair_section(speedups, "Per query")], name="fair")
        if speedups
        else None
    )
    groups = plan_compare.plan_sections(plan_groups(_local(items), context.sources))
    plans = Document("Query plans", sections=groups, name="plans") if groups else None
    return [
        renderers.render_part(rule, fmt) if rule else "",
        renderers.render_part(plans, fmt) if plans else "",
        acid_part(_local(items), fmt),  # each result's ACID verdict (its document)
    ]


RULE_TITLE = "Speed-up against the baseline over Q1-Q22"


def _local(items: list[tuple[str, Any]]) -> list[tuple[str, BenchmarkResult]]:
    return [(label, r) for label, r in items if isinstance(r, BenchmarkResult)]


def document(result: BenchmarkResult, options: RenderOptions) -> Document:
    return tpch_document(build_report(result, _sheet(options), options.source))


def _sheet(options: RenderOptions) -> CostSheet | None:
    return load_cost_sheet(options.cost_sheet) if options.cost_sheet is not None else None


FAMILY = Family(
    job_report=tpch_job_report,
    verify=check,
    site=SITE,
    model=BenchmarkResult,
    document=document,
    renderers={name: _renderer(name) for name in FORMATS},
    compare_section=compare_section,
    compare_formats=(*(n for n, f in FORMATS.items() if f.landscape), "json"),
    compare_page=compare_page,
    read=read,
    #: the TPC's published TPC-H results, as TOML (``examples/published/``)
    records=RecordKind(name="published", suffix=".toml", load=load_published, row=published_row),
)
