"""A result family's declaration (:class:`Family`): its model, its renderer per format, its
compare section and its reader, what ``verify`` recomputes of a result (:class:`Checked`), its
page of the site (:class:`SiteView`) and its HammerDB job-report mapping, and what renderers
and sections are given.

Each family package declares one (``reports.<family>.family.FAMILY``) importing only this
module; the registry (:mod:`reports.families`) imports the declarations, never the reverse.
"""

from __future__ import annotations

import math
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

    #: the cost sheet of the priced configuration (``--cost-sheet``): a file, read by the
    #: family that prices (TPC-H); another family's report leaves it aside
    cost_sheet: Path | None = None
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


#: a headline figure of a result (a site column, a manifest entry, a ``verify`` check)
FigureValue = float | int | str | bool | None
#: a row of a site table: plain JSON-ready values by column key
Row = dict[str, Any]


@dataclass(frozen=True)
class Problem:
    """A disagreement ``verify`` found: the field, what is wrong with it."""

    field: str
    message: str


@dataclass
class Checked:
    """What ``verify`` recomputes of a result from its own measurements: its headline figures
    (a figure that is not a finite number is None), the disagreements with what it states,
    and the family's summaries the site reuses (TPC-H: each run's summary)."""

    figures: dict[str, FigureValue] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    runs: list[Any] = field(default_factory=list)


def finite(figures: Mapping[str, FigureValue]) -> dict[str, FigureValue]:
    """``figures`` with a value that is not a finite number as None."""
    return {
        k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in figures.items()
    }


#: (result) -> what verify recomputes of it
Verifier = Callable[[Any], Checked]


@dataclass(frozen=True)
class SitePage:
    """A further page a family's rows make on the site (TPC-H's per-query view, its
    history): its view (``site.js`` draws it; its file is ``<view>.html``), its link in
    the navigation, heading and note, and its data made from the family's rows."""

    view: str
    nav: str
    title: str
    note: str
    data: Callable[[list[Row]], dict[str, Any]]


@dataclass(frozen=True)
class SiteView:
    """A family's page of the static site: a table with a row per result (its page file is
    ``<view>.html``; ``tpch``'s is ``index.html``). ``columns`` (key, heading, numeric)
    are drawn by the site's one table view; none: ``site.js`` has a view of that name."""

    view: str
    nav: str  # its link in the navigation
    title: str
    note: str
    #: (result, what verify recomputed) -> its row
    row: Callable[[Any, Checked], Row]
    columns: tuple[tuple[str, str, bool], ...] = ()
    #: (result, its row) -> a scaling study it adds to the scaling page (None: none)
    study: Callable[[Any, Row], dict[str, Any] | None] | None = None
    #: (result, what verify recomputed) -> its full HTML report, reusing verify's work
    #: (None: the family's ``html`` format)
    report: Callable[[Any, Checked], str] | None = None
    order: int = 50  # where its link is in the navigation (smaller: first)
    #: its page's data from its rows (None: the rows and the columns)
    data: Callable[[list[Row]], dict[str, Any]] | None = None
    more: tuple[SitePage, ...] = ()  # further pages of its rows

    @property
    def file(self) -> str:
        return "index.html" if self.view == "tpch" else f"{self.view}.html"

    def pages(self) -> list[SitePage]:
        """Its pages: the table, then the further ones."""
        main = SitePage(self.view, self.nav, self.title, self.note, self._data)
        return [main, *self.more]

    def _data(self, rows: list[Row]) -> dict[str, Any]:
        if self.data is not None:
            return self.data(rows)
        columns = self.columns or _columns(rows)
        return {"columns": [list(c) for c in columns], "rows": rows}


