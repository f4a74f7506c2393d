"""o2c with several driver processes: the merge of their probes is exact (known synthetic
steps), embedded engines refuse, and a real PostgreSQL run with two driver processes gives
the step mix and closed-loop law of one process; a killed driver process is named and its
steps are kept from its journal."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import psutil
import pytest
from o2c_helpers import prepare_users

from dbbench.cli import main
from dbbench.drivers.errors import DriversError
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.config import RunConfig
from dbbench.drivers.o2c.processes import (
    AUTO_BUSY,
    DRIVER_CPU_PER_STEP,
    Beside,
    Part,
    auto_processes,
    merge,
    require_shareable,
    run_processes,
    shares,
)
from dbbench.drivers.registry import open_engine
from dbbench.reports.o2c.metrics import closed_loop_steps_per_hour, summarize
from dbbench.reports.o2c.model import O2CProbe, O2CResult, O2CSteps

LOOP = 15


def _probe(users: range, think: float = 1.0, start: float = 1000.0) -> O2CProbe:
    """Users in a closed loop with response times that differ per user and step (so that
    percentiles of parts differ from the whole's); due times on the clock of ``start``."""
    steps = O2CSteps()
    for user in users:
        t = -user * 0.37
        k = 0
        while t < 60.0:
            rt = 0.01 * (1 + (user * 7 + k * 3) % 23) * (4 if user % 2 else 1)
            steps.step.append(0 if k == 0 else (k - 1) % LOOP + 1)
            steps.user.append(user)
            steps.due.append(round(t, 6))
            steps.wait.append(round(rt / 4, 6))
            steps.db.append(round(rt - rt / 4, 6))
            steps.ok.append(0 if (user, k) == (3, 40) else 1)
            t += rt + think
            k += 1
    return O2CProbe(
        users=20, think=think, think_dist="fixed", work_processes=4, rampup=1.0, start=start,
        window_start=5.0, window_end=55.0, end=60.0, status="complete", logged_on=len(users),
        steps=steps, driver_cpu_seconds=2.0,
    )  # fmt: skip


def _shifted(probe: O2CProbe, by: float) -> O2CProbe:
    """The same steps seen by a process that started ``by`` seconds later."""
    s = probe.steps
    moved = replace(s, due=[round(d - by, 6) for d in s.due])
    return replace(probe, start=probe.start + by, steps=moved, work_processes=2)


def _rows(p: O2CProbe) -> list[tuple[float, ...]]:
    s = p.steps
    return sorted(zip(s.due, s.step, s.user, s.wait, s.db, s.ok, strict=True))


def test_merge_is_exact_on_known_steps() -> None:
    whole = _probe(range(20))
    a = replace(_probe(range(0, 20, 2)), work_processes=2, logged_on=10)
    b = _shifted(replace(_probe(range(1, 20, 2)), logged_on=10), 0.25)
    b.errors = ["step 7: boom"]
    b.driver_cpu_seconds = 3.0
    lags_a, lags_b = [0.001 * i for i in range(100)], [0.5 + 0.001 * i for i in range(100)]
    merged = merge([Part(0, a, lags_a), Part(1, b, lags_b)], 2)

    assert [tuple(round(v, 6) for v in r) for r in _rows(merged)] == [
        tuple(round(v, 6) for v in r) for r in _rows(whole)
    ]
    assert merged.start == whole.start
    assert merged.work_processes == 4 and merged.logged_on == 20
    assert merged.driver_processes == 2 and merged.driver_cpu_by_process == [2.0, 3.0]
    assert merged.driver_cpu_seconds == 5.0
    assert merged.errors == ["driver process 2: step 7: boom"]
    lags = sorted(lags_a + lags_b)
    assert merged.driver_lag_p50 == round(lags[100], 6)
    assert merged.driver_lag_p99 == round(lags[198], 6)
    assert merged.driver_lag_max == round(lags[-1], 6)

    got, want = summarize(merged, 1.0), summarize(whole, 1.0)
    assert got.steps == want.steps and got.errors == want.errors
    assert got.avg_rt == pytest.approx(want.avg_rt, abs=1e-9)
    assert got.steps_per_hour == pytest.approx(want.steps_per_hour)
    for field in ("p50", "p90", "p95", "p99", "max"):
        assert getattr(got.overall, field) == pytest.approx(getattr(want.overall, field))
    assert got.step_mix == pytest.approx(want.step_mix)
    # percentiles from merged samples, not averaged percentiles of the parts
    pa, pb = summarize(a, 1.0).overall.p90, summarize(b, 1.0).overall.p90
    assert got.overall.p90 != pytest.approx((pa + pb) / 2)
    assert got.driver_processes == 2 and len(got.driver_busy_by_process) == 2


def test_merge_takes_the_worst_status_and_the_common_window() -> None:
    a = _probe(range(0, 20, 2))
    b = replace(_probe(range(1, 20, 2)), status="partial", window_end=30.0)
    merged = merge([Part(0, a), Part(1, b)])
    assert merged.status == "partial" and merged.window_end == 30.0


def test_shares_split_the_pool() -> None:
    assert shares(5, 2) == [3, 2] and sum(shares(17, 4)) == 17


def test_embedded_engine_refuses_several_processes(tmp_path: Path) -> None:
    engine = open_engine(f"duckdb:///{tmp_path / 'x.duckdb'}")
    try:
        require_shareable(engine, 1)
        with pytest.raises(DriversError, match=r"embedded.*cannot share"):
            require_shareable(engine, 2)
    finally:
        engine.close()


def _cli(args: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    cmd = [sys.executable, "-m", "dbbench", "o2c", "run", *args]
    return subprocess.Popen(cmd, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _law(probe: O2CProbe) -> float:
    s = summarize(probe, 1.0)
    return s.steps_per_hour / closed_loop_steps_per_hour(probe.users, probe.think, s.avg_rt)


@pytest.mark.postgresql
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_two_driver_processes_match_one(
    tpch_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prepare_users(tpch_url, 20)
    common = ["-e", tpch_url, "-u", "20", "--think", "0.3", "--steady", "6",
              "-w", "4", "--progress", "600"]  # fmt: skip
    found = {}
    for n in (1, 2):
        out = tmp_path / f"run{n}.json"
        proc = _cli([*common, "--driver-processes", str(n), "-o", str(out)])
        _, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        (probe,) = O2CResult.read(out).probes
        found[n] = probe
    one, two = found[1], found[2]
    assert two.driver_processes == 2 and len(two.driver_cpu_by_process) == 2
    assert two.work_processes == 4 and two.status == "complete" and two.logged_on == 20
    assert set(two.steps.user) == set(range(20))
    s1, s2 = summarize(one, 1.0), summarize(two, 1.0)
    for step in range(1, LOOP + 1):  # whole loops: every step in its nominal share
        assert s2.step_mix[step] == pytest.approx(1 / LOOP, abs=0.025)
        assert s1.step_mix[step] == pytest.approx(1 / LOOP, abs=0.025)
        assert s2.step_mix[step] == pytest.approx(s1.step_mix[step], abs=0.015)
    assert _law(one) == pytest.approx(1.0, abs=0.1)
    assert _law(two) == pytest.approx(1.0, abs=0.1)
    assert not [w for w in s2.warnings if "mix" in w or "law" in w]
    assert main(["report", str(tmp_path / "run2.json")]) == 0  # in-process: only its text
    assert "driven by 2 driver processes" in capsys.readouterr().out


def _drivers(pid: int) -> list[psutil.Process]:
    kids = psutil.Process(pid).children()
    return [k for k in kids if "resource_tracker" not in " ".join(k.cmdline())]


@pytest.mark.postgresql
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_a_killed_driver_process_is_named_and_its_steps_kept(tpch_url: str, tmp_path: Path) -> None:
    prepare_users(tpch_url, 12)
    out = tmp_path / "run.json"
    args = ["-e", tpch_url, "-u", "12", "--think", "0.2", "--rampup", "1", "--steady", "20",
            "-w", "4", "--progress", "600", "--driver-processes", "2", "-o", str(out)]  # fmt: skip
    proc = _cli(args)
    journals = [out.with_name(f"{out.name}.steps.csv.{k}") for k in (1, 2)]
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not all(
        j.is_file() and j.stat().st_size > 2000 for j in journals
    ):
        time.sleep(0.2)  # both are driving (their journals fill)
    victim = _drivers(proc.pid)[1]
    victim.kill()
    time.sleep(2)
    proc.send_signal(signal.SIGTERM)  # and the coordinator is stopped: steps so far kept
    _, err = proc.communicate(timeout=120)
    (probe,) = O2CResult.read(out).probes
    assert probe.status == "partial", err
    lost = [e for e in probe.errors if "was lost" in e]
    assert len(lost) == 1 and "of 2" in lost[0]
    users = set(probe.steps.user)
    assert users & set(range(0, 12, 2)) and users & set(range(1, 12, 2))  # both halves
    assert any(e.startswith("interrupted") for e in probe.errors)
    assert json.loads(out.read_text())["probes"][0]["driver_processes"] == 2


@pytest.mark.postgresql
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_a_search_probes_with_two_driver_processes(tpch_url: str, tmp_path: Path) -> None:
    prepare_users(tpch_url, 10)
    out = tmp_path / "search.json"
    cmd = [sys.executable, "-m", "dbbench", "o2c", "search", "-e", tpch_url, "-u", "10",
           "--max-users", "10", "--max-probes", "1", "--confirm-steady", "0",
           "--probe-loops", "1", "--think", "0.2", "-w", "2", "--progress", "600",
           "--driver-processes", "2", "-o", str(out)]  # fmt: skip
    done = subprocess.run(
        cmd, env={**os.environ, "PYTHONPATH": os.getcwd()}, capture_output=True, text=True,
        timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = O2CResult.read(out)
    assert result.kind == "search" and result.config["driver_processes"] == 2
    (probe,) = result.probes
    assert probe.driver_processes == 2 and probe.status == "complete"
    assert probe.work_processes == 2 and set(probe.steps.user) == set(range(10))
    said = [line for line in done.stderr.splitlines() if "probe 10 users" in line]
    assert said and "W=2, 2 driver processes: avg RT" in said[-1], done.stderr


def test_auto_sizes_from_the_offered_load(tmp_path: Path, pg_base_url: str) -> None:
    embedded = open_engine(f"duckdb:///{tmp_path / 'x.duckdb'}")
    server = open_engine(pg_base_url)
    try:
        n, why = auto_processes(embedded, 5000, 0.0, 0.1, 8, 8)
        assert n == 1 and "embedded" in why
        # 500 steps/s x 0.55 ms = 0.275 CPU: one process at most half a CPU takes it
        assert auto_processes(server, 500, 0.9, 0.1, 8, 8)[0] == 1
        # 2,000 steps/s = 1.1 CPU: three processes
        n, why = auto_processes(server, 2000, 0.9, 0.1, 8, 8)
        assert n == math.ceil(2000 * DRIVER_CPU_PER_STEP / AUTO_BUSY) == 3
        assert "2,000 dialog steps/s offered" in why and "capped" not in why
        n, why = auto_processes(server, 2000, 0.9, 0.1, 8, 2)  # a 2-CPU host caps it
        assert n == 2 and "capped: 2 CPUs" in why
        assert auto_processes(server, 2000, 0.9, 0.1, 1, 8)[0] == 1  # one work process
    finally:
        embedded.close()
        server.close()


@pytest.mark.postgresql
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_auto_driver_processes_are_reported(
    tpch_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prepare_users(tpch_url, 12)
    out = tmp_path / "auto.json"
    proc = _cli(["-e", tpch_url, "-u", "12", "--think", "0.3", "--steady", "3", "-w", "4",
                 "--progress", "600", "--driver-processes", "auto", "-o", str(out)])  # fmt: skip
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    (probe,) = O2CResult.read(out).probes
    engine = open_engine(tpch_url)
    try:
        want, _ = auto_processes(engine, 12, 0.3, 0.1, 4, os.cpu_count() or 1)
    finally:
        engine.close()
    assert probe.driver_processes == want and probe.driver_processes_chosen.startswith("auto: ")
    assert len(probe.driver_cpu_by_process) == want  # how busy each was
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"driven by {want} driver process" in text and "dialog steps/s offered" in text
    bad = _cli(["-e", tpch_url, "-u", "12", "--driver-processes", "many", "-o", str(out)])
    _, err = bad.communicate(timeout=60)
    assert bad.returncode != 0 and "a number of processes (1 or more) or 'auto'" in err


@pytest.mark.postgresql
@pytest.mark.parametrize("tpch_url", ["postgresql"], indirect=True)
def test_a_workload_beside_hears_the_invoices_and_halts_every_process(tpch_url: str) -> None:
    """``Beside`` (``mixed`` with driver processes): each process's acknowledged invoices
    reach the coordinator on its monotonic clock; a halt stops both processes at once, the
    run ``failed`` with the reason once and unprefixed (the whole run's, not a process's)."""
    prepare_users(tpch_url, 4)
    heard: list[tuple[int, float]] = []
    beside = Beside(lambda key, at: heard.append((key, at)), step=LOOP)
    reason = "the query streams stopped: a test's halt"

    def halt_when_heard() -> None:
        deadline = time.monotonic() + 60
        while len(heard) < 4 and time.monotonic() < deadline:
            time.sleep(0.1)
        beside.halt(reason)

    engine = open_engine(tpch_url)
    try:
        cfg = RunConfig(users=4, think=0.02, rampup=0.2, steady=60, work_processes=2,
                        progress_interval=600)  # fmt: skip
        threading.Thread(target=halt_when_heard, daemon=True).start()
        started = time.monotonic()
        probe = run_processes(engine, [tpch_url], setup.require_prepared(engine), cfg, 2,
                              None, beside)  # fmt: skip
    finally:
        engine.close()
    assert time.monotonic() - started < 50  # halted, not the 60-s window
    assert len(heard) >= 4 and all(started < at < time.monotonic() for _, at in heard)
    assert probe.status == "failed" and probe.errors.count(reason) == 1, probe.errors
    invoiced = {key for key, _ in heard}
    assert len(invoiced) >= 2  # orders of more than one user (each user bills its own)
