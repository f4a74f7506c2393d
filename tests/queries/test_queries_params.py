"""Parameters identical to qgen 2.17.3: reference logs, redraws, permutations, Q11, seeds."""

from __future__ import annotations

from datetime import datetime

import pytest

from dbbench.queries.errors import QueriesError
from dbbench.queries.order import PERMUTATIONS, stream_order
from dbbench.queries.params import (
    default_parameters,
    parameter_log,
    q11_fraction,
    qgen_seed,
    seed_from_time,
    stream_parameters,
)

ALL = list(range(1, 23))

# qgen -r 0101000000 -s 1 -l: the log in tpch.md §4.3 (TPC ref_data/1/subparam_1).
LOG_101000000 = """\
1\t96
2\t28\tSTEEL\tMIDDLE EAST
3\tBUILDING\t1995-03-31
4\t1997-09-01
5\tMIDDLE EAST\t1994-01-01
6\t1994-01-01\t0.05\t25
7\tIRAN\tUNITED STATES
8\tUNITED STATES\tAMERICA\tMEDIUM BRUSHED STEEL
9\tlime
10\t1994-09-01
11\tKENYA\t0.0001000000
12\tSHIP\tAIR\t1993-01-01
13\tspecial\tpackages
14\t1993-09-01
15\t1995-07-01
16\tBrand#45\tECONOMY BURNISHED\t50\t22\t48\t47\t49\t3\t30\t5
17\tBrand#54\tWRAP DRUM
18\t314
19\tBrand#53\tBrand#55\tBrand#55\t6\t20\t22
20\tivory\t1997-01-01\tUNITED KINGDOM
21\tUNITED KINGDOM
22\t33\t34\t10\t24\t11\t18\t16
"""

# TPC ref_data/1/subparam_40 (qgen -r 319957209): Q7 and Q12 each need one redraw.
LOG_319957209 = """\
1\t94
2\t50\tBRASS\tAMERICA
3\tAUTOMOBILE\t1995-03-11
4\t1994-08-01
5\tAFRICA\t1993-01-01
6\t1993-01-01\t0.02\t24
7\tBRAZIL\tFRANCE
8\tBRAZIL\tAMERICA\tSMALL PLATED STEEL
9\tdim
10\t1993-10-01
11\tPERU\t0.0001000000
12\tSHIP\tTRUCK\t1995-01-01
13\texpress\taccounts
14\t1995-09-01
15\t1995-04-01
16\tBrand#41\tLARGE ANODIZED\t38\t11\t15\t42\t5\t34\t7\t41
17\tBrand#13\tJUMBO CAN
18\t314
19\tBrand#41\tBrand#25\tBrand#14\t1\t18\t20
20\tcoral\t1994-01-01\tSAUDI ARABIA
21\tFRANCE
22\t30\t11\t26\t13\t10\t16\t19
"""


def test_reference_log_seed_101000000() -> None:
    assert parameter_log(stream_parameters(101000000, 1), ALL) == LOG_101000000


def test_reference_log_with_redraws() -> None:
    assert parameter_log(stream_parameters(319957209, 1.0), ALL) == LOG_319957209


def test_q12_three_redraws() -> None:
    """ref_data/1/subparam_30 (qgen -r 237916899): Q12's second mode is drawn four times."""
    params = stream_parameters(237916899, 1)
    assert params[12] == ["RAIL", "AIR", "1995-01-01"]
    assert params[7] == ["FRANCE", "INDONESIA"]
    assert params[16] == ["Brand#23", "LARGE BRUSHED", "44", "22", "5", "25", "29", "34", "40", "6"]
    assert params[22] == ["21", "24", "26", "29", "27", "13", "34"]


@pytest.mark.parametrize(
    ("sf", "fraction"),
    [(1, "0.0001000000"), (100, "0.0000010000"), (100000, "0.0000000010"), (0.01, "0.0100000000")],
)
def test_q11_fraction(sf: float, fraction: str) -> None:
    """ref_data/100 and ref_data/100000 subparam_1: only the fraction depends on the SF."""
    params = stream_parameters(101000000, sf)
    assert params[11] == ["KENYA", fraction]
    assert q11_fraction(sf) == fraction
    assert {q: v for q, v in params.items() if q != 11} == {
        q: v for q, v in stream_parameters(101000000, 1).items() if q != 11
    }


def test_permutations_are_distinct_and_in_range() -> None:
    for seed in (1, 2, 617140309, 2147483646):
        params = stream_parameters(seed, 1)
        sizes = [int(v) for v in params[16][2:]]
        codes = [int(v) for v in params[22]]
        assert len(set(sizes)) == 8 and all(1 <= v <= 50 for v in sizes)
        assert len(set(codes)) == 7 and all(10 <= v <= 34 for v in codes)
        assert params[7][0] != params[7][1] and params[12][0] != params[12][1]


def test_defaults_are_qgen_d() -> None:
    params = default_parameters(1)
    assert params[6] == ["1994-01-01", ".06", "24"]
    assert params[18] == ["300"]
    assert params[16][2:] == ["49", "14", "23", "45", "19", "3", "36", "9"]
    assert default_parameters(100)[11] == ["GERMANY", "0.0000010000"]
    assert default_parameters(100, logged=True)[11] == ["GERMANY", "0.0001"]


def test_seed_from_time() -> None:
    assert seed_from_time(datetime(2026, 6, 17, 14, 3, 9)) == 617140309
    assert seed_from_time(datetime(2026, 1, 1, 0, 0, 0)) == 101000000


def test_qgen_seed_parsing() -> None:
    assert qgen_seed("0101000000") == 101000000
    assert qgen_seed("-5") == 2147483642


@pytest.mark.parametrize("seed", [-1, 0, 2147483647, 2 * 2147483647, "12", 1.5, True, 2**62])
def test_bad_seed(seed: object) -> None:
    with pytest.raises(QueriesError):
        stream_parameters(seed, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("sf", [0, -1, float("nan"), float("inf"), "1", None])
def test_bad_scale_factor(sf: object) -> None:
    with pytest.raises(QueriesError):
        stream_parameters(1, sf)  # type: ignore[arg-type]


def test_qgen_seed_rejects_text() -> None:
    with pytest.raises(QueriesError, match="integer"):
        qgen_seed("12a")


def test_stream_orders() -> None:
    assert stream_order(0) == [
        14,
        2,
        9,
        20,
        6,
        17,
        18,
        8,
        21,
        13,
        3,
        22,
        16,
        4,
        11,
        15,
        1,
        10,
        19,
        5,
        7,
        12,
    ]
    assert stream_order(40) == [
        13,
        15,
        17,
        1,
        22,
        11,
        3,
        4,
        7,
        20,
        14,
        21,
        9,
        8,
        2,
        18,
        16,
        6,
        10,
        12,
        5,
        19,
    ]
    assert stream_order(41) == stream_order(0)
    assert stream_order(83) == stream_order(1)
    assert len(PERMUTATIONS) == 41
    assert all(sorted(row) == ALL for row in PERMUTATIONS)


@pytest.mark.parametrize("stream", [-1, "1", 1.0, None])
def test_bad_stream(stream: object) -> None:
    with pytest.raises(QueriesError):
        stream_order(stream)  # type: ignore[arg-type]
