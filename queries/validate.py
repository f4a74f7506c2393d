"""Answer checks: the official SF1 answers with the spec's tolerances, and cross-engine checks.

Column classes come from the TPC's ``colprecision.txt``; where that file is looser than the
specification (clause 2.1.3.5) the specification wins: SUM(l_quantity) and SUMs of 0/1 must
match exactly, and values built from SUMs and ratios (Q8, Q14, Q17) must meet both the ratio
and the SUM rule. Rows may come in any order only where the ORDER BY keys tie.
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import cache, partial
from importlib import resources
from importlib.resources.abc import Traversable
from itertools import compress, islice
from json.encoder import encode_basestring as _encode_string
from pathlib import Path
from typing import Any

from dbbench.queries.errors import QueriesError
from dbbench.queries.order import check_query

CENT = Decimal("0.01")
SUM_TOLERANCE = Decimal(100)  # "within $100" [SPEC 2.1.3.5 c]
RATIO_TOLERANCE = Decimal("0.01")  # "within 1 % after rounding to 1/100" [b, d]
FLOAT_NOISE = Decimal("1e-12")  # relative difference of one value computed two ways

#: Columns whose class the specification makes stricter than colprecision.txt:
#: Q1 sum_qty and Q18's sum are SUM(l_quantity) (Comment 4); Q12's counts are SUMs of 0/1
#: (Comment 2); Q8, Q14, Q17 combine SUMs and ratios (Comment 1).
_SPEC_CLASSES: dict[tuple[int, int], str] = {
    (1, 2): "exact",
    (18, 5): "exact",
    (12, 1): "exact",
    (12, 2): "exact",
    (8, 1): "sumrat",
    (14, 0): "sumrat",
    (17, 0): "sumrat",
}

#: Output columns (0-based) of each query's ORDER BY; rows may be reordered only where these tie.
ORDER_KEYS: dict[int, tuple[int, ...]] = {
    1: (0, 1), 2: (0, 2, 1, 3), 3: (1, 2), 4: (0,), 5: (1,), 6: (), 7: (0, 1, 2), 8: (0,),
    9: (0, 1), 10: (2,), 11: (1,), 12: (0,), 13: (1, 0), 14: (), 15: (0,), 16: (3, 0, 1, 2),
    17: (), 18: (4, 3), 19: (), 20: (0,), 21: (1, 0), 22: (0,),
}  # fmt: skip


@dataclass(frozen=True)
class QueryVerdict:
    """The outcome of one answer check; ``first_mismatch`` names row, column and values."""

    query: int
    passed: bool
    rows_expected: int
    rows_got: int
    first_mismatch: str | None = None


@cache
def column_classes(query: int) -> tuple[str, ...]:
    """Comparison class of each output column: str, int, cnt, num, sum, avg, rat, exact,
    sumrat (colprecision.txt with the specification's stricter rules applied)."""
    check_query(query)
    lines = _answer_file("colprecision.txt").splitlines()
    classes = lines[query - 1].split()
    return tuple(_SPEC_CLASSES.get((query, i), c) for i, c in enumerate(classes))


def _answer_file(name: str) -> str:
    return _shipped_dir(OFFICIAL_SF).joinpath(name).read_text("utf-8")


OFFICIAL_SF = 1.0  # the TPC's own answers; other shipped sets were made by two engines
MANIFEST = "manifest.json"  # a made set's engines, versions, date and seconds


def answer_set_name(sf: float) -> str:
    """The folder of a scale factor's answer set: ``sf1``, ``sf10``, ``sf0.01``."""
    return f"sf{sf:g}"


def _shipped_dir(sf: float) -> Traversable:
    return resources.files(__package__).joinpath("answers", answer_set_name(sf))


def shipped_scale_factors() -> list[float]:
    """The scale factors whose answer set ships with the package, smallest first."""
    root = resources.files(__package__).joinpath("answers")
    found = []
    for entry in root.iterdir():
        if entry.name.startswith("sf") and entry.joinpath("q1.out").is_file():
            try:
                found.append(float(entry.name[2:]))
            except ValueError:
                continue
    return sorted(found)


AnswerSource = float | Path
Answer = tuple[list[str], list[tuple[str | None, ...]]]
"""An answer's column names and rows as text (None: NULL)."""
"""Where an answer set is: a scale factor (the set shipped for it) or a folder."""


def _set_dir(source: AnswerSource) -> Traversable | Path:
    if isinstance(source, Path):
        return source
    if source not in shipped_scale_factors():
        shipped = ", ".join(f"{s:g}" for s in shipped_scale_factors())
        raise QueriesError(
            f"no answer set ships for SF {source:g} (shipped: SF {shipped}); use --against URL"
            " to compare with a reference engine, or make one with dbbench answers make"
        )
    return _shipped_dir(source)


def answer_set_scale(directory: Path) -> float:
    """The scale factor a made answer set's ``manifest.json`` names (one clear error when
    the folder holds no readable set)."""
    try:
        document = json.loads((directory / MANIFEST).read_text("utf-8"))
        sf = float(document["scale_factor"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise QueriesError(f"{directory}: not an answer set ({MANIFEST}: {exc})") from None
    if not (directory / "q1.out").is_file():
        raise QueriesError(f"{directory}: not an answer set (no q1.out)")
    return sf


def parse_answer(query: int, text: str, name: str) -> Answer:
    """One answer file's column names and rows as text (the official SF1 layout: a header
    and ``|``-separated fields). String columns are right-trimmed (their leading blanks are
    data); others fully trimmed, an empty one is NULL (Q17's average over no rows at a tiny
    scale factor)."""
    classes = column_classes(query)
    header, *lines = text.splitlines()
    columns = [column.strip() for column in header.split("|")]
    rows = []
    for line in lines:
        fields = line.split("|")
        if len(fields) != len(classes):
            raise QueriesError(f"{name}: a row has {len(fields)} fields, not {len(classes)}")
        rows.append(
            tuple(
                f.rstrip() if c == "str" else (f.strip() or None)
                for f, c in zip(fields, classes, strict=True)
            )
        )
    return columns, rows


def load_answers(query: int, source: AnswerSource = OFFICIAL_SF) -> Answer:
    """The answer of the default-parameter query in an answer set (the shipped set of a
    scale factor, default the official SF1 one, or a folder, read afresh each time): column
    names and rows."""
    if isinstance(source, Path):
        return _read_answer(query, source)
    return _shipped_answer(query, float(source))


@cache
def _shipped_answer(query: int, sf: float) -> Answer:
    return _read_answer(query, sf)


def _read_answer(query: int, source: AnswerSource) -> Answer:
    check_query(query)
    name = f"q{query}.out"
    try:
        text = _set_dir(source).joinpath(name).read_text("utf-8")
    except OSError as exc:
        raise QueriesError(f"answer set {source}: cannot read {name} ({exc})") from None
    return parse_answer(query, text, name)


def format_answer(query: int, rows: Sequence[Sequence[Any]]) -> str:
    """An answer file's text in the official layout (the SF1 set's header, ``|``-separated
    fields), each value in its column class's canonical form (:func:`canonical_rows`:
    numbers to the cent as the official answers print them, exact ones whole)."""
    names = load_answers(query)[0]
    lines = ["|".join(names)]
    classes = column_classes(query)
    for row in canonical_rows(query, rows):
        for kind, value in zip(classes, row, strict=True):
            if value is None and kind != "str":
                continue  # an empty field
            if value is None or "|" in value or "\n" in value:
                raise QueriesError(f"Q{query}: the value {value!r} cannot be written as text")
        lines.append("|".join(v or "" for v in row))
    return "\n".join(lines) + "\n"


def _text(value: Any) -> str:
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == datetime.min.time() else str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode()
    return str(value).rstrip()


def _number(value: Any) -> Decimal:
    if isinstance(value, Decimal):
        return value
    if isinstance(value, float):
        return Decimal(repr(value))
    try:
        return Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"not a number: {value!r}") from None


def _round(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def _within_ratio(expected: Decimal, got: Decimal) -> bool:
    """Spec rule b/d: 0.99 v <= round(r, 2) <= 1.01 v, v as printed (2 decimals).

    A reference engine's v has full precision, so it is rounded too; two values equal up to
    binary floating-point noise always pass (they may round to different cents).
    """
    if abs(got - expected) <= abs(expected) * FLOAT_NOISE:
        return True
    v = _round(expected)
    return abs(_round(got) - v) <= abs(v) * RATIO_TOLERANCE


_RULES: dict[str, Callable[[Decimal, Decimal], bool]] = {
    "int": lambda e, g: e == g,
    "cnt": lambda e, g: e == g,
    "exact": lambda e, g: e == g,
    "num": lambda e, g: _round(e) == _round(g),
    "sum": lambda e, g: abs(e - g) <= SUM_TOLERANCE,
    "avg": _within_ratio,
    "rat": _within_ratio,
    "sumrat": lambda e, g: _within_ratio(e, g) and abs(e - g) <= SUM_TOLERANCE,
}


def values_match(kind: str, expected: Any, got: Any) -> bool:
    """Whether one value is acceptable under the rule of its column class."""
    if expected is None or got is None:
        return expected is None and got is None
    if kind == "str":
        return _text(expected) == _text(got)
    try:
        return _RULES[kind](_number(expected), _number(got))
    except ValueError:
        return False


def _tie_key(classes: Sequence[str], keys: tuple[int, ...], row: Sequence[Any]) -> tuple[str, ...]:
    out = []
    for i in keys:
        value = row[i]
        if classes[i] == "str" or value is None:
            out.append(_text(value))
        else:
            try:
                out.append(str(_round(_number(value))))
            except ValueError:
                out.append(_text(value))
    return tuple(out)


def _row_mismatch(
    query: int, names: Sequence[str], expected: Sequence[Any], got: Sequence[Any]
) -> str | None:
    classes = column_classes(query)
    if len(got) != len(classes):
        return f"{len(got)} columns, expected {len(classes)}"
    for i, kind in enumerate(classes):
        if not values_match(kind, expected[i], got[i]):
            want, have = _text(expected[i]), _text(got[i])
            return f"column {names[i]} ({kind}): expected {want!r}, got {have!r}"
    return None


def _runs(query: int, rows: Sequence[Sequence[Any]]) -> list[range]:
    """Positions of the rows grouped into runs whose ORDER BY keys tie."""
    classes, keys = column_classes(query), ORDER_KEYS[query]
    runs: list[range] = []
    start = 0
    while start < len(rows):
        key = _tie_key(classes, keys, rows[start])
        end = start + 1
        while end < len(rows) and _tie_key(classes, keys, rows[end]) == key:
            end += 1
        runs.append(range(start, end))
        start = end
    return runs


def _compare(
    query: int,
    names: Sequence[str],
    expected: Sequence[Sequence[Any]],
    got: Sequence[Sequence[Any]],
) -> QueryVerdict:
    """Compare in order; rows inside one run of tied ORDER BY keys may be permuted."""

    def failed(position: int, reason: str) -> QueryVerdict:
        return QueryVerdict(query, False, len(expected), len(got), f"row {position + 1}: {reason}")

    for run in _runs(query, expected):
        unused = list(run)
        for position in (p for p in run if p < len(got)):
            match = next(
                (j for j in unused if not _row_mismatch(query, names, expected[j], got[position])),
                None,
            )
            if match is None:
                reason = _row_mismatch(query, names, expected[position], got[position])
                return failed(position, reason or "repeats a row already matched")
            unused.remove(match)
    if len(expected) != len(got):
        return failed(
            min(len(expected), len(got)), f"expected {len(expected)} rows, got {len(got)}"
        )
    return QueryVerdict(query, True, len(expected), len(got))


def compare_answer(
    query: int, got_rows: Sequence[Sequence[Any]], source: AnswerSource = OFFICIAL_SF
) -> QueryVerdict:
    """Check a result of the default-parameter query against an answer set's (default: the
    official SF1 answer; a scale factor names its shipped set; a folder, a made one)."""
    names, expected = load_answers(query, source)
    return _compare(query, names, expected, got_rows)


def compare_results(
    query: int, expected_rows: Sequence[Sequence[Any]], got_rows: Sequence[Sequence[Any]]
) -> QueryVerdict:
    """Check a result against a reference engine's result for the same query and data."""
    names = load_answers(query)[0]
    return _compare(query, names, expected_rows, got_rows)


def _canonical_slow(kind: str, value: Any) -> str | None:
    if value is None:
        return None
    if kind == "str":
        return _text(value)
    try:
        number = _number(value)
    except ValueError:
        return _text(value)
    if kind in _WHOLE:
        return format(number.normalize(), "f")
    return format(_round(number), "f")


_WHOLE = frozenset(("int", "cnt", "exact"))


def _canonical_str(value: Any) -> str | None:
    return value.rstrip() if value.__class__ is str else _canonical_slow("str", value)


def _canonical_whole(value: Any) -> str | None:
    return str(value) if value.__class__ is int else _canonical_slow("exact", value)


def _canonical_cents(value: Any) -> str | None:
    if value.__class__ is Decimal:
        return str(value.quantize(CENT, rounding=ROUND_HALF_UP))
    if value.__class__ is int:
        return f"{value}.00"
    return _canonical_slow("num", value)


def _canonical_of(kind: str) -> Callable[[Any], str | None]:
    """The one-value normaliser of a column class: text right-trimmed, integers and exact
    values as their plain decimal form, every other number rounded to the cent (the
    precision the specification prints answers at)."""
    if kind == "str":
        return _canonical_str
    return _canonical_whole if kind in _WHOLE else _canonical_cents


_TO_CENT = partial(Decimal.quantize, exp=CENT, rounding=ROUND_HALF_UP)
_INT_CENTS = "{}.00".format  # an int to the cent without a Python call per value


def _canonical_column(kind: str, column: Sequence[Any]) -> list[str | None]:
    """One column's values normalised (:func:`_canonical_of`); a column of one Python type
    takes a path without a Python call per value."""
    types = set(map(type, column))
    if types == {str} and kind == "str":
        return list(map(str.rstrip, column))
    if types == {int}:
        return list(map(str if kind in _WHOLE else _INT_CENTS, column))
    if types == {Decimal} and kind not in _WHOLE:
        return list(map(str, map(_TO_CENT, column)))
    return list(map(_canonical_of(kind), column))  # None: the slow path's


@dataclass(frozen=True)
class _Encoded:
    """One column's canonical values as JSON text: each value's ``text`` between ``before``
    and ``after``. A column of one number type is its values' bare text (an int's or a
    Decimal's own digits), and a text column with nothing JSON escapes, is its values' bare
    text, its quotes (and an int's cents) carried by the separators, so no Python call per
    value makes them; any other column is its values as JSON string literals (or
    ``null``), with nothing around them."""

    text: list[str]
    before: str = ""
    after: str = ""


#: the UTF-8 bytes of every character JSON leaves as it is in a string literal (not
#: ASCII-escaped, ``encode_basestring``: all but the controls, quote and backslash)
_UNESCAPED = bytes(b for b in range(256) if b >= 0x20 and b not in b'"\\')


def _encoded_column(kind: str, column: Sequence[Any]) -> _Encoded:
    """One column's canonical values (:func:`_canonical_column`) normalised and encoded in
    one pass; a column of one Python type (the digest of a large output is this) takes a
    path without a Python call per value. The encoding is one to one, so rows tie in the
    encoded text exactly where their canonical values tie."""
    types = set(map(type, column))
    if types == {str} and kind == "str":
        text = list(map(str.rstrip, column))
        if not "".join(text).encode("utf-8", "surrogatepass").translate(None, _UNESCAPED):
            return _Encoded(text, '"', '"')
        return _Encoded(list(map(_encode_string, text)))
    if types == {int}:
        return _Encoded(list(map(str, column)), '"', '"' if kind in _WHOLE else '.00"')
    if types == {Decimal} and kind not in _WHOLE:
        return _Encoded(list(map(str, map(_TO_CENT, column))), '"', '"')
    return _Encoded(_json_strings(list(map(_canonical_of(kind), column))))


def canonical_rows(query: int, rows: Sequence[Sequence[Any]]) -> list[tuple[str | None, ...]]:
    """The rows of one execution of ``query`` normalised by their columns' classes
    (:func:`column_classes`), rows whose ORDER BY keys tie sorted among themselves: two
    outputs that differ only where the specification lets them (trailing blanks, a tie's
    order, float noise below the cent) give the same canonical rows."""
    classes = column_classes(query)
    width = len(classes)
    if rows and set(map(len, rows)) != {width}:  # a wrong shape, kept as text: it digests
        return [tuple(_canonical_slow("str", v) for v in row) for row in rows]  # unlike any
    columns = [
        _canonical_column(kind, column)
        for kind, column in zip(
            classes, zip(*rows, strict=True) if rows else [()] * width, strict=True
        )
    ]
    out: list[tuple[str | None, ...]] = list(zip(*columns, strict=True))
    keys = ORDER_KEYS[query]
    if not keys or len(out) < 2:
        return out
    tied = out if len(keys) == width else list(zip(*(columns[i] for i in keys), strict=True))
    if all(map(operator.ne, tied[1:], tied[:-1])):
        return out  # no two neighbours tie (the usual case)
    start = 0
    for end in [j for j in range(1, len(tied)) if tied[j] != tied[j - 1]] + [len(tied)]:
        if end - start > 1:  # a tie: its rows in a canonical order
            out[start:end] = sorted(out[start:end], key=lambda r: [(v is None, v or "") for v in r])
        start = end
    return out


def answer_digest(query: int, rows: Sequence[Sequence[Any]]) -> str:
    """The sha256 of an execution's :func:`canonical_rows` (compact JSON): engines whose
    outputs agree up to the spec's freedoms and to the cent digest alike."""
    return hashlib.sha256(_canonical_json(query, rows).encode("utf-8")).hexdigest()


def _canonical_json(query: int, rows: Sequence[Sequence[Any]]) -> str:
    """``json.dumps(canonical_rows(query, rows))`` (compact, not ASCII-escaped), made column
    by column: every canonical value is text or None, so each column is normalised and
    encoded in one pass (:func:`_encoded_column`), the ties are looked for on the encoded
    columns (the encoding is one to one), and the text is one join of the encoded columns
    interleaved with their separators: no Python call and no tuple per row (a run keeps
    thousands of Q16 rows per stream). Ties (rare) and outputs of the wrong shape take
    :func:`canonical_rows` itself."""
    classes = column_classes(query)
    width, count = len(classes), len(rows)
    if not rows:
        return "[]"
    if set(map(len, rows)) != {width} or width == 0:
        return _dumps(canonical_rows(query, rows))
    transposed = zip(*rows, strict=True)
    encoded = [_encoded_column(k, c) for k, c in zip(classes, transposed, strict=True)]
    if _has_ties([e.text for e in encoded], ORDER_KEYS[query]):
        return _dumps(canonical_rows(query, rows))
    # row k's value j at 2 * (k * width + j); after it the separator to the next value (its
    # column's "after", "," or, ending a row, "],[", the next column's "before")
    parts: list[str] = [""] * (2 * width * count)
    for j, column in enumerate(encoded):
        parts[2 * j :: 2 * width] = column.text
        ahead = encoded[j + 1].before if j + 1 < width else "],[" + encoded[0].before
        parts[2 * j + 1 :: 2 * width] = [
            column.after + ("," if j + 1 < width else "") + ahead
        ] * count
    parts[-1] = encoded[-1].after + "]]"
    return "[[" + encoded[0].before + "".join(parts)


def _has_ties(columns: Sequence[Sequence[str | None]], keys: tuple[int, ...]) -> bool:
    """Whether two neighbouring rows have equal values in every ORDER BY key (canonical
    values, or the same encoded): the last key compared at every row (rows sorted by the
    keys before it tie there least), each other one only where the keys compared tied
    (positions kept with ``compress``: no Python call per row)."""
    if not keys or len(columns[0]) < 2:
        return False
    first = columns[keys[-1]]
    same = list(map(operator.eq, first, islice(first, 1, None)))
    here, after = compress(range(len(same)), same), compress(range(1, len(first)), same)
    tied, following = list(here), list(after)
    for i in keys[-2::-1]:
        if not tied:
            return False
        get = columns[i].__getitem__
        same = list(map(operator.eq, map(get, tied), map(get, following)))
        tied, following = list(compress(tied, same)), list(compress(following, same))
    return bool(tied)


def _json_strings(column: list[str | None]) -> list[str]:
    """Each canonical value as JSON encodes it: a string literal, or ``null``."""
    try:
        return list(map(_encode_string, column))  # type: ignore[arg-type]  # None: below
    except TypeError:  # a NULL (the encoder takes text only)
        return [_NULL if v is None else _encode_string(v) for v in column]


_NULL = json.dumps(None)


def _dumps(rows: list[tuple[str | None, ...]]) -> str:
    return json.dumps(rows, separators=(",", ":"), ensure_ascii=False)
