"""The spec's formulas against hand-worked numbers and a published result."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from dbbench.reports.errors import ReportsError
from dbbench.reports.tpch import metrics


@pytest.mark.parametrize(
    ("seconds", "reported"),
    [(23.74, 23.7), (23.75, 23.8), (0.04, 0.1), (0.0, 0.1), (0.05, 0.1), (0.15, 0.2), (2.25, 2.3)],
)
def test_intervals_round_half_up_to_a_tenth_never_zero(seconds: float, reported: float) -> None:
    assert metrics.reported_interval(seconds) == reported


def test_round_half_up_quick_way_equals_the_decimal_rounding() -> None:
    """Away from ties round_half_up takes round(); it must give what rounding the value's
    repr as a Decimal gives, for every kind of float (ties, near ties, tiny, large)."""
    import random

    def decimal_way(value: float, places: int) -> float:
        exact = Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding="ROUND_HALF_UP")
        return float(exact)

    rng = random.Random(24)
    values = [rng.random() * 10 ** rng.randint(-4, 12) * rng.choice((1, -1)) for _ in range(20000)]
    values += [round(rng.random() * 1000, rng.randint(0, 4)) for _ in range(20000)]
    values += [k / 20 for k in range(-2000, 2000)] + [k / 2000 for k in range(2000)]
    values += [0.0, -0.0, 5e-324, 1e-300, 2.675, 1.005, 0.125, 1e15 + 0.5, 4e15, 1e17]
    for value in values:
        for places in (0, 1, 2, 3):
            got, want = metrics.round_half_up(value, places), decimal_way(value, places)
            assert (got, math.copysign(1, got)) == (want, math.copysign(1, want)), (value, places)


def test_power_of_equal_intervals_is_3600_sf_over_the_interval() -> None:
    # 24 intervals of 10 s: geometric mean 10 s, so Power = 3600 * SF / 10.
    assert metrics.power_at_size(1, [10.0] * 22, [10.0, 10.0]) == 360.0
    assert metrics.power_at_size(10, [10.0] * 22, [10.0, 10.0]) == 3600.0


def test_power_is_the_geometric_mean_of_24_intervals() -> None:
    # 11 queries at 2 s, 11 at 8 s, RFs at 4 s: geometric mean = (2^11 8^11 4^2)^(1/24) = 4.
    assert metrics.power_at_size(1, [2.0] * 11 + [8.0] * 11, [4.0, 4.0]) == 900.0


def test_small_query_cap_raises_short_queries_to_a_thousandth_of_the_longest() -> None:
    # Longest 2000 s, shortest 0.5 s: ratio 4000 > 1000, so 0.5 s becomes 2.0 s.
    queries = [2000.0] + [0.5] * 21
    assert metrics.small_query_cap(queries) == [2000.0] + [2.0] * 21
    expected = round(3600 / (2000 * 2.0**21 * 4.0 * 4.0) ** (1 / 24), 1)
    assert metrics.power_at_size(1, queries, [4.0, 4.0]) == expected
    uncapped = 3600 / math.exp(sum(math.log(t) for t in [*queries, 4.0, 4.0]) / 24)
    assert expected < uncapped


def test_cap_value_is_itself_a_reported_interval_and_rfs_are_untouched() -> None:
    # max 1234.56 s -> cap 1.23456 s -> reported 1.2 s (RFs never enter the cap).
    capped = metrics.small_query_cap([1234.56] + [0.3] * 21)
    assert capped[1:] == [1.2] * 21
    assert metrics.small_query_cap([1000.0] + [1.0] * 21) == [1000.0] + [1.0] * 21  # ratio = 1000


def test_throughput_hand_worked() -> None:
    assert metrics.throughput_at_size(1, 2, 3600.0) == 44.0
    assert metrics.throughput_at_size(100, 5, 7200.0) == 5500.0


def test_qphh_is_the_geometric_mean_of_power_and_throughput() -> None:
    assert metrics.qphh_at_size(360.0, 44.0) == 125.9  # sqrt(15840) = 125.857...


def test_the_lower_of_two_runs_is_reported() -> None:
    assert metrics.lower_qphh([1234.5, 1200.1], float) == 1200.1


def test_price_performance_rounds_up_to_the_cent() -> None:
    assert metrics.price_performance(Decimal("12.123"), 1.0) == Decimal("12.13")
    assert metrics.price_performance(Decimal("12.12"), 1.0) == Decimal("12.12")


def test_sun_fire_x4600_m2_at_300gb_is_reproduced() -> None:
    """Published: Power 67,095.6, Throughput 45,343.5 -> QphH 55,157.5; $154,284.19 ->
    $2.80/QphH; 168 x 146 GB + 3 x 73 GB disks -> storage ratio 76.82; 256 GB -> 85.3 %."""
    qphh = metrics.qphh_at_size(67095.6, 45343.5)
    assert qphh == 55157.5
    assert metrics.price_performance(Decimal("154284.19"), qphh) == Decimal("2.80")
    gib = 168 * metrics.decimal_gb_to_gib(146) + 3 * metrics.decimal_gb_to_gib(73)
    assert metrics.storage_ratio(gib, 300) == 76.82
    # Without converting decimal GB to GiB the ratio would not match the published value.
    assert metrics.storage_ratio(Decimal(168 * 146 + 3 * 73), 300) == 82.49
    assert metrics.memory_percent(256, 300) == 85.3


def test_spec_memory_example() -> None:
    assert metrics.memory_percent(256, 1000) == 25.6


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "00:00:00"), (59.5, "00:01:00"), (3723.4, "01:02:03"), (90061, "25:01:01")],
)
def test_durations_are_hh_mm_ss_to_the_second(seconds: float, text: str) -> None:
    assert metrics.hms(seconds) == text


def test_official_scale_factors_and_minimum_streams() -> None:
    assert metrics.min_streams(1) == 2
    assert metrics.min_streams(300) == 6
    assert metrics.min_streams(100000) == 11
    assert metrics.min_streams(3) is None  # SF 3 is explicitly not allowed
    assert not metrics.is_official_scale_factor(0.01)


def test_impossible_inputs_raise_one_line_errors() -> None:
    with pytest.raises(ReportsError, match="22 query and 2 refresh"):
        metrics.power_at_size(1, [1.0] * 21, [1.0, 1.0])
    with pytest.raises(ReportsError, match="positive"):
        metrics.throughput_at_size(1, 2, 0)
    with pytest.raises(ReportsError):
        metrics.reported_interval(-1)


def test_database_label_does_not_repeat_the_product_name() -> None:
    from dbbench.reports.tpch.summary import database_label

    assert database_label("duckdb", "DuckDB 2.0.0") == "DuckDB 2.0.0"
    assert database_label("postgresql", "16.4") == "postgresql 16.4"
    assert database_label("sqlite", "") == "sqlite"
    # the product named later in the version (the SF 0.1 suite said "spark Apache Spark")
    assert database_label("spark", "Apache Spark 4.2.1") == "Apache Spark 4.2.1"
    assert database_label("mariadb", "10.11.6-MariaDB-0+deb12u1") == "10.11.6-MariaDB-0+deb12u1"
    # a name inside another word is not the product
    assert database_label("sql", "MySQL 8.0.36") == "sql MySQL 8.0.36"
