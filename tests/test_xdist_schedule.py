"""The suite's own timing: each test's CPU seconds in the JUnit report (``tests/conftest.py``)
and their sum per unit of work (``tests/xdist_schedule.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from xdist_schedule import durations_from_junit

ROOT = Path(__file__).resolve().parents[1]

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="tests.test_a" name="test_one" time="4.0">
 <properties><property name="cpu_seconds" value="1.250"/></properties></testcase>
<testcase classname="tests.test_a" name="test_two" time="6.0">
 <properties><property name="cpu_seconds" value="0.750"/>
 <property name="server_cpu_seconds" value="2.000"/></properties></testcase>
<testcase classname="tests.engines.test_queries" name="test_q[duckdb-1]" time="1.0">
 <properties><property name="cpu_seconds" value="0.500"/></properties></testcase>
</testsuite></testsuites>
"""


def test_units_sum_wall_or_cpu_seconds(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    junit.write_text(JUNIT)
    assert durations_from_junit(junit) == {"tests/test_a.py": 10.0, "tests/engines[duckdb]": 1.0}
    assert durations_from_junit(junit, cpu="cpu_seconds") == {
        "tests/test_a.py": 2.0,
        "tests/engines[duckdb]": 0.5,
    }
    assert durations_from_junit(junit, cpu="server_cpu_seconds") == {
        "tests/test_a.py": 2.0,
        "tests/engines[duckdb]": 0.0,
    }


def test_every_test_reports_its_cpu_seconds(tmp_path: Path) -> None:
    """A real run of a small file: each test case carries ``cpu_seconds`` (and nothing of the
    servers unless asked), and the CPU the run spent is at least their sum."""
    junit = tmp_path / "junit.xml"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DBBENCH_TEST_SERVER_CPU", None)
    cmd = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
           f"--junitxml={junit}", "tests/drivers/test_url.py"]  # fmt: skip
    before = os.times()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    after = os.times()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    assert len(cases) > 5
    names = [[p.get("name") for p in case.iter("property")] for case in cases]
    assert all(n == ["cpu_seconds"] for n in names), names
    spent = durations_from_junit(junit, cpu="cpu_seconds")["tests/drivers/test_url.py"]
    run = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    assert 0 <= spent <= run + 0.05
