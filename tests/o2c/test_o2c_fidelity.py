"""o2c fidelity: users spread over the whole loop and windows of whole loops (every step in
its nominal share), the step-mix check, rates over the time really measured, limits beyond
the average, and the response time's bottleneck named."""

from __future__ import annotations

import io
import itertools
import re
from dataclasses import replace
from pathlib import Path

import pytest

from dbbench.commands.o2c_progress import display
from dbbench.drivers.engine import BackendProcess
from dbbench.drivers.lifecycle import open_run
from dbbench.drivers.o2c import setup
from dbbench.drivers.o2c.simulator import Progress, RunConfig, Simulator
from dbbench.drivers.o2c.study import SearchLimits, search_with_confirmation
from dbbench.drivers.registry import open_engine
from dbbench.reports.o2c.document import render_o2c
from dbbench.reports.o2c.family import FAMILY as o2c_family
from dbbench.reports.o2c.judge import MetricsJudge
from dbbench.reports.o2c.metrics import (
    STEPS_PER_LOOP,
    Limits,
    closed_loop_steps_per_hour,
    summarize,
)
from dbbench.reports.o2c.model import O2CProbe, O2CResult, O2CSteps

NOMINAL = 1 / STEPS_PER_LOOP


def _loop_probe(
    *, users: int = 10, rt: float = 0.25, think: float = 1.0, spread: bool = True,
    wait_share: float = 0.25, window: tuple[float, float] = (10.0, 110.0), until: float = 120.0,
) -> O2CProbe:  # fmt: skip
    """Users in a perfect closed loop (each step ``rt`` of which ``wait_share`` waiting for a
    work process): their phases spread over one loop, or all in step (``spread=False``)."""
    steps = O2CSteps()
    for user in range(users):
        t = -user * STEPS_PER_LOOP * (rt + think) / users if spread else 0.0
        k = 0
        while t < until:
            steps.step.append(0 if k == 0 else (k - 1) % STEPS_PER_LOOP + 1)
            steps.user.append(user)
            steps.due.append(t)
            steps.wait.append(rt * wait_share)
            steps.db.append(rt * (1 - wait_share))
            steps.ok.append(1)
            t += rt + think
            k += 1
    return O2CProbe(
        users=users, think=think, think_dist="fixed", work_processes=2, rampup=1.0, start=0.0,
        window_start=window[0], window_end=window[1], end=until, status="complete",
        logged_on=users, steps=steps,
    )  # fmt: skip


def test_users_in_step_make_the_window_invalid_by_its_step_mix() -> None:
    """All users in step (the old ramp-up) with a window shorter than a loop: only a few
    adjacent steps run in it, so the probe is invalid, with the step mix as the reason."""
    probe = _loop_probe(think=10.0, rt=0.1, spread=False, window=(15.0, 55.0), until=200.0)
    s = summarize(probe, 1.0)
    assert not s.passed
    assert any("step mix" in r for r in s.reasons), s.reasons
    assert s.step_mix[1] == 0.0 and s.step_mix[15] == 0.0
    assert sum(s.step_mix.values()) == pytest.approx(1.0)


def test_spread_users_in_a_whole_loop_window_hold_the_nominal_mix() -> None:
    """Phases spread over the loop and a window of whole loops: every step within 2 % of
    1/15 and the probe passes the mix check."""
    rt, think = 0.25, 1.0
    loop = STEPS_PER_LOOP * (rt + think)
    probe = _loop_probe(rt=rt, think=think, users=30, window=(20.0, 20.0 + 4 * loop), until=120)
    s = summarize(probe, 1.0)
    assert s.passed, s.reasons
    assert set(s.step_mix) == set(range(1, 16))
    assert all(abs(v / NOMINAL - 1) < 0.02 for v in s.step_mix.values()), s.step_mix


def test_orders_per_hour_count_the_documents_of_a_short_window() -> None:
    """A window shorter than one loop that holds order saves (step 4) but no invoice: orders
    and line items per hour come from the document steps completed in it, never 0."""
    probe = _loop_probe(think=10.0, rt=0.1, spread=False, window=(15.0, 55.0), until=200.0)
    s = summarize(probe, 1.0)
    saved = 10  # each of the 10 users saved one order at 30.3 s + 0.1 s
    assert s.orders_per_hour == pytest.approx(saved * 3600 / 40.0)
    assert s.line_items_per_hour == pytest.approx(saved * 5 / 4 * 3600 / 40.0)


