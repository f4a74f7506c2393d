"""The o2c arithmetic: the closed-loop law and SAP's SAPS arithmetic against the four
published SD-Parallel rows of the seed (../shared reference sap_sd.md section 6), and the
summary computed from raw step measurements."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from dbbench.reports.o2c.metrics import (
    closed_loop_steps_per_hour,
    implied_think,
    percentile,
    rating,
    summarize,
)
from dbbench.reports.o2c.model import O2CProbe, O2CSteps
from dbbench.reports.o2c.studies import scaling

# users, avg dialog RT (s), dialog steps/h, SAPS as published
PUBLISHED = [
    (13_718, 0.86, 4_545_729, 75_762),  # four Sun Blade X6270, cert 2009041
    (7_220, 0.99, 2_365_000, 39_420),  # two X6270, cert 2009040 (ds/h rounded to 1,000)
    (3_800, 0.99, 1_245_000, 20_750),  # one X6270, cert 2009039
]


@pytest.mark.parametrize(("users", "rt", "steps", "saps"), PUBLISHED)
def test_closed_loop_law_reproduces_published_rows(
    users: int, rt: float, steps: int, saps: int
) -> None:
    """X = N x 3600 / (10 + R) lands within 0.04 % of each published dialog-steps figure
    (13,718 users: 4,547,403 vs 4,545,729, +0.037 %; 7,220: 2,365,059 vs 2,365,000,
    +0.002 %; 3,800: 1,244,768 vs 1,245,000, -0.019 %): the published R is rounded to
    0.01 s, and 0.005 s of rounding moves X by 0.05 %."""
    predicted = closed_loop_steps_per_hour(users, 10.0, rt)
    assert abs(predicted - steps) / steps < 0.0004
    # the bound is the rounding of R: both neighbours of the published R bracket X
    assert closed_loop_steps_per_hour(users, 10.0, rt + 0.005) <= steps * 1.0001
    assert closed_loop_steps_per_hour(users, 10.0, rt - 0.005) >= steps * 0.9999
    # the think time implied by the published row is 10 s within 5 ms
    assert abs(implied_think(users, steps, rt) - 10.0) < 0.005


def test_rating_is_steps_per_hour_over_60() -> None:
    """SAPS = dialog steps/h / 60: exact for 4,545,729 -> 75,762(.15) and 1,245,000 ->
    20,750; 2,365,000 is itself rounded to thousands, so 39,420 (from the unrounded
    steps) lies within its rounding interval (39,408 .. 39,425)."""
    assert round(rating(4_545_729)) == 75_762
    assert rating(1_245_000) == 20_750
    assert rating(2_364_500) <= 39_420 <= rating(2_365_500)
    assert round(rating(closed_loop_steps_per_hour(13_718, 10.0, 0.86))) == 75_790  # +0.04 %


def test_fourth_row_users_and_saps_only() -> None:
    """Sun Fire X4270: 3,800 users and 21,000 SAPS, no RT published; the law then implies
    R = 3,800 x 3600 / (21,000 x 60) - 10 = 0.857 s (informational)."""
    steps = 21_000 * 60
    assert implied_think(3_800, steps, 0.0) - 10.0 == pytest.approx(0.857, abs=0.001)


def test_percentile_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 90) == 90.0
    assert percentile(values, 99) == 99.0
    assert percentile([3.0], 99) == 3.0
    assert math.isnan(percentile([], 50))


def _probe(rt: float, *, failed: int = 0, think: float = 1.0) -> O2CProbe:
    """A probe of 10 users in a perfect closed loop: each step takes ``rt``, users think
    ``think``; the window is 100 s. The users' phases are spread evenly over one loop (they
    logged on before the probe's time 0, as a whole-loop ramp-up has them)."""
    steps = O2CSteps()
    for user in range(10):
        t, k = -user * 15 * (rt + think) / 10, 0
        while t < 120:
            step = 0 if k == 0 else (k - 1) % 15 + 1
            steps.step.append(step)
            steps.user.append(user)
            steps.due.append(t)
            steps.wait.append(rt / 4)
            steps.db.append(rt * 3 / 4)
            steps.ok.append(0 if (failed and k == 5 and user < failed) else 1)
            t += rt + think
            k += 1
    return O2CProbe(
        users=10,
        think=think,
        think_dist="fixed",
        work_processes=2,
        rampup=1.0,
        start=0.0,
        window_start=10.0,
        window_end=110.0,
        end=120.0,
        status="complete",
        logged_on=10,
        steps=steps,
    )


