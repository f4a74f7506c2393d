"""The jinja2 environment of every template the reports ship (``reports/templates``)."""

from __future__ import annotations

from typing import Any

import jinja2

from dbbench.reports import formatting as fmt


def markdown_escape(value: Any) -> Any:
    """Every value a Markdown template prints, with ``& < >`` as entities: a viewer that
    renders HTML inside Markdown shows a path or an error text holding ``<script>`` as
    text. (Numbers and None pass through for the template's own tests.)"""
    if isinstance(value, str):
        text = fmt.plain(value).replace("&", "&amp;").replace("<", "&lt;")
        return text.replace(">", "&gt;")
    return value


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
    )
    env.filters.update(fmt.FILTERS)
    return env
