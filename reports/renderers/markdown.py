"""Markdown (CommonMark / GitHub, CI job summaries): every string through
:func:`escape.markdown` (no raw HTML, no markup, no table break)."""

from __future__ import annotations

from dbbench.reports import escape
from dbbench.reports.document import Block, Code, Document, Facts, Figure, Items, Paragraph, Table
from dbbench.reports.renderers import Format

esc = escape.markdown


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table_lines(table: Table) -> list[str]:
    rule = ["---:" if i in table.numeric else "---" for i in range(len(table.header))]
    out = [f"*{esc(table.caption)}*", ""] if table.caption else []
    return [
        *out,
        _row([esc(h) for h in table.header]),
        _row(rule),
        *(
            _row([_cell(c, table.link(r, i)) for i, c in enumerate(row)])
            for r, row in enumerate(table.rows)
        ),
    ]


def _cell(text: str, href: str) -> str:
    return f"[{esc(text)}]({href})" if href and text else esc(text)


def block_lines(block: Block) -> list[str]:
    if isinstance(block, Paragraph):
        return [esc(block.text)]
    if isinstance(block, Facts):
        return [_row(["", ""]), _row(["---", "---"])] + [
            _row([esc(k), esc(v)]) for k, v in block.pairs
        ]
    if isinstance(block, Table):
        return table_lines(block)
    if isinstance(block, Figure):
        return [f"*Figure: {esc(block.alt)}*"]
    if isinstance(block, Code):  # a fence: no markup inside; a backtick cannot close it
        lines = [escape.terminal(line).replace("`", "'") for line in block.lines]
        return ["```", *lines, "```"]
    assert isinstance(block, Items)
    return [f"- {esc(item)}" for item in block.items]


def render(doc: Document, top: int = 1) -> str:
    """The document, its title a heading of level ``top`` (its sections one below)."""
    out = [f"{'#' * top} {esc(doc.title)}"]
    if doc.label:
        out += ["", f"*{esc(doc.label)}*"]
    for section in doc.sections:
        level = min(max(2, section.level) + top - 1, 6)
        out += ["", f"{'#' * level} {esc(section.title)}"]
        for block in section.blocks:
            out += ["", *block_lines(block)]
    if doc.warnings:
        out += ["", f"{'#' * (top + 1)} Warnings", "", *(f"- {esc(w.text)}" for w in doc.warnings)]
    if doc.verdicts:
        out += ["", f"{'#' * (top + 1)} Verdict", ""]
        out += [f"- **{esc(v.subject or 'verdict')}**: {esc(v.outcome)}" for v in doc.verdicts]
    if doc.notes:
        for note in doc.notes:
            out += ["", f"_{esc(note)}_"]
    return "\n".join(out) + "\n"


def part(doc: Document) -> str:
    return render(doc, top=2)


FORMAT = Format("md", render, esc, order=1, suffix=".md", part=part)
