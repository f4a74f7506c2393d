"""HammerDB inputs as a hostile user crafts them: damaged job stores and job reports are one
line and exit 1 (never 70), file names are not URIs, control characters and raw HTML never
reach the terminal, a text file or Markdown; failed jobs import as failed; exports say what
made them."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hammerdb_helpers import DATA

from dbbench.cli import main
from dbbench.drivers.hammerdb.jobstore import list_jobs
from dbbench.reports.hammerdb.export import to_job_report
from dbbench.reports.hammerdb.model import HammerDBResult

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reports"))
from reports_fixtures import make_result

TPROCC = DATA / "pg_tprocc.hammer.DB"
RUN_JOB = "6B0423A0660E03E233038323"
CONTROL = "\x1b[31m\x07\r\x00"
CONTROL_CHARS = "\x1b\x07\r\x00"


def _store(tmp_path: Path, sql: str, *params: object) -> Path:
    path = tmp_path / "crafted.DB"
    shutil.copy(TPROCC, path)
    with sqlite3.connect(path) as conn:
        conn.execute(sql, params)
    conn.close()
    return path


def _one_line_error(args: list[str], capsys: pytest.CaptureFixture[str], text: str) -> None:
    code = main(args)
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and text in err, (code, err)


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE JOBOUTPUT SET vu='garbage' WHERE rowid % 2 = 0",
        "UPDATE JOBMAIN SET jobid=NULL WHERE rowid=1",
        "UPDATE JOBTIMING SET calls=x'00ff', p99_ms='1e999'",
        "ALTER TABLE JOBMAIN DROP COLUMN bm",
        "DROP TABLE JOBMAIN",
    ],
)
def test_damaged_job_stores_are_one_line(
    sql: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _store(tmp_path, sql)
    out = tmp_path / "r.json"
    code = main(["hammerdb", "import", str(store), "-o", str(out)])
    err = capsys.readouterr().err
    assert code in (0, 1) and err.count("\n") <= 1, err  # never an internal error (70)
    if code == 0:
        result = HammerDBResult.read(out)
        assert result.jobid and result.jobid != "None"
    assert main(["hammerdb", "import", str(store), "--list"]) in (0, 1)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["result"].update(nopm="NaN-marker"), "NaN is not a JSON number"),
        (lambda d: d["result"].update(tpm="Infinity-marker"), "Infinity is not a JSON number"),
        (lambda d: d["job"].update(jobid=["x"]), "job.jobid' must be a string"),
        (lambda d: d["response_times"].update(rows=[1, 2]), "rows' must hold objects"),
        (lambda d: d.update(system=[1]), "'system' must be an object"),
        (lambda d: d["transaction_count"].update(series=[3]), "transaction_count.series"),
    ],
)
def test_crafted_job_reports_are_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    mutate: Callable[[dict[str, object]], None],
    message: str,
) -> None:
    from dbbench.drivers.hammerdb.jobstore import read_job

    doc = to_job_report(read_job(TPROCC))
    mutate(doc)
    text = json.dumps(doc).replace('"NaN-marker"', "NaN").replace('"Infinity-marker"', "Infinity")
    path = tmp_path / "bad.json"
    path.write_text(text)
    _one_line_error(
        ["hammerdb", "import", str(path), "-o", str(tmp_path / "r.json")], capsys, message
    )
    assert not (tmp_path / "r.json").exists()


def test_procedure_errors_and_zero_nopm_import_as_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _store(tmp_path, "UPDATE JOBOUTPUT SET output=replace(output, '21424 NOPM', '0 NOPM')")
    with sqlite3.connect(store) as conn:
        conn.executemany(
            "INSERT INTO JOBOUTPUT (jobid, vu, output) VALUES (?, 2, ?)",
            [(RUN_JOB, f"Procedure Error: deadlock detected {i}") for i in range(3000)],
        )
    conn.close()
    out = tmp_path / "r.json"
    assert main(["hammerdb", "import", str(store), "-o", str(out)]) == 0
    assert "(failed)" in capsys.readouterr().out
    result = HammerDBResult.read(out)
    assert result.status == "failed" and result.nopm == 0
    assert any("Procedure Error" in e for e in result.errors)
    assert any("more error lines" in e for e in result.errors) and len(result.errors) <= 25
    assert any("0 NOPM" in e for e in result.errors)


def test_list_without_output_says_build_run_and_result(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["hammerdb", "import", str(TPROCC), "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert " build " in lines[0] and lines[0].split()[4] == "-"
    assert " run " in lines[1] and "21,424 NOPM" in lines[1]
    assert [j["kind"] for j in list_jobs(TPROCC)] == ["build", "run"]


def test_a_file_name_is_never_a_uri(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    odd = tmp_path / "uri#frag.DB"
    shutil.copy(TPROCC, odd)
    os.chdir(tmp_path)
    try:
        assert main(["hammerdb", "import", "uri#frag.DB", "-o", "r.json"]) == 0
    finally:
        os.chdir(Path(__file__).parent)
    assert not (tmp_path / "uri").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "uri#frag.DB"]


def test_control_characters_and_html_never_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _store(
        tmp_path,
        "UPDATE JOBMAIN SET db=?, timestamp=? WHERE jobid=?",
        f"PostgreSQL{CONTROL}<script>alert(1)</script>",
        f"2026-11-23 11:29:36{CONTROL}",
        RUN_JOB,
    )
    assert main(["hammerdb", "import", str(store), "--list"]) == 0
    listed = capsys.readouterr().out
    assert not any(c in listed for c in CONTROL_CHARS)
    out = tmp_path / "r.json"
    assert main(["hammerdb", "import", str(store), "-o", str(out)]) == 0
    capsys.readouterr()
    for fmt in ("text", "md", "html"):
        target = tmp_path / f"report.{fmt}"
        assert main(["report", str(out), "-f", fmt, "-o", str(target)]) == 0
        written = target.read_text()
        assert not any(c in written for c in CONTROL_CHARS), fmt
        assert fmt == "text" or "<script>" not in written, fmt  # raw HTML: md, html
    assert main(["report", str(out)]) == 0
    shown = capsys.readouterr().out
    assert not any(c in shown for c in CONTROL_CHARS) and "PostgreSQL" in shown


def test_outputs_go_through_the_safe_writer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("keep me")
    link = tmp_path / "link.json"
    link.symlink_to(elsewhere)
    for args in (
        ["hammerdb", "import", str(TPROCC), "-o", str(link)],
        ["hammerdb", "export", str(DATA / "pg_tprocc.job-report-v6.json"), "-o", str(link)],
    ):
        if args[1] == "export":
            result = tmp_path / "imported.json"
            assert main(["hammerdb", "import", str(TPROCC), "-o", str(result)]) == 0
            capsys.readouterr()
            args[2] = str(result)
        _one_line_error(args, capsys, "symbolic link")
    assert elsewhere.read_text() == "keep me"


def test_exports_say_what_made_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An imported HammerDB v4.12 job keeps its version; a TPC-H export is dbbench's."""
    result = tmp_path / "r.json"
    args = ["hammerdb", "import", str(TPROCC), "-o", str(result), "--hammerdb-version", "v4.12"]
    assert main(args) == 0
    assert main(["hammerdb", "export", str(result), "-o", str(tmp_path / "job.json")]) == 0
    doc = json.loads((tmp_path / "job.json").read_text())
    assert doc["job"]["hdb_version"] == "v4.12"
    assert doc["artifact"]["produced_by"]["tool"] == "HammerDB"
    assert doc["artifact"]["produced_by"]["hammerdb_workload"] is True
    plain = tmp_path / "plain.json"
    assert main(["hammerdb", "import", str(TPROCC), "-o", str(plain)]) == 0
    assert to_job_report(HammerDBResult.read(plain))["job"]["hdb_version"] == "unknown"
    tpch = to_job_report(make_result())
    assert tpch["job"]["hdb_version"] == "none" and "dbbench" not in tpch["job"]["hdb_version"]
    assert tpch["artifact"]["produced_by"]["tool"] == "dbbench"
    assert tpch["artifact"]["workload"] == "dbbench TPC-H power test"
    assert tpch["artifact"]["produced_by"]["hammerdb_workload"] is False
