"""Random streams: skip-ahead equals stepping, vectorised draws equal scalar ones, C quirks."""

from __future__ import annotations

import numpy as np
import pytest

from dbbench.dbgen import rng


@pytest.mark.parametrize("n", [0, 1, 2, 7, 92, 1000, 12345])
def test_skip_equals_stepping(n: int) -> None:
    for seed in (1, 933588178, rng.P - 1):
        assert rng.skip(seed, n) == rng.step(seed, n)


def test_mulmod_matches_python_modulo() -> None:
    gen = np.random.default_rng(7)
    a = gen.integers(1, rng.P, 100_000, dtype=np.uint64)
    b = gen.integers(1, rng.P, 100_000, dtype=np.uint64)
    a[:3] = [1, rng.P - 1, rng.P - 1]
    b[:3] = [rng.P - 1, rng.P - 1, 2]
    expected = [(int(x) * int(y)) % rng.P for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    assert rng.mulmod(a, b).tolist() == expected


def test_row_draws_equal_scalar_stream() -> None:
    """Draw j of row r is the (r·budget + j)-th step of the stream, whatever the row."""
    stream, first, rows, k = 25, 12_345, 5, 14
    seed, budget = rng.SEEDS[stream]
    got = rng.draws(stream, first, rows, k)
    x = rng.step(seed, first * budget)
    for r in range(rows):
        for j in range(k):
            x = (x * rng.A) % rng.P
            assert int(got[r, j]) == x, (r, j)
    assert np.array_equal(rng.draw(stream, first, rows), got[:, 0])


def test_geometric_by_doubling() -> None:
    got = rng.geometric(5, 16807**3 % rng.P, 1000)
    assert [int(v) for v in got[:4]] == [5 * pow(16807, 3 * i, rng.P) % rng.P for i in range(4)]
    assert int(got[999]) == 5 * pow(16807, 3 * 999, rng.P) % rng.P


def test_unif_truncates_like_c() -> None:
    x = np.array([1, rng.P // 2, rng.P - 1], dtype=np.uint64)
    expected = [1 + int((float(v) / rng.P) * 7.0) for v in x.tolist()]
    assert rng.unif(x, 1, 7).tolist() == expected
    assert rng.unif(np.array([rng.P - 1], dtype=np.uint64), 1, 7).tolist() == [7]


def test_unif_full_int_range_overflows_to_non_positive() -> None:
    """U(0, 2^31−1) is computed with a range of −2^31 in dbgen (the a_rnd quirk)."""
    x = np.array([1, 1000, rng.P // 3, rng.P - 1], dtype=np.uint64)
    got = rng.unif(x, 0, rng.P)
    assert (got <= 0).all() and (got > -(2**31)).all()
    assert got.tolist() == [int((float(v) / rng.P) * -2147483648.0) for v in x.tolist()]


def test_unif_per_row_bounds() -> None:
    x = np.array([rng.P - 1, rng.P - 1], dtype=np.uint64)
    assert rng.unif(x, 0, np.array([3, 9])).tolist() == [3, 9]


def test_lcg_sequence_equals_stepping() -> None:
    x0 = 851767375
    seq = rng.lcg_sequence(x0, 100)
    x, expected = x0, []
    for _ in range(100):
        x = rng.lcg_next(x)
        expected.append(x)
    assert seq.tolist() == expected
    values = rng.lcg_values(seq, 1, 4_500_000_000)
    assert values.tolist() == [rng.lcg_value(v, 1, 4_500_000_000) for v in expected]


def test_wrapped_skip_on_64_bit_state() -> None:
    """The 31-bit skip on a 64-bit state wraps the product and keeps the dividend's sign."""
    assert rng.pm_skip_wrapped(12345, 1000) == rng.skip(12345, 1000)  # no wrap below 2^31
    x = -5_000_000_000_000_000_000 // 3
    prod = np.array([x], dtype=np.int64) * np.int64(16807)  # wraps like C
    assert rng.pm_skip_wrapped(x, 1) == int(np.fmod(prod, np.int64(rng.P))[0])
