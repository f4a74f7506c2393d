"""How a benchmark fails: each failure provoked for real, on a real engine.

A query past ``--query-timeout`` (held up by a lock on PostgreSQL), a backend terminated with
``pg_terminate_backend``, Ctrl-C (SIGINT to a subprocess), a journal that can no longer grow
(a file-size limit, the portable stand-in for a full disk), an existing run directory, a
bad scale factor or URL. Checked each time: the exit code, one clear line, the journal
keeping everything measured, and a (partial) result file.
"""

from __future__ import annotations

import gzip
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from private_databases import fresh_postgres

from dbbench.cli import main
from dbbench.drivers.journal import read_journal
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sequencer import JOURNAL_FILE, RESULT_FILE
from dbbench.errors import ExitCode
from dbbench.reports.tpch.model import BenchmarkResult

SF = "0.01"


@pytest.fixture(scope="module")
def loaded_pg(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A PostgreSQL database loaded once at SF 0.01 for the tests of this module."""
    with fresh_postgres(request.getfixturevalue("pg_base_url"), "dbbench_fail") as url:
        out = tmp_path_factory.mktemp("load") / "run"
        assert main(["load", "-e", url, "-s", SF, "-o", str(out)]) == 0
        yield url


def spawn(*args: str, limit_file_bytes: int | None = None) -> subprocess.Popen[str]:
    """``dbbench`` in a process of its own (signals and resource limits stay there)."""

    def limits() -> None:
        if limit_file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_file_bytes, limit_file_bytes))

    env = {**os.environ, "DBBENCH_PROGRESS_INTERVAL": "3600"}
    return subprocess.Popen(
        [sys.executable, "-m", "dbbench", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=limits,
    )


def wait_for_event(journal: Path, predicate: str, proc: subprocess.Popen[str]) -> None:
    """Poll the journal until an event matching ``predicate`` (``event[:phase]``) appears."""
    event, _, phase = predicate.partition(":")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"dbbench ended before {predicate}: {proc.communicate()}")
        if journal.exists():
            for e in read_journal(journal):
                if e["event"] == event and (not phase or e.get("phase") == phase):
                    return
        time.sleep(0.005)
    raise AssertionError(f"no {predicate} event in {journal}")


@pytest.mark.postgresql
def test_query_timeout_is_recorded_and_the_run_goes_on(loaded_pg: str, tmp_path: Path) -> None:
    """Q2, Q5 and Q8 read REGION, which another session holds locked: they wait, time out,
    are cancelled, and every other query and refresh function still runs. The URL carries a
    password (trust auth ignores it), which must appear nowhere."""
    out = tmp_path / "run"
    with_password = loaded_pg.replace("postgres@", "postgres:S3cret-pw@")
    args = ["run", "-e", with_password, "-s", SF, "-o", str(out), "--runs", "1"]
    proc = spawn(*args, "--streams", "2", "--query-timeout", "1")
    locker = psycopg.connect(loaded_pg)
    try:
        wait_for_event(out / JOURNAL_FILE, "phase_start:power", proc)
        locker.execute("LOCK TABLE region IN ACCESS EXCLUSIVE MODE")
        locked_at = time.time()
        _, err = proc.communicate(timeout=300)
    finally:
        locker.rollback()
        locker.close()
        if proc.poll() is None:  # a hung run must not hold the database for the rerun
            proc.kill()
            proc.wait()
    assert proc.returncode == ExitCode.INVALID_RUN, err
    assert "the run is invalid" in err and "timeout" in err
    result = BenchmarkResult.read(out / RESULT_FILE)
    (run,) = result.runs
    q8 = next(i for i in run.intervals if i.stream == 0 and i.query == 8)
    assert q8.start > locked_at, "the lock came too late to hold up the power test's Q8"
    timed_out = {(i.stream, i.query) for i in run.intervals if i.status == "timeout"}
    assert {(0, 5), (0, 8), (1, 2), (1, 5), (1, 8), (2, 2), (2, 5), (2, 8)} <= timed_out
    assert timed_out <= {(s, q) for s in (0, 1, 2) for q in (2, 5, 8)}
    for i in run.intervals:
        if i.status == "timeout":
            assert 0.9 < i.seconds < 20 and "--query-timeout 1" in (i.error or "")
        else:
            assert i.status == "ok", i
    assert len([i for i in run.intervals if i.kind == "query"]) == 22 * 3  # nothing skipped
    assert len([i for i in run.intervals if i.kind != "query"]) == 6
    assert result.status == "complete" and not result.compliance.compliant
    assert any("Q8 timeout" in e for e in result.errors)
    assert "S3cret-pw" not in err
    for path in out.iterdir():  # the plans too (gzip-compressed text)
        data = path.read_bytes()
        text = gzip.decompress(data) if path.suffix == ".gz" else data
        assert b"S3cret-pw" not in text, path.name


@pytest.mark.postgresql
def test_terminated_backend_stops_the_run_cleanly(loaded_pg: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    first_set = next_update_set(loaded_pg)
    proc = spawn("run", "-e", loaded_pg, "-s", SF, "-o", str(out), "--streams", "2")
    db = loaded_pg.rsplit("/", 1)[1]
    wait_for_event(out / JOURNAL_FILE, "phase_start:throughput", proc)
    with psycopg.connect(loaded_pg, autocommit=True) as admin:
        while proc.poll() is None:  # every backend of the run's database, until it gives up
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                (db,),
            )
            time.sleep(0.05)
    _, err = proc.communicate()
    assert proc.returncode == ExitCode.INVALID_RUN, err
    assert "connection" in err and "Traceback" not in err
    assert f"partial result: {out / RESULT_FILE}" in err
    result = BenchmarkResult.read(out / RESULT_FILE)
    assert result.status == "partial"
    assert any("stopped early" in e for e in result.errors)
    measured = [i for r in result.runs for i in r.intervals]
    journaled = [e for e in read_journal(out / JOURNAL_FILE) if e["event"].endswith("_end")]
    first = result.runs[0].intervals
    assert len([i for i in first if i.phase == "power"]) == 24  # run 1's power test completed
    assert len(journaled) >= len(measured) > 24  # the journal kept everything measured
    used = [n for r in result.runs for n in r.update_sets]
    assert used == list(range(first_set, first_set + len(used)))
    # the counter is advanced before a pair runs, so it may be ahead, never behind
    assert next_update_set(loaded_pg) >= first_set + len(used)


def next_update_set(url: str) -> int:
    engine = open_engine(url)
    try:
        return int(engine.read_state()["next_update_set"])
    finally:
        engine.close()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_ctrl_c_keeps_what_was_measured(signum: int, tmp_path: Path) -> None:
    """SIGINT (or kill) mid-throughput on SQLite without its secondary indexes, whose queries
    are then slow enough to be caught (with them the throughput test can end first)."""
    out = tmp_path / "run"
    url = f"sqlite:///{tmp_path / 'bench.sqlite'}?indexes=false"
    proc = spawn("run", "-e", url, "-s", SF, "-o", str(out), "--streams", "2")
    wait_for_event(out / JOURNAL_FILE, "phase_start:throughput", proc)
    time.sleep(0.3)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == ExitCode.INTERRUPTED, err
    assert "interrupted" in err and "Traceback" not in err
    result = BenchmarkResult.read(out / RESULT_FILE)
    assert result.status == "partial"
    assert any("interrupted (Ctrl-C)" in e for e in result.errors)
    events = read_journal(out / JOURNAL_FILE)
    assert any(e["event"] == "interrupted" for e in events)
    assert events[-1]["event"] == "benchmark_end"
    (run,) = result.runs
    ended = [e for e in events if e["event"] == "query_end"]
    assert len(ended) == len([i for i in run.intervals if i.kind == "query"]) >= 22
    assert len([i for i in run.intervals if i.phase == "throughput" and i.status == "ok"]) < 44
    # the counter was advanced before each pair ran: no set can be applied twice later
    assert next_update_set(url) == max(run.update_sets) + 1


@pytest.mark.postgresql
def test_a_journal_that_cannot_grow_stops_the_run(loaded_pg: str, tmp_path: Path) -> None:
    """RLIMIT_FSIZE makes the journal's writes fail as a full disk would (EFBIG for ENOSPC);
    the database lives on the server, so only the run directory is limited."""
    out = tmp_path / "run"
    proc = spawn("run", "-e", loaded_pg, "-s", SF, "-o", str(out), limit_file_bytes=20_000)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == ExitCode.USER_ERROR, err
    assert err.startswith("dbbench: error: File too large"), err
    assert "Traceback" not in err
    # the line names the file and the phase (issue: reliability, item 4)
    first = err.splitlines()[0]
    assert f"({out}" in first and "(during run " in first, err
    assert f"`dbbench report {out}` rebuilds the result" in err
    events = read_journal(out / JOURNAL_FILE)  # every complete line still parses
    assert any(e["event"] == "query_end" for e in events)
    assert main(["report", str(out)]) == 0


def test_existing_run_directory_needs_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / RESULT_FILE).write_text("keep me")
    code = main(["run", "-s", SF, "-o", str(out)])
    err = capsys.readouterr().err
    assert code == ExitCode.USER_ERROR
    assert err == f"dbbench: error: run directory {out} already exists; use --force to replace it\n"
    assert (out / RESULT_FILE).read_text() == "keep me"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-s", "abc"], "scale factor must be a number, got 'abc'"),
        (["-s", "0"], "scale factor must be a positive finite number, got '0'"),
        (["-s", "-1"], "scale factor must be a positive finite number, got '-1'"),
        (["-s", "inf"], "scale factor must be a finite number, got 'inf'"),
        (["-s", "0.01", "--streams", "0"], "--streams must be at least 1"),
        (["-s", "0.01", "--query-timeout", "-2"], "--query-timeout must be positive"),
        (["-e", "not a url"], "not an engine URL"),
        (["-e", "postgresql://bench:hunter2@127.0.0.1:1/nodb"], "127.0.0.1"),
    ],
)
def test_bad_input_is_one_line_and_leaves_nothing(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code = main(["run", "-o", str(out), *args])
    err = capsys.readouterr().err
    assert code == ExitCode.USER_ERROR, err
    assert err.startswith("dbbench: error: ") and err.count("\n") == 1, err
    assert message in err
    assert "hunter2" not in err
    assert not out.exists()


def test_sigterm_handler_is_restored_after_a_command(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGTERM)
    threads = threading.active_count()
    assert main(["load", "-s", SF, "-o", str(tmp_path / "run")]) == 0
    assert signal.getsignal(signal.SIGTERM) == before
    assert threading.active_count() == threads  # no watchdog or progress thread left behind
