"""The ``acid`` family's declaration in the registry: every format renders its document."""

from __future__ import annotations

from dbbench.reports.acid.document import acid_document
from dbbench.reports.acid.model import AcidResult
from dbbench.reports.acid.verify import check
from dbbench.reports.family import Family, of_result

FAMILY = Family(model=AcidResult, document=of_result(acid_document), verify=check)
