"""The objects other distributions add through an entry-point group (result families, output
formats): each loaded and checked, a broken one one line naming it."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import TypeVar

from dbbench.reports.errors import ReportsError

T = TypeVar("T")


def plugins(group: str, kind: type[T], what: str) -> list[T]:
    """Every entry point of ``group``, loaded; each must be a ``kind`` (``what`` names it in
    the error: "result family", "output format")."""
    found: list[T] = []
    for ep in entry_points(group=group):
        try:
            obj = ep.load()
        except Exception as exc:  # a broken plug-in: one line naming it, not a traceback
            raise ReportsError(f"{what} {ep.name!r} ({ep.value}) fails to load: {exc}") from None
        if not isinstance(obj, kind):
            article = "an" if what[0] in "aeiou" else "a"
            raise ReportsError(
                f"entry point {ep.name!r} ({ep.value}) is not {article} {what.split()[0]} "
                f"{kind.__name__}"
            )
        found.append(obj)
    return found
