"""A toy result family in one package (this module, and ``golden/`` with a file of its first
version): a trivial workload's result (it counted to a number) and
its renderers and its check. Installed through the ``dbbench.families`` entry point by a test;
``dbbench report``, ``compare``, ``verify`` and ``site`` (a page of its own, the default table
of its figures) handle it with no other edit."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from dbbench.reports import escape
from dbbench.reports.family import Checked, CompareContext, Family, Problem, RenderOptions
from dbbench.reports.model import ResultEnvelope, ResultStatus

TOY_SCHEMA = "dbbench-toy-result"


@dataclass
class ToyResult(ResultEnvelope):
    """A count to ``target``: how long it took."""

    SCHEMA_NAME: ClassVar[str] = TOY_SCHEMA
    SCHEMA_VERSION: ClassVar[int] = 2
    TITLE: ClassVar[str] = "dbbench toy result"

    target: int
    seconds: float
    status: ResultStatus = field(default="complete", kw_only=True)

    @classmethod
    def upgrade_data(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 called ``target`` ``n``."""
        data = dict(data)
        if data.get("schema_version") == 1:
            data["target"] = data.pop("n", 0)
            data["schema_version"] = 2
        return data


def _rate(r: ToyResult) -> str:
    return f"{r.target / r.seconds:,.0f}/s" if r.seconds > 0 else "-"


def _text(r: ToyResult, options: RenderOptions) -> str:
    return f"TOY: {r.engine.name} counted to {r.target} in {r.seconds:g} s ({_rate(r)})\n"


def _md(r: ToyResult, options: RenderOptions) -> str:
    return f"# Toy\n\n{escape.markdown(r.engine.name)} counted to {r.target} ({_rate(r)})\n"


def _html(r: ToyResult, options: RenderOptions) -> str:
    return f"<!DOCTYPE html><html><body><p>{escape.html(r.engine.name)} toy</p></body></html>\n"


def _json(r: ToyResult, options: RenderOptions) -> str:
    return json.dumps({"target": r.target, "rate": _rate(r)}) + "\n"


def _compare(items: list[tuple[str, Any]], fmt: str, context: CompareContext) -> str:
    if fmt == "html":
        rows = "".join(f"<li>{escape.html(label)}: {_rate(r)}</li>" for label, r in items)
        return f'<section class="toy"><h2>Toy counts</h2><ul>{rows}</ul></section>'
    cell = escape.markdown if fmt == "md" else escape.terminal
    head = "## Toy counts" if fmt == "md" else "TOY COUNTS"
    return "\n".join([head, *(f"- {cell(label)}: {_rate(r)}" for label, r in items)]) + "\n"


def _check(r: ToyResult) -> Checked:
    """What verify recomputes: the count's rate; a count that took no time is wrong."""
    problems = [] if r.seconds > 0 else [Problem("seconds", f"{r.seconds:g} s is not a time")]
    return Checked({"per_second": r.target / r.seconds if r.seconds > 0 else None}, problems)


FAMILY = Family(
    model=ToyResult,
    renderers={"text": _text, "md": _md, "html": _html, "json": _json},
    compare_section=_compare,
    verify=_check,
)
