"""Kept answers (issue 35): a real run keeps every query's output beside its result, and
``dbbench verify RUN --answers`` checks them by value on a reference engine brought to the
state each query saw; an edited value fails naming run, stream, query and column."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from private_databases import fresh_postgres

from dbbench.cli import main
from dbbench.drivers.journal import read_journal
from dbbench.drivers.sequencer import JOURNAL_FILE
from dbbench.drivers.sequencer.answers import read_outputs
from dbbench.errors import ExitCode
from dbbench.queries.validate import (
    answer_digest,
    canonical_rows,
    column_classes,
    load_answers,
    shipped_scale_factors,
)
from dbbench.reports.loading import load_result
from dbbench.reports.tpch.model import ANSWERS_FILE


def test_the_digest_follows_the_spec_column_classes() -> None:
    # Q1: str str sum sum sum sum avg avg avg cnt (sum_qty exact)
    row = ("A", "F", Decimal("37734107.00"), Decimal("56586554400.73"), 1.5, 2.0, 25.522, 3.0,
           0.05, 1478493)  # fmt: skip
    same = ("A  ", "F", 37734107, 56586554400.7300001, Decimal("1.50"), 2, Decimal("25.5220"),
            3, Decimal("0.0500"), 1478493)  # fmt: skip
    assert answer_digest(1, [row]) == answer_digest(1, [same])
    other = (*row[:9], 1478494)
    assert answer_digest(1, [row]) != answer_digest(1, [other])
    # Q3 is ordered by revenue desc, o_orderdate: rows where both tie may come in any order
    day = "1995-03-10"
    tied = [(7, Decimal("100.00"), day, 0), (3, 100.0, day, 0), (5, Decimal("90"), day, 0)]
    swapped = [tied[1], tied[0], tied[2]]
    assert answer_digest(3, tied) == answer_digest(3, swapped)
    assert canonical_rows(3, tied)[2] == ("5", "90.00", day, "0")
    # rows whose keys differ keep their order
    assert answer_digest(4, [("1-URGENT", 5), ("2-HIGH", 4)]) != answer_digest(
        4, [("2-HIGH", 4), ("1-URGENT", 5)]
    )


def _reference_digest(query: int, rows: list[tuple[Any, ...]]) -> str:
    """The digest's definition: the sha256 of the canonical rows as compact JSON."""
    text = json.dumps(canonical_rows(query, rows), separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _typed(query: int, row: tuple[str | None, ...]) -> tuple[Any, ...]:
    """A row of an answer file as an engine returns it: ints, Decimals, floats, text."""
    out: list[Any] = []
    for kind, value in zip(column_classes(query), row, strict=True):
        if value is None or kind == "str":
            out.append(value)
        elif kind in ("int", "cnt") and value.lstrip("-").isdigit():
            out.append(int(value))
        elif kind in ("avg", "rat"):
            out.append(float(value))
        else:
            out.append(Decimal(value))
    return tuple(out)


def test_the_digest_is_its_definition_on_every_shape() -> None:
    # the column-wise digest must be sha256(json(canonical_rows)) whatever the values:
    # the shipped answer sets as text and typed, NULLs, ties, characters JSON escapes,
    # trailing blanks of any kind, a wrong shape, no rows
    cases: list[tuple[int, list[tuple[Any, ...]]]] = []
    for sf in shipped_scale_factors():
        for query in range(1, 23):
            rows = load_answers(query, sf)[1]
            cases += [(query, rows), (query, [_typed(query, r) for r in rows])]
    odd = [
        ("Brand#41 ", 'A "B" \\ \t', 3, 28),
        ("Brand#54\u3000", "é\x01", 14, 27),
        ("Brand#54\u3000", "é\x01", 14, 27),
        (None, "C\n", None, 2),
        ("", " x", 1.5, 2),
    ]
    cases += [(16, odd), (16, odd[::-1]), (16, odd[:1]), (16, []), (16, [("a", "b", 1)])]
    tied = [
        (7, Decimal("100.00"), "1995-03-10", 0),
        (3, 100.0, "1995-03-10", 0),
        (5, None, None, 0),
    ]
    cases += [(3, tied), (3, tied[::-1]), (6, [(None,)]), (1, [("A",) * 11])]
    for query, rows in cases:
        assert answer_digest(query, rows) == _reference_digest(query, rows), (query, rows[:3])
    # and the digests themselves stay what they were (results keep them)
    q16 = [
        ("Brand#41 ", "MEDIUM BRUSHED TIN", 3, 28),
        ("Brand#54", "STANDARD BRUSHED COPPER", 14, 27),
        ("Brand#54", "STANDARD BRUSHED COPPER", 14, 27),
        (None, 'é"\\\t', 1, 2),
    ]
    assert answer_digest(16, q16) == (
        "a4375d6d6567e80c696088f3fbcfdffc726db878ec22014953d873d1c499b5ba"
    )
    q18 = [
        (
            "Customer#000128120",
            128120,
            4722021,
            date(1994, 4, 7),
            Decimal("544089.09"),
            Decimal("323.00"),
        ),
        ("x", 1, 2, "1994-04-07", 544089.0900001, 323),
    ]
    assert answer_digest(18, q18) == (
        "487f1a8d4e3c3c56ba4041c39c5e1869ad5b836ba7bc45dfcc6f5cc470f940fb"
    )


def _edit_first_value(run_dir: Path, run: int, stream: int, query: int, column: int) -> None:
    path = run_dir / ANSWERS_FILE
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    for n, line in enumerate(lines):
        entry = json.loads(line)
        if (entry["run"], entry["stream"], entry["query"]) == (run, stream, query):
            value = entry["rows"][0][column]
            entry["rows"][0][column] = str(Decimal(str(value)) + 1000)
            lines[n] = json.dumps(entry)
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))


