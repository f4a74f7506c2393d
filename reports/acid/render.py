"""The ACID result's reports: its document (:mod:`reports.acid.document`) in every format."""

from __future__ import annotations

from dbbench.reports import renderers
from dbbench.reports.acid.document import acid_document
from dbbench.reports.acid.model import AcidResult

FORMATS = ("text", "md", "html", "json")


def render(result: AcidResult, fmt: str) -> str:
    """The report in the format called ``fmt`` (text: its controls made visible, as
    ``dbbench report`` prints it)."""
    from dbbench.reports import escape

    text = renderers.render(acid_document(result), fmt)
    return escape.terminal(text, keep_newlines=True) if fmt == "text" else text
