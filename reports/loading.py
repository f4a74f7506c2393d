"""Reading result files for reports: a JSON file or a run directory, with one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from dbbench.reports.errors import ReportsError
from dbbench.reports.model import RESULT_FILE, SCHEMA_NAME, BenchmarkResult


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
    """Read a result written by ``dbbench run`` (any schema version this kit understands)."""
    file = find_result_file(path)
    try:
        return BenchmarkResult.read(file)
    except json.JSONDecodeError as exc:
        raise ReportsError(f"{file}: not valid JSON (line {exc.lineno}): {exc.msg}") from exc
    except (ValueError, TypeError, KeyError) as exc:
        raise ReportsError(f"{file}: {exc}") from exc
    except OSError as exc:
        raise ReportsError(f"cannot read {file}: {exc.strerror or exc}") from exc
