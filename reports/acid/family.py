"""The ``acid`` family's declaration in the registry."""

from __future__ import annotations

from typing import Any

from dbbench.reports.acid.model import AcidResult
from dbbench.reports.acid.render import FORMATS, render
from dbbench.reports.family import Family, RenderOptions


def _renderer(fmt: str) -> Any:
    def rendered(result: AcidResult, options: RenderOptions) -> str:
        return render(result, fmt)

    return rendered


FAMILY = Family(model=AcidResult, renderers={fmt: _renderer(fmt) for fmt in FORMATS})
