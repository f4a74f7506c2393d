"""A result family's declaration (:class:`Family`): its model, its renderer per format, its
compare section and its reader, and what renderers and sections are given.

Each family package declares one (``reports.<family>.family.FAMILY``) importing only this
module; the registry (:mod:`reports.families`) imports the declarations, never the reverse.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbbench.reports import escape
from dbbench.reports import renderers as output_formats
from dbbench.reports.document import Document
from dbbench.reports.errors import ReportsError
from dbbench.reports.model import ResultEnvelope


@dataclass(frozen=True)
class RenderOptions:
    """What a renderer may be given besides the result."""

    cost_sheet: Any = None  # a parsed reports.tpch.costsheet.CostSheet (TPC-H)
    color: bool = False  # text for a colour terminal
    source: Path | None = None  # the result's run directory (files beside it: plans)


@dataclass
class CompareContext:
    """Shared by the sections of one ``dbbench compare``: every input by family (a section
    may set itself beside another family's results), the options, and warnings to print."""

    by_family: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)
    cost_sheets: list[Path] = field(default_factory=list)
    sort: str = "qphh"
    force: bool = False
    warnings: list[str] = field(default_factory=list)
    sources: dict[str, Path] = field(default_factory=dict)  # label -> its run directory


#: (result, options) -> the report in one format
Renderer = Callable[[Any, RenderOptions], str]
#: (labelled results of the family, format, context) -> its part of a comparison: text or
#: Markdown, or an HTML fragment (``<section>``) that :func:`compare` places in the page
CompareSection = Callable[[list[tuple[str, Any]], str, CompareContext], str]
#: (file or run directory, its parsed JSON or None for a directory) -> (result, note): the
#: note says what was recovered (e.g. from a journal), None when nothing was
Reader = Callable[[Path, Any], tuple[Any, str | None]]


@dataclass(frozen=True)
class Family:
    """One result family."""

    model: type[ResultEnvelope]
    renderers: Mapping[str, Renderer]
    compare_section: CompareSection | None = None
    #: formats of its compare section (default: text, md, html)
    compare_formats: tuple[str, ...] = ("text", "md", "html")
    #: a full HTML page around the other families' sections (the TPC-H landscape is one);
    #: None: a plain page is made
    compare_page: Callable[[list[tuple[str, Any]], CompareContext, list[str]], str] | None = None
    read: Reader | None = None  # None: the model's own reader of the parsed file
    #: the result's report as a format-neutral document: every format of
    #: :mod:`reports.renderers` renders it (a format in ``renderers`` is rendered by that
    #: renderer instead; it shows the document's warnings and verdicts too)
    document: Callable[[Any, RenderOptions], Document] | None = None

    @property
    def name(self) -> str:
        return self.model.SCHEMA_NAME

    @property
    def version(self) -> int:
        return self.model.SCHEMA_VERSION

    @property
    def title(self) -> str:
        return self.model.TITLE

    def upgrade(self, data: dict[str, Any]) -> dict[str, Any]:
        return self.model.upgrade_data(data)

    def load(self, path: Path, data: Any) -> tuple[Any, str | None]:
        if self.read is not None:
            return self.read(path, data)
        return self.model.from_parsed(data), None

    def formats(self) -> tuple[str, ...]:
        """The formats a result of this family comes as."""
        if self.document is None:
            return tuple(self.renderers)
        return tuple(dict.fromkeys([*output_formats.formats(), *self.renderers]))

    def render(self, result: Any, fmt: str, options: RenderOptions | None = None) -> str:
        if fmt not in self.formats():
            choices = ", ".join(self.formats())
            raise ReportsError(f"a {self.title} comes as {choices}, not {fmt!r}")
        options = options or RenderOptions()
        if fmt in self.renderers:
            text = self.renderers[fmt](result, options)
        else:
            assert self.document is not None
            text = output_formats.render(self.document(result, options), fmt)
        if fmt == "text" and not options.color:
            text = escape.terminal(text, keep_newlines=True)
        return text
