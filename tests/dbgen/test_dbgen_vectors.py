"""Against the real dbgen: checksums recorded in tests/vectors (see its README).

* ``dbgen_sf001_sha1.json``: whole tables at SF 0.01 and 0.1;
* ``dbgen_updates.json``: update sets 1..4 at SF 0.01 and 0.1, 1..2 at SF 1;
* ``dbgen_refdata.json``: the TPC reference data chunks at SF 1000 .. 100000 (keys past
  2^31, the 64-bit generator at SF >= 30000) and their update-set segments, each made from
  its own chunk or slice without generating the data before it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from dbgen_testlib import sha1_of

from dbbench.dbgen import api
from dbbench.dbgen.formats.tbl import format_delete_keys, format_tbl

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
LARGE = 30_000


def _load(name: str) -> dict[str, Any]:
    path = VECTORS / name
    if not path.exists():
        pytest.fail(f"reference vectors {name} are missing", pytrace=False)
    data: dict[str, Any] = json.loads(path.read_text())
    assert "format" in data
    return data


def _table_bytes(table: str, sf: float, part: int = 1, parts: int = 1) -> list[bytes]:
    return [format_tbl(b, table) for b in api.table_batches(table, sf, part=part, parts=parts)]


def _check(what: str, chunks: list[bytes], expect: dict[str, Any]) -> str | None:
    sha, lines = sha1_of(chunks)
    if sha == expect["sha1"] and lines == expect["lines"]:
        return None
    data = b"".join(chunks)
    first = data.split(b"\n", 1)[0].decode()
    hint = ""
    if "first_line" in expect and first != expect["first_line"]:
        hint = f"\n  ours: {first!r}\n  ref:  {expect['first_line']!r}"
    return f"{what}: {lines} lines sha1 {sha}, reference {expect['lines']} {expect['sha1']}{hint}"


def test_whole_tables_at_small_scales() -> None:
    problems = []
    for run in _load("dbgen_sf001_sha1.json")["runs"]:
        sf = float(run["sf"])
        for table, expect in run["tables"].items():
            problems.append(_check(f"{table} SF {sf}", _table_bytes(table, sf), expect))
    assert not [p for p in problems if p], "\n".join(p for p in problems if p)


def test_update_sets() -> None:
    problems = []
    for run in _load("dbgen_updates.json")["runs"]:
        sf = float(run["sf"])
        assert api.rows_per_update_set(sf) == run["rows_per_set"]
        for entry in run["sets"]:
            n = entry["set"]
            for table in ("orders", "lineitem"):
                got = [format_tbl(b, table) for b in api.update_batches(table, sf, n)]
                problems.append(_check(f"{table}.tbl.u{n} SF {sf}", got, entry[table]))
            keys = format_delete_keys(api.delete_keys(sf, n))
            problems.append(_check(f"delete.{n} SF {sf}", [keys], entry["delete"]))
    assert not [p for p in problems if p], "\n".join(p for p in problems if p)


def _refdata() -> list[tuple[str, dict[str, Any]]]:
    if not (VECTORS / "dbgen_refdata.json").exists():
        return []
    data = _load("dbgen_refdata.json")["scale_factors"]
    return [(sf, data[sf]) for sf in data]


@pytest.mark.parametrize(("sf", "entry"), _refdata(), ids=[sf for sf, _ in _refdata()])
def test_reference_data_base_chunks(sf: str, entry: dict[str, Any]) -> None:
    problems = []
    for chunk in entry["base"]:
        table, k, n = chunk["table"], chunk["chunk"], chunk["chunks"]
        got = _table_bytes(table, float(sf), k, n)
        problems.append(_check(f"{chunk['file']} at SF {sf} ({chunk['command']})", got, chunk))
    assert not [p for p in problems if p], "\n".join(p for p in problems if p)


def _segment_starts(total: int, segments: int) -> list[tuple[int, int]]:
    """dbgen -i/-d: R div m per segment, the first R mod m segments one larger."""
    out, start = [], 0
    for k in range(segments):
        size = total // segments + (1 if k < total % segments else 0)
        out.append((start, size))
        start += size
    return out


def _first_lines(chunks: list[bytes], n: int) -> list[bytes]:
    return [line + b"\n" for line in b"".join(chunks).split(b"\n")[:-1][:n]]


@pytest.mark.parametrize(("sf", "entry"), _refdata(), ids=[sf for sf, _ in _refdata()])
def test_reference_data_update_segments(sf: str, entry: dict[str, Any]) -> None:
    """Segments of sets 1, 75 and 150 (first 100 lines each, as the TPC kept them).

    Deletes are checked for every segment. Inserts for segments 1, 2 and 100 below SF 30000;
    at SF >= 30000 for segment 1 only, because reaching a later segment means stepping the
    64-bit l_partkey stream through every order before it, as dbgen does.
    """
    scale = float(sf)
    per_set = api.rows_per_update_set(scale)
    problems = []
    for upd in entry["updates"]:
        n = upd["set"]
        segs = upd["delete"]["segments"]
        per_delete = per_set // len(segs) + 1
        for k, lines, sha, *_ in segs:
            start = (k - 1) * per_delete
            keys = api.delete_keys(scale, n, start=start, count=min(lines, per_set - start))
            expect = {"sha1": sha, "lines": lines}
            problems.append(_check(f"delete.u{n}.{k} SF {sf}", [format_delete_keys(keys)], expect))
        wanted = {1} if scale >= LARGE else {1, 2, 100}
        for table in ("orders", "lineitem"):
            ranges = _segment_starts(per_set, len(upd[table]["segments"]))
            for k, lines, sha, *_ in upd[table]["segments"]:
                if k not in wanted:
                    continue
                start, size = ranges[k - 1]
                batches = api.update_batches(table, scale, n, start=start, count=min(100, size))
                got = _first_lines([format_tbl(b, table) for b in batches], lines)
                what = f"{table}.tbl.u{n}.{k} SF {sf}"
                problems.append(_check(what, got, {"sha1": sha, "lines": lines}))
    assert not [p for p in problems if p], "\n".join(p for p in problems if p)
