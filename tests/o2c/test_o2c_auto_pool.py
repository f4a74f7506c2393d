"""``--work-processes auto``'s rule (pure functions, verdicts constructed here): the search
widens the pool while the RT improves and the servers accept the connections; a wider pool
whose RT is worse decides nothing: the count keeps the narrower pool and its verdict."""

from __future__ import annotations

import json
import math
from pathlib import Path

from dbbench.drivers.o2c.search import Trial, pool_step, search_rule
from dbbench.drivers.o2c.study import chosen_pool, step_down
from dbbench.reports.o2c.model import O2CProbe

LIMIT = 1.0  # the RT limit, seconds
GOLDEN = Path(__file__).resolve().parents[1] / "reports" / "golden" / "families"


def test_a_worse_wider_pool_keeps_the_narrower_pool_and_its_pass() -> None:
    """The reported search: 3,500 users passed at W 64 (0.792 s), the search widened to
    W 94 (what the server still accepted) and got 1.247 s: 3,500 users pass, at W 64."""
    w64 = Trial(64, passed=True, rt=0.792, pool_bound=True)
    assert pool_step([w64], 3500, 94) == (w64, 94)
    w94 = Trial(94, passed=False, rt=1.247, pool_bound=True)
    assert pool_step([w64, w94], 3500, 94) == (w64, None)


def test_a_worse_wider_pool_that_passes_is_not_kept_either() -> None:
    w8 = Trial(8, passed=True, rt=0.4, pool_bound=True)
    w16 = Trial(16, passed=True, rt=0.5, pool_bound=False)
    assert pool_step([w8, w16], 100, None) == (w8, None)


def test_the_pool_widens_while_the_rt_improves() -> None:
    w16 = Trial(16, passed=False, rt=2.0, pool_bound=True)
    assert pool_step([w16], 1000, None) == (w16, 32)
    w32 = Trial(32, passed=False, rt=1.5, pool_bound=True)
    assert pool_step([w16, w32], 1000, None) == (w32, 64)
    w64 = Trial(64, passed=True, rt=0.8, pool_bound=False)  # the database holds the RT now
    assert pool_step([w16, w32, w64], 1000, None) == (w64, None)


def test_the_pool_is_bounded_by_the_users_and_the_servers_room() -> None:
    bound = Trial(64, passed=False, rt=1.5, pool_bound=True)
    assert pool_step([bound], 100, None) == (bound, 100)
    assert pool_step([bound], 100, 80) == (bound, 80)
    assert pool_step([bound], 100, 50) == (bound, None)  # no more connections: decided
    assert pool_step([bound], 64, None) == (bound, None)  # a work process per user already


def test_a_wider_probe_without_a_measured_rt_is_no_better() -> None:
    w4 = Trial(4, passed=True, rt=0.3, pool_bound=True)
    assert pool_step([w4, Trial(8, passed=False, rt=math.nan)], 50, None) == (w4, None)


class System:
    """A server whose RT grows with the users; work processes beyond 64 make it worse (say,
    contention in the database): every probe is mostly work-process wait."""

    def __init__(self) -> None:
        self.probes: list[tuple[int, int | None]] = []

    def __call__(self, users: int, pool: int | None) -> Trial:
        self.probes.append((users, pool))
        w = pool if pool is not None else 64
        rt = users / 3500 * (0.792 if w <= 64 else 1.247)
        return Trial(w, rt <= LIMIT, rt, pool_bound=True)


def test_the_search_goes_on_from_a_count_the_narrower_pool_passed() -> None:
    system = System()
    decided = search_rule(
        system, 3500, 10_000, max_probes=12, resolution=0.05, pool=64, room=lambda: 94
    )
    assert decided[3500] == Trial(64, True, 0.792, True)
    # 3,500 passed: the search doubles (it does not bisect below 3,500) from W 64
    assert system.probes[:3] == [(3500, 64), (3500, 94), (7000, 64)]
    assert all(pool == 64 for users, pool in system.probes[2::2]), system.probes
    passed = [n for n, t in decided.items() if t.passed]
    assert max(passed) == 4375  # 0.99 s at W 64; 4,593 (1.04 s) fails: within 5 %
    assert all(t.work_processes == 64 for t in decided.values())


def _probe(users: int, work_processes: int, role: str = "probe") -> O2CProbe:
    p = O2CProbe(users, 10.0, "fixed", work_processes, 0.0, 0.0, 0.0, 0.0, 0.0)
    if role == "confirmation":
        p.role = "confirmation"
    return p