def test_a_stopped_run_is_rated_over_the_time_it_measured() -> None:
    """A run stopped (killed) 45 s into a 100-s window: its steps/h is the closed-loop rate
    over the 45 s it measured, not half of it over the planned 100 s."""
    full = _loop_probe()
    killed = _loop_probe(until=55.0)
    killed.status = "partial"
    expected = closed_loop_steps_per_hour(10, 1.0, 0.25)
    assert summarize(full, 1.0).steps_per_hour == pytest.approx(expected, rel=0.03)
    s = summarize(killed, 1.0)
    assert s.window_seconds == pytest.approx(45.0, abs=1.3)
    assert s.steps_per_hour == pytest.approx(expected, rel=0.05)
    assert s.implied_think == pytest.approx(1.0, rel=0.1)


def test_percentile_and_transaction_limits() -> None:
    """--rt-limit stays the average; a p99 or a transaction's own limit can fail a probe
    the average passes, each with its reason."""
    probe = _loop_probe(users=30)
    slow = probe.steps
    for i in range(0, len(slow.step), 40):  # 2.5 % of the steps take 3 s
        slow.db[i] = 3.0
    s = summarize(probe, Limits(1.0))
    assert s.passed, s.reasons
    assert s.overall.p99 == pytest.approx(3.0625) and s.overall.avg < 1.0
    s = summarize(probe, Limits(1.0, p99=2.0))
    assert not s.passed and any(r.startswith("p99 dialog response time") for r in s.reasons)
    assert summarize(probe, Limits(1.0, p90=2.0)).passed  # p90 is 0.25 s
    s = summarize(_loop_probe(), Limits(1.0, per_transaction={"VA01": 0.2}))
    assert not s.passed and any(r.startswith("VA01 average") for r in s.reasons)


@pytest.mark.parametrize(("wait_share", "named"), [(0.9, "work-process wait"), (0.1, "database")])
def test_the_bottleneck_is_named(wait_share: float, named: str) -> None:
    """Where the response time went: mostly the pool wait is said in the verdict."""
    s = summarize(_loop_probe(wait_share=wait_share), 1.0)
    assert s.bottleneck == named
    assert s.rt_pool_wait == pytest.approx(0.25 * wait_share)
    said = any("mostly waiting for a work process" in w for w in s.warnings)
    assert said == (named == "work-process wait")
    assert ("mostly waiting for a work process" in render_o2c(_result(s_probe := _loop_probe(
        wait_share=wait_share)), "text")) == said and s_probe.users == 10  # fmt: skip


def _result(probe: O2CProbe) -> object:
    from dbbench.reports.model import EngineInfo, SystemInfo
    from dbbench.reports.o2c.model import O2CResult

    return O2CResult("run", 0.01, 1, 1.0, engine=EngineInfo("duckdb", "duckdb:///x"),
                     system=SystemInfo(), kit_version="0", probes=[probe])  # fmt: skip


@pytest.mark.parametrize("tpch_url", ["duckdb"], indirect=True)
def test_a_run_spreads_its_users_over_whole_loops(tpch_url: str) -> None:
    """A real run with a fixed think time: the ramp-up is one loop, the window whole loops,
    and every step's share of the window within a few percent of 1/15."""
    engine = open_engine(tpch_url)
    try:
        prepared = setup.prepare(engine, seed=2, users=12)
        cfg = RunConfig(users=12, think=0.2, steady=6.0, work_processes=4)
        loop = cfg.loop_seconds()
        assert loop == pytest.approx(15 * (0.2 + cfg.expected_rt))
        probe = Simulator(engine, prepared, cfg).run()
    finally:
        engine.close()
    assert probe.status == "complete", probe.errors
    assert probe.rampup == pytest.approx(loop)
    assert (probe.window_end - probe.window_start) == pytest.approx(2 * loop)
    s = summarize(probe, 5.0)
    assert [r for r in s.reasons if "response time" not in r] == []
    assert set(s.step_mix) == set(range(1, 16))
    assert all(abs(v / NOMINAL - 1) < 0.25 for v in s.step_mix.values()), s.step_mix


