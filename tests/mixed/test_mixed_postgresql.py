"""``dbbench mixed`` on a PostgreSQL server of the file's own (a private server on a free
loopback port, never the shared one), one database for every test: a 2x2 frontier; a run
killed by SIGKILL whose report rebuilds the killed point from its two journals, after which
``o2c check`` passes and ``o2c cleanup`` restores the tables; the server killed mid-run,
which stops both sides with one line (and, restarted, the database is consistent); a run
with the refresh functions on, RF1/RF2 recorded."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from mixed_helpers import FAST, GRID, check_and_cleanup, check_frontier, load_and_prepare

from dbbench.cli import main
from dbbench.drivers.mixed.point import LOSS_PREFIXES, loss
from dbbench.errors import ExitCode
from dbbench.reports.families import read_result
from dbbench.reports.mixed.metrics import summarize_mixed
from dbbench.reports.mixed.model import MixedResult
from dbbench.reports.model import JOURNAL_FILE, RESULT_FILE

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from _private_servers import PrivateServer, private_postgres

pytestmark = pytest.mark.postgresql


@pytest.fixture(scope="module")
def server() -> Iterator[PrivateServer]:
    try:
        with private_postgres() as pg:
            yield pg
    except (FileNotFoundError, IndexError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"no PostgreSQL server binaries to start a private one: {exc}")


@pytest.fixture(scope="module")
def pg(server: PrivateServer) -> tuple[str, dict[str, str]]:
    """(URL, digest of the o2c-written tables before prepare) of the server's database."""
    return server.url, load_and_prepare(server.url, 4)


