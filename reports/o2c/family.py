"""The o2c workload's result family (``dbbench-o2c-result``): its reader (steps completed
from a probe's journal file), its report formats and its part of a comparison."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dbbench.reports.families import CompareContext, Family, RenderOptions
from dbbench.reports.o2c.compare import render_landscape
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.o2c.render import O2C_FORMATS, render_o2c


def read(path: Path, data: Any) -> tuple[O2CResult, str | None]:
    result = O2CResult.from_parsed(data)
    result.complete_steps(path if path.is_dir() else path.parent)
    return result, None


def _renderer(fmt: str) -> Any:
    def render(result: O2CResult, options: RenderOptions) -> str:
        return render_o2c(result, fmt)

    return render


def compare_section(items: list[tuple[str, Any]], fmt: str, context: CompareContext) -> str:
    return render_landscape(items, "html-section" if fmt == "html" else fmt)


FAMILY = Family(
    model=O2CResult,
    renderers={fmt: _renderer(fmt) for fmt in O2C_FORMATS},
    compare_section=compare_section,
    read=read,
)
