"""The result families, registered once: schema name -> model, upgrade, renderers, compare.

A *family* is one kind of result file (the TPC-H run's, o2c's, HammerDB's, or a third party's
workload): its :class:`~reports.model.ResultEnvelope` model (which knows the current version
and upgrades every earlier one), how a file (or a run directory) of it is read, its renderer
per output format for ``dbbench report``, and its section of ``dbbench compare``.

``dbbench report``, ``compare`` and ``gate`` and the suite/scaling pages read a file once with
:func:`read_result` and dispatch on the family it names; every text output passes through
:func:`escape.terminal` here (Markdown and HTML renderers escape each value themselves, with
:mod:`reports.escape` or the templates' autoescape). The built-in families are listed in
:func:`_builtin`; other distributions add theirs through the entry-point group
``dbbench.families`` (an entry point names a :class:`Family` object). A family's declaration
(:class:`Family`, in :mod:`reports.family`) imports nothing of this registry.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from dbbench.reports import escape
from dbbench.reports.errors import ReportsError
from dbbench.reports.family import CompareContext as CompareContext
from dbbench.reports.family import CompareSection as CompareSection
from dbbench.reports.family import Family as Family
from dbbench.reports.family import Reader as Reader
from dbbench.reports.family import RecordKind as RecordKind
from dbbench.reports.family import Renderer as Renderer
from dbbench.reports.family import RenderOptions as RenderOptions
from dbbench.reports.model import read_json
from dbbench.reports.plugins import plugins
from dbbench.reports.renderers.html import page as html_page

ENTRY_POINT_GROUP = "dbbench.families"


def _builtin() -> list[Family]:
    """The kit's own families (their modules are imported here, not at start-up)."""
    from dbbench.reports.acid import family as family_acid
    from dbbench.reports.hammerdb import family as family_hammerdb
    from dbbench.reports.mixed import family as family_mixed
    from dbbench.reports.o2c import family as family_o2c
    from dbbench.reports.tpch import family as family_tpch

    return [
        family_tpch.FAMILY,
        family_hammerdb.FAMILY,
        family_o2c.FAMILY,
        family_mixed.FAMILY,
        family_acid.FAMILY,
    ]


@functools.cache
def families() -> dict[str, Family]:
    """Every family by schema name: the built-in ones, then those of entry points (a third
    party's may not take a built-in name)."""
    found = {f.name: f for f in _builtin()}
    for family in plugins(ENTRY_POINT_GROUP, Family, "result family"):
        found.setdefault(family.name, family)
    return found


def family_of(schema: Any) -> Family | None:
    return families().get(schema) if isinstance(schema, str) else None


def record_of(path: Path) -> tuple[Family, RecordKind] | None:
    """The family that reads ``path`` as a record published elsewhere (a TPC-H result of the
    TPC's list), with its kind; None: ``path`` is a result file or a run directory."""
    if path.is_dir():
        return None
    for family in families().values():
        if family.records is not None and family.records.holds(path):
            return family, family.records
    return None


def _result_file(path: Path) -> Path | None:
    """The result file of a run directory: ``result.json``, else its one ``*.json`` of a
    known family; None when it has none (a TPC-H journal may still rebuild one)."""
    from dbbench.reports.model import RESULT_FILE

    if (path / RESULT_FILE).is_file():
        return path / RESULT_FILE
    candidates = []
    for candidate in sorted(path.glob("*.json")):
        try:
            head = read_json(candidate)
        except (OSError, ValueError):
            continue
        if isinstance(head, dict) and family_of(head.get("schema")) is not None:
            candidates.append(candidate)
    if len(candidates) > 1:
        raise ReportsError(f"{path}: {len(candidates)} dbbench result files in this directory")
    return candidates[0] if candidates else None


def read_result(path: Path) -> tuple[Family, Any, str | None]:
    """The family and the result of a file or run directory, read once, and what was
    recovered to complete it (None: nothing); :class:`ReportsError` (one line) otherwise."""
    from dbbench.reports.tpch.model import SCHEMA_NAME

    if not path.exists():
        raise ReportsError(f"no such result file or run directory: {path}")
    file = path if not path.is_dir() else _result_file(path)
    if file is None:  # a run directory without a result file: the TPC-H journal, if any
        tpch = families()[SCHEMA_NAME]
        return tpch, *_loaded(tpch, path, None, path)
    try:
        data = read_json(file)
    except ValueError as exc:
        raise ReportsError(f"{file}: {exc}") from None
    except OSError as exc:
        raise ReportsError(f"cannot read {file}: {exc.strerror or exc}") from None
    if not isinstance(data, dict):
        raise ReportsError(f"{file}: not a dbbench result (a JSON {_kind(data)})")
    family = family_of(data.get("schema"))
    if family is None:
        raise ReportsError(f"{file}: not a dbbench result (schema {_shown(data.get('schema'))})")
    return family, *_loaded(family, path, data, file)


def _loaded(family: Family, path: Path, data: Any, file: Path) -> tuple[Any, str | None]:
    try:
        return family.load(path, data)
    except ReportsError:
        raise
    except RecursionError:
        raise ReportsError(f"{file}: not a dbbench result (nested too deeply)") from None
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise ReportsError(f"{file}: {exc}") from None
    except OSError as exc:
        raise ReportsError(f"cannot read {file}: {exc.strerror or exc}") from None


def _kind(value: Any) -> str:
    return {list: "array", str: "string", bool: "boolean"}.get(type(value), "value")


def _shown(value: Any) -> str:
    text = repr(value)
    return escape.terminal(text if len(text) <= 40 else text[:37] + "...")


def compare(items: list[tuple[str, Family, Any]], fmt: str, context: CompareContext) -> str:
    """The comparison of labelled results of any families: each family's section in the
    order of :func:`families` (the TPC-H landscape first), one HTML page around them."""
    context.by_family = {}
    for label, family, result in items:
        context.by_family.setdefault(family.name, []).append((label, result))
    present = [f for f in families().values() if f.name in context.by_family]
    for family in present:
        if family.compare_section is None:
            raise ReportsError(f"a {family.title} has no comparison")
        if fmt not in family.compare_formats:
            choices = ", ".join(family.compare_formats)
            raise ReportsError(f"a comparison of a {family.title} comes as {choices}, not {fmt!r}")
    sections = [
        f.compare_section(context.by_family[f.name], fmt, context)  # type: ignore[misc]
        for f in present
    ]
    if fmt == "html":
        primary = present[0] if present else None
        if primary is not None and primary.compare_page is not None:
            page = primary.compare_page
            return page(context.by_family[primary.name], context, sections[1:])
        return _page(sections)
    text = "\n\n".join(s.rstrip("\n") for s in sections if s) + "\n"
    return escape.terminal(text, keep_newlines=True) if fmt == "text" else text


def _page(sections: list[str]) -> str:
    """A page in the kit's one style around compare sections (fragments, escaped by their
    families)."""
    return html_page("dbbench comparison", sections)
