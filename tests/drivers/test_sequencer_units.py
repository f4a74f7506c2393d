"""The sequencer's building blocks, each on its own: run rules, journal, watchdog, run
directory, progress and the captured system information."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from dbbench.drivers.errors import DriversError, QueryCancelledError
from dbbench.drivers.journal import Journal, read_journal
from dbbench.drivers.registry import open_engine
from dbbench.drivers.rundir import MARKER_FILE
from dbbench.drivers.sequencer import (
    RunOptions,
    RunProgress,
    prepare_run_dir,
)
from dbbench.drivers.sequencer.clock import Clock
from dbbench.drivers.sequencer.config import check_options
from dbbench.drivers.sequencer.watchdog import Watchdog
from dbbench.drivers.sysinfo import _cpu, _memory_bytes, engine_info, storage_devices, system_info
from dbbench.reports.tpch.model import default_streams

SLOW_DUCKDB = "SELECT count(*) FROM range(100000000000) t(x) WHERE x % 7 = 3"


@pytest.mark.parametrize(
    ("sf", "streams"),
    [
        *[(0.01, 2), (0.5, 2), (1, 2), (3, 2), (10, 3), (30, 4), (100, 5), (250, 5)],
        *[(1000, 7), (3000, 8), (10000, 9), (30000, 10), (100000, 11), (1e6, 11)],
    ],
)
def test_default_streams_follow_table_11(sf: float, streams: int) -> None:
    """The S a run uses unless told (the table itself is stated once, in reports.model)."""
    assert default_streams(sf) == streams


@pytest.mark.parametrize(
    "options",
    [
        RunOptions(sf=0, streams=2),
        RunOptions(sf=-1, streams=2),
        RunOptions(sf=float("nan"), streams=2),
        RunOptions(sf=1, streams=0),
        RunOptions(sf=1, streams=2, runs=0),
        RunOptions(sf=1, streams=2, query_timeout=0),
    ],
)
def test_impossible_options_are_one_line_errors(options: RunOptions) -> None:
    with pytest.raises(DriversError) as info:
        check_options(options)
    assert "\n" not in str(info.value)


def test_journal_lines_are_on_disk_as_soon_as_written(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    journal.event("query_end", stream=1, seconds=0.25)
    # read by another handle while still open: the line must already be there
    assert read_journal(path) == [json.loads(path.read_text())]
    assert read_journal(path)[0]["seconds"] == 0.25
    journal.close()
    with pytest.raises(ValueError, match="closed"):
        journal.event("late")


def test_journal_is_append_only_and_thread_safe(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    with Journal(path) as first:
        first.event("one")

    def write(n: int) -> None:
        for i in range(300):
            journal.event("tick", writer=n, i=i, text="x" * 200)

    with Journal(path) as journal:
        threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    events = read_journal(path)
    assert events[0]["event"] == "one"  # reopening appended, never truncated
    assert len(events) == 1 + 4 * 300
    for n in range(4):
        assert [e["i"] for e in events if e.get("writer") == n] == list(range(300))


def test_a_torn_last_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    path.write_text('{"event":"a","time":1}\n{"event":"b","ti')
    assert [e["event"] for e in read_journal(path)] == ["a"]


def test_watchdog_cancels_a_slow_query_and_the_session_goes_on() -> None:
    engine = open_engine("duckdb")
    session = engine.session()
    watchdog = Watchdog(session, 0.3, can_cancel=True)
    try:
        watchdog.arm()
        start = time.perf_counter()
        with pytest.raises(QueryCancelledError):
            session.query(SLOW_DUCKDB)
        assert watchdog.disarm() is True
        assert time.perf_counter() - start < 10
        watchdog.arm()
        assert session.query("SELECT 42").rows == [(42,)]
        assert watchdog.disarm() is False
    finally:
        watchdog.close()
        session.close()
        engine.close()


def test_watchdog_without_cancel_only_reports_the_overrun() -> None:
    engine = open_engine("duckdb")
    session = engine.session()
    watchdog = Watchdog(session, 0.05, can_cancel=False)
    try:
        watchdog.arm()
        session.query("SELECT count(*) FROM range(1000)")
        time.sleep(0.2)
        assert watchdog.disarm() is True
        watchdog.arm()
        assert watchdog.disarm() is False
    finally:
        watchdog.close()
        session.close()
        engine.close()


def test_run_directory_is_never_overwritten_by_accident(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert prepare_run_dir(run, force=False) is True
    (run / "result.json").write_text("{}")
    with pytest.raises(DriversError, match="already exists; use --force"):
        prepare_run_dir(run, force=False)
    prepare_run_dir(run, force=True)
    assert [p.name for p in run.iterdir()] == [MARKER_FILE]
    other = tmp_path / "photos"
    other.mkdir()
    (other / "holiday.jpg").write_text("precious")
    with pytest.raises(DriversError, match="was not made by dbbench"):
        prepare_run_dir(other, force=True)
    assert (other / "holiday.jpg").read_text() == "precious"


def test_progress_counts_and_estimates() -> None:
    progress = RunProgress()
    progress.start_phase("run 1 throughput", [1, 2], 44, 2)
    assert progress.snapshot().eta is None
    for _ in range(11):
        progress.query_done(1, ok=True)
    progress.query_done(2, ok=False)
    progress.refresh_pair_done(ok=True)
    snap = progress.snapshot()
    assert snap.positions == {1: 11, 2: 1}
    assert (snap.queries_done, snap.refresh_done, snap.failures) == (12, 1, 1)
    assert snap.eta is not None and snap.eta >= 0


def test_clock_wall_times_follow_the_monotonic_clock() -> None:
    clock = Clock()
    a = clock.mono()
    time.sleep(0.05)
    b = clock.mono()
    assert clock.wall(b) - clock.wall(a) == pytest.approx(b - a, abs=1e-6)
    assert abs(clock.now() - time.time()) < 1


CPUINFO = "".join(
    f"processor\t: {n}\nmodel name\t: Test CPU 9000\nphysical id\t: {n // 4}\n"
    f"core id\t\t: {n % 4 // 2}\n\n"
    for n in range(8)
)


def test_cpu_topology_from_proc_cpuinfo() -> None:
    assert _cpu(CPUINFO) == ("Test CPU 9000", 2, 4, 8)
    assert _memory_bytes("MemTotal:       16384 kB\nMemFree: 1 kB\n") == 16384 * 1024
    assert _memory_bytes("garbage") is None


def test_storage_devices_skip_virtual_ones(tmp_path: Path) -> None:
    for name, rotational in (("sda", "1"), ("nvme0n1", "0"), ("loop0", "0")):
        (tmp_path / name / "queue").mkdir(parents=True)
        (tmp_path / name / "size").write_text("2048\n")
        (tmp_path / name / "queue" / "rotational").write_text(rotational)
    (tmp_path / "nvme0n1" / "device").mkdir()
    (tmp_path / "nvme0n1" / "device" / "model").write_text("Fast Disk  \n")
    devices = storage_devices(tmp_path)
    assert [d["name"] for d in devices] == ["nvme0n1", "sda"]
    assert devices[0] == {"name": "nvme0n1", "bytes": 2048 * 512, "rotational": False,
                          "model": "Fast Disk"}  # fmt: skip
    assert devices[1]["rotational"] is True
    assert storage_devices(tmp_path / "missing") == []


def test_system_and_engine_info_never_show_a_password() -> None:
    info = system_info()
    assert info.python.startswith("CPython 3.") and info.threads and info.os
    engine = open_engine("duckdb")
    try:
        described = engine_info(engine, "postgresql://bench:s3cret@db.example:5432/tpch")
    finally:
        engine.close()
    assert "s3cret" not in described.url and "***" in described.url
    assert described.name == "duckdb" and described.version


def test_the_sequencer_records_facts_and_leaves_the_verdict_to_its_judge(tmp_path: Path) -> None:
    """No judge: "not evaluated"; a judge: its verdict; a judge that breaks: the facts are
    written anyway (and the reports judge them again)."""
    from dbbench.drivers.sequencer import Benchmark
    from dbbench.drivers.sequencer.benchmark import Judge
    from dbbench.reports.model import RESULT_FILE
    from dbbench.reports.tpch.model import BenchmarkResult, Compliance, Reason

    def judged(judge: Judge | None, name: str) -> BenchmarkResult:
        engine = open_engine("duckdb")
        options = RunOptions(sf=0.01, streams=2)
        try:
            bench = Benchmark(engine, "duckdb", options, tmp_path / name, judge=judge)
            bench.execute(lambda b: None)
        finally:
            engine.close()
        return BenchmarkResult.read(tmp_path / name / RESULT_FILE)

    assert judged(None, "none").compliance.codes == ["not-evaluated"]
    verdict = Compliance(False, [Reason("sf-not-official", {"sf": 0.01})])
    assert judged(lambda r: verdict, "judge").compliance == verdict

    def broken(result: BenchmarkResult) -> Compliance:
        raise ZeroDivisionError("a bug in the judge")

    kept = judged(broken, "broken")
    assert kept.status == "complete" and kept.compliance.codes == ["not-evaluated"]
    events = read_journal(tmp_path / "broken" / "journal.jsonl")
    assert any(e["event"] == "judge_failed" and "ZeroDivisionError" in e["error"] for e in events)
