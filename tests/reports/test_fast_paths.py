"""The quick ways of reading and rendering a result (the site builds a thousand) against the
checked ways they stand for: the compiled builder against the checked build, the schema
check and the depth check; the schema's quick test against its full check; the redaction's
quick search against its patterns; the ``cells`` and ``rows`` filters against a template's
own escaping; the cached number format against the uncached one."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from dataclasses import fields, is_dataclass
from decimal import Decimal
from typing import Any

import pytest
from markupsafe import Markup
from reports_fixtures import FAMILY_GOLDEN

from dbbench.reports import formatting, model
from dbbench.reports.families import families
from dbbench.reports.templating import environment
from dbbench.reports.tpch import redact
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.validation import _checker

_DEEP = json.loads("[" * 70 + "]" * 70)
_VALUES: list[Any] = [None, True, False, 0, 1, -3, 2.0, 2.5, float("nan"), float("inf"), 1e19,
                      -(10**19), 10**18, "", "ok", "power", "complete", [], [1], ["a"], [None],
                      {}, {"a": 1}, [[1.0]], _DEEP, {"x": _DEEP}, (1,)]  # fmt: skip


def _same(a: Any, b: Any, where: str = "result") -> None:
    """Equal values of the same types all the way down (``1 == 1.0`` is not enough)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if is_dataclass(a):
        for f in fields(a):
            _same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            _same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for n, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{n}]")
    else:
        assert a == b or (a != a and b != b), where


def _mutate(data: Any, rng: random.Random) -> None:
    """Replace, drop or add one value somewhere in ``data``."""
    for _ in range(rng.randint(1, 7)):
        if isinstance(data, dict) and data:
            key = rng.choice(list(data))
            if rng.random() < 0.3 or not isinstance(data[key], dict | list) or not data[key]:
                roll = rng.random()
                if roll < 0.1:
                    del data[key]
                elif roll < 0.25:
                    data["unknown"] = copy.deepcopy(rng.choice(_VALUES))
                else:
                    data[key] = copy.deepcopy(rng.choice(_VALUES))
                return
            data = data[key]
        elif isinstance(data, list) and data:
            n = rng.randrange(len(data))
            if rng.random() < 0.3 or not isinstance(data[n], dict | list) or not data[n]:
                data[n] = copy.deepcopy(rng.choice(_VALUES))
                return
            data = data[n]
        else:
            return


def _outcome(call: Any) -> tuple[Any, ...]:
    try:
        return ("ok", call())
    except Exception as exc:
        return ("error", type(exc), str(exc))


