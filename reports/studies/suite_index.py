"""A suite's index file (``suite.json`` in its output folder): the suite file it ran and
every entry's record. Imports nothing of the reports that read results (so the site's rows
may name a result's suite without an import circle)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from dbbench.reports.studies.indexfile import StudyIndex

INDEX_FILE = "suite.json"
INDEX_SCHEMA = "dbbench-suite"


@dataclass
class EntryRecord:
    """One benchmark of the suite: an engine at a scale factor (and repetition)."""

    name: str  # the engine's name in the suite file
    engine: str  # its URL, without password
    scale_factor: float
    repetition: int
    run_dir: str  # relative to the suite's output directory
    status: str = "pending"  # ok, invalid, failed, pending
    message: str = ""  # why it failed or is invalid
    started: float | None = None
    finished: float | None = None
    cost_sheet: str = ""  # the entry's cost sheet (as the suite file names it, resolved)


@dataclass
class SuiteIndex(StudyIndex, file=INDEX_FILE, schema=INDEX_SCHEMA, what="suite index"):
    suite_file: str
    baseline: str
    entries: list[EntryRecord] = field(default_factory=list)
    schema: str = INDEX_SCHEMA
    schema_version: int = 1

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        entries = [EntryRecord(**e) for e in data.get("entries", [])]
        return cls(data["suite_file"], data["baseline"], entries)