def test_summary_of_a_perfect_closed_loop() -> None:
    s = summarize(_probe(0.25), rt_limit=1.0)
    assert s.passed and s.reasons == []
    assert s.avg_rt == pytest.approx(0.25)
    assert s.avg_wait == pytest.approx(0.0625)
    # 10 users x 3600 / (1 + 0.25) = 28,800 steps/h; the window holds 80 cycles per user
    assert s.steps_per_hour == pytest.approx(28_800, rel=0.01)
    assert s.rating == pytest.approx(s.steps_per_hour / 60)
    assert s.line_items_per_hour == pytest.approx(s.steps_per_hour / 3, rel=0.1)
    assert s.implied_think == pytest.approx(1.0, rel=0.02)
    assert set(s.per_step) == set(range(1, 16))  # the log-on is not a dialog step
    assert s.per_transaction["VA01"].count == sum(s.per_step[k].count for k in (1, 2, 3, 4))


def test_summary_fails_above_the_limit_and_on_errors() -> None:
    slow = summarize(_probe(1.5), rt_limit=1.0)
    assert not slow.passed
    assert any("above the limit 1 s" in r for r in slow.reasons)
    assert summarize(_probe(1.5), rt_limit=2.0).passed  # the pre-2009 rule
    broken = summarize(_probe(0.25, failed=2), rt_limit=1.0)
    assert not broken.passed and broken.errors == 2


def test_scaling_table_relative_throughput_and_efficiency() -> None:
    """10 users at 0.25 s: 28,800 steps/h. The same probe relabelled as 20 users with the
    same throughput is 1.00x relative and 0.50 efficient; sorted by users whatever the order."""
    base = summarize(_probe(0.25), rt_limit=1.0)
    flat = summarize(_probe(0.25), rt_limit=1.0)
    flat.users = 20
    slow = summarize(_probe(1.5), rt_limit=1.0)  # 10 users x 3600 / 2.5 = 14,400 steps/h
    slow.users = 5
    points = scaling([flat, base, slow])
    assert [p.users for p in points] == [5, 10, 20]
    assert points[0].relative == pytest.approx(1.0) and points[0].efficiency == pytest.approx(1.0)
    assert not points[0].passed and points[1].passed
    # 10 users: 28,800 / 14,400 = 2.0x for 2x the users -> efficiency 1.0
    assert points[1].relative == pytest.approx(2.0, rel=0.02)
    assert points[1].efficiency == pytest.approx(1.0, rel=0.02)
    # 20 users, same throughput as 10: 2.0x for 4x the users -> 0.5
    assert points[2].efficiency == pytest.approx(0.5, rel=0.02)
    assert scaling([]) == []


def test_a_failed_confirmation_rules_its_count_out() -> None:
    from dataclasses import replace

    from dbbench.reports.model import EngineInfo, SystemInfo
    from dbbench.reports.o2c.metrics import summarize_result
    from dbbench.reports.o2c.model import O2CResult

    def result(*probes: O2CProbe) -> O2CResult:
        return O2CResult("search", 0.01, 1, 1.0, engine=EngineInfo("duckdb", "duckdb:///x"),
                     system=SystemInfo(), kit_version="0", probes=list(probes))  # fmt: skip

    five = replace(_probe(0.25), users=5)
    ten = _probe(0.25)
    ten_confirmed = replace(_probe(0.3), role="confirmation")
    ten_failed = replace(_probe(1.5), role="confirmation")
    best = summarize_result(result(five, ten, ten_confirmed)).best
    assert best is not None and best.users == 10 and best.role == "confirmation"
    assert best.avg_rt == pytest.approx(0.3)  # the confirmation's figures, not the probe's
    best = summarize_result(result(five, ten, ten_failed)).best
    assert best is not None and best.users == 5 and best.role == "probe"


def test_a_window_under_15_minutes_is_labelled_short() -> None:
    """SD's rule is at least 15 minutes of high load: a 100-s window is labelled "short
    window, not SD-like"; a 900-s one is not."""
    from dataclasses import replace

    s = summarize(_probe(0.25), 1.0)
    assert not s.sd_like and any("short window, not SD-like" in w for w in s.warnings)
    long = replace(_probe(0.25), window_end=910.0)
    assert summarize(long, 1.0).sd_like
    assert not any("short window" in w for w in summarize(long, 1.0).warnings)


def test_what_ended_a_search_is_named() -> None:
    from dataclasses import replace

    from dbbench.drivers.o2c.study import limited_by

    ok10 = summarize(_probe(0.25), 1.0)
    ok20 = replace(summarize(_probe(0.25), 1.0), users=20)
    slow40 = replace(summarize(_probe(1.5), 1.0), users=40)
    assert limited_by([ok10, ok20, slow40], 20, None) == "response time"
    assert limited_by([ok10, ok20], 20, 20) == "--max-users"
    assert limited_by([ok10, ok20], 20, None) == "probe budget or users prepared"


