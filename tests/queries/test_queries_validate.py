"""Answer checks: the shipped answers, the spec's tolerance rules, row order and ties."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from dbbench.queries.validate import (
    column_classes,
    compare_answer,
    compare_results,
    load_answers,
    values_match,
)

ROWS = {1: 4, 2: 100, 3: 10, 4: 5, 5: 5, 6: 1, 7: 4, 8: 2, 9: 175, 10: 20, 11: 1048}
ROWS |= {12: 2, 13: 42, 14: 1, 15: 1, 16: 18314, 17: 1, 18: 57, 19: 1, 20: 186, 21: 100, 22: 7}


def typed(query: int) -> list[tuple[Any, ...]]:
    """The official answer as a DB-API driver would return it (Decimal, int, date, str)."""
    out = []
    for row in load_answers(query)[1]:
        values: list[Any] = []
        for value, kind in zip(row, column_classes(query), strict=True):
            if kind in ("int", "cnt"):
                values.append(int(value))
            elif kind != "str":
                values.append(Decimal(value))
            elif len(value) == 10 and value[4] == "-" and value[:4].isdigit():
                values.append(date.fromisoformat(value))
            else:
                values.append(value)
        out.append(tuple(values))
    return out


def test_answer_files_row_counts() -> None:
    assert {q: len(load_answers(q)[1]) for q in range(1, 23)} == ROWS
    columns, rows = load_answers(1)
    assert columns[2] == "sum_qty" and columns[-1] == "count_order"
    assert rows[0] == (
        "A", "F", "37734107.00", "56586554400.73", "53758257134.87", "55909065222.83",
        "25.52", "38273.13", "0.05", "1478493",
    )  # fmt: skip
    assert load_answers(18)[1][0][0] == "Customer#000128120"


@pytest.mark.parametrize("query", range(1, 23))
def test_official_answer_passes_itself(query: int) -> None:
    verdict = compare_answer(query, typed(query))
    assert verdict.passed, verdict.first_mismatch
    assert verdict.rows_expected == verdict.rows_got == ROWS[query]


@pytest.mark.parametrize(
    ("kind", "expected", "got", "ok"),
    [
        ("sum", "1000.00", Decimal("1099.00"), True),  # off by 99
        ("sum", "1000.00", Decimal("1100.00"), True),  # off by exactly 100
        ("sum", "1000.00", Decimal("1101.00"), False),  # off by 101
        ("sum", "1000.00", 900.5, True),
        ("sum", "1000.00", 899.99, False),
        ("avg", "100.00", 101.004, True),  # rounds to 101.00: exactly 1 %
        ("avg", "100.00", 101.006, False),  # rounds to 101.01
        ("avg", "100.00", Decimal("98.995"), True),  # rounds half up to 99.00
        ("avg", "100.00", Decimal("98.994"), False),
        ("rat", "0.03", 0.0349, True),  # rounds to 0.03
        ("rat", "0.03", 0.0351, False),
        ("sumrat", "348406.02", 348506.02, True),  # within $100 and 1 %
        ("sumrat", "348406.02", 348506.03, False),  # 1 % allows it, the SUM rule does not
        ("exact", "37734107.00", Decimal("37734108"), False),  # SUM(l_quantity)
        ("exact", "37734107.00", 37734107, True),
        ("cnt", "1478493", 1478494, False),
        ("int", "1995", Decimal("1995"), True),
        ("num", "9938.53", Decimal("9938.54"), False),
        ("num", "9938.53", 9938.53, True),
        ("num", "13", "13", True),  # Q22 cntrycode comes back as text
        ("str", "Supplier#000005359       ", "Supplier#000005359", True),
        ("str", " haggle", "haggle", False),  # leading blanks are data
        ("str", "1995-03-15", date(1995, 3, 15), True),
        ("str", "FRANCE", "GERMANY", False),
        ("sum", "1.00", None, False),
        ("sum", "1.00", "abc", False),
    ],
)
def test_tolerance_rules(kind: str, expected: str, got: Any, ok: bool) -> None:
    assert values_match(kind, expected, got) is ok


def test_spec_overrides_colprecision() -> None:
    assert column_classes(1)[2] == "exact" and column_classes(1)[3] == "sum"
    assert column_classes(12) == ("str", "exact", "exact")
    assert column_classes(18)[5] == "exact"
    assert column_classes(8) == ("int", "sumrat")
    assert column_classes(17) == ("sumrat",)


def test_mismatch_names_row_column_values() -> None:
    rows = typed(1)
    row = list(rows[2])
    row[3] = row[3] + 101  # sum_base_price off by $101
    rows[2] = tuple(row)
    verdict = compare_answer(1, rows)
    assert not verdict.passed
    assert verdict.first_mismatch == (
        "row 3: column sum_base_price (sum): expected '111701729697.74', got '111701729798.74'"
    )


def test_row_count_mismatch() -> None:
    verdict = compare_answer(3, typed(3)[:9])
    assert (verdict.passed, verdict.rows_expected, verdict.rows_got) == (False, 10, 9)
    assert verdict.first_mismatch == "row 10: expected 10 rows, got 9"


def test_ties_may_come_in_any_order_but_nothing_else() -> None:
    rows = typed(16)  # ordered by supplier_cnt desc, p_brand, p_type, p_size: no ties
    swapped = [rows[1], rows[0], *rows[2:]]
    assert not compare_answer(16, swapped).passed
    # Q4 ordered by o_orderpriority: build a tie by hand in a cross-engine comparison.
    reference = [("1-URGENT", 10), ("1-URGENT", 11), ("2-HIGH", 3)]
    assert compare_results(4, reference, [reference[1], reference[0], reference[2]]).passed
    verdict = compare_results(4, reference, [reference[2], reference[0], reference[1]])
    assert not verdict.passed
    assert verdict.first_mismatch is not None and verdict.first_mismatch.startswith("row 1:")


def test_cross_engine_floats_against_decimals() -> None:
    reference = [("A", "F", Decimal("37734107.00"), Decimal("56586554400.73"))]
    got = [("A", "F", 37734107.0, 56586554400.73 + 50)]
    assert compare_results(7, reference, got).passed  # Q7: str str int sum