@pytest.mark.parametrize("tpch_url", ["duckdb"], indirect=True)
def test_a_stopped_simulator_ends_its_window_where_it_stopped(tpch_url: str) -> None:
    """Stopped 2 s into its window (as Ctrl-C or kill would): the window ends there, the run
    is partial, and its steps/h is near the closed-loop rate, not diluted by the plan."""
    engine = open_engine(tpch_url)
    sim: Simulator | None = None

    def stop_soon(p: Progress) -> None:
        if sim is not None and sim.stop is not None and p.phase == "steady":
            sim.stop.set()

    try:
        prepared = setup.prepare(engine, seed=2, users=6)
        cfg = RunConfig(users=6, think=0.2, steady=60.0, work_processes=3, progress_interval=2.0)
        sim = Simulator(engine, prepared, cfg, progress=stop_soon)
        probe = sim.run()
    finally:
        engine.close()
    assert probe.status == "partial"
    planned = cfg.window_seconds()
    measured = probe.window_end - probe.window_start
    assert 0 < measured < planned / 2
    assert any("stopped early" in e for e in probe.errors)
    s = summarize(probe, 5.0)
    law = closed_loop_steps_per_hour(6, 0.2, s.avg_rt)
    assert s.steps_per_hour == pytest.approx(law, rel=0.35)


@pytest.mark.parametrize("tpch_url", ["duckdb"], indirect=True)
def test_a_search_probe_window_holds_all_15_steps(tpch_url: str, tmp_path: Path) -> None:
    """A search's probes default to two whole loops: the probe's window holds every step."""
    engine = open_engine(tpch_url)
    try:
        setup.prepare(engine, seed=4, users=8)
    finally:
        engine.close()
    cfg = RunConfig(users=8, think=0.15, steady=1.0, work_processes=4)
    limits = SearchLimits(5.0, max_users=8, max_probes=1, confirm_steady=0)
    shown = display(5.0, io.StringIO())
    with open_run([tpch_url], must_exist=True) as scope:
        result = search_with_confirmation(
            scope, cfg, limits, MetricsJudge(Limits(5.0)), shown, tmp_path / "s.json"
        )
    probe = result.probes[0]
    assert probe.window_end - probe.window_start == pytest.approx(2 * cfg.loop_seconds())
    s = summarize(replace(probe), 5.0)
    assert set(s.per_step) == set(range(1, 16)), s.step_mix
    assert result.config["probe_loops"] == 2


@pytest.mark.parametrize(
    "tpch_url", [pytest.param("postgresql", marks=pytest.mark.postgresql)], indirect=True
)
def test_search_auto_widens_the_pool_while_it_holds_the_rt(tpch_url: str, tmp_path: Path) -> None:
    """``--work-processes auto`` from one work process: 60 users with a 20-ms think time
    wait for it, so the search probes the same count again with twice the pool while the
    pool holds the response time and the RT improves; it records the pool it chose. (The
    limit is 20 ms, for steps of about a millisecond: a pool is widened only where its wait
    can change a verdict, from a tenth of the limit. 30 users kept one work process about
    80 % busy, 1.7 ms of RT on an idle machine: below that tenth, so not widened, rightly.)"""
    engine = open_engine(tpch_url)
    try:
        setup.prepare(engine, seed=4, users=60)
    finally:
        engine.close()
    cfg = RunConfig(users=60, think=0.02, work_processes=1, expected_rt=0.02)
    limits = SearchLimits(
        0.1, max_users=60, max_probes=1, confirm_steady=0, auto_work_processes=True
    )
    judge = MetricsJudge(Limits(0.02))
    with open_run([tpch_url], must_exist=True) as scope:
        result = search_with_confirmation(
            scope, cfg, limits, judge, display(0.02, io.StringIO()), tmp_path / "s.json"
        )
    probes = result.probes
    pools = [p.work_processes for p in probes]
    assert {p.users for p in probes} == {60}
    first = summarize(probes[0], 0.02)
    why = (
        f"{pools}: bottleneck {first.bottleneck!r}, avg RT {first.avg_rt:.4f} s, pool wait "
        f"{first.rt_pool_wait:.4f}, database {first.avg_db:.4f}, driver lag "
        f"{first.rt_driver_lag:.4f}, passed {first.passed}, reasons {first.reasons}"
    )
    assert pools[0] == 1 and len(pools) >= 2, why  # one work process for 60 users: widened
    assert pools == sorted(set(pools)), pools  # each probe with a larger pool
    for a, b in itertools.pairwise(probes):
        assert judge.pool_bound(a)[1]  # widened only when the pool held the RT
        assert b.work_processes == min(2 * a.work_processes, 60)
    for a, b in itertools.pairwise(probes[:-1]):
        assert judge.pool_bound(b)[0] < judge.pool_bound(a)[0]  # kept only while RT improved
    # the pool kept: the last one, unless that widening was no better (then the one before)
    rts = [judge.pool_bound(p)[0] for p in probes]
    kept = probes[-2] if len(probes) > 1 and not rts[-1] < rts[-2] else probes[-1]
    best = judge.best(result)
    assert result.config["work_processes"] == "auto"
    assert result.config["work_processes_chosen"] == (None if best is None else kept.work_processes)
    if best is not None:
        shown = render_o2c(result, "text")
        assert re.search(rf"Work processes chosen \(auto\) +{kept.work_processes}\n", shown), shown


