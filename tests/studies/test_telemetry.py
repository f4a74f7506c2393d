"""Resource telemetry: the sampler on its own, and in every run's result and report."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from studies_helpers import dbbench

from dbbench.drivers.telemetry import Sampler, engine_scope
from dbbench.reports.loading import load_result
from dbbench.reports.tpch.formats import render
from dbbench.reports.tpch.telemetry import summarise, usage


def test_sampler_sees_cpu_work_and_disk_writes(tmp_path: Path) -> None:
    """What the sampler must see holds on a busy machine too (a CPU hog on every core,
    steal time on a virtual machine): the CPU time this process spent is in the host's
    figures, user + system never exceed a core's busy share, the bytes written are there."""
    with Sampler(0.1) as sampler:
        cpu_before = time.process_time()
        deadline = time.monotonic() + 0.5
        n = 0
        while time.monotonic() < deadline:  # keep one core busy
            n += 1
        own_cpu = time.process_time() - cpu_before
        with open(tmp_path / "blob", "wb") as f:  # and write through to the disk
            for _ in range(16):
                f.write(os.urandom(1 << 20))
                f.flush()
                os.fsync(f.fileno())
        time.sleep(0.25)
    tel = sampler.stop()
    assert len(tel.t) >= 5
    assert tel.t == sorted(tel.t)
    series = (tel.cpu_user, tel.cpu_system, tel.cpu_iowait, tel.mem_used, tel.disk_write_bps)
    assert all(len(s) == len(tel.t) for s in series)
    assert len(tel.cpu_per_core[0]) == tel.cores
    assert tel.version == 2
    for i in range(len(tel.t)):  # per core: user + system is within the core's busy share
        # (busy also counts steal, irq and softirq time, which a busy VM has plenty of)
        for core in range(tel.cores or 0):
            u, sy, io = (
                x[i][core] for x in (tel.cpu_core_user, tel.cpu_core_system, tel.cpu_core_iowait)
            )
            assert 0 <= io <= 100 and 0 <= u + sy <= 100.2
            assert u + sy <= tel.cpu_per_core[i][core] + 0.2, (i, core)
    assert all(0 <= v <= 100 for v in tel.cpu_user + tel.cpu_system + tel.cpu_iowait)
    # rates times the intervals they were measured over (longer than asked on a busy machine)
    spans = [tel.t[0] - tel.t_start] + [b - a for a, b in zip(tel.t, tel.t[1:], strict=False)]
    cores = tel.cores or 1
    host_cpu = sum(
        (u + s) / 100 * cores * span
        for u, s, span in zip(tel.cpu_user, tel.cpu_system, spans, strict=True)
    )
    # the host's CPU seconds include this process's busy loop (whatever else ran beside it)
    assert host_cpu >= 0.8 * own_cpu, (host_cpu, own_cpu)
    written = sum(r * s for r, s in zip(tel.disk_write_bps[1:], spans[1:], strict=True))
    assert written >= 8 << 20, written  # at least half of the 16 MiB written
    assert min(tel.mem_used) > 0
    assert 0 < tel.overhead_seconds < 0.05 * (tel.t[-1] - tel.t[0] + 0.1)


def test_engine_scope_names_a_remote_server_client_only() -> None:
    assert engine_scope("duckdb:///x.duckdb") == "host"
    assert engine_scope("postgresql://postgres@127.0.0.1:5432/test") == "host"
    assert engine_scope("postgresql://u@localhost/test") == "host"
    assert engine_scope("postgresql://u@db.example.com:5432/test") == "client"
    sampler = Sampler(1.0, "client")
    assert sampler.data.scope == "client" and "another host" in sampler.data.note


def test_every_run_stores_telemetry_aligned_with_its_phases(duckdb_run: Path) -> None:
    result = load_result(duckdb_run)
    tel = result.telemetry
    assert tel is not None and tel.source == "psutil" and tel.interval == 0.2
    assert result.config["telemetry_interval"] == 0.2
    assert result.load is not None and result.runs
    assert tel.t_start <= result.load.start < tel.t[0] + tel.interval
    assert tel.t[-1] >= (result.runs[-1].throughput_end or 0)
    summary = summarise(result)
    assert summary is not None
    phases = {p.phase: p for p in summary.phases}
    assert set(phases) == {"load", "run 1 power", "run 1 throughput", "whole benchmark"}
    for name in ("run 1 power", "run 1 throughput"):
        assert (phases[name].cpu_busy or 0) > 0, f"no CPU use seen during {name}"
    assert phases["load"].write_mbps is not None and phases["load"].write_mbps > 0
    assert summary.headline.startswith("CPU ")
    # the cost is per sample: at the default 1 s interval it must stay under 1 % of a core
    assert summary.overhead_percent is not None
    assert summary.overhead_percent * tel.interval / 1.0 < 1.0