def test_the_w_chosen_is_the_pool_kept_at_the_count() -> None:
    decided = {3500: Trial(64, True, 0.792, True), 7000: Trial(64, False, 1.584, True)}
    assert chosen_pool(_probe(3500, 94), decided) == 64  # not the wider pool it dropped
    assert chosen_pool(_probe(3500, 64), decided) == 64
    assert chosen_pool(_probe(3500, 64, "confirmation"), decided) == 64
    assert chosen_pool(_probe(1000, 32), decided) == 32  # a count the search did not decide


def test_the_confirmation_runs_at_the_largest_count_the_search_passed() -> None:
    decided = {
        3500: Trial(64, True, 0.792, True),
        7000: Trial(64, False, 1.584, True),
        5250: Trial(64, False, 1.188, True),
        4375: Trial(64, True, 0.99, True),
    }
    confirmed: list[int] = []
    notes: list[str] = []

    def confirm(users: int) -> O2CProbe:
        confirmed.append(users)
        return _probe(users, decided[users].work_processes, "confirmation")

    step_down(decided, lambda p: p.users < 4000, confirm, notes.append)
    assert confirmed == [4375, 3500]  # the largest failed its confirmation: one step down
    assert notes == ["confirmation failed: stepping down to 3,500 users"]


class CpuBound:
    """Two cores shared by the driver and the server (the PostgreSQL SF 1 search of
    2026-11-28): the RT grows with the cube of the users, every probe is mostly
    work-process wait, and W 8 is half as slow again as W 4 at any count."""

    def __init__(self, scale: float) -> None:
        self.scale = scale
        self.probes: list[tuple[int, int | None]] = []

    def __call__(self, users: int, pool: int | None) -> Trial:
        self.probes.append((users, pool))
        w = pool if pool is not None else 4
        rt = (users / 12_800) ** 3 * self.scale * (1.0 if w <= 4 else 1.5)
        return Trial(w, rt <= LIMIT, rt, pool_bound=True)


def test_a_pool_no_better_at_a_count_is_not_probed_again_above_it() -> None:
    """W 8 no better than W 4 at 6,400 users: every larger count is probed at W 4 only (the
    old rule probed W 8 again at each, doubling a search of 8-minute probes)."""
    system = CpuBound(0.44)
    decided = search_rule(system, 6400, 40_000, pool=4, room=lambda: None)
    assert system.probes == [
        (6400, 4), (6400, 8), (12_800, 4), (25_600, 4), (19_200, 4), (16_000, 4),
        (17_600, 4), (16_800, 4),
    ]  # fmt: skip
    assert max(n for n, t in decided.items() if t.passed) == 16_800
    assert all(t.work_processes == 4 for t in decided.values())


def test_a_pool_no_better_at_a_count_is_still_tried_below_it() -> None:
    """W 8 no better at 12,800 users (a fail): the bisection's 6,400 tries W 8 again (with
    less load the pool may be the limit), and nothing above 6,400 does."""
    system = CpuBound(1.2)
    search_rule(system, 12_800, 40_000, pool=4, room=lambda: None)
    assert system.probes[:5] == [(12_800, 4), (12_800, 8), (6400, 4), (6400, 8), (9600, 4)]
    assert all(pool == 4 for _, pool in system.probes[4:]), system.probes


def test_a_search_stopped_between_probes_says_so_and_chose_no_w(tmp_path: Path) -> None:
    """Ctrl-C after a probe ended and before the next began (2026-11-28: the file said
    ``complete``, no interruption, and W ``None`` instead of ``auto``): the result written
    says the search was interrupted, and its report that no W was chosen."""
    from dbbench.drivers.o2c.study import _stopped_between
    from dbbench.reports.o2c.metrics import summarize_result
    from dbbench.reports.o2c.model import O2CResult
    from dbbench.reports.o2c.render import summary_rows

    data = json.loads((GOLDEN / "o2c-v2.json").read_text())
    data["kind"] = "search"
    data["config"] = {**data["config"], "work_processes": "auto"}
    data["config"].pop("work_processes_chosen", None)
    path = tmp_path / "search.json"
    _stopped_between(O2CResult.from_dict(data), path)
    result = O2CResult.read(path)
    assert any(e.startswith("interrupted between probes") for e in result.errors), result.errors
    best = summarize_result(result).best
    assert best is not None
    rows = dict(summary_rows(result, best))
    assert rows["Work processes chosen (auto)"] == (
        "none: the search did not end (still running, or stopped)"
    )
    result.config["work_processes_chosen"] = None  # a search that ended with no count passed
    assert dict(summary_rows(result, best))["Work processes chosen (auto)"] == (
        "none: no user count passed"
    )
