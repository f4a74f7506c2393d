"""The ``acid`` family's declaration in the registry: every format renders its document."""

from __future__ import annotations

from dbbench.reports.acid.document import acid_document
from dbbench.reports.acid.model import AcidResult
from dbbench.reports.acid.verify import check
from dbbench.reports.document import Document
from dbbench.reports.family import Family, RenderOptions


def document(result: AcidResult, options: RenderOptions) -> Document:
    return acid_document(result)


FAMILY = Family(model=AcidResult, renderers={}, document=document, verify=check)
