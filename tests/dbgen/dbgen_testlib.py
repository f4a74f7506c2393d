"""Helpers shared by the dbgen conformance tests: reference files and line-level diffs."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from dbbench.dbgen import api
from dbbench.dbgen.formats.tbl import format_tbl


def tpchgen_cli() -> str:
    """The reference generator installed next to the interpreter (or on PATH)."""
    here = Path(sys.executable).parent / "tpchgen-cli"
    found = str(here) if here.exists() else shutil.which("tpchgen-cli")
    if found is None:
        pytest.fail("tpchgen-cli is not installed (it is a dev dependency)", pytrace=False)
    return found


def run_tpchgen(out: Path, sf: float, parts: int | None = None) -> Path:
    """Generate all tables with tpchgen-cli into ``out`` (once per directory)."""
    if not out.exists():
        cmd = [tpchgen_cli(), "-s", str(sf), "-o", str(out)]
        if parts is not None:
            cmd += ["--parts", str(parts)]
        subprocess.run(cmd, check=True, capture_output=True)
    return out


def ours(table: str, sf: float, part: int = 1, parts: int = 1) -> bytes:
    return b"".join(
        format_tbl(b, table) for b in api.table_batches(table, sf, part=part, parts=parts)
    )


def first_difference(what: str, got: bytes, expected: bytes) -> str | None:
    """None when equal, else a message naming the first differing line and both lines."""
    if got == expected:
        return None
    a, b = got.split(b"\n"), expected.split(b"\n")
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"{what}: line {i + 1} differs\n  ours: {x!r}\n  ref:  {y!r}"
    same = min(len(a), len(b)) - 1
    return f"{what}: {len(a) - 1} lines, reference has {len(b) - 1} (first {same} equal)"


def sha1_of(chunks: Iterable[bytes]) -> tuple[str, int]:
    """SHA-1 and line count of streamed bytes."""
    h, lines = hashlib.sha1(), 0
    for c in chunks:
        h.update(c)
        lines += c.count(b"\n")
    return h.hexdigest(), lines


def table_sha1(table: str, sf: float) -> tuple[str, str, int]:
    """(table, SHA-1, lines) of a whole table's tbl bytes, streamed batch by batch."""
    sha, lines = sha1_of(format_tbl(b, table) for b in api.table_batches(table, sf))
    return table, sha, lines
