"""The o2c workload's result family (``dbbench-o2c-result``): its reader (steps completed
from a probe's journal file), its report formats and its part of a comparison."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dbbench.reports.document import Document
from dbbench.reports.family import CompareContext, Family, RenderOptions
from dbbench.reports.o2c.compare import render_landscape
from dbbench.reports.o2c.document import o2c_document
from dbbench.reports.o2c.job_report import o2c_job_report
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.o2c.site import SITE
from dbbench.reports.o2c.verify import check


def read(path: Path, data: Any) -> tuple[O2CResult, str | None]:
    result = O2CResult.from_parsed(data)
    result.complete_steps(path if path.is_dir() else path.parent)
    return result, None


def document(result: O2CResult, options: RenderOptions) -> Document:
    return o2c_document(result)


def compare_section(items: list[tuple[str, Any]], fmt: str, context: CompareContext) -> str:
    return render_landscape(items, fmt)


FAMILY = Family(
    job_report=o2c_job_report,
    verify=check,
    site=SITE,
    model=O2CResult,
    renderers={},  # every format renders its document
    document=document,
    compare_section=compare_section,
    read=read,
)
