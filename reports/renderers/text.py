"""Plain text for a terminal, a CI log or a ``-o`` file: headings underlined (the title
with ``=``, a section with ``-``), aligned tables; every string through
:func:`escape.terminal` (no control character, no bidi override: a result cannot move the
cursor or recolour the screen)."""

from __future__ import annotations

from collections.abc import Sequence

from dbbench.reports import escape
from dbbench.reports.document import Block, Code, Document, Facts, Figure, Items, Paragraph, Table
from dbbench.reports.renderers import Format

esc = escape.terminal


def table_lines(table: Table) -> list[str]:
    """The table's rows aligned in columns (numbers to the right), a rule under the header."""
    header = [esc(h) for h in table.header]
    rows = [[esc(c) for c in r] for r in table.rows]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            c.rjust(w) if i in table.numeric else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    out = [esc(table.caption)] if table.caption else []
    return [*out, line(header), line(["-" * w for w in widths]), *map(line, rows)]


def block_lines(block: Block) -> list[str]:
    if isinstance(block, Paragraph):
        return [esc(block.text)]
    if isinstance(block, Facts):
        width = max((len(esc(k)) for k, _ in block.pairs), default=0)
        return [f"{esc(k):<{width}}  {esc(v)}".rstrip() for k, v in block.pairs]
    if isinstance(block, Table):
        return table_lines(block)
    if isinstance(block, Figure):
        return [f"[figure: {esc(block.alt)}]"]
    if isinstance(block, Code):
        return [f"    {esc(line)}" for line in block.lines]
    assert isinstance(block, Items)
    return [f"- {esc(item)}" for item in block.items]


def _heading(text: str, rule: str) -> list[str]:
    return [text, rule * len(text)]


def render(doc: Document) -> str:
    out = _heading(esc(doc.title), "=")
    if doc.label:
        out.append(f"({esc(doc.label)})")
    for section in doc.sections:
        title = esc(section.title)
        out += ["", *(_heading(title, "-") if section.level <= 2 else [title])]
        for block in section.blocks:
            out += block_lines(block)
    if doc.warnings:
        out += ["", *_heading("Warnings", "-"), *(f"- {esc(w.text)}" for w in doc.warnings)]
    if doc.verdicts:
        out.append("")
        out += [
            f"verdict of {esc(v.subject)}: {esc(v.outcome)}"
            if v.subject
            else f"verdict: {esc(v.outcome)}"
            for v in doc.verdicts
        ]
    if doc.notes:
        out += ["", *(esc(n) for n in doc.notes)]
    return "\n".join(out) + "\n"


FORMAT = Format("text", render, esc, order=0, suffix=".txt")
