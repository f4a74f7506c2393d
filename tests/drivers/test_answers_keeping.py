"""Keeping the answers (issue 35) costs little: equal outputs are digested once, the digests
are made in a forked process beside the answers file, and neither changes a byte of the file
nor a digest; a forked process that fails, hangs or is stopped by Ctrl-C changes nothing."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import time
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from dbbench.drivers.sequencer import answers
from dbbench.drivers.sequencer.answers import AnswerKeeper, KeptOutput, read_outputs
from dbbench.queries.validate import answer_digest, canonical_rows
from dbbench.reports.tpch.model import Answers

Q18_COLUMNS = ["c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice", "sum"]


def _q16(count: int, salt: int = 0) -> list[tuple[Any, ...]]:
    """A large Q16-like output (text and ints, no ties), different for each ``salt``."""
    return [(f"Brand#{salt}{k // 7:05d}", f"TYPE {k % 7}", k % 50, count - k) for k in range(count)]


def _outputs() -> list[KeptOutput]:
    """Two runs' outputs: Decimals, dates, text with trailing blanks, NULLs, floats; equal
    outputs in both runs, and look-alikes whose values are equal but not their text."""
    q18 = [("Customer#000128120  ", 128120, 4722021, date(1994, 4, 7), Decimal("544089.09"),
            Decimal("323.00"))]  # fmt: skip
    q3 = [(4791171, Decimal("440715.2185"), date(1995, 2, 23), 0)]
    out = []
    for run in (1, 2):
        out += [
            KeptOutput(run, 0, 16, ["p_brand", "p_type", "p_size", "supplier_cnt"], _q16(900)),
            KeptOutput(run, 0, 18, Q18_COLUMNS, q18),
            KeptOutput(run, 0, 3, ["l_orderkey", "revenue", "o_orderdate", "o_shippriority"], q3),
            KeptOutput(run, 0, 17, ["avg_yearly"], [(None,)] if run == 1 else [(348406.05,)]),
            KeptOutput(run, 1, 16, ["p_brand", "p_type", "p_size", "supplier_cnt"], _q16(900, 1)),
            KeptOutput(run, 1, 16, ["p_brand", "p_type", "p_size", "supplier_cnt"], _q16(900, 1)),
        ]
    # equal values, other text: a Decimal's digits, 1 against 1.0 and True, a list of lists
    out += [
        KeptOutput(3, 0, 6, ["revenue"], [(Decimal("1.5"),)]),
        KeptOutput(3, 0, 6, ["revenue"], [(Decimal("1.50"),)]),
        KeptOutput(3, 1, 13, ["c_count", "custdist"], [(1, 2)]),
        KeptOutput(3, 1, 13, ["c_count", "custdist"], [(1.0, 2)]),
        KeptOutput(3, 1, 13, ["c_count", "custdist"], [(True, 2)]),
        KeptOutput(3, 1, 13, ["c_count", "custdist"], [[1, 2]]),
        KeptOutput(3, 2, 4, ["o_orderpriority", "order_count"], [("1-URGENT", 5)]),
        KeptOutput(3, 2, 4, ["o_orderpriority", "order_count"], [("1-URGENT ", 5)]),
        KeptOutput(3, 2, 4, ["o_orderpriority", "order_count"], []),
    ]
    return out


def _expected_lines(outputs: list[KeptOutput]) -> bytes:
    """The answers file as it has always been written: one json.dumps of each entry."""
    lines = [
        json.dumps(
            {
                "run": o.run,
                "stream": o.stream,
                "query": o.query,
                "columns": o.columns,
                "rows": o.rows,
            },
            ensure_ascii=False,
            default=answers._plain,
        )
        for o in sorted(outputs, key=lambda o: (o.run, o.stream))
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _write(
    tmp_path: Path, outputs: list[KeptOutput], **options: Any
) -> tuple[AnswerKeeper, Answers, Path]:
    keeper = AnswerKeeper(**options)
    for o in outputs:
        keeper.keep(o.run, o.stream, o.query, o.columns, o.rows)
    path = tmp_path / f"answers-{len(list(tmp_path.iterdir()))}.jsonl.gz"
    return keeper, keeper.write(path), path


def _check(outputs: list[KeptOutput], result: Answers, path: Path) -> None:
    """Every line as before, every digest that of its rows, kept and read back."""
    assert gzip.decompress(path.read_bytes()) == _expected_lines(outputs)
    ordered = sorted(outputs, key=lambda o: (o.run, o.stream))
    assert [(r.run, r.stream, r.query, r.rows) for r in result.records] == [
        (o.run, o.stream, o.query, len(o.rows)) for o in ordered
    ]
    assert [r.sha256 for r in result.records] == [answer_digest(o.query, o.rows) for o in ordered]
    back = list(read_outputs(path))
    assert [r.sha256 for r in result.records] == [answer_digest(o.query, o.rows) for o in back]


def test_equal_outputs_share_one_digest_and_the_file_is_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outputs = _outputs()
    made: list[int] = []

    def counted(query: int, rows: Any) -> str:
        made.append(query)
        return answer_digest(query, rows)

    monkeypatch.setattr(answers, "answer_digest", counted)
    keeper, result, path = _write(tmp_path, outputs, fork_rows=10**9)
    assert not keeper.forked and keeper.cpu_seconds > 0
    # 21 outputs; made again: none of the Q16s of run 2 nor the second of stream 1 in run 1;
    # every output with Decimals or floats, and every look-alike
    assert len(outputs) == 21 and len(made) == 17 and made.count(16) == 2
    _check(outputs, result, path)
    digest = {(r.run, r.stream, r.query): r.sha256 for r in result.records}
    assert digest[1, 0, 16] == digest[2, 0, 16] != digest[1, 1, 16] == digest[2, 1, 16]
    assert digest[1, 0, 17] != digest[2, 0, 17]
    # look-alikes: the same digest where the spec's classes say so, their own line each
    text = gzip.decompress(path.read_bytes()).decode().splitlines()
    assert [json.loads(x)["rows"] for x in text if json.loads(x)["query"] == 13] == [
        [[1, 2]], [[1.0, 2]], [[True, 2]], [[1, 2]]
    ]  # fmt: skip
    assert '[["1.5"]]' in text[-9] and '[["1.50"]]' in text[-8]


def test_digests_made_in_a_forked_process_are_the_same(tmp_path: Path) -> None:
    outputs = _outputs()
    _, alone, alone_path = _write(tmp_path, outputs, fork_rows=10**9)
    keeper, forked, path = _write(tmp_path, outputs, fork_rows=0)
    assert keeper.forked and keeper.cpu_seconds > 0
    assert forked.records == alone.records and path.read_bytes() == alone_path.read_bytes()
    _check(outputs, forked, path)


def test_a_forked_process_that_fails_or_hangs_is_replaced_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outputs = _outputs()
    parent = os.getpid()
    real = answers._digests

    def failing(work: list[KeptOutput]) -> list[str]:
        if os.getpid() != parent:
            raise RuntimeError("the forked process fails")
        return real(work)

    monkeypatch.setattr(answers, "_digests", failing)
    keeper, result, path = _write(tmp_path, outputs, fork_rows=0)
    assert not keeper.forked
    _check(outputs, result, path)

    def hanging(work: list[KeptOutput]) -> list[str]:
        if os.getpid() != parent:
            time.sleep(60)
        return real(work)

    monkeypatch.setattr(answers, "_digests", hanging)
    monkeypatch.setattr(answers, "WAIT_SECONDS", 0.5)
    start = time.monotonic()
    keeper, result, path = _write(tmp_path, outputs, fork_rows=0)
    assert not keeper.forked and time.monotonic() - start < 30
    _check(outputs, result, path)

    def no_fork() -> int:
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(answers, "_digests", real)
    monkeypatch.setattr(os, "fork", no_fork)
    keeper, result, path = _write(tmp_path, outputs, fork_rows=0)
    assert not keeper.forked
    _check(outputs, result, path)


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True  # stopped and reaped
        time.sleep(0.01)
    return False


def test_ctrl_c_while_the_forked_process_digests_stops_and_reaps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outputs = [KeptOutput(1, s, 16, ["a", "b", "c", "d"], _q16(30_000, s)) for s in range(3)]
    started: list[int] = []
    real_start = answers._Forked.start

    def start(self: answers._Forked) -> bool:
        ok = real_start(self)
        started.append(self.pid)
        return ok

    def interrupted(out: KeptOutput, rows_text: str) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(answers._Forked, "start", start)
    monkeypatch.setattr(answers, "_line", interrupted)
    keeper = AnswerKeeper(fork_rows=0)
    for o in outputs:
        keeper.keep(o.run, o.stream, o.query, o.columns, o.rows)
    with pytest.raises(KeyboardInterrupt):
        keeper.write(tmp_path / "answers.jsonl.gz")
    assert len(started) == 1 and started[0] > 0 and _gone(started[0])
    assert not (tmp_path / "answers.jsonl.gz").exists()
    # written again (as a stopped run does): all of it
    monkeypatch.undo()
    _, result, path = _write(tmp_path, outputs, fork_rows=0)
    _check(outputs, result, path)


def _definition(query: int, rows: list[tuple[Any, ...]]) -> str:
    text = json.dumps(canonical_rows(query, rows), separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_the_digest_s_bare_columns_and_ties_stay_the_digests_made_before() -> None:
    # text with nothing JSON escapes (non-ASCII, blanks to trim), text with what it escapes,
    # a tie found from the last ORDER BY key, Decimals to the cent, large and negative ints:
    # each digest as the previous digest made it (pinned) and as defined
    cases: dict[str, tuple[int, list[tuple[Any, ...]]]] = {
        "3caf3ba844d2625930bc6e5e0dce0b8bd39137cb4466ccbb9710ea7b790d5c5f": (16, [
            ("Brand#13", "ECONOMY ANODIZED  ", 9, 40), ("Brand#1\u3000", "PROMO é", 3, 40),
            ("Brand#21", "SMALL", 49, 12)]),
        "dfaedfc23b4d3dd020a6d1802ebf47512b27af76aeb93d0858686993ac521ab6": (16, [
            ("Brand#13", 'A "B"', 9, 40), ("Brand#13", "PROMO\\x", 3, 40),
            ("Brand#21", "SMALL\t", 49, 12)]),
        "186aaae0f1125889cbf6f823b94142fcef63714bf80f2172ac8af2e7d396508e": (16, [
            ("Brand#13", "SMALL", 9, 40), ("Brand#13 ", "SMALL", 9, 40),
            ("Brand#12", "SMALL", 9, 39)]),
        "1fce91b6d3656ba0e6511dd84efa65b43029a6dc00c54cf5a14cc6422102023b": (11, [
            (7, Decimal("-0.005")), (8, Decimal("123456789012345678.125")),
            (9, Decimal("1E+3"))]),
        "11bae6c4ffbc18159b71c35e2e20b45e0bdc8c74c60c3fc8f099fe5b73ddee7c": (13, [
            (10**20, 5), (0, 3), (-1, 3)]),
    }  # fmt: skip
    for digest, (query, rows) in cases.items():
        assert answer_digest(query, rows) == _definition(query, rows) == digest, rows
