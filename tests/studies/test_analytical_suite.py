"""The example suite ``examples/suites/analytical-sf1.toml`` (and its SF 0.1 variant): it
names the analytical engines, every URL opens the engine it names, and its in-process
entries run as a suite and come out in one comparison."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from dbbench.drivers.registry import all_engines
from dbbench.drivers.suite_file import load_suite
from dbbench.drivers.url import parse_url
from dbbench.reports.studies.suite import SuiteIndex

SUITES = Path(__file__).resolve().parents[2] / "examples" / "suites"
ENGINES = [
    "duckdb",
    "chdb",
    "datafusion",
    "polars",
    "hyper",
    "postgresql",
    "spark",
    "sail",
    "sqlite",
]
IN_PROCESS = ["duckdb", "chdb", "datafusion", "polars", "hyper"]


def _engine_of(url: str) -> str:
    """The registry's engine for a suite URL (bare ``duckdb`` is DuckDB)."""
    if url == "duckdb":
        return "duckdb"
    scheme = parse_url(url).scheme
    return next(s.name for s in all_engines().values() if scheme in (s.name, *s.schemes))


def test_the_example_suites_name_the_analytical_engines() -> None:
    sf1 = load_suite(SUITES / "analytical-sf1.toml")
    small = load_suite(SUITES / "analytical-sf0.1.toml")
    assert sf1.scale_factors == [1.0] and small.scale_factors == [0.1]
    for suite in (sf1, small):
        assert [e.name for e in suite.engines] == ENGINES
        assert [_engine_of(e.url) for e in suite.engines] == ENGINES  # each URL is its engine
        assert suite.baseline == "duckdb"
        assert suite.query_timeout is not None  # a slow engine's query ends its entry, shown
    # the same entries: only the scale (and SQLite's file) differ
    same = {e.name: e.url for e in sf1.engines if e.name != "sqlite"}
    assert same == {e.name: e.url for e in small.engines if e.name != "sqlite"}


def test_the_in_process_entries_run_as_one_comparison(tmp_path: Path) -> None:
    """The example's in-process engines at SF 0.01, one stream, in a child process (chDB
    opens one database per process): every entry ok and valid, all in the comparison."""
    small = load_suite(SUITES / "analytical-sf0.1.toml")
    entries = "".join(
        f'\n[[engine]]\nname = "{e.name}"\nurl = "{e.url}"\n'
        for e in small.engines
        if e.name in IN_PROCESS
    )
    suite = tmp_path / "suite.toml"
    suite.write_text(
        f"scale_factor = 0.01\nstreams = 1\nruns = 1\nseed = {small.seed}\n"
        f"query_timeout = {small.query_timeout}\ntelemetry_interval = 0\n"
        f'baseline = "{small.baseline}"\n{entries}',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "dbbench", "suite", str(suite), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    index = SuiteIndex.read(out)
    assert [(e.name, e.status) for e in index.entries] == [(n, "ok") for n in IN_PROCESS]
    for name in IN_PROCESS:
        result = json.loads((out / f"{name}-sf0.01" / "result.json").read_text())
        assert result["runs"][0]["seeds"] == {"0": small.seed, "1": small.seed + 1}
    comparison = (out / "comparison.md").read_text(encoding="utf-8")
    header = next(line for line in comparison.splitlines() if line.startswith("| Query"))
    assert all(f"{name} ms" in header for name in IN_PROCESS)
    assert "| Q22 |" in comparison and "pending" not in comparison
    # the headline speed-up is the geometric mean over Q1-Q22 of each entry's own power-test
    # times against the baseline's, recomputed here from the result files themselves
    doc = json.loads((out / "comparison.json").read_text())["comparisons"][0]
    power = {
        name: {
            iv["query"]: iv["seconds"]
            for iv in json.loads((out / f"{name}-sf0.01" / "result.json").read_text())["runs"][0][
                "intervals"
            ]
            if iv["kind"] == "query" and iv["phase"] == "power"
        }
        for name in IN_PROCESS
    }
    base = power[small.baseline]
    for i, name in enumerate(IN_PROCESS):
        logs = [math.log(base[q] / power[name][q]) for q in range(1, 23)]
        assert doc["geomean_speedups"][i] == pytest.approx(math.exp(sum(logs) / 22)), name
