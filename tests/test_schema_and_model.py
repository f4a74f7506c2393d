"""The table definitions and the result model's JSON round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from dbbench.dbgen.schema import FOREIGN_KEYS, TABLES
from dbbench.reports.model import EngineInfo, SystemInfo
from dbbench.reports.tpch.compliance import messages
from dbbench.reports.tpch.model import (
    SCHEMA_VERSION,
    BenchmarkResult,
    Interval,
    LoadResult,
    Reason,
    RunResult,
)


def test_eight_tables_with_spec_column_counts() -> None:
    counts = {name: len(t.columns) for name, t in TABLES.items()}
    assert counts == {
        "part": 9,
        "partsupp": 5,
        "supplier": 7,
        "customer": 8,
        "orders": 9,
        "lineitem": 16,
        "nation": 4,
        "region": 3,
    }
    assert TABLES["lineitem"].column("l_extendedprice").arrow_type == pa.decimal128(15, 2)
    assert TABLES["orders"].column("o_comment").sql_type == "VARCHAR(79)"


def test_foreign_keys_name_real_columns() -> None:
    for table, cols, ref, ref_cols in FOREIGN_KEYS:
        for c in cols:
            TABLES[table].column(c)
        for c in ref_cols:
            TABLES[ref].column(c)


def _result() -> BenchmarkResult:
    run = RunResult(number=1, streams=2, seeds={"0": 617140309, "1": 617140310})
    run.intervals.append(Interval("query", "power", 0, 1, 10.0, 11.5, 1.5, query=14, rows=1))
    run.intervals.append(Interval("rf1", "power", 0, 1, 9.0, 9.5, 0.5, update_set=1, rows=6000))
    return BenchmarkResult(
        scale_factor=1,
        streams=2,
        engine=EngineInfo(name="duckdb", url="duckdb:///x.db"),
        system=SystemInfo(cpu_model="test cpu", cores=2),
        kit_version="0.1.0",
        load=LoadResult(start=1.0, end=2.0, seconds=1.0, rows={"region": 5}),
        runs=[run],
    )


def test_result_round_trips_through_json(tmp_path: Path) -> None:
    original = _result()
    path = tmp_path / "result.json"
    original.write(path)
    again = BenchmarkResult.read(path)
    assert again == original
    assert isinstance(again.runs[0].intervals[0], Interval)
    assert not list(tmp_path.glob(".result.json.*")), "temporary file left behind"


def test_newer_schema_is_refused() -> None:
    data = _result().__dict__ | {"schema_version": SCHEMA_VERSION + 1}
    with pytest.raises(ValueError, match="newer"):
        BenchmarkResult.from_dict(data)


def test_result_file_gets_the_ordinary_file_mode(tmp_path: Path) -> None:
    import os

    umask = os.umask(0o022)
    try:
        path = tmp_path / "result.json"
        _result().write(path)
        assert path.stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(umask)


def test_a_version_1_file_is_read_and_upgraded() -> None:
    """Version 1 stored compliance reasons as sentences and an (always empty) validation."""
    data = json.loads(_result().to_json())
    data["schema_version"] = 1
    data["validation"] = []
    data["compliance"] = {
        "compliant": False,
        "reasons": ["not evaluated", "scale factor 0.01 is not an official one (1, 10, ...)"],
    }
    old = BenchmarkResult.from_dict(data)
    assert old.schema_version == SCHEMA_VERSION
    assert old.compliance.reasons == [
        Reason("not-evaluated"),
        Reason("v1-text", {"text": "scale factor 0.01 is not an official one (1, 10, ...)"}),
    ]
    assert messages(old.compliance)[1] == "scale factor 0.01 is not an official one (1, 10, ...)"
    assert old.runs == _result().runs
    assert data["schema_version"] == 1, "the caller's dict is left alone"


def test_the_run_directory_names_and_the_stream_table_are_stated_once() -> None:
    from dbbench.drivers import rundir, sequencer
    from dbbench.reports import loading, model
    from dbbench.reports.tpch import metrics
    from dbbench.reports.tpch import model as tpch_model

    assert sequencer.RESULT_FILE is model.RESULT_FILE == "result.json"
    assert not hasattr(loading, "RESULT_FILE")  # the loaders take it from the model
    assert {model.JOURNAL_FILE, model.RESULT_FILE, tpch_model.DUCKDB_FILE} <= set(rundir.OWN_FILES)
    assert metrics.MIN_STREAMS is tpch_model.MIN_STREAMS
    # the spec's Table 11 [SPEC 5.3.4]; the spec has no rule below SF 1 or between SFs
    assert tpch_model.MIN_STREAMS == {
        1: 2, 10: 3, 30: 4, 100: 5, 300: 6, 1000: 7, 3000: 8, 10000: 9, 30000: 10, 100000: 11
    }  # fmt: skip
    assert tpch_model.min_streams(0.01) is None and tpch_model.min_streams(3) is None
    defaults = [tpch_model.default_streams(sf) for sf in (0.01, 1, 3, 10, 250, 1e6)]
    assert defaults == [2, 2, 2, 3, 5, 11]


def test_the_format_document_describes_the_current_version_and_every_field() -> None:
    import dataclasses
    import re

    doc = (Path(__file__).resolve().parents[1] / "docs" / "result-format.md").read_text()
    assert f"this document describes version {SCHEMA_VERSION}" in doc
    history = re.findall(r"^\| (\d+) \| [\d.]+ \|", doc, flags=re.MULTILINE)
    assert [int(v) for v in history] == list(range(1, SCHEMA_VERSION + 1))
    for f in dataclasses.fields(BenchmarkResult):
        assert f"`{f.name}`" in doc, f"{f.name} is not documented"
    assert "`validation`" not in doc.split("## History")[0]
    from dbbench.reports.tpch.reasons import MESSAGES

    for code in MESSAGES:
        assert f"`{code}`" in doc, f"reason code {code} is not documented"
