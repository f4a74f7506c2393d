"""Reading a TPC-H result of ``dbbench run`` (a JSON file or a run directory), one-line errors.

Every read goes through the family registry (:func:`reports.families.read_result`): a file is
read once, checked and upgraded by its family; these are the TPC-H-shaped views of it.
"""

from __future__ import annotations

from pathlib import Path

from dbbench.reports.errors import ReportsError
from dbbench.reports.families import read_result
from dbbench.reports.tpch.model import SCHEMA_NAME, BenchmarkResult


def load_result(path: Path) -> BenchmarkResult:
    """Read a result written by ``dbbench run`` (any schema version this kit understands),
    completed from the run directory's journal when the result file is missing or behind."""
    return load_result_noted(path)[0]


def load_result_noted(path: Path) -> tuple[BenchmarkResult, str | None]:
    """:func:`load_result`, and what was recovered from the journal (None: nothing)."""
    family, result, note = read_result(path)
    if family.name != SCHEMA_NAME or not isinstance(result, BenchmarkResult):
        raise ReportsError(f"{path}: a {family.title}, not a TPC-H result of dbbench run")
    return result, note
