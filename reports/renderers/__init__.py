"""The output formats as an axis: one renderer per format for every family's
:class:`~reports.document.Document`.

A format is one module of this package that defines ``FORMAT`` (a :class:`Format`); another
distribution adds one through the entry-point group ``dbbench.formats`` (an entry point
naming a :class:`Format`). Nothing else names a format: ``dbbench report``'s choices are
:func:`formats`' keys, and every family's document renders in each of them.

Each format has its one escaper (:mod:`reports.escape`): a renderer passes every string of
a document through it, and shows every warning and verdict of the document.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

from dbbench.reports.document import Document
from dbbench.reports.errors import ReportsError
from dbbench.reports.plugins import plugins

ENTRY_POINT_GROUP = "dbbench.formats"


@dataclass(frozen=True)
class Format:
    """One output format: its name (``-f NAME``), how a document becomes it, the escaper of
    every string it prints, and the order it is listed in (lower first)."""

    name: str
    render: Callable[[Document], str]
    escape: Callable[[str], str]
    order: int = 100
    #: a file name's ending for this format (``dbbench site`` and ``-o`` defaults)
    suffix: str = ".txt"
    #: the document as a part of a larger one (a section of ``dbbench compare``: headings
    #: one level down, no page around it); None: as :attr:`render` gives it
    part: Callable[[Document], str] | None = None


@functools.cache
def formats() -> dict[str, Format]:
    """Every format by name: this package's modules', then those of entry points (a third
    party's may not take a built-in name), in their order."""
    found: dict[str, Format] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        fmt = getattr(module, "FORMAT", None)
        if isinstance(fmt, Format):
            found.setdefault(fmt.name, fmt)
    for fmt in plugins(ENTRY_POINT_GROUP, Format, "output format"):
        found.setdefault(fmt.name, fmt)
    return dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[0])))


def format_of(name: str) -> Format:
    """The format called ``name``; :class:`ReportsError` (one line) when there is none."""
    known = formats()
    if name not in known:
        raise ReportsError(f"unknown format {name!r} (choose from {', '.join(known)})")
    return known[name]


def render(document: Document, name: str) -> str:
    """``document`` in the format called ``name``."""
    return format_of(name).render(document)


def render_part(document: Document, name: str) -> str:
    """``document`` as a part of a larger output in the format called ``name``."""
    fmt = format_of(name)
    return (fmt.part or fmt.render)(document)