def test_cli_refuses_bad_limits_and_auto_outside_a_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad limits and ``--work-processes auto`` on ``run`` each give one line and exit 1;
    an empty database's hint names the real load command."""
    from dbbench.cli import main

    empty = f"duckdb:///{tmp_path / 'empty.duckdb'}"
    open_engine(empty).close()
    cases = [
        (["o2c", "run", "-e", empty, "-u", "5", "--rt-limit-step", "XX01=1"], "XX01=1"),
        (["o2c", "run", "-e", empty, "-u", "5", "--rt-limit-step", "VA01=-1"], "VA01=-1"),
        (["o2c", "run", "-e", empty, "-u", "5", "--rt-p99", "0"], "--rt-p99 must be positive"),
        (["o2c", "run", "-e", empty, "-u", "5", "-w", "auto"], "auto is for search"),
        (["o2c", "run", "-e", empty, "-u", "5", "-w", "many"], "'many'"),
        (["o2c", "prepare", "-e", empty], "dbbench load -e URL -s SF"),
    ]
    for args, needle in cases:
        capsys.readouterr()
        assert main(args) == 1, args
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and needle in err, err


def test_host_cpu_not_attributable_is_recorded_and_warned_above_10_percent() -> None:
    """Host 50 % busy, the driver 10 %, the server 10 % of 2 CPUs over 100 s: 30 % is
    neither, and the result says so; at 5 % it does not warn."""
    probe = _loop_probe()
    probe.host_cpus, probe.host_cpu_busy = 2, 0.5
    probe.driver_cpu_seconds = probe.server_cpu_seconds = 0.1 * 2 * 100
    s = summarize(probe, 1.0)
    assert s.host_other_busy == pytest.approx(0.3)
    assert any("30% of the host's CPU" in w and "not attributable" in w for w in s.warnings)
    probe.host_cpu_busy = 0.25
    s = summarize(probe, 1.0)
    assert s.host_other_busy == pytest.approx(0.05)
    assert not any("not attributable" in w for w in s.warnings)


@pytest.mark.postgresql
def test_postgresql_server_cpu_counts_the_runs_own_backends(pg_base_url: str) -> None:
    """PostgreSQL names the backend of each connection: the server CPU counts those
    processes only, and the server is identified by its system identifier whatever the
    database."""
    from dbbench.drivers.o2c.identity import server_identity
    from dbbench.drivers.o2c.servercpu import _cpu_by_pid, server_cpu_scope
    from dbbench.drivers.o2c.servercpu import backend_ids as _backend_ids

    base = pg_base_url.rsplit("/", 1)[0]
    one, other = open_engine(f"{base}/postgres"), open_engine(f"{base}/test")
    try:
        sessions = [one.session(), one.session()]
        pids = _backend_ids(sessions, BackendProcess)
        assert len(pids) == 2
        assert set(_cpu_by_pid(("postgres",), pids)) == pids  # those processes, no others
        assert "serving the benchmark's own connections" in server_cpu_scope(one, base)
        ident = server_identity(one, f"{base}/postgres")
        assert ident.startswith("postgresql system_identifier ")
        assert ident == server_identity(other, f"{base}/test")
        for s in sessions:
            s.close()
    finally:
        one.close()
        other.close()


