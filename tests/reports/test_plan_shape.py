"""``plan_shape``: what a plan's hash ignores (literals, numbers, the run's view token, box
drawing, runs of blanks, trailing blanks) and what it keeps (the operators and their
order). Results store these hashes: the normalisation must not drift."""

from __future__ import annotations

from dbbench.reports.tpch.model import plan_shape

PLAN = (
    "HASH_JOIN\n"
    "    Conditions: l_orderkey = o_orderkey \t\n"
    "  SEQ_SCAN lineitem\n"
    "      Filters: l_shipdate<='1998-09-02'::DATE  AND l_quantity > 24.5\n"
    "  SEQ_SCAN revenue1_r1_0a1b2c\n"
    "┌───────┐\n"
    "│ 12345 rows │   \n"
)


def test_the_same_plan_with_other_parameters_has_the_same_shape() -> None:
    other = (
        PLAN.replace("1998-09-02", "1998-12-01")
        .replace("24.5", "7")
        .replace("_r1_0a1b2c", "_r2_ffee00")
        .replace("┌───────┐", "┌──┐")
        .replace("12345", "9")
        .replace("  AND", " AND")
    )
    assert plan_shape(other) == plan_shape(PLAN)


def test_the_shape_text_is_stable() -> None:
    assert plan_shape(PLAN).splitlines() == [
        "HASH_JOIN",
        " Conditions: l_orderkey = o_orderkey",
        " SEQ_SCAN lineitem",
        " Filters: l_shipdate<=?::DATE AND l_quantity > #",
        " SEQ_SCAN revenue#",
        "",
        " # rows",
    ]


def test_another_operator_or_order_is_another_shape() -> None:
    assert plan_shape(PLAN.replace("HASH_JOIN", "NESTED_LOOP_JOIN")) != plan_shape(PLAN)
    lines = PLAN.splitlines()
    swapped = "\n".join([lines[0], lines[1], lines[4], lines[3], lines[2], *lines[5:]])
    assert plan_shape(swapped) != plan_shape(PLAN)
