"""The o2c workload's result family (``dbbench-o2c-result``): its reader (steps completed
from a probe's journal file), its report formats and its part of a comparison."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dbbench.reports.family import Family, of_items, of_result
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


FAMILY = Family(
    model=O2CResult, read=read, document=of_result(o2c_document),
    compare_section=of_items(render_landscape), verify=check, site=SITE, job_report=o2c_job_report,
)  # fmt: skip
