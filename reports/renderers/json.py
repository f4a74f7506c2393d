"""JSON for programs: the family's own machine-readable summary (``Document.data``, its keys
at the top level as each family has always given them) and beside it the document itself:
``title``, ``label``, ``warnings``, ``verdicts``, ``notes`` and ``sections`` (a family's
data may hold one of these keys only with the document's value). Strings are
JSON-escaped by the encoder (control characters as ``\\u`` escapes)."""

from __future__ import annotations

import json
from typing import Any

from dbbench.reports.document import Block, Code, Document, Facts, Figure, Items, Paragraph, Table
from dbbench.reports.renderers import Format


def _block(block: Block) -> dict[str, Any]:
    if isinstance(block, Paragraph):
        return {"paragraph": block.text}
    if isinstance(block, Facts):
        return {"facts": [{"name": k, "value": v} for k, v in block.pairs]}
    if isinstance(block, Table):
        table: dict[str, Any] = {
            "caption": block.caption, "header": list(block.header), "rows": block.rows
        }  # fmt: skip
        if block.links:
            table["links"] = [[r, c, href] for (r, c), href in sorted(block.links.items())]
        return table
    if isinstance(block, Figure):
        return {"figure": block.alt}
    if isinstance(block, Code):
        return {"code": list(block.lines)}
    assert isinstance(block, Items)
    return {"items": list(block.items)}


def as_dict(doc: Document) -> dict[str, Any]:
    """The document as JSON values, its family's data first."""
    own = {
        "title": doc.title,
        "label": doc.label,
        "warnings": [w.text for w in doc.warnings],
        "verdicts": [
            {"subject": v.subject, "outcome": v.outcome, "passed": v.passed} for v in doc.verdicts
        ],
        "notes": list(doc.notes),
        "sections": [
            {"title": s.title, "level": s.level, "blocks": [_block(b) for b in s.blocks]}
            for s in doc.sections
        ],
    }
    clash = sorted(k for k in set(doc.data) & set(own) if doc.data[k] != own[k])
    if clash:
        raise ValueError(f"a family's JSON data gives other values for the document's {clash}")
    return {**doc.data, **own}


def render(doc: Document) -> str:
    return json.dumps(as_dict(doc), indent=2, default=str) + "\n"


def _escape(text: str) -> str:
    return json.dumps(text)[1:-1]


FORMAT = Format("json", render, _escape, order=3, suffix=".json")