def _summary(out: str) -> tuple[int, int, int, int]:
    line = next(x for x in out.splitlines() if "answers:" in x)
    words = line.split("answers: ", 1)[1].split()
    checked, total = int(words[0]), int(words[2])
    disagree = 0 if "all agree" in line else int(line.split(", ")[1].split()[0])
    not_checked = int(line.rsplit(", ", 1)[1].split()[0])
    return checked, total, disagree, not_checked


def test_a_duckdb_run_verified_on_sqlite_then_an_edited_value_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    args = ["run", "-s", "0.01", "-o", str(run_dir), "--telemetry-interval", "0", "--plans", "off"]
    assert main(args) == 0
    result = load_result(run_dir)
    assert result.answers is not None and result.answers.kept
    assert result.answers.bytes == (run_dir / ANSWERS_FILE).stat().st_size > 0
    power = [r for r in result.answers.records if r.stream == 0]
    assert len(result.answers.records) == 2 * 3 * 22 and len(power) == 44
    capsys.readouterr()
    reference = f"sqlite:///{tmp_path / 'reference.sqlite'}"
    assert main(["verify", str(run_dir), "--answers", "--against", reference]) == 0
    captured = capsys.readouterr()
    checked, total, disagree, not_checked = _summary(captured.out)
    assert total == 132 and disagree == 0 and checked + not_checked == total
    assert checked >= 44  # every power-test query, and the throughput ones outside every RF
    for line in captured.err.splitlines()[1:]:
        assert ": overlapped RF" in line and "stream 0 " not in line, line
    check = load_result(run_dir).answers.check  # type: ignore[union-attr]
    assert check is not None and check.checked == checked and check.disagree == 0

    _edit_first_value(run_dir, run=1, stream=0, query=1, column=3)  # sum_base_price
    assert main(["verify", str(run_dir), "--answers", "--against", reference]) == 1
    captured = capsys.readouterr()
    wrong = [x for x in captured.err.splitlines() if "Q1:" in x and "overlapped" not in x]
    assert len(wrong) == 1, captured.err
    assert "run 1 stream 0 Q1: row 1: column sum_base_price" in wrong[0]
    assert _summary(captured.out)[2] == 1
    assert load_result(run_dir).answers.check.disagree == 1  # type: ignore[union-attr]


def test_no_answers_says_so_and_verify_refuses_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    args = ["run", "-s", "0.01", "-S", "1", "--runs", "1", "-o", str(run_dir), "--no-answers"]
    assert main([*args, "--telemetry-interval", "0", "--plans", "off"]) == 0
    result = load_result(run_dir)
    assert result.answers is not None and not result.answers.kept
    assert not result.answers.records and not (run_dir / ANSWERS_FILE).exists()
    assert result.config["answers"] is False
    capsys.readouterr()
    assert main(["verify", str(run_dir), "--answers"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "kept none (--no-answers)" in err[0]


def test_a_postgresql_run_verified_on_embedded_duckdb(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(
            fresh_postgres(request.getfixturevalue("pg_base_url"), "dbbench_answers")
        )
        run_dir = tmp_path / "run"
        args = ["run", "-e", url, "-s", "0.01", "--runs", "1", "-o", str(run_dir)]
        assert main([*args, "--telemetry-interval", "0", "--plans", "off"]) == 0
    capsys.readouterr()
    assert main(["verify", str(run_dir), "--answers"]) == 0
    checked, total, disagree, not_checked = _summary(capsys.readouterr().out)
    assert total == 66 and disagree == 0 and checked >= 22 and checked + not_checked == 66
    _edit_first_value(run_dir, run=1, stream=0, query=6, column=0)  # revenue
    assert main(["verify", str(run_dir), "--answers"]) == 1
    err = capsys.readouterr().err
    assert "run 1 stream 0 Q6: row 1: column revenue" in err


def test_ctrl_c_mid_run_keeps_every_output_measured_so_far(tmp_path: Path) -> None:
    """A real Ctrl-C (SIGINT to the process group) during the throughput test: the partial
    result still keeps the output of every query that completed, digested as a whole run's."""
    out = tmp_path / "run"
    args = ["run", "-s", "0.05", "--runs", "1", "-o", str(out), "--plans", "off"]
    env = {**os.environ, "DBBENCH_PROGRESS_INTERVAL": "3600"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "dbbench", *args, "--telemetry-interval", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True,
    )  # fmt: skip
    journal = out / JOURNAL_FILE
    try:
        deadline = time.monotonic() + 300
        while not (
            journal.exists()
            and sum(
                e["event"] == "query_end" and e.get("phase") == "throughput"
                for e in read_journal(journal)
            )
            >= 3
        ):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == ExitCode.INTERRUPTED, err
    result = load_result(out)
    assert result.status == "partial" and result.answers is not None and result.answers.kept
    done = sorted(
        (i.stream, i.query) for r in result.runs for i in r.intervals
        if i.kind == "query" and i.status == "ok"
    )  # fmt: skip
    kept = {(o.stream, o.query): o for o in read_outputs(out / ANSWERS_FILE)}
    assert sorted((r.stream, r.query) for r in result.answers.records) == done == sorted(kept)
    assert any(stream > 0 for stream, _ in done) and len(done) < 66
    for record in result.answers.records:
        rows = [tuple(row) for row in kept[record.stream, record.query].rows]
        assert record.rows == len(rows) and record.sha256 == answer_digest(record.query, rows)
