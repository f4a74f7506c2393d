"""The jinja2 environment of every template the reports ship (``reports/templates``)."""

from __future__ import annotations

import functools
from typing import Any

import jinja2

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
    )
    env.filters.update(fmt.FILTERS)
    return env
