"""Importing HammerDB results (job store, job-report JSON) and exporting dbbench results as
``hammerdb-job-report-v1``. The stored job stores were written by real HammerDB 4.12 runs
(``data/``: PostgreSQL TPROC-C, 1 warehouse, 2 VUs, 1 min; PostgreSQL TPROC-H SF1, 1 VU)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from hammerdb_helpers import DATA

from dbbench.cli import main
from dbbench.drivers.hammerdb.jobstore import JobStoreError, list_jobs, parse_tcl_list, read_job
from dbbench.reports.hammerdb.document import render
from dbbench.reports.hammerdb.export import from_job_report, to_job_report, validate_job_report
from dbbench.reports.hammerdb.model import HammerDBResult

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reports"))
from reports_fixtures import make_result

TPROCC = DATA / "pg_tprocc.hammer.DB"
TPROCH = DATA / "pg_tproch.hammer.DB"


def test_tprocc_job_store() -> None:
    jobs = list_jobs(TPROCC)
    assert len(jobs) == 2 and {j["bm"] for j in jobs} == {"TPC-C"}  # a build and a run
    r = read_job(TPROCC)  # the newest run, not the build
    assert r.jobid == jobs[1]["jobid"] and r.status == "complete" and r.errors == []
    assert (r.nopm, r.tpm, r.active_virtual_users) == (21424, 49601, 2)
    assert r.database == "PostgreSQL" and r.engine.version.startswith("15.")
    neword = next(t for t in r.response_times if t.name == "NEWORD")
    assert neword.calls == 43930 and neword.p99_ms == pytest.approx(11.828)
    assert [c.value for c in r.transaction_counts][:3] == [0, 60834, 70824]
    assert r.config == {
        "warehouses": 1,
        "virtual_users": 2,
        "rampup_minutes": 0,
        "duration_minutes": 1,
        "all_warehouses": False,
        "keying_and_thinking": False,
        "time_profile": True,
    }
    assert r.settings["tpcc"]["pg_superuserpass"] == "***"


def test_list_jobs_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hammerdb", "import", str(TPROCC), "--list", "-o", str(tmp_path / "x")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all("PostgreSQL" in line and "TPC-C" in line for line in lines)
    assert not (tmp_path / "x").exists()


def test_build_job_has_no_result() -> None:
    build = list_jobs(TPROCC)[0]["jobid"]
    r = read_job(TPROCC, build)
    assert r.status == "failed" and "no TPROC-C result" in r.errors[0]


def test_a_negative_tpm_is_read_and_makes_the_run_invalid_with_its_cause(tmp_path: Path) -> None:
    """HammerDB's PostgreSQL TPM is the whole server's transaction count: a database dropped
    during the run made it negative (seen: 240 NOPM from -77970 TPM). The run is read, with
    that cause, never as "no result"."""
    store = tmp_path / "hammer.DB"
    shutil.copy(TPROCC, store)
    with sqlite3.connect(store) as conn:
        changed = conn.execute(
            "UPDATE JOBOUTPUT SET output = replace(output, 'from 49601 ', 'from -77970 ') "
            "WHERE output LIKE '%NOPM from 49601 %'"
        ).rowcount
    assert changed == 1
    r = read_job(store)
    assert r.status == "failed" and (r.nopm, r.tpm) == (21424, -77970)
    assert (
        len(r.errors) == 1 and "TPM came out negative (-77,970 beside 21,424 NOPM)" in r.errors[0]
    )
    assert "another database of the server is dropped" in r.errors[0]


@pytest.mark.skipif(not TPROCH.exists(), reason="stored TPROC-H job store not produced")
def test_tproch_job_store() -> None:
    r = read_job(TPROCH)
    assert r.benchmark == "TPROC-H" and r.status == "complete", r.errors
    assert r.queries == 22 and r.geomean_seconds is not None and r.geomean_seconds > 0
    assert sorted(q.query for q in r.query_times) == list(range(1, 23))
    assert r.query_sets == 1 and r.total_query_seconds is not None
    md = render(r, "md")
    assert "| Q14 |" in md and "Geometric mean" in md
    doc = to_job_report(r)
    assert validate_job_report(doc) == []
    assert len(doc["query_times"]["rows"]) == 22
    back = from_job_report(doc)
    assert back.geomean_seconds == r.geomean_seconds and len(back.query_times) == 22


def test_job_report_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """hammer.DB -> dbbench result -> hammerdb-job-report-v1 -> dbbench result -> report."""
    result = tmp_path / "imported.json"
    assert main(["hammerdb", "import", str(TPROCC), "-o", str(result)]) == 0
    assert main(["hammerdb", "export", str(result), "-o", str(tmp_path / "job.json")]) == 0
    doc = json.loads((tmp_path / "job.json").read_text())
    assert validate_job_report(doc) == []
    assert doc["benchmark_config"] == {
        "warehouses": 1,
        "virtual_users": 2,
        "rampup_minutes": 0,
        "duration_minutes": 1,
    }
    assert doc["disclaimer"]["audited"] is False and doc["job"]["hdb_version"]
    again = tmp_path / "again.json"
    assert main(["hammerdb", "import", str(tmp_path / "job.json"), "-o", str(again)]) == 0
    first, second = HammerDBResult.read(result), HammerDBResult.read(again)
    assert (second.nopm, second.tpm, second.jobid) == (first.nopm, first.tpm, first.jobid)
    assert [t.p95_ms for t in second.response_times] == [t.p95_ms for t in first.response_times]
    assert second.source == "job-report"
    capsys.readouterr()
    assert main(["report", str(again), "-f", "md"]) == 0
    assert "| NOPM | 21,424 |" in capsys.readouterr().out  # the facts table, one style


def test_tpch_result_exports_as_tproch() -> None:
    doc = to_job_report(make_result())
    assert validate_job_report(doc) == [], validate_job_report(doc)
    assert doc["job"]["benchmark"] == "TPROC-H" and doc["benchmark_config"]["scale_factor"] == 1
    assert len(doc["query_times"]["rows"]) == 22
    assert doc["result"]["geomean_seconds"] > 0
    assert "not HammerDB's" in doc["dbbench"]["note"]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["disclaimer"].update(audited=True), "disclaimer.audited"),
        (lambda d: d["result"].pop("nopm"), "result.nopm"),
        (lambda d: d["job"].update(benchmark="TPC-C"), "job.benchmark"),
        (lambda d: d["job"].update(timestamp="yesterday"), "job.timestamp"),
        (lambda d: d["benchmark_config"].pop("warehouses"), "benchmark_config.warehouses"),
    ],
)
def test_invalid_job_reports_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mutate: object, message: str
) -> None:
    doc = to_job_report(read_job(TPROCC))
    mutate(doc)  # type: ignore[operator]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    assert main(["hammerdb", "import", str(path), "-o", str(tmp_path / "r.json")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_foreign_and_corrupt_job_stores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE t(x)")
    conn.close()
    corrupt = tmp_path / "corrupt.DB"
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\xff" * 300)
    garbage = tmp_path / "garbage.DB"
    garbage.write_bytes(b"\x00\x01 not json, not sqlite")
    for path, message in (
        (foreign, "not a HammerDB job store (no JOBMAIN, JOBOUTPUT table)"),
        (corrupt, "not a HammerDB job store"),
        (garbage, "neither a HammerDB job store"),
        (tmp_path / "missing.DB", "no such file"),
    ):
        assert main(["hammerdb", "import", str(path), "-o", str(tmp_path / "r.json")]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
    with pytest.raises(JobStoreError, match="no job NOPE"):
        read_job(TPROCC, "NOPE")
    empty = tmp_path / "builds-only.DB"
    shutil.copy(TPROCC, empty)
    with sqlite3.connect(empty) as conn:
        conn.execute("DELETE FROM JOBOUTPUT WHERE output LIKE '%TEST RESULT%'")
    conn.close()
    with pytest.raises(JobStoreError, match="no TPROC-C or TPROC-H run"):
        read_job(empty)


def test_tcl_lists() -> None:
    assert parse_tcl_list('a {b c} "d e" {x {y z}}') == ["a", "b c", "d e", "x {y z}"]
    with pytest.raises(ValueError, match="unbalanced"):
        parse_tcl_list("a {b")


def test_compare_puts_hammerdb_beside_tpch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """TPROC-C and TPROC-H in the landscape; TPROC-H vs TPC-H per query (same engine, SF)."""
    tpch = make_result(url="postgresql://postgres@127.0.0.1/tpch")
    tpch.engine.name = "postgresql"
    tpch.write(tmp_path / "tpch" / "result.json")
    for name, store in (("tprocc", TPROCC), ("tproch", TPROCH)):
        assert (
            main(["hammerdb", "import", str(store), "-o", str(tmp_path / name / "result.json")])
            == 0
        )
    paths = [str(tmp_path / n) for n in ("tpch", "tprocc", "tproch")]
    capsys.readouterr()
    assert main(["compare", *paths]) == 0
    text = capsys.readouterr().out
    assert "Performance landscape" in text and "HammerDB results" in text
    assert "21,424 NOPM / 49,601 TPM" in text and "geomean 3.236 s" in text
    assert "TPROC-H tproch vs TPC-H tpch, per query" in text and "different parameters" in text
    assert main(["compare", *paths, "-f", "html", "-o", str(tmp_path / "c.html")]) == 0
    page = (tmp_path / "c.html").read_text()
    assert page.index("HammerDB results") < page.index("</body>")
    assert main(["compare", paths[1], "-f", "md"]) == 0  # HammerDB results alone
    assert "| tprocc | TPROC-C |" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("name", "benchmark"), [("pg_tprocc", "TPROC-C"), ("pg_tproch", "TPROC-H")]
)
def test_hammerdb_v6_job_reports(
    name: str, benchmark: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Job reports written by HammerDB v6.0's own ``jobs_report_json`` (modules/jobs-1.0.tm)
    from the stored job stores: they import to the same numbers as the stores themselves."""
    source = DATA / f"{name}.job-report-v6.json"
    doc = json.loads(source.read_text())
    assert doc["job"]["hdb_version"] == "v6.0" and validate_job_report(doc) == []
    out = tmp_path / "r.json"
    assert main(["hammerdb", "import", str(source), "-o", str(out)]) == 0
    imported = HammerDBResult.read(out)
    direct = read_job(DATA / f"{name}.hammer.DB")
    assert imported.benchmark == benchmark and imported.status == "complete"
    assert imported.jobid == direct.jobid
    if benchmark == "TPROC-C":
        assert (imported.nopm, imported.tpm) == (direct.nopm, direct.tpm)
        assert [t.p99_ms for t in imported.response_times] == [
            t.p99_ms for t in direct.response_times
        ]
        assert [c.value for c in imported.transaction_counts] == [
            c.value for c in direct.transaction_counts
        ]
    else:
        assert imported.geomean_seconds == direct.geomean_seconds
        assert [q.query for q in imported.query_times] == [q.query for q in direct.query_times]
        for mine, theirs in zip(direct.query_times, imported.query_times, strict=True):
            # HammerDB v6 reads the times back from its output with the regexp
            # {\d?\.?\d+}: "27.662" becomes 27 (times of 10 s or more lose their fraction)
            expected = mine.seconds if mine.seconds < 10 else float(int(mine.seconds))
            assert theirs.seconds == pytest.approx(expected), mine
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    assert benchmark in capsys.readouterr().out
