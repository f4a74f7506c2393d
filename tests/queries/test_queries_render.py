"""Rendering: tags substituted, one answer statement, Q15's view, row limits, dialect rules."""

from __future__ import annotations

import re

import pytest

from dbbench.queries.errors import QueriesError
from dbbench.queries.params import default_parameters, stream_parameters
from dbbench.queries.render import DIALECTS, RenderedQuery, parameter_count, render

LIMITED = {2: 100, 3: 10, 10: 20, 18: 100, 21: 100}
PARAMS = stream_parameters(617140309, 1)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("query", range(1, 23))
def test_every_query_renders(query: int, dialect: str) -> None:
    rendered = render(query, PARAMS[query], dialect=dialect, stream=7)
    text = "\n".join(rendered.statements())
    assert not re.search(r":\w", text), "a qgen tag was left in the text"
    assert "--" not in text and ";" not in text
    assert rendered.query.lower().startswith(("select", "with "))  # Hyper's Q15: a CTE
    for value in PARAMS[query]:
        if not re.fullmatch(r"\d{4}-\d\d-\d\d", value):
            assert value in text
    limit = LIMITED.get(query)
    limits = re.findall(r"(?:limit|fetch first) (\d+)", rendered.query)
    assert limits == ([str(limit)] if limit else [])


def test_q15_view_is_per_stream_and_timed_with_the_query() -> None:
    rendered = render(15, ["1996-01-01"], dialect="postgresql", stream=3)
    assert rendered.setup == [rendered.setup[0]]
    assert rendered.setup[0].startswith("create view revenue3 (supplier_no, total_revenue) as")
    assert rendered.teardown == ["drop view revenue3"]
    assert "revenue3" in rendered.query and "revenue0" not in rendered.query
    assert rendered.statements()[0] == rendered.setup[0]
    assert rendered.script().count(";\n") == 3


def test_q15_view_is_unique_per_run_of_a_stream() -> None:
    names = set()
    for suffix in ("_r1_0a1b2c", "_r2_0a1b2c", "_r1_ffee00"):
        rendered = render(15, ["1996-01-01"], dialect="duckdb", stream=3, view_suffix=suffix)
        view = f"revenue3{suffix}"
        assert rendered.setup[0].startswith(f"create view {view} (supplier_no, total_revenue)")
        assert rendered.teardown == [f"drop view {view}"]
        assert rendered.query.count(view) == 2
        names.add(view)
    assert len(names) == 3
    # qgen's own name without a suffix (``dbbench qgen`` output stays qgen's)
    assert render(15, ["1996-01-01"], dialect="duckdb", stream=3).teardown == ["drop view revenue3"]
    with pytest.raises(QueriesError, match="view suffix"):
        render(15, ["1996-01-01"], dialect="duckdb", stream=3, view_suffix="; drop table x")


def test_single_statement_queries_have_no_setup() -> None:
    rendered = render(1, ["90"], dialect="duckdb", stream=0)
    assert rendered == RenderedQuery(setup=[], query=rendered.query, teardown=[])


def test_ansi_is_the_spec_text() -> None:
    q1 = render(1, ["90"], dialect="ansi", stream=0).query
    assert "date '1998-12-01' - interval '90' day (3)" in q1
    q2 = render(2, default_parameters(1)[2], dialect="ansi", stream=0).query
    assert q2.endswith("fetch first 100 rows only")
    q13 = render(13, ["special", "requests"], dialect="ansi", stream=0).query
    assert ") as c_orders (c_custkey, c_count)" in q13


def test_engine_dialect_rewrites() -> None:
    assert "interval '90' day\n" in render(1, ["90"], dialect="duckdb", stream=0).query
    q13 = render(13, ["special", "requests"], dialect="mysql", stream=0).query
    assert "count(o_orderkey) as c_count" in q13 and q13.count("(c_custkey, c_count)") == 0
    lite = render(22, PARAMS[22], dialect="sqlite", stream=0).query
    assert "substr(c_phone, 1, 2)" in lite and "substring" not in lite
    q7 = render(7, PARAMS[7], dialect="sqlite", stream=0).query
    assert "cast(strftime('%Y', l_shipdate) as integer)" in q7
    assert "between '1995-01-01' and '1996-12-31'" in q7
    q6 = render(6, ["1994-01-01", ".06", "24"], dialect="sqlite", stream=0).query
    assert "date('1994-01-01', '+1 years')" in q6
    assert "round(.06 + 0.01, 2)" in q6


def test_parameter_counts() -> None:
    counts = {q: parameter_count(q) for q in range(1, 23)}
    assert counts == {q: len(v) for q, v in default_parameters(1).items()}


@pytest.mark.parametrize(
    ("query", "params", "dialect", "stream", "message"),
    [
        (0, [], "duckdb", 0, "unknown query"),
        (23, [], "duckdb", 0, "unknown query"),
        (1, ["90"], "oracle", 0, "unknown SQL dialect"),
        (1, ["90"], "duckdb", -1, "stream"),
        (1, [], "duckdb", 0, "takes 1 parameters"),
        (9, ["x'; drop table part"], "duckdb", 0, "not a plain value"),
    ],
)
def test_render_errors(
    query: int, params: list[str], dialect: str, stream: int, message: str
) -> None:
    with pytest.raises(QueriesError, match=message):
        render(query, params, dialect=dialect, stream=stream)


def test_q15_is_a_common_table_expression_where_views_are_disabled() -> None:
    """Hyper has no views: Q15 is the spec's variant with a WITH clause, one statement."""
    rendered = render(15, ["1996-01-01"], dialect="hyper", stream=3, view_suffix="_r1_ab")
    assert rendered.setup == [] and rendered.teardown == []
    assert rendered.query.startswith("with revenue3_r1_ab (supplier_no, total_revenue) as (")
    assert rendered.query.count("revenue3_r1_ab") == 3
    assert "view" not in rendered.query


def test_clickhouse_reads_qgen_decimals_and_rounds_q6_bounds() -> None:
    """ClickHouse's parser rejects ``.06``; its decimal literals are floats."""
    rendered = render(6, ["1994-01-01", ".06", "24"], dialect="clickhouse", stream=0)
    assert "between round(0.06 - 0.01, 2) and round(0.06 + 0.01, 2)" in rendered.query
    assert " .06" not in rendered.query
