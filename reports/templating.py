"""The jinja2 environment of every template the reports ship (``reports/templates``)."""

from __future__ import annotations

import jinja2

from dbbench.reports import formatting as fmt


def environment() -> jinja2.Environment:
    """The template environment: HTML templates autoescape, Markdown ones do not."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__, "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(fmt.FILTERS)
    return env
