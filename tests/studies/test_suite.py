"""``dbbench suite``: several engines under one setting, one comparison, resumable."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from private_databases import fresh_postgres
from studies_helpers import dbbench

from dbbench.reports.loading import load_result
from dbbench.reports.studies.suite import SuiteIndex
from dbbench.reports.tpch.telemetry import summarise


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.postgresql
def test_two_engine_suite_with_a_dead_server_then_resume(
    pg_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fresh_postgres(pg_base_url, "dbbench_suite") as pg_url:
        suite = _write(
            tmp_path / "suite.toml",
            f"""
scale_factor = 0.01
streams = 1
runs = 1
seed = 5
telemetry_interval = 0.5
baseline = "duck"

[[engine]]
name = "duck"
url = "duckdb"

[[engine]]
name = "pg"
url = "{pg_url}"

[[engine]]
name = "down"
url = "postgresql://postgres@127.0.0.1:{_closed_port()}/nothing"
""",
        )
        out = tmp_path / "out"
        assert dbbench("suite", str(suite), "-o", str(out)) == 3  # one entry failed
        err = capsys.readouterr().err
        assert "down SF 0.01: failed" in err and "1 of 3 entries" in err
        index = SuiteIndex.read(out)
        assert [(e.name, e.status) for e in index.entries] == [
            ("duck", "ok"),
            ("pg", "ok"),
            ("down", "failed"),
        ]
        assert "refused" in index.entries[2].message.lower()
        seeds = [
            json.loads((out / d / "result.json").read_text())["runs"][0]["seeds"]
            for d in ("duck-sf0.01", "pg-sf0.01")
        ]
        assert seeds[0] == seeds[1] == {"0": 5, "1": 6}  # the same parameters for every engine
        # the engines' own counters rode along with the machine's samples
        pg_tel = summarise(load_result(out / "pg-sf0.01"))
        assert pg_tel is not None and "engine counters" not in pg_tel.note
        pg_power = next(p for p in pg_tel.phases if p.phase == "run 1 power")
        assert pg_power.engine["tup_returned"] > 0 and pg_power.engine["xact_commit"] > 0
        duck_tel = load_result(out / "duck-sf0.01").telemetry
        assert duck_tel is not None and max(duck_tel.engine["memory_bytes"]) > 0
        assert len(duck_tel.engine["memory_bytes"]) == len(duck_tel.t)
        doc = json.loads((out / "comparison.json").read_text())["comparisons"][0]
        assert doc["baseline"] == "duck" and doc["scale_factor"] == 0.01
        labels = [e["label"] for e in doc["entries"]]
        assert labels == ["duck", "pg", "down"]
        q1 = next(q for q in doc["queries"] if q["column"] == "Q1")
        duck_ms, pg_ms, down_ms = q1["medians"]
        assert down_ms is None and duck_ms > 0 and pg_ms > 0
        assert q1["speedups"][0] == 1.0
        assert q1["speedups"][1] == pytest.approx(duck_ms / pg_ms)
        assert doc["entries"][0]["qphh"] > 0 and doc["entries"][1]["qphh"] > 0
        assert doc["entries"][1]["resources"].startswith("CPU ")
        html = (out / "comparison.html").read_text()
        assert 'class="chart speedup"' in html and "http" not in html.replace("https://", "")
        md = (out / "comparison.md").read_text()
        assert "| Q22 |" in md and "failed: " in md
        # resume: the finished entries are kept, only the failed one runs again
        before = (out / "pg-sf0.01" / "result.json").stat().st_mtime_ns
        assert dbbench("suite", str(suite), "-o", str(out)) == 3
        err = capsys.readouterr().err
        assert "duck SF 0.01: finished before, kept" in err
        assert "pg SF 0.01: finished before, kept" in err
        assert "down SF 0.01: running" in err
        assert (out / "pg-sf0.01" / "result.json").stat().st_mtime_ns == before
