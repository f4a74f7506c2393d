"""Provenance of a result: the content hash of its canonical JSON and the kit that made it.

The hash is computed, never stored in the result: the sha256 of the file's parsed JSON
written canonically (keys sorted, no whitespace, UTF-8, numbers as Python writes them), so
re-indenting a file keeps its hash and changing any value changes it. A ``.sha256`` file
next to a result (``sha256sum`` output) or a site's manifest states a hash to check against.
Standard library only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbbench.reports.model import RESULT_FILE, read_json

#: the length of a result's short id (hex digits of its hash) in a site's file names
SHORT_ID = 16


def canonical_json(data: Any) -> bytes:
    """``data`` as canonical JSON: sorted keys, no whitespace, UTF-8."""
    text = json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False
    )
    return text.encode("utf-8")


def content_hash(data: Any) -> str:
    """The sha256 (hex) of ``data``'s canonical JSON."""
    return hashlib.sha256(canonical_json(data)).hexdigest()


@dataclass(frozen=True)
class Provenance:
    hash: str  # sha256 of the canonical JSON
    kit_version: str  # the dbbench version that wrote the result ("" when not stated)

    @property
    def short_id(self) -> str:
        return self.hash[:SHORT_ID]


def provenance_of(data: Any) -> Provenance:
    """The provenance of a parsed result file."""
    kit = data.get("kit_version") if isinstance(data, dict) else None
    return Provenance(content_hash(data), kit if isinstance(kit, str) else "")


def result_file(path: Path) -> Path:
    """The file of a result path: the file itself, or a run directory's ``result.json``
    (else its one ``*.json`` file holding a ``schema``)."""
    if not path.is_dir():
        return path
    if (path / RESULT_FILE).is_file():
        return path / RESULT_FILE
    for candidate in sorted(path.glob("*.json")):
        try:
            head = read_json(candidate)
        except (OSError, ValueError):
            continue
        if isinstance(head, dict) and isinstance(head.get("schema"), str):
            return candidate
    return path / RESULT_FILE


def sidecar_hash(file: Path) -> str | None:
    """The hash a ``FILE.sha256`` next to ``file`` states (``sha256sum`` format or the bare
    hex digest); None when there is no such file. ``ValueError`` when it is not a hash."""
    sidecar = file.with_name(file.name + ".sha256")
    if not sidecar.is_file():
        return None
    words = sidecar.read_text(encoding="utf-8", errors="replace").split()
    digest = words[0].lower() if words else ""
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise ValueError(f"{sidecar.name} does not hold a sha256 digest")
    return digest