def test_a_worse_wider_pool_leaves_the_count_to_the_narrower_pool_in_the_report() -> None:
    """``--work-processes auto`` without a confirmation: 10 users pass at W 2 (0.25 s), the
    search widens to W 4 and gets 1.5 s (a fail). The report decides the count as the search
    does (``pool_step``): the narrower pool and its pass, not the last, worse probe."""
    from dataclasses import replace

    from dbbench.drivers.o2c.search import Trial, pool_step
    from dbbench.reports.model import EngineInfo, SystemInfo
    from dbbench.reports.o2c.metrics import summarize, summarize_result
    from dbbench.reports.o2c.model import O2CResult

    def result(*probes: O2CProbe) -> O2CResult:
        return O2CResult("search", 0.01, 1, 1.0, engine=EngineInfo("duckdb", "duckdb:///x"),
                     system=SystemInfo(), kit_version="0", probes=list(probes))  # fmt: skip

    five = replace(_probe(0.2), users=5)
    narrow = _probe(0.25)
    worse = replace(_probe(1.5), work_processes=4)
    better = replace(_probe(0.1), work_processes=4)
    found = summarize_result(result(five, narrow, worse))
    best = found.best
    assert best is not None and best.users == 10 and best.work_processes == 2
    assert best.avg_rt == pytest.approx(0.25)
    # the search's own rule picks the same probe from the same figures
    trials = [
        Trial(p.work_processes, p.passed, p.avg_rt, pool_bound=True)
        for p in (summarize(narrow, 1.0), summarize(worse, 1.0))
    ]
    kept, _ = pool_step(trials, 10, None)
    assert (kept.work_processes, kept.passed) == (best.work_processes, best.passed)
    # a wider pool that is better decides the count
    best = summarize_result(result(five, narrow, better)).best
    assert best is not None and best.work_processes == 4 and best.avg_rt < 0.25


def test_the_step_mix_check_allows_a_short_window_its_chance_deviations() -> None:
    """A step 30 % above the nominal: chance in a window of 360 steps (24 nominal, a binomial
    standard deviation of 4.7 steps), a bad mix in one of 15,000 (1,000 nominal, 31)."""
    from dbbench.reports.o2c.metrics import mix_reasons

    def counts(total: int, first: float) -> dict[int, int]:
        nominal = total / 15
        rest = (total - first * nominal) / 14
        return {1: round(first * nominal), **{k: round(rest) for k in range(2, 16)}}

    assert mix_reasons(counts(360, 1.3)) == []
    assert mix_reasons(counts(360, 1.7))  # beyond chance there too
    (reason,) = mix_reasons(counts(15_000, 1.3))
    assert "step 1 8.7%" in reason


def _rising(rt_at: Callable[[float], float]) -> O2CProbe:
    """:func:`_probe` at 0.1 s, each step then waiting for a work process so that its
    response time is ``rt_at(due)``: a load whose queues grow (or not) through the window."""
    probe = _probe(0.1)
    s = probe.steps
    for i, due in enumerate(s.due):
        s.wait[i] = max(0.0, rt_at(due) - s.db[i])
    return probe


def test_a_window_whose_queues_were_still_growing_is_not_steady() -> None:
    """The response time rising from 0.05 s to 0.85 s across the window averages 0.45 s,
    under the 1-s limit, but the second half's 0.65 s is 0.4 s above the first half's
    0.25 s: the load is beyond what the system sustains and the probe fails, saying so.
    A flat 0.8 s passes, and so does a bump from 0.01 s to 0.2 s (within 25 % of the limit:
    chance, a checkpoint), or a rise judged against a 2-s limit."""
    from dbbench.reports.o2c.metrics import summarize

    def rising(t: float) -> float:
        return 0.05 + 0.8 * min(1.0, max(0.0, (t - 10.0) / 100.0))

    s = summarize(_rising(rising), 1.0)
    assert s.avg_rt == pytest.approx(0.45, abs=0.03)
    assert not s.passed
    (reason,) = s.reasons
    assert reason.startswith("not steady: the average response time rose from 0.2")
    assert "to 0.6" in reason and "tolerance 25% of the 1-s limit" in reason
    assert summarize(_rising(rising), 2.0).passed
    assert summarize(_rising(lambda t: 0.8), 1.0).passed
    assert summarize(_rising(lambda t: 0.01 if t < 60 else 0.2), 1.0).passed
