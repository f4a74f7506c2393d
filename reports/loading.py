"""Reading result files for reports: a JSON file or a run directory, with one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from dbbench.reports.errors import ReportsError
from dbbench.reports.model import (
    HAMMERDB_SCHEMA_NAME,
    RESULT_FILE,
    SCHEMA_NAME,
    SCHEMA_VERSION,
    AnyResult,
    BenchmarkResult,
    read_any_result,
)
from dbbench.reports.recovery import JOURNAL_FILE, recover
from dbbench.reports.validation import check_result_data


def find_result_file(path: Path) -> Path:
    """``path`` itself, or the result file inside a run directory."""
    if not path.exists():
        raise ReportsError(f"no such result file or run directory: {path}")
    if path.is_file():
        return path
    preferred = path / RESULT_FILE
    if preferred.is_file():
        return preferred
    candidates = []
    for candidate in sorted(path.glob("*.json")):
        try:
            head = json.loads(candidate.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(head, dict) and head.get("schema") == SCHEMA_NAME:
            candidates.append(candidate)
    if len(candidates) != 1:
        found = "no" if not candidates else f"{len(candidates)}"
        raise ReportsError(f"{path}: {found} dbbench result files in this directory")
    return candidates[0]


def load_result(path: Path) -> BenchmarkResult:
    """Read a result written by ``dbbench run`` (any schema version this kit understands),
    completed from the run directory's journal when the result file is missing or behind."""
    return load_result_noted(path)[0]


def load_result_noted(path: Path) -> tuple[BenchmarkResult, str | None]:
    """:func:`load_result`, and what was recovered from the journal (None: nothing)."""
    run_dir = path if path.is_dir() else path.parent
    if path.is_dir() and not (path / RESULT_FILE).is_file() and (path / JOURNAL_FILE).is_file():
        rebuilt = recover(path, None)
        if rebuilt is None:
            raise ReportsError(f"{path}: no result file, and its journal holds no benchmark")
        return rebuilt
    result = _read(find_result_file(path))
    if path.is_dir() or path.name == RESULT_FILE:
        rebuilt = recover(run_dir, result)
        if rebuilt is not None:
            return rebuilt
    return result, None


def _read(file: Path) -> BenchmarkResult:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ReportsError(f"{file}: not a dbbench result (a JSON {type(data).__name__})")
        if data.get("schema_version") == SCHEMA_VERSION:
            check_result_data(data, str(file))  # older versions: the model's upgrade path
        return BenchmarkResult.from_dict(data)
    except RecursionError:
        raise ReportsError(f"{file}: not a dbbench result (nested too deeply)") from None
    except UnicodeDecodeError:
        raise ReportsError(f"{file}: not a dbbench result (not UTF-8 text)") from None
    except AttributeError as exc:  # e.g. a list or null where the result's object belongs
        raise ReportsError(f"{file}: not a dbbench result ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ReportsError(f"{file}: not valid JSON (line {exc.lineno}): {exc.msg}") from exc
    except (ValueError, TypeError, KeyError) as exc:
        raise ReportsError(f"{file}: {exc}") from exc
    except OSError as exc:
        raise ReportsError(f"cannot read {file}: {exc.strerror or exc}") from exc


def load_any_result(path: Path) -> AnyResult:
    """A result of any type of the family: TPC-H (``dbbench run``) or HammerDB."""
    file = path if path.is_file() else path / RESULT_FILE
    if not file.is_file():
        return load_result(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except RecursionError:
        raise ReportsError(f"{file}: not a dbbench result (nested too deeply)") from None
    except json.JSONDecodeError as exc:
        raise ReportsError(f"{file}: not valid JSON (line {exc.lineno}): {exc.msg}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportsError(f"cannot read {file}: {exc}") from exc
    if not isinstance(data, dict) or data.get("schema") != HAMMERDB_SCHEMA_NAME:
        return load_result(path)
    try:
        return read_any_result(data)
    except (ValueError, TypeError, KeyError) as exc:
        raise ReportsError(f"{file}: {exc}") from exc
