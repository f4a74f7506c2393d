"""The format-neutral report: what a family states about a result, before any format.

A family builds one :class:`Document` of a result (its title, a label such as "unofficial",
sections of paragraphs, tables, figures and notes, and the warnings and verdicts it states);
one renderer per format (:mod:`reports.renderers`) turns every family's document into text,
Markdown, HTML or JSON, escaping every string of it with the one escaper of its format. A
renderer shows every warning and every verdict of a document: none is the family's to drop
for a format.

Strings in a document are plain text (never markup) from the result or the kit; the one
exception is a :class:`Figure`'s SVG, which the kit's chart code builds (escaping the
result's strings itself) and which only an HTML page embeds: every other format shows the
figure's ``alt`` text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote

#: a verdict's outcome: passed, failed, or neither (e.g. "not computed")
Outcome = Literal["pass", "fail", "none"]


@dataclass(frozen=True)
class Paragraph:
    """One paragraph of plain text."""

    text: str


@dataclass(frozen=True)
class Facts:
    """Name-value pairs (a result's configuration, a summary box): a table without header."""

    pairs: Sequence[tuple[str, str]]


@dataclass(frozen=True)
class Table:
    """A table of text cells; ``numeric``: the indexes of right-aligned (number) columns;
    ``row_headers``: each row's first cell names the row (HTML: a ``th``); ``links``: by
    (row, column), the relative path a cell links to (HTML and Markdown link it; the other
    formats show its text)."""

    header: Sequence[str]
    rows: Sequence[Sequence[str]]
    numeric: frozenset[int] = frozenset()
    caption: str = ""
    row_headers: bool = False
    links: Mapping[tuple[int, int], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.header):
                raise ValueError(f"a row of {len(row)} cells under {len(self.header)} columns")
        for (r, c), href in self.links.items():
            if not (0 <= r < len(self.rows) and 0 <= c < len(self.header)):
                raise ValueError(f"a link at row {r}, column {c}: no such cell")
            if _SCHEME.match(href) or href.startswith(("/", "\\")):
                raise ValueError(f"a link must be a relative path, not {href!r}")

    def link(self, row: int, column: int) -> str:
        """The cell's link target, percent-encoded (safe in any attribute or Markdown
        link), or ""."""
        href = self.links.get((row, column), "")
        return quote(href, safe="/#.-_~") if href else ""


#: a URL scheme (``javascript:``, ``https:``): never in a document's links
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Figure:
    """A chart: its SVG (built by the kit's chart code, the result's strings escaped in it)
    and the alternative text every format but HTML shows in its place."""

    svg: str
    alt: str


@dataclass(frozen=True)
class Items:
    """A bulleted list of plain-text items."""

    items: Sequence[str]


@dataclass(frozen=True)
class Code:
    """Preformatted lines shown as they are (a plan's differing lines), in a monospace font."""

    lines: Sequence[str]


Block = Paragraph | Facts | Table | Figure | Items | Code


@dataclass(frozen=True)
class Warning:
    """Something a reader must know before trusting a number (a short window, CPU not
    attributable): shown by every format."""

    text: str


@dataclass(frozen=True)
class Verdict:
    """A judgement of the result or of a part of it: ``subject`` (e.g. "run 1", or "" for
    the result as a whole) and its ``outcome`` in words ("VALID, within the RT limit"), with
    ``passed``."""

    subject: str
    outcome: str
    passed: Outcome = "none"

    @property
    def text(self) -> str:
        return f"{self.subject}: {self.outcome}" if self.subject else self.outcome


@dataclass
class Section:
    """A titled part of a document; ``level`` 2 is a top part, 3 a part inside one."""

    title: str
    blocks: list[Block] = field(default_factory=list)
    level: int = 2


@dataclass
class Document:
    """One report of one result (or one comparison), in no format yet.

    ``data``: the machine-readable summary the JSON format gives beside the document (each
    family's own keys, e.g. the metrics), or empty."""

    title: str
    label: str = ""  # e.g. "unofficial, not comparable with ...": shown under the title
    sections: list[Section] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # said at the end, after the verdicts
    data: dict[str, Any] = field(default_factory=dict)
    #: a short name of the document as a part of a larger one (HTML: its section's class)
    name: str = ""

    def section(self, title: str, *blocks: Block, level: int = 2) -> Section:
        """A new section at the end, with ``blocks``."""
        s = Section(title, list(blocks), level)
        self.sections.append(s)
        return s

    def warn(self, text: str) -> None:
        """One more warning (one with the same text is said once)."""
        if all(w.text != text for w in self.warnings):
            self.warnings.append(Warning(text))

    def judge(self, subject: str, outcome: str, passed: Outcome = "none") -> None:
        self.verdicts.append(Verdict(subject, outcome, passed))

    def texts(self) -> Iterator[str]:
        """Every plain string of the document (the escapers' tests run over them)."""
        yield self.title
        yield self.label
        for s in self.sections:
            yield s.title
            for b in s.blocks:
                yield from block_texts(b)
        yield from (w.text for w in self.warnings)
        for v in self.verdicts:
            yield v.subject
            yield v.outcome
        yield from self.notes


def block_texts(block: Block) -> Iterator[str]:
    """The plain strings of one block."""
    if isinstance(block, Paragraph):
        yield block.text
    elif isinstance(block, Facts):
        for k, v in block.pairs:
            yield k
            yield v
    elif isinstance(block, Table):
        yield block.caption
        yield from block.header
        for row in block.rows:
            yield from row
    elif isinstance(block, Figure):
        yield block.alt
    elif isinstance(block, Code):
        yield from block.lines
    else:
        yield from block.items


__all__ = [
    "Block",
    "Code",
    "Document",
    "Facts",
    "Figure",
    "Items",
    "Outcome",
    "Paragraph",
    "Section",
    "Table",
    "Verdict",
    "Warning",
    "block_texts",
]
