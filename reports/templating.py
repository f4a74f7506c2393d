"""The jinja2 environment of every template the reports ship (``reports/templates``)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import Any

import jinja2
import markupsafe
from markupsafe import Markup

from dbbench.reports import escape
from dbbench.reports import formatting as fmt


def markdown_escape(value: Any) -> Any:
    """Every value a Markdown template prints, through :func:`escape.markdown`: a viewer that
    renders HTML inside Markdown shows a path or an error text holding ``<script>`` as text,
    and a ``|`` or a newline stays inside its table cell. (Numbers and None pass through for
    the template's own tests.)"""
    if isinstance(value, str):
        return escape.markdown(value)
    return value


#: the characters an HTML escape replaces (markupsafe: ``& < > ' "``)
_SPECIAL = re.compile("[&<>'\"]")


def cells(values: Iterable[Any], classes: str | Sequence[str] = "", tag: str = "td") -> Markup:
    """Table cells of an HTML template, one per value, each value escaped as ``{{ value }}``
    prints it: ``<td class="n">1.2</td>...``. ``classes``: every cell's class, or each
    cell's (a class "" leaves the attribute out); ``tag``: ``th`` for header cells. One
    call prints a table row, where a loop of the template printed three pieces a cell (a
    report has about a thousand cells: the loops were a quarter of rendering one)."""
    texts = _escaped(list(values))
    return Markup(_pattern(tag, _classes(classes), len(texts)).format(*texts))


def rows(table: Iterable[Iterable[Any]], classes: str | Sequence[str] = "") -> Markup:
    """Table rows: for each row of ``table``, ``<tr>``, its :func:`cells` (``classes``: as
    there, a sequence is each column's), ``</tr>`` and a line end. One call prints a table's
    rows (a report's parameters table has some hundred)."""
    lines = [list(row) for row in table]
    texts = _escaped([value for row in lines for value in row])
    kinds = _classes(classes)
    out = []
    at = 0
    for row in lines:
        count = len(row)
        out.append(f"<tr>{_pattern('td', kinds, count).format(*texts[at : at + count])}</tr>\n")
        at += count
    return Markup("".join(out))


def _escaped(values: list[Any]) -> list[str]:
    """``values`` as ``{{ value }}`` prints each (escaped; markup as it is)."""
    if set(map(type, values)) <= {str} and _SPECIAL.search("".join(values)) is None:
        return values  # plain text without a character to escape (numbers, mostly)
    return [str(markupsafe.escape(v)) for v in values]


def _classes(classes: str | Sequence[str]) -> str | tuple[str, ...]:
    return classes if isinstance(classes, str) else tuple(classes)


@functools.lru_cache(maxsize=256)
def _pattern(tag: str, classes: str | tuple[str, ...], count: int) -> str:
    """The format string of ``count`` cells (the templates' few shapes: each made once): a
    ``{}`` for each cell's text, between its start and end tags."""
    if tag not in ("td", "th"):
        raise ValueError(f"not a table cell: {tag!r}")
    kinds = [classes] * count if isinstance(classes, str) else list(classes)
    if len(kinds) != count:
        raise ValueError(f"{count} cells but {len(kinds)} classes")
    starts = [f'<{tag} class="{markupsafe.escape(k)}">' if k else f"<{tag}>" for k in kinds]
    return "".join(
        start.replace("{", "{{").replace("}", "}}") + "{}" + f"</{tag}>" for start in starts
    )


@functools.cache
def environment(*, markdown: bool = False) -> jinja2.Environment:
    """The template environment: HTML templates autoescape; with ``markdown``, every
    printed value is escaped for Markdown (:func:`markdown_escape`)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__, "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",)),
        finalize=markdown_escape if markdown else None,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # the templates ship in the package: a process need not look for changed ones
        # (each look was a file's time read, 80 microseconds a template a report)
        auto_reload=False,
    )
    env.filters.update(fmt.FILTERS)
    if markdown:  # every printed value is escaped once, by the finalizer (no "\\|" shown)
        env.filters.update(md=fmt.folded)
    else:
        env.filters.update(cells=cells, rows=rows)
    return env