@pytest.mark.postgresql
def test_two_urls_of_one_server_are_refused(
    pg_base_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two databases of one PostgreSQL cluster are one server: a multi-URL run refuses
    them in one line before it measures anything."""
    from dbbench.cli import main

    base = pg_base_url.rsplit("/", 1)[0]
    args = ["o2c", "run", "-e", f"{base}/postgres", "-e", f"{base}/test", "-u", "2"]
    assert main(args) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "reach one server" in err, err


def test_repeated_runs_give_a_mean_and_95_percent_interval() -> None:
    """Three runs at one count: the mean and Student's t half-width (t = 4.303 for 2
    degrees of freedom); one run has no interval; the report shows the repeats."""
    from dbbench.reports.o2c.studies import Interval, repeats

    i = Interval.of([10.0, 12.0, 14.0])
    assert i.mean == pytest.approx(12.0)
    assert i.half_width == pytest.approx(4.303 * 2.0 / 3**0.5)
    assert (
        Interval.of([5.0]).n == 1 and Interval.of([5.0]).half_width != Interval.of([5.0]).half_width
    )
    runs = [_loop_probe(rt=rt) for rt in (0.2, 0.25, 0.3)]
    (r,) = repeats([summarize(p, 1.0) for p in runs])
    assert r.users == 10 and r.avg_rt.n == 3 and r.avg_rt.mean == pytest.approx(0.25)
    law = [closed_loop_steps_per_hour(10, 1.0, rt) for rt in (0.2, 0.25, 0.3)]
    assert r.steps_per_hour.mean == pytest.approx(sum(law) / 3, rel=0.03)
    text = render_o2c(_result_of(runs), "text")
    assert "Repeated runs" in text and "mean ± 95 % CI" in text
    # one count probed with two pools (--work-processes auto) is not a repeat: the
    # PostgreSQL search of 2026-11-29 showed its 12,800 users at W 4 and W 8 as two runs
    wider = _loop_probe(rt=0.3)
    wider.work_processes = 4
    assert repeats([summarize(p, 1.0) for p in (runs[0], wider)]) == []
    assert "Repeated runs" not in render_o2c(_result_of([runs[0], wider]), "text")


def _result_of(probes: list[O2CProbe]) -> O2CResult:
    from dbbench.reports.model import EngineInfo, SystemInfo

    return O2CResult("run", 0.01, 1, 1.0, engine=EngineInfo("duckdb", "duckdb:///x"),
                     system=SystemInfo(), kit_version="0", probes=probes)  # fmt: skip


@pytest.mark.parametrize("tpch_url", ["duckdb"], indirect=True)
def test_run_repeat_keeps_every_run(tpch_url: str, tmp_path: Path) -> None:
    """``o2c run --repeat 2``: two runs in one result, the report's interval over them."""
    from dbbench.cli import main

    engine = open_engine(tpch_url)
    try:
        setup.prepare(engine, seed=2, users=6)
    finally:
        engine.close()
    out = tmp_path / "r.json"
    args = ["o2c", "run", "-e", tpch_url, "-u", "6", "--think", "0.1", "--steady", "1",
            "--rt-limit", "30", "--repeat", "2", "--progress", "60", "-o", str(out)]  # fmt: skip
    assert main(args) in (0, 3)
    result = O2CResult.read(out)
    assert [p.users for p in result.probes] == [6, 6]
    assert all(p.status == "complete" for p in result.probes)
    assert result.config["repeat"] == 2
    assert "Repeated runs" in render_o2c(result, "text")