def _columns(rows: list[Row]) -> tuple[tuple[str, str, bool], ...]:
    """The columns of rows no family declared: each key, numeric when its values are."""
    keys = dict.fromkeys(k for r in rows for k in r if k not in ("id", "label", "hash", "family"))
    out = [("id", "result", False)]
    for key in keys:
        values = [r.get(key) for r in rows if r.get(key) is not None]
        numeric = bool(values) and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in values
        )
        out.append((key, key.replace("_", " "), numeric))
    return tuple(out)


def default_row(result: Any, checked: Checked) -> Row:
    """The row of a family that declares none: its envelope and its figures."""
    return {
        "system": result.system.hostname,
        "engine": result.engine.name,
        "version": result.engine.version,
        "status": result.status,
        **checked.figures,
        "kit": result.kit_version,
    }


def status_problems(stated: str, derived: str, parts: str) -> list[Problem]:
    """The result's stated status against the one its ``parts`` (probes, points) make."""
    if stated != derived:
        return [Problem("status", f"stated {stated!r}, its {parts} make it {derived!r}")]
    return []


#: (result, options) -> the report in one format
Renderer = Callable[[Any, RenderOptions], str]
#: (labelled results of the family, format, context) -> its part of a comparison: text or
#: Markdown, or an HTML fragment (``<section>``) that :func:`compare` places in the page
CompareSection = Callable[[list[tuple[str, Any]], str, CompareContext], str]
#: (file or run directory, its parsed JSON or None for a directory) -> (result, note): the
#: note says what was recovered (e.g. from a journal), None when nothing was
Reader = Callable[[Path, Any], tuple[Any, str | None]]


def of_result(build: Callable[[Any], Document]) -> Callable[[Any, RenderOptions], Document]:
    """A document builder that takes no render options, as a family's ``document``."""
    return lambda result, options: build(result)


def of_items(render: Callable[[list[tuple[str, Any]], str], str]) -> CompareSection:
    """A compare section that needs no context (the family's results and the format)."""
    return lambda items, fmt, context: render(items, fmt)


@dataclass(frozen=True)
class RecordKind:
    """Inputs a family reads that are not its results: records published elsewhere (the
    TPC's list of TPC-H results, as TOML) that join its comparisons and its site page as
    rows, with no report. ``compare``, ``site`` and their input walks find them through the
    registry (:func:`reports.families.record_of`), never by a file suffix of their own."""

    name: str  # the site's "family" of such a row (``published``)
    suffix: str  # the file ending that makes a path one (``.toml``)
    load: Callable[[Path], Any]  # the path -> the record (ReportsError when unreadable)
    row: Callable[[Any], Row]  # the record -> its site row (in the family's view)

    def holds(self, path: Path) -> bool:
        return path.suffix.lower() == self.suffix


@dataclass(frozen=True)
class Family:
    """One result family."""

    model: type[ResultEnvelope]
    #: its own renderer of a format (none: every format renders its document)
    renderers: Mapping[str, Renderer] = field(default_factory=dict)
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
    #: what ``verify`` recomputes of a result (None: its hashes only, no figures)
    verify: Verifier | None = None
    #: its page of the site (None: a table of :func:`default_row`, one column per figure)
    site: SiteView | None = None
    #: the result as a HammerDB ``hammerdb-job-report-v1`` document (None: not exported)
    job_report: Callable[[Any], dict[str, Any]] | None = None
    #: records of its kind published elsewhere that it reads beside its results
    records: RecordKind | None = None

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

    def check(self, result: Any) -> Checked:
        """What ``verify`` recomputes of ``result`` (figures not finite made None)."""
        if self.verify is None:
            return Checked()
        checked = self.verify(result)
        checked.figures = finite(checked.figures)
        return checked

    def site_view(self) -> SiteView:
        """Its page of the site: the declared one, else a table of every figure."""
        if self.site is not None:
            return self.site
        view = self.name.removeprefix("dbbench-").removesuffix("-result")
        return SiteView(
            view=view, nav=view, title=self.title, note=f"Every {self.title}.", row=default_row
        )

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