@pytest.fixture(scope="module")
def frontier(
    pg: tuple[str, dict[str, str]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, int]:
    """A 2x2 frontier (its baselines serve the later runs): (run directory, exit)."""
    out = tmp_path_factory.mktemp("mixed_pg") / "frontier"
    return out, main(["mixed", "frontier", "-e", pg[0], *GRID, *FAST, "-o", str(out)])


def _read(path: Path) -> tuple[MixedResult, str | None]:
    _family, result, note = read_result(path)
    assert isinstance(result, MixedResult)
    return result, note


def _measuring(out: Path, lines: int = 20) -> bool:
    """The first point of ``out`` journals o2c steps and has finished a query."""
    steps, journal = out / "o2c-steps-1.csv", out / JOURNAL_FILE
    return (
        steps.is_file()
        and steps.read_text().count("\n") >= lines
        and journal.is_file()
        and '"query_end"' in journal.read_text()
    )


def _accepting(url: str) -> None:
    deadline = time.monotonic() + 90
    while True:
        try:
            psycopg.connect(url, connect_timeout=5).close()
            return
        except psycopg.OperationalError:
            assert time.monotonic() < deadline, "the restarted server accepts no connection"
            time.sleep(0.3)


def test_frontier(
    pg: tuple[str, dict[str, str]],
    frontier: tuple[Path, int],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, code = frontier
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    check_frontier(out, code, capsys.readouterr().out, tmp_path)
    assert main(["o2c", "check", "-e", pg[0]]) == 0


def test_sigkill_keeps_both_journals_then_check_and_cleanup(
    pg: tuple[str, dict[str, str]], frontier: tuple[Path, int], tmp_path: Path
) -> None:
    """Killed during its mixed point (the baselines from the frontier): the result names
    the point, its o2c steps and query intervals are read back from its journals; the
    server rolled the killed users' open transactions back: check passes, cleanup (after
    the frontier and the killed run) restores the tables."""
    url = pg[0]
    out = tmp_path / "killed"
    cmd = [
        sys.executable, "-m", "dbbench.cli", "mixed", "run", "-e", url, "-u", "2", "-S", "2",
        "--think", "0.02", "--rampup", "0.1", "--steady", "60", "--progress", "1",
        "--seed", "5", "--baseline", str(frontier[0] / RESULT_FILE), "-o", str(out),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 90
    try:
        while not _measuring(out):
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        if proc.stderr is not None:
            proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    assert (out / "o2c-steps-1.csv").is_file() and (out / JOURNAL_FILE).is_file()
    result, note = _read(out)
    assert [(p.role, p.source) for p in result.points] == [
        ("o2c-only", RESULT_FILE), ("streams-only", RESULT_FILE), ("mixed", None),
    ]  # fmt: skip
    point = result.points[-1]
    assert point.status == "partial" and any("killed?" in e for e in point.errors)
    assert point.o2c is not None and point.o2c.steps.step  # from o2c-steps-1.csv
    assert point.tpch is not None and point.tpch.intervals  # from the journal
    assert note is not None and "recovered" in note
    assert not summarize_mixed(result).valid  # a killed point never passes
    assert main(["report", str(out), "--format", "md", "-o", str(tmp_path / "r.md")]) == 0
    check_and_cleanup(*pg)


def test_server_gone_stops_both_sides_with_one_line(
    server: PrivateServer,
    pg: tuple[str, dict[str, str]],
    frontier: tuple[Path, int],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The server is killed (kill -9) during the mixed point: the users and the streams
    stop at once, the point is failed with the loss in one line, what was measured is
    kept; restarted, the server's database passes ``o2c check``."""
    url = pg[0]
    assert main(["o2c", "prepare", "-e", url, "--users", "4"]) == 0
    out = tmp_path / "gone"

    def kill_when_measuring() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _measuring(out):
            time.sleep(0.1)
        server.kill()

    killer = threading.Thread(target=kill_when_measuring)
    killer.start()
    started = time.monotonic()
    try:
        code = main(["mixed", "run", "-e", url, "-u", "2", "-S", "1", "--think", "0.02",
                     "--rampup", "0.1", "--steady", "60", "--progress", "60", "--seed", "5",
                     "--baseline", str(frontier[0] / RESULT_FILE), "-o", str(out)])  # fmt: skip
    finally:
        killer.join()
    assert code == ExitCode.INVALID_RUN
    assert time.monotonic() - started < 50  # it stopped; it did not sit out the window
    result, _note = _read(out)
    point = result.points[-1]
    assert point.role == "mixed" and point.status == "failed"
    (lost,) = [e for e in point.errors if e.startswith(LOSS_PREFIXES)]  # one line
    assert "\n" not in lost and lost == loss(point)
    assert any(lost in line and "failed" in line for line in capsys.readouterr().err.splitlines())
    assert point.o2c is not None and sum(point.o2c.steps.ok) > 0  # kept
    assert point.tpch is not None and point.tpch.intervals  # kept
    server.start()
    _accepting(url)  # after its crash recovery
    assert main(["o2c", "check", "-e", url]) == 0


def test_refresh_functions_on(
    pg: tuple[str, dict[str, str]],
    frontier: tuple[Path, int],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--refresh: one refresh stream of S RF1/RF2 pairs beside the streams, recorded in
    the run, and the frontier's streams-only point (no refresh) is not reused for it."""
    url = pg[0]
    out = tmp_path / "refresh"
    baseline = str(frontier[0] / RESULT_FILE)
    args = ["-u", "1", "-S", "1", "--refresh", *FAST, "--steady", "2", "--seed", "5"]
    code = main(["mixed", "run", "-e", url, *args, "--baseline", baseline, "-o", str(out)])
    result, _note = _read(out)
    summary = summarize_mixed(result)
    assert code in (ExitCode.OK, ExitCode.INVALID_RUN) and summary.valid, summary.points
    assert result.config["refresh"] is True
    assert [(p.role, p.source, p.refresh) for p in result.points] == [
        ("o2c-only", RESULT_FILE, False), ("streams-only", None, True), ("mixed", None, True),
    ]  # fmt: skip
    done: list[str] = []
    for p in result.points[1:]:
        assert p.tpch is not None
        refresh = [(i.kind, i.status) for i in p.tpch.intervals if i.kind != "query"]
        # RF1 first, then its RF2 unless the window's end stopped the pair between them
        assert refresh[:1] == [("rf1", "ok")] and len(refresh) <= 2, refresh
        assert all(s == "ok" for _, s in refresh), refresh
        done += [k for k, _ in refresh]
    assert done.count("rf2") >= 1  # a whole pair ran beside the streams
    assert "refresh functions" in capsys.readouterr().out
    assert main(["o2c", "cleanup", "-e", url, "--force"]) == 0


def test_two_driver_processes_drive_the_users_beside_the_streams(
    pg: tuple[str, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--driver-processes 2``: the users of both o2c points are driven by two driver
    processes (each user's steps there, merged), the streams and the freshness probe in the
    command's process see the invoices of both. It prepares the database itself: the tests
    before it may have cleaned it up (``test_refresh_functions_on`` ends with a cleanup)."""
    assert main(["o2c", "prepare", "-e", pg[0], "--users", "4"]) == 0
    out = tmp_path / "two"
    code = main(["mixed", "run", "-e", pg[0], "-u", "4", "-S", "1", *FAST, "--steady", "2",
                 "--freshness", "0.1", "--seed", "5", "-w", "2", "--driver-processes", "2",
                 "-o", str(out)])  # fmt: skip
    result, _note = _read(out)
    summary = summarize_mixed(result)
    assert code in (ExitCode.OK, ExitCode.INVALID_RUN) and summary.valid, summary.points
    o2c = [p for p in result.points if p.users]
    assert [p.role for p in o2c] == ["o2c-only", "mixed"]
    for p in o2c:
        assert p.o2c is not None and p.o2c.driver_processes == 2 and p.status == "complete"
        assert len(p.o2c.driver_cpu_by_process) == 2 and set(p.o2c.steps.user) == set(range(4))
    mixed = o2c[-1]
    assert mixed.freshness is not None and mixed.freshness.acked, mixed.freshness
    seen = [s for s in mixed.freshness.seen if s is not None]
    assert len(seen) >= len(mixed.freshness.acked) - 4  # at most the last ones unseen
    pairs = zip(mixed.freshness.acked, mixed.freshness.seen, strict=True)
    lags = [s - a for a, s in pairs if s is not None]
    assert min(lags) >= 0 and max(lags) < 5.0  # acknowledgements on the probe's clock
    assert mixed.tpch is not None and mixed.tpch.intervals