def test_chart_axes_have_round_ticks_and_labels_inside() -> None:
    """The x axis is labelled at round values within the plot (not 34.1, 68.21, ...), the
    users and limit labels end inside the chart, and the search chart draws p90/p99."""
    import math

    from dbbench.reports.o2c.charts import O2C_PLOT, search_svg, x_ticks

    for xmax in (34.1, 170.5, 1234.0, 0.37):
        ticks = x_ticks(xmax)
        step = ticks[1] - ticks[0]
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert round(mantissa, 6) in (1, 2, 2.5, 5), (xmax, ticks)
        assert ticks == [pytest.approx(i * step) for i in range(len(ticks))]
        assert ticks[-1] <= xmax and len(ticks) >= 3
    probe = _loop_probe()
    html = o2c_family.render(_result_of([probe]), "html")
    for label in re.findall(r'<text x="([\d.]+)"[^>]*>([^<]*(?:users|limit))</text>', html):
        assert float(label[0]) <= O2C_PLOT.area[1], label  # the right edge
    svg = search_svg([(10, 0.2, True), (20, 0.5, False)], 1.0, [0.3, 0.8], [0.4, 0.9])
    assert ">p90</text>" in svg and ">p99</text>" in svg
    assert re.findall(r'text-anchor="middle" font-size="10">([\d,.]+)</text>', svg) == [
        "0", "5", "10", "15", "20"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("driver_cpu", "server_cpu", "named"),
    [(85.0, 30.0, True), (60.0, 30.0, False), (85.0, None, False)],
)
def test_a_wait_for_the_drivers_own_cpu_is_named(
    driver_cpu: float, server_cpu: float | None, named: bool
) -> None:
    """Mostly work-process wait while the driver process used 0.85 of a CPU over the 100-s
    window and the server's CPU was measured apart: the wait is named as most likely the
    driver's own CPU, and a wider pool is not advised. At 0.6 of a CPU, or with an embedded
    engine (no server CPU measured: its work is the driver's), the pool is named."""
    probe = _loop_probe(wait_share=0.9)
    probe.driver_cpu_seconds, probe.server_cpu_seconds, probe.host_cpus = driver_cpu, server_cpu, 2
    s = summarize(probe, 1.0)
    (said,) = [w for w in s.warnings if "waiting for a work process" in w]
    assert ("the driver process used 0.85 of a CPU" in said) == named
    assert ("raise --work-processes" in said) != named
    # the report's bottleneck row says what stood behind the wait
    assert s.driver_cpu_bound == (pytest.approx(0.85) if named else None)
    (row,) = [r for r in render_o2c(_result(probe), "text").splitlines() if "Bottleneck" in r]
    assert row.endswith(
        "work-process wait, behind the driver's CPU (0.85 of a CPU used): a wider pool will "
        "not lower it"
        if named
        else "work-process wait"
    ), row


@pytest.mark.parametrize(("limit", "advised"), [(1.0, True), (3.0, False)])
def test_a_pool_wait_that_cannot_change_the_verdict_is_not_advised_away(
    limit: float, advised: bool
) -> None:
    """A passing probe whose 0.25-s RT is 90 % work-process wait: against a 1-s limit a wider
    pool is advised; against a 3-s one the RT is under a tenth of the limit, so the warning
    says a wider pool would not change the verdict instead."""
    s = summarize(_loop_probe(wait_share=0.9), limit)
    assert s.passed, s.reasons
    (said,) = [w for w in s.warnings if "waiting for a work process" in w]
    assert ("raise --work-processes" in said) == advised, said
    assert ("not change this verdict: the RT is under 10% of the 3-s limit" in said) != advised


@pytest.mark.parametrize(
    ("rt", "limit", "widened"), [(0.009, 1.0, False), (0.25, 1.0, True), (0.009, 0.005, True)]
)
def test_a_pool_is_widened_only_where_its_wait_can_change_a_verdict(
    rt: float, limit: float, widened: bool
) -> None:
    """A probe whose RT is 90 % work-process wait: at 0.009 s under a 1-s limit (the 6,400
    users of the PostgreSQL SF 1 search of 2026-11-29) a wider pool cannot change its
    verdict and is not probed; at 0.25 s, or failing, it is."""
    from dbbench.reports.o2c.metrics import pool_bound

    assert pool_bound(summarize(_loop_probe(rt=rt, wait_share=0.9), limit)) == widened
    assert not pool_bound(summarize(_loop_probe(rt=rt, wait_share=0.1), limit))
