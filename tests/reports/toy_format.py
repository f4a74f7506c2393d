"""A toy output format in one module: every family's document as "key: value" lines (a
line per heading, fact, table row, figure, warning, verdict and note), every string passed
through its escaper (no line break, no control character, no ``:`` inside a value's key).
Installed through the ``dbbench.formats`` entry point by a test; ``dbbench report -f toy``
renders every family's result with no other edit."""

from __future__ import annotations

from dbbench.reports import escape
from dbbench.reports.document import Document, Facts, Figure, Items, Paragraph, Table
from dbbench.reports.renderers import Format


def _escape(text: str) -> str:
    return escape.terminal(text).replace("\\", "\\\\")


def render(doc: Document) -> str:
    e = _escape
    out = [f"toy-report: {e(doc.title)}", f"label: {e(doc.label)}"]
    for section in doc.sections:
        out.append(f"section: {e(section.title)}")
        for block in section.blocks:
            if isinstance(block, Paragraph):
                out.append(f"text: {e(block.text)}")
            elif isinstance(block, Facts):
                out += [f"fact: {e(k)} = {e(v)}" for k, v in block.pairs]
            elif isinstance(block, Table):
                out += ["row: " + " ; ".join(map(e, row)) for row in block.rows]
            elif isinstance(block, Figure):
                out.append(f"figure: {e(block.alt)}")
            elif isinstance(block, Items):
                out += [f"item: {e(item)}" for item in block.items]
    out += [f"warning: {e(w.text)}" for w in doc.warnings]
    out += [f"verdict: {e(v.subject)} = {e(v.outcome)} ({v.passed})" for v in doc.verdicts]
    out += [f"note: {e(n)}" for n in doc.notes]
    return "\n".join(out) + "\n"


FORMAT = Format("toy", render, _escape, order=50, suffix=".toy")
