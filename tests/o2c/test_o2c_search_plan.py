"""The search's plan of probes (a pure function): doubling, then bisection, bounded."""

from __future__ import annotations

from dbbench.drivers.o2c.search import next_probe


def _run(capacity: int, start: int, top: int, max_probes: int = 12) -> list[int]:
    """The probes a search makes against a system that passes up to ``capacity`` users."""
    history: list[tuple[int, bool]] = []
    while (n := next_probe(history, start, top, max_probes, 0.05)) is not None:
        history.append((n, n <= capacity))
    return [n for n, _ in history]


def test_doubles_then_bisects_to_five_percent() -> None:
    probes = _run(capacity=1000, start=100, top=40_000)
    assert probes[:5] == [100, 200, 400, 800, 1600]
    assert probes[5:] == [1200, 1000, 1100, 1050]
    best = max(n for n in probes if n <= 1000)
    assert best == 1000  # found exactly: 1050 - 1000 is within 5 %
    assert len(probes) == 9


def test_first_probe_fails_bisects_downwards() -> None:
    assert _run(capacity=30, start=100, top=400) == [100, 50, 25, 37, 31, 28, 29, 30]


def test_everything_passes_up_to_the_prepared_users() -> None:
    assert _run(capacity=10**9, start=100, top=500) == [100, 200, 400, 500]


def test_budget_of_probes_is_kept() -> None:
    assert len(_run(capacity=777, start=1, top=10**6, max_probes=6)) == 6


def test_nothing_passes() -> None:
    assert _run(capacity=0, start=8, top=100) == [8, 4, 2, 1]
