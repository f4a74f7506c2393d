"""dbgen's random streams: Park–Miller with skip-ahead, vectorised over rows.

Every stream spends a fixed number of draws per row (its *budget*), so draw ``j`` (1-based)
of row ``r`` (0-based, counted from the table's first row) is the raw Park–Miller value
``seed · 16807^(r·budget + j) mod (2^31 − 1)``. A chunk of rows therefore needs no sequential
state: the per-row start values ``start · m^r`` (with ``m = 16807^budget``) are built by
doubling, and each draw column is one more modular product. That is what makes any chunk
of any table computable directly, and the whole generator vectorised.

The large-scale path (SF >= 30000) replaces two streams by a 64-bit LCG whose skip-ahead
still uses the 31-bit Park–Miller arithmetic on a 64-bit state, wrapping like C; see
:func:`pm_skip_wrapped`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

P = 2147483647  # 2^31 - 1, a Mersenne prime
A = 16807
LCG_A = 6364136223846793005
MASK64 = (1 << 64) - 1

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

#: Stream index -> (initial seed, draws per row), from dbgen's rnd.h (tpch.md §5.2).
SEEDS: dict[int, tuple[int, int]] = {
    0: (1, 1),
    1: (46831694, 1),
    2: (1841581359, 1),
    3: (1193163244, 1),
    4: (727633698, 1),
    5: (933588178, 1),  # the text pool, a single sequential stream
    6: (804159733, 2),
    7: (1671059989, 4),
    8: (1051288424, 4),
    9: (1961692154, 8),
    10: (1227283347, 1),
    11: (1171034773, 1),
    12: (276090261, 2),
    13: (1066728069, 1),
    14: (209208115, 7),
    15: (554590007, 7),
    16: (721958466, 7),
    17: (1371272478, 7),
    18: (675466456, 7),
    19: (1808217256, 7),
    20: (2095021727, 7),
    21: (1769349045, 7),
    22: (904914315, 7),
    23: (373135028, 7),
    24: (717419739, 7),
    25: (1095462486, 14),
    26: (881155353, 9),
    27: (1489529863, 1),
    28: (1521138112, 3),
    29: (298370230, 1),
    30: (1140279430, 1),
    31: (1335826707, 2),
    32: (706178559, 9),
    33: (110356601, 1),
    34: (884434366, 3),
    35: (962338209, 1),
    36: (1341315363, 2),
    37: (709314158, 92),
    38: (591449447, 1),
    39: (431918286, 1),
    40: (851767375, 1),
    41: (606179079, 2),
    42: (1500869201, 2),
    43: (1434868289, 1),
    44: (263032577, 1),
    45: (753643799, 1),
    46: (202794285, 1),
    47: (715851524, 1),
}


def skip(x: int, n: int) -> int:
    """Advance a Park–Miller state by ``n`` steps in O(log n) (dbgen's NthElement)."""
    return (x * pow(A, n, P)) % P


def step(x: int, n: int) -> int:
    """Advance one step at a time; the slow reference the skip-ahead is tested against."""
    for _ in range(n):
        x = (x * A) % P
    return x


def mulmod(a: U64, b: U64 | int) -> U64:
    """``a·b mod (2^31 − 1)`` for operands in [1, 2^31 − 2], by Mersenne folding.

    One fold leaves ``r < 2P`` (``r = 2P`` would need ``a·b = P·(P+2)``, impossible for
    operands below the prime P), and ``min(r, r − P)`` in unsigned arithmetic finishes it.
    """
    prod = np.multiply(a, np.uint64(b) if isinstance(b, int) else b)
    r = np.bitwise_and(prod, np.uint64(P))
    np.right_shift(prod, np.uint64(31), out=prod)
    r += prod
    np.subtract(r, np.uint64(P), out=prod)  # reuses prod's memory: one temporary less
    np.minimum(r, prod, out=r)
    return r


def geometric(start: int, m: int, n: int) -> U64:
    """``[start·m^0, start·m^1, …, start·m^(n−1)] mod P`` built by doubling."""
    out = np.empty(max(n, 1), dtype=np.uint64)
    out[0] = start % P
    filled, mk = 1, m % P  # mk = m^filled
    while filled < n:
        take = min(filled, n - filled)
        out[filled : filled + take] = mulmod(out[:take], mk)
        filled += take
        mk = (mk * mk) % P
    return out[:n]


@lru_cache(maxsize=64)
def _powers(m: int, n: int) -> U64:
    arr = geometric(1, m, n)
    arr.flags.writeable = False
    return arr


@lru_cache(maxsize=32)
def _draw_powers(budget: int, n: int, k: int) -> U64:
    """``m^r · A^j`` (m = A^budget) for rows r < n and draws j = 1..k, shape ``(n, k)``:
    draw j of row r is the stream's start value times this, one modular product."""
    steps = np.array([pow(A, j, P) for j in range(1, k + 1)], dtype=np.uint64)
    table = mulmod(_powers(pow(A, budget, P), n)[:, None], steps[None, :])
    table.flags.writeable = False
    return table


def draws(stream: int, first_row: int, n: int, k: int) -> U64:
    """Raw values of the first ``k`` draws of each of ``n`` rows, shape ``(n, k)``."""
    seed, budget = SEEDS[stream]
    return mulmod(_draw_powers(budget, n, k), skip(seed, first_row * budget))


def draw(stream: int, first_row: int, n: int) -> U64:
    """The first draw of each row (the common one-draw case)."""
    return draws(stream, first_row, n, 1).reshape(n)


def unif(x: U64, lo: int | I64, hi: int | I64) -> I64:
    """dbgen's UnifInt: ``lo + trunc((x / P) · (hi − lo + 1))`` in IEEE double.

    ``U(0, 2^31 − 1)`` reproduces the C overflow: the range becomes −2^31 and the result
    lies in (−2^31, 0], which the address generator relies on. Bounds may be per-row arrays.
    """
    if isinstance(lo, int) and isinstance(hi, int):
        rng: float | npt.NDArray[np.float64] = (
            -2147483648.0 if (lo == 0 and hi == P) else float(hi - lo + 1)
        )
    else:
        rng = (np.asarray(hi, dtype=np.int64) - lo + 1).astype(np.float64)
    vals = np.divide(x, float(P), dtype=np.float64)  # (double) x / P, as dbgen
    vals *= rng
    out = vals.astype(np.int64)  # C's truncation toward zero
    out += lo
    return out


# ---- the 64-bit path (SF >= 30000) ------------------------------------------------------


def _to_signed(v: int) -> int:
    v &= MASK64
    return v - (1 << 64) if v >= 1 << 63 else v


def pm_skip_wrapped(x: int, n: int) -> int:
    """dbgen's 31-bit skip applied to a 64-bit state: products wrap, ``%`` keeps the sign."""
    m = A
    while n > 0:
        if n & 1:
            prod = _to_signed(m * x)
            x = _c_mod(prod, P)
        n >>= 1
        m = (m * m) % P
    return x


def _c_mod(a: int, b: int) -> int:
    r = abs(a) % b
    return -r if a < 0 else r


def lcg_next(x: int) -> int:
    """One step of the 64-bit LCG, as a signed 64-bit value."""
    return _to_signed(x * LCG_A + 1)


def lcg_value(x: int, lo: int, hi: int) -> int:
    """``lo + (|x| mod range)`` with C's ``labs`` (|INT64_MIN| stays negative)."""
    ax = x if x == -(1 << 63) else abs(x)
    return lo + _c_mod(ax, hi - lo + 1)


def lcg_sequence(x0: int, n: int) -> I64:
    """States ``x1 .. xn`` of the LCG after ``x0``, vectorised by composing affine maps."""
    out = np.empty(n, dtype=np.uint64)
    if n == 0:
        return out.view(np.int64)
    out[0] = (x0 * LCG_A + 1) & MASK64
    filled, a_k, c_k = 1, LCG_A, 1  # x_{i+filled} = a_k·x_i + c_k
    with np.errstate(over="ignore"):
        while filled < n:
            take = min(filled, n - filled)
            out[filled : filled + take] = out[:take] * np.uint64(a_k) + np.uint64(c_k)
            c_k = (a_k * c_k + c_k) & MASK64
            a_k = (a_k * a_k) & MASK64
            filled += take
    return out.view(np.int64)


def lcg_values(states: I64, lo: int, hi: int) -> I64:
    """Vectorised :func:`lcg_value`."""
    ax = np.abs(states)  # INT64_MIN stays negative, as with C labs
    r = np.fmod(ax, np.int64(hi - lo + 1))
    return r + np.int64(lo)
