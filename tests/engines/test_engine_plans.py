"""Every engine explains the 22 queries of a stream as the sequencer ran them (the plan
capture's own code over each engine's explain hook), and the HTML report shows the plans."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_conf import SF, Loaded
from markupsafe import escape

from dbbench.drivers.journal import Journal
from dbbench.drivers.sequencer.config import RunOptions
from dbbench.drivers.sequencer.context import RunContext
from dbbench.drivers.sequencer.plans import capture_plans
from dbbench.queries.order import stream_order
from dbbench.queries.params import stream_parameters
from dbbench.reports.model import EngineInfo, SystemInfo
from dbbench.reports.tpch.model import BenchmarkResult, RunResult
from dbbench.reports.tpch.plans import read_texts
from dbbench.reports.tpch.render import render_html
from dbbench.reports.tpch.summary import build_report

SEEDS = {"0": 1_000_003, "1": 1_000_004}  # two streams: other orders, other parameters


#: the generic engine sends the spec's ANSI SQL as is (as in ``test_engine_queries``)
@pytest.mark.notyet(["sqlalchemy"], reason="PostgreSQL rejects Q1's interval day (3)")
def test_engine_captures_22_plans_per_stream_and_the_report_shows_them(
    loaded: Loaded, tmp_path: Path
) -> None:
    _captures_and_shows(loaded, tmp_path, "explain")


def test_analyze_captures_the_executed_plans(reference: Loaded, tmp_path: Path) -> None:
    """An extra pass that runs every query (DuckDB: the reference engine)."""
    _captures_and_shows(reference, tmp_path, "analyze")


def _captures_and_shows(loaded: Loaded, tmp_path: Path, mode: str) -> None:
    engine = loaded.engine
    journal = Journal(tmp_path / "journal.jsonl")
    ctx = RunContext(engine, RunOptions(sf=SF, streams=1), journal)
    run = RunResult(number=1, streams=1, seeds=dict(SEEDS))
    for stream, seed in SEEDS.items():
        params = stream_parameters(seed, SF)
        run.params[stream] = {str(q): list(v) for q, v in params.items()}
    try:
        plans = capture_plans(ctx, [run], tmp_path, mode)  # type: ignore[arg-type]
    finally:
        journal.close()
    failed = [(r.stream, r.query, r.error) for r in plans.records if r.error is not None]
    assert not failed, failed
    assert [r.query for r in plans.records if r.stream == 0] == stream_order(0)
    assert sorted(r.query for r in plans.records if r.stream == 1) == list(range(1, 23))
    assert all(r.sha256 and r.shape for r in plans.records)

    result = BenchmarkResult(
        scale_factor=SF, streams=1, engine=EngineInfo(engine.name, "x"), system=SystemInfo(),
        kit_version="0.1.0", runs=[run], plans=plans,
    )  # fmt: skip
    texts = read_texts(result, tmp_path)
    assert texts.note is None and len(texts.texts) == 44
    assert all(t.strip() for t in texts.texts.values())  # a plan is never empty
    page = render_html(build_report(result, None, tmp_path))
    assert page.count('<details class="plan"') == 22
    q9 = texts.texts[(1, 0, 9)]
    assert str(escape(q9.splitlines()[0].strip())) in page  # as the template escapes it
