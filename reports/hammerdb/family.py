"""HammerDB's result family (``dbbench-hammerdb-result``): its report formats and its part of
a comparison (beside the TPC-H results compared with it)."""

from __future__ import annotations

from typing import Any

from dbbench.reports.family import CompareContext, Family, of_result
from dbbench.reports.hammerdb.compare import render_section
from dbbench.reports.hammerdb.document import hammerdb_document
from dbbench.reports.hammerdb.job_report import hammerdb_job_report
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.hammerdb.site import SITE
from dbbench.reports.hammerdb.verify import check
from dbbench.reports.tpch.model import SCHEMA_NAME, BenchmarkResult


def compare_section(items: list[tuple[str, Any]], fmt: str, context: CompareContext) -> str:
    tpch = [
        (label, r)
        for label, r in context.by_family.get(SCHEMA_NAME, [])
        if isinstance(r, BenchmarkResult)
    ]
    return render_section(items, tpch, fmt)


FAMILY = Family(
    model=HammerDBResult, document=of_result(hammerdb_document), compare_section=compare_section,
    verify=check, site=SITE, job_report=hammerdb_job_report,
)  # fmt: skip
