"""One self-contained HTML page (no script, no external request; prints well) in the one
style of every page the kit makes (:func:`style`); every string through
:func:`escape.html`; a figure's SVG embedded with its alternative text."""

from __future__ import annotations

import functools
from importlib.resources import files

from dbbench.reports import escape
from dbbench.reports.document import Block, Code, Document, Facts, Figure, Items, Paragraph, Table
from dbbench.reports.renderers import Format

esc = escape.html


@functools.cache
def style() -> str:
    """The style sheet of every HTML page of the kit (``templates/report.css``)."""
    return files("dbbench.reports").joinpath("templates", "report.css").read_text("utf-8")


def table_html(table: Table) -> str:
    def cell(tag: str, i: int, text: str, href: str = "") -> str:
        if tag == "td" and i == 0 and table.row_headers:
            tag = "th"
        kind = ' class="n"' if i in table.numeric else ""
        shown = f'<a href="{esc(href)}">{esc(text)}</a>' if href else esc(text)
        return f"<{tag}{kind}>{shown}</{tag}>"

    head = "".join(cell("th", i, h) for i, h in enumerate(table.header))
    body = "".join(
        "<tr>" + "".join(cell("td", i, c, table.link(r, i)) for i, c in enumerate(row)) + "</tr>\n"
        for r, row in enumerate(table.rows)
    )
    caption = f"<caption>{esc(table.caption)}</caption>" if table.caption else ""
    return (
        f'<div class="wide"><table>{caption}<thead><tr>{head}</tr></thead>'
        f"<tbody>\n{body}</tbody></table></div>"
    )


def block_html(block: Block) -> str:
    if isinstance(block, Paragraph):
        return f"<p>{esc(block.text)}</p>"
    if isinstance(block, Facts):
        rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>\n" for k, v in block.pairs)
        return f'<table class="facts"><tbody>\n{rows}</tbody></table>'
    if isinstance(block, Table):
        return table_html(block)
    if isinstance(block, Figure):
        return f'<figure role="img" aria-label="{esc(block.alt)}">{block.svg}</figure>'
    if isinstance(block, Code):
        return "<pre>" + "\n".join(esc(line) for line in block.lines) + "</pre>"
    assert isinstance(block, Items)
    return "<ul>" + "".join(f"<li>{esc(item)}</li>" for item in block.items) + "</ul>"


_OUTCOME_CLASS = {"pass": "ok", "fail": "bad", "none": ""}


def body(doc: Document, top: int = 1) -> list[str]:
    """The page's body: the document's parts, its title a heading of level ``top``."""
    h2 = top + 1
    out = [f"<h{top}>{esc(doc.title)}</h{top}>"]
    if doc.label:
        out.append(f'<p class="disclosure">{esc(doc.label)}</p>')
    if doc.verdicts:
        out.append(f'<section class="verdicts"><h{h2}>Verdict</h{h2}><ul>')
        out += [
            f'<li class="verdict {_OUTCOME_CLASS[v.passed]}"><b>{esc(v.subject or "verdict")}</b>: '
            f"{esc(v.outcome)}</li>"
            for v in doc.verdicts
        ]
        out.append("</ul></section>")
    if doc.warnings:
        out.append(f'<section class="warnings"><h{h2}>Warnings</h{h2}><ul>')
        out += [f"<li>{esc(w.text)}</li>" for w in doc.warnings]
        out.append("</ul></section>")
    for section in doc.sections:
        level = min(max(section.level, 2) + top - 1, 6)
        out.append(f"<section><h{level}>{esc(section.title)}</h{level}>")
        out += [block_html(b) for b in section.blocks]
        out.append("</section>")
    if doc.notes:
        out.append("<footer>" + "".join(f"<p>{esc(n)}</p>" for n in doc.notes) + "</footer>")
    return out


def page(title: str, parts: list[str]) -> str:
    """A whole page in the kit's style around ``parts`` (markup, escaped by their makers)."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>\n{style()}</style></head><body>\n"
        + "\n".join(parts)
        + "\n</body></html>\n"
    )


def render(doc: Document) -> str:
    return page(doc.title, body(doc))


def part(doc: Document) -> str:
    """The document as a ``<section>`` of a larger page (its title an ``h2``)."""
    kind = esc(doc.name or "part")
    return f'<section class="{kind}">' + "\n".join(body(doc, top=2)) + "</section>"


FORMAT = Format("html", render, esc, order=2, suffix=".html", part=part)