def test_reports_show_telemetry_and_latency(duckdb_run: Path) -> None:
    html = (duckdb_run / "report.html").read_text()
    assert 'id="telemetry"' in html and 'class="chart telemetry"' in html
    assert 'id="latency"' in html and 'class="chart boxplot"' in html
    md = (duckdb_run / "report.md").read_text()
    assert "## Resource use" in md and "| run 1 throughput" in md
    assert "## Latency distributions" in md
    assert "resources: CPU " in (duckdb_run / "summary.txt").read_text()


def test_per_core_split_is_averaged_per_phase_and_reported(duckdb_run: Path) -> None:
    result = load_result(duckdb_run)
    tel = result.telemetry
    summary = summarise(result)
    assert tel is not None and summary is not None
    whole = summary.phases[-1]
    assert len(whole.per_core) == tel.cores
    # the cores' average user time is the machine's user time (equal-weight cores), up to
    # the two readings (all cores, per core) not being taken at the very same instant
    mean_user = sum(u for u, _, _ in whole.per_core) / len(whole.per_core)
    assert abs(mean_user - (whole.cpu_user or 0)) < 5, (mean_user, whole.cpu_user)
    md = render(result, "md")
    assert "Per core, user / system / iowait" in md and "| core 0 |" in md
    # a version 1 telemetry object (no per-core split) still renders, without that table
    tel.version, tel.cpu_core_user, tel.cpu_core_system, tel.cpu_core_iowait = 1, [], [], []
    assert summarise(result).phases[-1].per_core == []  # type: ignore[union-attr]
    md1 = render(result, "md")
    assert "## Resource use" in md1 and "Per core, user / system" not in md1


def test_usage_weighs_samples_by_overlap(duckdb_run: Path) -> None:
    result = load_result(duckdb_run)
    tel = result.telemetry
    assert tel is not None
    t0, t1 = tel.t[0], tel.t[1]
    one = usage(tel, "x", t0, t1)  # exactly the second sample's interval
    assert one.samples == 1.0
    assert one.cpu_user == tel.cpu_user[1]
    assert one.mem_max == max(tel.mem_used[0], tel.mem_used[1])  # both touch the window


def test_telemetry_can_be_switched_off_and_old_results_still_render(tmp_path: Path) -> None:
    out = tmp_path / "off"
    code = dbbench(
        "run", "-e", "duckdb", "-s", "0.01", "-S", "1", "--runs", "1",
        "--telemetry-interval", "0", "-o", str(out),
    )  # fmt: skip
    assert code == 0
    result = load_result(out)
    assert result.telemetry is None
    assert "Resource use" not in render(result, "md")
    assert "resources:" not in render(result, "text")
    assert dbbench("run", "--telemetry-interval", "-1", "-o", str(tmp_path / "bad")) == 1


def test_without_psutil_the_run_goes_on_and_the_report_says_why(tmp_path: Path) -> None:
    """The telemetry extra missing: psutil cannot be imported in the dbbench process."""
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text("import sys\nsys.modules['psutil'] = None\n")
    out = tmp_path / "nopsutil"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(shim), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "dbbench", "run", "-e", "duckdb", "-s", "0.01", "-S", "1",
         "--runs", "1", "-o", str(out)],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    check = subprocess.run(
        [sys.executable, "-c", "import psutil"], env=env, capture_output=True, text=True
    )
    assert check.returncode != 0  # the shim really hid psutil
    result = load_result(out)
    assert result.telemetry is not None and result.telemetry.t == []
    assert "install the telemetry extra" in result.telemetry.note
    md = (out / "report.md").read_text()
    assert "install the telemetry extra" in md
    assert result.runs and result.runs[0].intervals  # the run itself was measured
