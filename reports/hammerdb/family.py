"""HammerDB's result family (``dbbench-hammerdb-result``): its report formats and its part of
a comparison (beside the TPC-H results compared with it)."""

from __future__ import annotations

from typing import Any

from dbbench.reports.document import Document
from dbbench.reports.family import CompareContext, Family, RenderOptions
from dbbench.reports.hammerdb.compare import render_section
from dbbench.reports.hammerdb.document import hammerdb_document
from dbbench.reports.hammerdb.job_report import hammerdb_job_report
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.hammerdb.site import SITE
from dbbench.reports.hammerdb.verify import check
from dbbench.reports.tpch.model import SCHEMA_NAME, BenchmarkResult


def document(result: HammerDBResult, options: RenderOptions) -> Document:
    return hammerdb_document(result)


def compare_section(items: list[tuple[str, Any]], fmt: str, context: CompareContext) -> str:
    tpch = [
        (label, r)
        for label, r in context.by_family.get(SCHEMA_NAME, [])
        if isinstance(r, BenchmarkResult)
    ]
    return render_section(items, tpch, fmt)


FAMILY = Family(
    job_report=hammerdb_job_report,
    verify=check,
    site=SITE,
    model=HammerDBResult,
    renderers={},  # every format renders its document
    document=document,
    compare_section=compare_section,
)
