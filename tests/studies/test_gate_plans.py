"""The gate's plan verdict on a real plan change: an index dropped on PostgreSQL between the
baseline and the candidate changes the plans of the queries that used it, and only those."""

from __future__ import annotations

import gzip
import html
import json
from pathlib import Path

import pytest
from private_databases import fresh_postgres
from studies_helpers import dbbench

from dbbench.drivers.registry import open_engine
from dbbench.reports.tpch.model import PLANS_FILE, BenchmarkResult


def _run(url: str, out: Path) -> Path:
    code = dbbench(
        "run", "-e", url, "-s", "0.01", "-S", "1", "--runs", "1", "--seed", "3",
        "--telemetry-interval", "0", "-o", str(out),
    )  # fmt: skip
    assert code == 0
    return out


def _texts(run_dir: Path) -> dict[int, str]:
    """Each query's plan of stream 0."""
    lines = gzip.decompress((run_dir / PLANS_FILE).read_bytes()).decode().splitlines()
    entries = [json.loads(line) for line in lines if line]
    return {e["query"]: e["text"] for e in entries if e["stream"] == 0}


@pytest.mark.postgresql
def test_a_dropped_index_is_plan_changed_for_its_queries_and_same_plan_for_the_others(
    pg_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fresh_postgres(pg_base_url, "dbbench_plans") as url:
        base = _run(url, tmp_path / "base")
        plans = _texts(base)
        assert sorted(plans) == list(range(1, 23))
        # the index of the kit's finish_load that the most queries' plans use
        used: dict[str, set[int]] = {}
        for query, text in plans.items():
            for word in text.replace("(", " ").split():
                if word.startswith("ix_"):
                    used.setdefault(word, set()).add(query)
        assert used, "no plan uses one of the kit's indexes"
        index, affected = max(used.items(), key=lambda kv: len(kv[1]))
        engine = open_engine(url)
        try:
            session = engine.session()
            session.execute(f"DROP INDEX {index}")
            session.close()
        finally:
            engine.close()
        cand = _run(url, tmp_path / "cand")
    capsys.readouterr()
    # every query may be judged a regression here: the plan verdict is what is checked
    assert dbbench("gate", str(base), str(cand), "-f", "json", "--fail-over", "0") in (0, 4)
    doc = json.loads(capsys.readouterr().out)
    verdicts = {int(c["column"][1:]): c["plan"] for c in doc["changes"]}
    assert {q for q, v in verdicts.items() if v == "plan changed"} == affected, (index, verdicts)
    assert all(verdicts[q] == "same plan" for q in set(range(1, 23)) - affected)
    for change in doc["changes"]:  # the first lines that differ, the baseline's and the new
        if int(change["column"][1:]) in affected:
            diff = change["plan_diff"]
            assert diff and all(d[:2] in ("- ", "+ ") for d in diff), diff
    assert dbbench("gate", str(base), str(cand), "--fail-over", "0") in (0, 4)
    out = capsys.readouterr().out
    q = min(affected)
    assert f"Q{q} (" in out and "plan changed, first differing lines:" in out
    header = next(line for line in out.splitlines() if line.startswith("query"))
    assert header.split()[-1] == "plan"
    result = BenchmarkResult.read(cand / "result.json")
    assert result.plans is not None and len(result.plans.records) == 44
    # compare: per query the verdict against the first result, and the changed plans' texts
    changed_line = next(line for line in plans[q].splitlines() if line.strip())
    for fmt in ("text", "md", "html"):
        assert dbbench("compare", str(base), str(cand), "-f", fmt) == 0
        shown = capsys.readouterr().out
        shown = html.unescape(shown) if fmt == "html" else shown
        assert "Query plans of postgresql against base" in shown, fmt
        if fmt == "md":
            assert f"| Q{q} | plan changed |" in shown
            assert all(f"| Q{p} | same plan |" in shown for p in set(range(1, 23)) - affected)
        assert f"Q{q}, base:" in shown and f"Q{q}, cand:" in shown, fmt
        assert changed_line.strip() in shown, fmt  # the baseline's plan text itself