def _documents() -> list[tuple[type[model.ResultEnvelope], dict[str, Any]]]:
    docs = []
    for path in sorted(FAMILY_GOLDEN.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        docs.append((families()[data["schema"]].model, data))
    return docs


def test_the_compiled_builder_reads_as_the_checked_build() -> None:
    """``from_parsed`` (its compiled builder first) gives what the checked build and the
    depth check give, the result or the same error, for damaged documents of every family."""
    rng = random.Random(7)
    docs = _documents()
    quick = 0
    for n in range(600):
        cls, base = docs[n % len(docs)]
        data = copy.deepcopy(base)
        for _ in range(rng.randint(0, 2)):
            _mutate(data, rng)

        def checked(cls: type[model.ResultEnvelope] = cls, data: Any = data) -> Any:
            cls._check_envelope(data)
            model.check_depth(data)
            result = model._build(cls, cls.upgrade_data(data))
            result.check()
            return result

        expected, found = _outcome(checked), _outcome(lambda: cls.from_parsed(data))  # noqa: B023
        assert expected[0] == found[0], (n, expected, found)
        if expected[0] == "ok":
            _same(expected[1], found[1])
            quick += cls.built_from(data) is not None
        else:
            assert expected[1:] == found[1:], n
    assert quick > 40  # the quick way was taken


def test_a_result_is_written_as_asdict_gives_it() -> None:
    """``model.plain`` (what a result's ``to_dict`` uses: an o2c probe's step columns copied
    as whole lists) gives what ``dataclasses.asdict`` gives, types included, for every
    family's golden results; the copy shares no list with the result."""
    for cls, data in _documents():
        result = cls.from_parsed(data)
        written = result.to_dict()
        expected = dataclasses.asdict(result)
        if "status" in written and written["status"] != expected["status"]:
            expected["status"] = written["status"]  # a family's status is its parts'
        if getattr(result, "steps_file", None) is not None:  # o2c v3: steps in their file
            for probe_dict in expected["probes"]:
                del probe_dict["steps"]
            _same(written, expected, cls.__name__)
            continue
        _same(written, expected, cls.__name__)
        for probe, probe_dict in zip(
            getattr(result, "probes", []), written.get("probes", []), strict=True
        ):
            assert probe.steps.due, cls.__name__  # the goldens have steps
            probe_dict["steps"]["due"].append(-1.0)
            assert probe.steps.due[-1] != -1.0


def test_a_document_the_builder_takes_fits_the_schema_and_is_not_too_deep() -> None:
    rng = random.Random(11)
    docs = [(c, d) for c, d in _documents() if c is BenchmarkResult]
    taken = 0
    for n in range(800):
        data = copy.deepcopy(docs[n % len(docs)][1])
        _mutate(data, rng)
        try:
            BenchmarkResult._check_envelope(data)
            upgraded = BenchmarkResult.upgrade_data(data)
        except (ValueError, TypeError, AttributeError):
            continue
        if BenchmarkResult.built_from(data, upgraded) is not None:
            taken += 1
            assert _checker()(upgraded) is None, n
            model.check_depth(data)
    assert taken > 40


@pytest.mark.parametrize("folded", ["\u0130", "\u0131", "\u017f", "\u212a"])
def test_the_quick_secret_search_finds_what_the_patterns_find(folded: str) -> None:
    rng = random.Random(5)
    pieces = ["password", "PassWord", "pwd", "PWD", "secret", "toKen", "api_key", "API_KEY",
              "pass", "word", "to ken", "=", ":", " ", "x", "é", "\n;\n", "pg://u:p@h", "://",
              "@", "/", "k", "s", "i", folded]  # fmt: skip

    def patterns(text: str) -> bool:
        return redact._KEY_VALUE.search(text) is not None or (
            "://" in text and redact._URL_PASSWORD.search(text) is not None
        )

    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        assert redact._may_hold_secret(text) == patterns(text), repr(text)


def test_the_cells_and_rows_filters_escape_as_the_template_does() -> None:
    values = ["1.5", "<b>&'\"", Markup("<i>ok</i>"), 3, None, "n/a", "{}"]
    env = environment()
    loop = env.from_string(
        '{% for v in values %}<td class="n">{{ v }}</td>{% endfor %}|'
        "{% for row in table %}<tr>{% for v in row %}<td>{{ v }}</td>{% endfor %}</tr>\n"
        "{% endfor %}"
    )
    filters = env.from_string('{{ values | cells("n") }}|{{ table | rows("") }}')
    for chosen in (values, ["1.0", "2.5"], []):
        table = [chosen, list(reversed(chosen))]
        assert filters.render(values=chosen, table=table) == loop.render(values=chosen, table=table)
    header = env.from_string('{{ ["a<", "b"] | cells(["x", ""], "th") }}').render()
    assert header == '<th class="x">a&lt;</th><th>b</th>'


def test_the_cached_number_format_keeps_types_apart() -> None:
    """0.15 and the Decimal of its binary value are equal, but round apart (the float as
    written, the Decimal as it is): the cache of ``num1`` must not answer one for the other."""
    exact = Decimal.from_float(0.15)
    assert exact == 0.15
    assert formatting.num1(0.15) == "0.2"
    assert formatting.num1(exact) == "0.1"
    assert formatting.num1(0.15) == "0.2"
