"""Render one query for one engine: template + parameters + stream -> statements to run.

Rendering is pure: the same inputs give the same text. Q15's view is the only query with
more than one statement; its CREATE VIEW and DROP VIEW belong to the query's timing interval,
so they are returned beside the one statement whose rows are the answer.

qgen names the view ``revenue<stream>``, and ``dbbench qgen`` prints exactly that. A benchmark
run passes ``view_suffix`` (its run number and a short id) so that the view is unique per
stream and run: a view left behind by a crashed run, or a concurrent run on the same
database, cannot collide with this one's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from dbbench.queries.dialects import DIALECTS, get_dialect
from dbbench.queries.errors import QueriesError
from dbbench.queries.order import check_query, check_stream

__all__ = ["DIALECTS", "RenderedQuery", "render", "template"]

_TAG = re.compile(r":(?:n (\d+)|(s)\b|(\d+))")
_STATEMENT_END = re.compile(r";[ \t]*(?:\n|$)")
_COMMENT = re.compile(r"--[^\n]*")
_UNSAFE = re.compile(r"['\\;]|--")
_VIEW_SUFFIX = re.compile(r"[a-z0-9_]{0,40}")


@dataclass(frozen=True)
class RenderedQuery:
    """What a driver runs for one query; ``query`` is the statement whose rows are the answer."""

    setup: list[str]
    query: str
    teardown: list[str]

    def statements(self) -> list[str]:
        """All statements in execution order."""
        return [*self.setup, self.query, *self.teardown]

    def script(self) -> str:
        """The statements as one script, each ended by a semicolon (``dbbench qgen``)."""
        return "".join(f"{s};\n" for s in self.statements())


@cache
def template(query: int) -> str:
    """Template text of a query, comments removed (as qgen does without ``-c``)."""
    name = f"{check_query(query)}.sql"
    text = resources.files(__package__).joinpath("templates", name).read_text(encoding="utf-8")
    return _COMMENT.sub("", text).strip() + "\n"


@cache
def parameter_count(query: int) -> int:
    """How many substitution values the template takes (``:1`` .. ``:N``)."""
    return max((int(m.group(3)) for m in _TAG.finditer(template(query)) if m.group(3)), default=0)


def _check_params(query: int, params: list[str]) -> None:
    expected = parameter_count(query)
    if len(params) != expected:
        raise QueriesError(f"Q{query} takes {expected} parameters, got {len(params)}")
    for value in params:
        if not isinstance(value, str) or _UNSAFE.search(value):
            raise QueriesError(f"Q{query}: parameter {value!r} is not a plain value")


def render(
    query: int, params: list[str], *, dialect: str, stream: int, view_suffix: str = ""
) -> RenderedQuery:
    """Substitute a query's parameters and stream number, in the given SQL dialect.

    ``view_suffix`` (lower-case letters, digits, ``_``) is appended to Q15's view name."""
    lang = get_dialect(dialect)
    check_stream(stream)
    _check_params(query, params)
    if not _VIEW_SUFFIX.fullmatch(view_suffix):
        raise QueriesError(f"view suffix {view_suffix!r} is not a plain identifier part")

    def tag(m: re.Match[str]) -> str:
        if m.group(1):
            return lang.limit(int(m.group(1)))
        if m.group(2):
            return f"{stream}{view_suffix}"
        return params[int(m.group(3)) - 1]

    text = lang.translate(_TAG.sub(tag, template(query)))
    statements = [s.strip() for s in _STATEMENT_END.split(text) if s.strip()]
    setup = [s for s in statements if s.lower().startswith("create ")]
    teardown = [s for s in statements if s.lower().startswith("drop ")]
    selects = [s for s in statements if s not in setup and s not in teardown]
    if len(selects) != 1:  # a template bug, not a user error
        raise AssertionError(f"Q{query}: expected one answer statement, found {len(selects)}")
    return RenderedQuery(setup=setup, query=selects[0], teardown=teardown)
