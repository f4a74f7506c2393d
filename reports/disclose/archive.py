"""The Supporting Files Archive (clause 8.3.10) and the package's manifest.

The archive has the layout the spec names: ``run1result``, ``run2result`` (each run's
intervals, parameters and query output) and ``benchmark_scripts`` (the DDL, the query text
as executed per stream, the refresh functions), each as a folder and as a zip file. Query
output is whole, except Q11, Q16 and Q20: their first and last 1,000 rows and 1,000 rows
drawn at random (reproducibly). ``manifest.json`` states the sha256 of every file of the
package; :func:`verify_package` finds a file edited, missing or added since."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import random
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dbbench.reports.disclose.inputs import Inputs
from dbbench.reports.errors import ReportsError
from dbbench.reports.model import JOURNAL_FILE
from dbbench.reports.model.codec import plain
from dbbench.reports.safeio import write_bytes
from dbbench.reports.tpch.model import ANSWERS_FILE
from dbbench.reports.tpch.redact import redact_result

MANIFEST_FILE = "manifest.json"
MANIFEST_SCHEMA = "dbbench-disclosure-manifest"
ARCHIVE_DIR = "supporting-files"
#: the queries whose output is sampled (clause 8.3.10), and the sample's parts' size
SAMPLED_QUERIES = frozenset({11, 16, 20})
SAMPLE_ROWS = 1000
_EPOCH = (1980, 1, 1, 0, 0, 0)  # zip members' time: the same files make the same zip


def sampled(query: int, rows: list[Any]) -> tuple[list[Any], str]:
    """A query's output as the archive keeps it, and how (whole, or the 1,000-row rule)."""
    if query not in SAMPLED_QUERIES or len(rows) <= 3 * SAMPLE_ROWS:
        return rows, "whole"
    middle = rows[SAMPLE_ROWS:-SAMPLE_ROWS]
    picks = sorted(random.Random(query).sample(range(len(middle)), SAMPLE_ROWS))
    kept = rows[:SAMPLE_ROWS] + [middle[i] for i in picks] + rows[-SAMPLE_ROWS:]
    return kept, f"first, {SAMPLE_ROWS} random and last {SAMPLE_ROWS} of {len(rows)} rows"


def _answers(run_dir: Path) -> Iterator[dict[str, Any]]:
    path = run_dir / ANSWERS_FILE
    if not path.is_file():
        return
    try:
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ReportsError(f"{path}: not a readable answers file ({exc})") from None
    for line in text.splitlines():
        if line.strip():
            entry = json.loads(line)
            if isinstance(entry, dict):
                yield entry


def _dump(value: Any) -> bytes:
    return (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def archive_files(inp: Inputs) -> dict[str, bytes]:
    """Every file of the archive by its path inside it."""
    files: dict[str, bytes] = {}
    answers = list(_answers(inp.run_dir))
    for run in inp.result.runs:
        top = f"run{run.number}result"
        files[f"{top}/intervals.json"] = _dump(plain(run))
        for entry in (a for a in answers if a.get("run") == run.number):
            rows, how = sampled(int(entry["query"]), list(entry.get("rows", [])))
            name = f"{top}/output/stream{entry['stream']}/q{int(entry['query']):02d}.json"
            files[name] = _dump({"kept": how, "columns": entry.get("columns"), "rows": rows})
    files["run1result/result.json"] = redact_result(inp.result).to_json().encode("utf-8")
    journal = inp.run_dir / JOURNAL_FILE
    if journal.is_file():
        files["run1result/journal.jsonl"] = journal.read_bytes()
    scripts = "benchmark_scripts"
    files[f"{scripts}/ddl.sql"] = "".join(f"{s};\n" for s in inp.ddl).encode("utf-8")
    for text in inp.texts:
        base = f"{scripts}/queries/run{text.run}/stream{text.stream}/q{text.query:02d}"
        files[f"{base}.sql"] = (text.executed.rstrip() + "\n").encode("utf-8")
        files[f"{base}.qgen.sql"] = (text.qgen.rstrip() + "\n").encode("utf-8")
    files[f"{scripts}/refresh_functions.sql"] = "".join(f"{s}\n" for s in inp.refresh_sql).encode(
        "utf-8"
    )
    if inp.cost_sheet_text:
        files[f"{scripts}/cost-sheet.toml"] = inp.cost_sheet_text.encode("utf-8")
    if inp.acid_text:
        files[f"{scripts}/acid-result.json"] = inp.acid_text.encode("utf-8")
    return files


def zipped(members: dict[str, bytes]) -> bytes:
    """A zip of ``members`` (fixed times and order: the same members, the same bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(members):
            zf.writestr(zipfile.ZipInfo(name, _EPOCH), members[name])
    return buffer.getvalue()


def write_archive(out: Path, files: dict[str, bytes]) -> list[Path]:
    """The archive's folders and one zip per top folder, under ``out/supporting-files``."""
    root = out / ARCHIVE_DIR
    written = []
    tops: dict[str, dict[str, bytes]] = {}
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, data)
        written.append(path)
        tops.setdefault(name.split("/", 1)[0], {})[name] = data
    for top, members in sorted(tops.items()):
        path = root / f"{top}.zip"
        write_bytes(path, zipped(members))
        written.append(path)
    return written


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _package_files(out: Path) -> list[Path]:
    return sorted(p for p in out.rglob("*") if p.is_file() and p.name != MANIFEST_FILE)


def write_manifest(out: Path) -> Path:
    """``manifest.json``: the sha256 of every other file of the package."""
    files = {p.relative_to(out).as_posix(): sha256(p) for p in _package_files(out)}
    path = out / MANIFEST_FILE
    body = {"schema": MANIFEST_SCHEMA, "version": 1, "algorithm": "sha256", "files": files}
    write_bytes(path, _dump(body))
    return path


def is_package(path: Path) -> bool:
    """Whether ``path`` is a disclosure package (a folder with its manifest)."""
    manifest = path / MANIFEST_FILE
    if not manifest.is_file():
        return False
    try:
        return bool(json.loads(manifest.read_text("utf-8")).get("schema") == MANIFEST_SCHEMA)
    except (OSError, ValueError, AttributeError):
        return False


def verify_package(out: Path) -> list[str]:
    """One line per file edited, missing or added since the manifest was written."""
    try:
        data = json.loads((out / MANIFEST_FILE).read_text("utf-8"))
        stated = data["files"]
        if not isinstance(stated, dict):
            raise TypeError("files is not an object")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [f"{out / MANIFEST_FILE}: not a readable manifest ({exc})"]
    problems = []
    for name, digest in sorted(stated.items()):
        path = out / name
        if ".." in Path(name).parts or not path.is_file():
            problems.append(f"{out}: {name}: missing")
        elif sha256(path) != digest:
            problems.append(f"{out}: {name}: edited (sha256 differs from the manifest)")
    for path in _package_files(out):
        if path.relative_to(out).as_posix() not in stated:
            problems.append(f"{out}: {path.relative_to(out).as_posix()}: not in the manifest")
    return problems
