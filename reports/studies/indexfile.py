"""The index file of a study directory (suite, scaling series): written atomically, read back
with one clear error for anything that is not the index it should be."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

from dbbench.reports import inputs
from dbbench.reports.errors import ReportsError
from dbbench.reports.safeio import write_text


@dataclass
class StudyIndex:
    """The index of one kind of study directory: a dataclass whose ``schema`` field holds
    ``SCHEMA``, kept in the directory's ``FILE``; ``WHAT`` names it in errors. A subclass
    names them in its header: ``class X(StudyIndex, file=..., schema=..., what=...)``."""

    FILE: ClassVar[str]
    SCHEMA: ClassVar[str]
    WHAT: ClassVar[str]

    def __init_subclass__(cls, *, file: str, schema: str, what: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.FILE, cls.SCHEMA, cls.WHAT = file, schema, what

    def write(self, out_dir: Path) -> Path:
        """As JSON in ``out_dir``, replaced atomically."""
        path = out_dir / self.FILE
        write_text(path, json.dumps(asdict(self), indent=2) + "\n")
        return path

    @classmethod
    def read(cls, out_dir: Path) -> Self:
        return cls.from_json(read_index(out_dir / cls.FILE, cls.SCHEMA, cls.WHAT))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """The index from its checked JSON object."""
        raise NotImplementedError


def read_index(path: Path, schema: str, what: str) -> dict[str, Any]:
    """The JSON object at ``path`` whose ``schema`` is ``schema``; ``what`` names it in errors
    (e.g. "suite index")."""
    try:
        data = json.loads(inputs.read_text(path, inputs.JSON_LIMIT, what))
    except (OSError, ValueError, RecursionError) as exc:
        raise ReportsError(f"cannot read the {what} {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != schema:
        raise ReportsError(f"{path} is not a dbbench {what}")
    return data
