"""The results among a site's inputs: files and directories, walked recursively."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbbench.reports.errors import ReportsError
from dbbench.reports.families import family_of, record_of
from dbbench.reports.family import Family, RecordKind
from dbbench.reports.model import JOURNAL_FILE, RESULT_FILE, read_json

#: JSON files dbbench writes that are not results (study indexes, a site's manifest)
NOT_RESULTS = frozenset({"dbbench-suite", "dbbench-scale", "dbbench-site-manifest"})


@dataclass
class Found:
    """A result read from the inputs."""

    path: Path  # as found (a file, or a run directory without result file)
    file: Path | None  # the JSON file (None: rebuilt from a journal)
    family: Family
    result: Any
    data: Any  # the parsed file (None for a published record or a journal rebuild)
    note: str | None = None
    record: RecordKind | None = None  # a record published elsewhere, not a result


@dataclass
class Refused:
    path: Path
    reason: str


def _candidates(path: Path) -> Iterator[Path]:
    """Every file (or journal-only run directory) under ``path`` that may be a result."""
    if not path.is_dir():
        yield path
        return
    for folder, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(folder)
        if JOURNAL_FILE in files and RESULT_FILE not in files:
            yield here
        for name in sorted(files):
            if name.endswith(".json") or record_of(here / name) is not None:
                yield here / name


def _read(path: Path) -> Found | Refused | None:
    if (published := record_of(path)) is not None:
        family, kind = published
        try:
            record = kind.load(path)
        except ReportsError as exc:
            return Refused(path, str(exc))
        return Found(path, path, family, record, None, record=kind)
    if path.is_dir():  # a run directory with only its journal
        from dbbench.reports.families import read_result

        try:
            family, result, note = read_result(path)
        except ReportsError as exc:
            return Refused(path, str(exc))
        return Found(path, None, family, result, None, note)
    try:
        data = read_json(path)
    except (OSError, ValueError) as exc:
        return Refused(path, f"{path}: {exc}")
    schema = data.get("schema") if isinstance(data, dict) else None
    if isinstance(schema, str) and schema in NOT_RESULTS:
        return None
    known = family_of(schema)
    if known is None:
        return Refused(path, f"{path}: not a dbbench result (schema {schema!r:.40})")
    try:
        result, note = known.load(path, data)
    except ReportsError as exc:
        return Refused(path, str(exc))
    except RecursionError:
        return Refused(path, f"{path}: not a dbbench result (nested too deeply)")
    except (ValueError, TypeError, KeyError, AttributeError, OSError) as exc:
        return Refused(path, f"{path}: {exc}")
    return Found(path, path, known, result, data, note)


def candidates(inputs: list[Path]) -> tuple[list[Path], list[Refused]]:
    """The paths under ``inputs`` that may be results (each reached once) and the inputs that
    do not exist; nothing is read yet."""
    out: list[Path] = []
    refused: list[Refused] = []
    seen: set[Path] = set()
    for root in inputs:
        if not root.exists():
            refused.append(Refused(root, f"no such file or directory: {root}"))
            continue
        for path in _candidates(root):
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                out.append(path)
    return out, refused


def read_candidate(path: Path) -> Found | Refused | None:
    """One candidate read through the family registry (None: a dbbench file that is not a
    result, such as a study's index)."""
    return _read(path)


def collect(inputs: list[Path]) -> tuple[list[Found], list[Refused]]:
    """The results under ``inputs`` and the files refused (with the reason, one line each);
    a file reached twice is read once."""
    paths, refused = candidates(inputs)
    found: list[Found] = []
    for path in paths:
        item = _read(path)
        if isinstance(item, Found):
            found.append(item)
        elif item is not None:
            refused.append(item)
    return found, refused
