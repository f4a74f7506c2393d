"""The index file of a study directory (suite, scaling series): written atomically, read back
with one clear error for anything that is not the index it should be."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dbbench.reports.errors import ReportsError


def write_index(index: Any, path: Path) -> Path:
    """``index`` (a dataclass) as JSON at ``path``, replaced atomically."""
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(asdict(index), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def read_index(path: Path, schema: str, what: str) -> dict[str, Any]:
    """The JSON object at ``path`` whose ``schema`` is ``schema``; ``what`` names it in errors
    (e.g. "suite index")."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise ReportsError(f"cannot read the {what} {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != schema:
        raise ReportsError(f"{path} is not a dbbench {what}")
    return data
