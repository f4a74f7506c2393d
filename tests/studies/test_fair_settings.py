"""Settings from the engine URL reach the report's settings table (PostgreSQL's
``options=-c ...`` and DuckDB's query keys), flagged "UNPRICED" where the cost sheet does not
name them; a cost sheet pricing other CPUs or memory than the run's warns in every format
and makes the result not compliant; ``gate`` refuses two engines in one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from private_databases import fresh_postgres
from reports_fixtures import ROOT, make_result
from studies_helpers import dbbench

from dbbench.drivers.registry import open_engine
from dbbench.reports.tpch.costsheet import load_cost_sheet
from dbbench.reports.tpch.formats import render
from dbbench.reports.tpch.summary import build_report

SHEET = ROOT / "examples" / "cost-sheets" / "cloud-vm-3y.toml"


def _report_with(url: str, settings: dict[str, str], fmt: str) -> str:
    result = make_result(url=url)
    result.engine.settings = settings
    return render(result, fmt, load_cost_sheet(SHEET))


@pytest.mark.postgresql
def test_a_postgresql_url_setting_is_in_the_settings_table(pg_base_url: str) -> None:
    with fresh_postgres(pg_base_url, "dbbench_settings") as url:
        url = f"{url}?options=-c%20enable_hashjoin%3Doff"
        engine = open_engine(url)
        try:
            settings = engine.settings()
        finally:
            engine.close()
    assert settings["enable_hashjoin"] == "off" and "work_mem" in settings
    assert "client_encoding" not in settings  # the driver's own, not a configuration
    md = _report_with(url, settings, "md")
    assert "| enable\\_hashjoin | off | URL | UNPRICED |" in md  # Markdown escapes the _
    assert "the cost sheet does not name the URL settings enable\\_hashjoin" in md
    html = _report_with(url, settings, "html")
    assert '<td>enable_hashjoin</td><td>off</td><td>URL</td><td class="fail">UNPRICED' in html
    _in_text_and_json(url, settings, "enable_hashjoin", "off")


def _in_text_and_json(url: str, settings: dict[str, str], name: str, value: str) -> None:
    """The text summary and the JSON report hold the one settings table too."""
    text = _report_with(url, settings, "text")
    assert re.search(rf"^{name}\s+{value}\s+URL\s+UNPRICED$", text, re.M), text
    doc = json.loads(_report_with(url, settings, "json"))
    (table,) = [s for s in doc["sections"] if s["title"] == "Engine settings"]
    assert [name, value, "URL", "UNPRICED"] in table["blocks"][0]["rows"]


def test_a_duckdb_url_setting_is_in_the_settings_table(tmp_path: Path) -> None:
    url = f"duckdb:///{tmp_path / 'x.duckdb'}?threads=1&preserve_insertion_order=false"
    engine = open_engine(url)
    try:
        settings = engine.settings()
    finally:
        engine.close()
    assert settings["threads"] == "1" and settings["preserve_insertion_order"] == "false"
    md = _report_with(url, settings, "md")
    assert "| threads | 1 | URL | UNPRICED |" in md
    assert "| preserve\\_insertion\\_order | false | URL | UNPRICED |" in md
    _in_text_and_json(url, settings, "threads", "1")


def test_a_cost_sheet_of_another_machine_warns_and_is_not_compliant() -> None:
    result = make_result()  # measured on 4 threads and 16 GiB; the sheet prices 8 vCPU, 64 GiB
    report = build_report(result, load_cost_sheet(SHEET))
    assert not report.compliance.compliant
    assert any(
        "prices 64 GiB of memory, the run was measured with 16.0 GiB" in r for r in report.reasons
    )
    assert any("prices 8 CPUs, the run was measured on 4" in r for r in report.reasons)
    for fmt in ("text", "md", "html", "json"):
        out = render(result, fmt, load_cost_sheet(SHEET))
        assert "the cost sheet prices 8 CPUs" in out, fmt


def test_gate_refuses_two_engines_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_result().write(tmp_path / "duck" / "result.json")
    other = make_result(url="postgresql://postgres@127.0.0.1:5432/test")
    other.engine.name = "postgresql"
    other.write(tmp_path / "pg" / "result.json")
    assert dbbench("gate", str(tmp_path / "duck"), str(tmp_path / "pg")) == 1
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "engines differ (baseline duckdb, candidate postgresql)" in err[0]
    assert "regression" not in captured.out.lower()


def test_a_busy_host_is_flagged_in_the_report() -> None:
    from reports_fixtures import T0

    from dbbench.reports.tpch.model import Telemetry

    result = make_result()
    n = 300
    result.telemetry = Telemetry(
        cores=2,
        t_start=T0 + 99,
        t=[T0 + 100 + 10 * i for i in range(n)],
        cpu_user=[50.0] * n,
        cpu_system=[10.0] * n,
        cpu_iowait=[0.0] * n,
        mem_used=[2**30] * n,
        load1=[9.0] * n,
        cpu_steal=[0.0] * n,
        cpu_kit=[10.0] * n,
    )
    report = build_report(result)
    assert "HOST BUSY: host busy during run 1 power: load average 9.0 above its 2 CPUs" in (
        report.notes
    )
    assert any("50 % of the CPU used by other processes" in n for n in report.notes)
    for fmt in ("text", "md", "html", "json"):
        assert "HOST BUSY" in render(result, fmt), fmt
    quiet = make_result()
    quiet.telemetry = Telemetry(
        cores=2,
        t_start=T0 + 99,
        t=[T0 + 100 + 10 * i for i in range(n)],
        cpu_user=[50.0] * n,
        cpu_system=[10.0] * n,
        cpu_iowait=[0.0] * n,
        mem_used=[2**30] * n,
        load1=[1.0] * n,
        cpu_steal=[0.0] * n,
        cpu_kit=[58.0] * n,
    )
    assert not any("HOST BUSY" in n for n in build_report(quiet).notes)


def test_a_busy_host_is_flagged_in_compare_and_the_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from reports_fixtures import T0

    from dbbench.reports.studies.suite import EntryRecord, SuiteIndex, write_suite_reports
    from dbbench.reports.tpch.model import Telemetry

    busy = make_result()
    n = 300
    busy.telemetry = Telemetry(
        cores=2,
        t_start=T0 + 99,
        t=[T0 + 100 + 10 * i for i in range(n)],
        cpu_user=[50.0] * n,
        cpu_system=[10.0] * n,
        cpu_iowait=[0.0] * n,
        mem_used=[2**30] * n,
        load1=[9.0] * n,
        cpu_steal=[0.0] * n,
        cpu_kit=[45.0] * n,  # 15 % other: the load average is theirs too
    )
    busy.write(tmp_path / "busy" / "result.json")
    make_result().write(tmp_path / "quiet" / "result.json")
    for fmt in ("text", "md", "html", "json"):
        args = [str(tmp_path / "quiet"), str(tmp_path / "busy"), "-f", fmt]
        assert dbbench("compare", *args, "-o", str(tmp_path / f"c.{fmt}")) == 0
        assert (
            "HOST BUSY: busy: host busy during run 1 power" in (tmp_path / f"c.{fmt}").read_text()
        )
    capsys.readouterr()
    index = SuiteIndex("suite.toml", "quiet")
    index.entries = [EntryRecord(n, "duckdb", 1.0, 1, n, "ok") for n in ("quiet", "busy")]
    index.write(tmp_path)
    for path in write_suite_reports(tmp_path):
        assert "HOST BUSY: busy" in path.read_text(), path.name


@pytest.mark.mariadb
def test_a_mariadb_url_setting_is_in_the_settings_table(mariadb_base_url: str) -> None:
    sep = "&" if "?" in mariadb_base_url else "?"
    url = f"{mariadb_base_url}{sep}init_command=SET%20SESSION%20max_join_size%3D1000000"
    engine = open_engine(url)
    try:
        settings = engine.settings()
    finally:
        engine.close()
    assert settings["max_join_size"] == "1000000"  # not in the disclosed list: a non-default
    assert "character_set_client" not in settings  # the driver's own
    md = _report_with(url, settings, "md")
    assert "| max\\_join\\_size | 1000000 | URL | UNPRICED |" in md
