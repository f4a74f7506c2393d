"""Real HammerDB runs from ``dbbench hammerdb run`` on private databases of the shared servers:
build, run, import, NOPM > 0, zero errors, report and export; a failing run; no password."""

from __future__ import annotations

import json
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pymysql
import pytest
from hammerdb_helpers import drop_role
from private_databases import fresh_postgres

from dbbench.cli import main
from dbbench.drivers.hammerdb import flow
from dbbench.drivers.hammerdb.jobstore import read_job
from dbbench.reports.hammerdb.export import validate_job_report
from dbbench.reports.hammerdb.model import HammerDBResult

pytestmark = [pytest.mark.hammerdb, pytest.mark.timeout(600)]
# Trust authentication on the test servers accepts any password: one in the URL lets the test
# prove it appears in nothing dbbench writes.
SECRET = "Hdb-s3cret-Pw"


def _with_password(url: str) -> str:
    scheme, rest = url.split("://", 1)
    user, host = rest.split("@", 1)
    return f"{scheme}://{user}:{SECRET}@{host}"


def _tprocc(url: str, out: Path, capsys: pytest.CaptureFixture[str]) -> HammerDBResult:
    args = ["hammerdb", "run", "tprocc", "-e", url, "-o", str(out), "--build"]
    code = main([*args, "-w", "1", "-u", "2", "--duration", "0.2"])
    captured = capsys.readouterr()
    assert code == 0, captured.err[-3000:]
    assert "NOPM" in captured.out
    assert SECRET not in captured.out + captured.err
    return HammerDBResult.read(out / "result.json")


def _check_tprocc(result: HammerDBResult, out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert result.status == "complete" and result.errors == []
    assert result.nopm is not None and result.nopm > 0
    assert result.tpm is not None and result.tpm >= result.nopm
    assert result.active_virtual_users == 2
    assert {t.name for t in result.response_times} == {
        "NEWORD",
        "PAYMENT",
        "DELIVERY",
        "SLEV",
        "OSTAT",
    }
    assert all(
        (t.calls or 0) > 0 and (t.p99_ms or 0) >= (t.p50_ms or 0) for t in result.response_times
    )
    assert result.transaction_counts and result.build["ok"] is True
    assert result.config["warehouses"] == 1 and result.config["duration_minutes"] == 0.2
    # HammerDB's own outputs are kept beside the result
    for kept in ("run.tcl", "build.tcl", "hammerdb-run/hammer.DB", "hammerdb-run.log"):
        assert (out / kept).is_file(), kept
    # no password in any file dbbench wrote or kept (scripts, logs, job stores, result)
    for file in out.rglob("*"):
        if file.is_file():
            assert SECRET.encode() not in file.read_bytes(), file
    assert not list(out.rglob("postgresql.db")) and not list(out.rglob("mariadb.db"))
    # import of the kept job store gives the same numbers
    again = read_job(out / "hammerdb-run" / "hammer.DB")
    assert (again.nopm, again.tpm, again.jobid) == (result.nopm, result.tpm, result.jobid)
    # report and export
    for fmt in ("text", "md", "html"):
        assert main(["report", str(out), "-f", fmt, "-o", str(out / f"report.{fmt}")]) == 0
    capsys.readouterr()
    text = (out / "report.text").read_text()
    assert f"{result.nopm:,.0f}" in text and "NEWORD" in text
    html = (out / "report.html").read_text()
    assert html.count("<svg") == 2  # response-time box plot, TPM over time
    assert main(["hammerdb", "export", str(out), "-o", str(out / "job.json")]) == 0
    doc = json.loads((out / "job.json").read_text())
    assert validate_job_report(doc) == []
    assert doc["result"]["nopm"] == result.nopm and doc["job"]["benchmark"] == "TPROC-C"


def _interrupt(url: str, out: Path, *, twice: bool = False) -> None:
    """Ctrl-C during a run: HammerDB is stopped, exit 130, a failed result is kept. A second
    Ctrl-C while HammerDB stops: dbbench exits at once, and HammerDB (in a session of its own,
    which a terminal's Ctrl-C does not reach) is killed with it, never left running."""
    cmd = [sys.executable, "-m", "dbbench", "hammerdb", "run", "tprocc", "-e", url]
    proc = subprocess.Popen(
        [*cmd, "-o", str(out), "-u", "2", "--duration", "1"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "Vuser 2:RUNNING" in line:
            proc.send_signal(signal.SIGINT)
            if twice:
                time.sleep(0.2)
                proc.send_signal(signal.SIGINT)
            break
    rest = proc.communicate(timeout=60)[1]
    assert proc.returncode == 130, "".join(seen) + rest
    said = [line for line in rest.splitlines() if not line.startswith("hammerdb: ")]
    if twice:
        assert "interrupted again" in rest or (out / "result.json").is_file(), rest
    else:
        assert len(said) == 1 and "interrupted" in said[0], rest  # Ctrl-C: one line
        result = HammerDBResult.read(out / "result.json")
        assert result.status == "failed" and "interrupted" in result.errors[0]
        assert (out / "hammerdb-run.log").is_file()
    deadline = time.monotonic() + 10
    while True:
        left = subprocess.run(["pgrep", "-f", str(out)], capture_output=True, text=True)
        if left.stdout == "" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert left.stdout == "", f"HammerDB still running: {left.stdout}"


@pytest.mark.postgresql
def test_tprocc_postgresql(
    hammerdb_dir: Path, private_pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    role = ""
    try:
        with fresh_postgres(private_pg_url, "dbbench_hdb") as url:
            role = url.rsplit("/", 1)[1]  # HammerDB's build creates it to own the schema
            result = _tprocc(_with_password(url), tmp_path / "run", capsys)
            _interrupt(url, tmp_path / "interrupted")
            _interrupt(url, tmp_path / "interrupted-twice", twice=True)
    finally:  # the database goes first (the role owns it), then the role
        if role:
            drop_role(private_pg_url, role)
    assert result.engine.name == "postgresql" and "PostgreSQL" in result.engine.version
    _check_tprocc(result, tmp_path / "run", capsys)


@pytest.mark.mariadb
def test_tprocc_mariadb(
    hammerdb_dir: Path, mariadb_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``mysql://`` to the MariaDB server (root, no password) for a database that does not
    exist yet: HammerDB's MariaDB driver builds it, and the run takes its lock once it does."""
    name = f"dbbench_hdb_{secrets.token_hex(4)}"
    server = mariadb_base_url.replace("mysql+pymysql://", "mysql://").rsplit("/", 1)[0]
    try:
        result = _tprocc(f"{server}/{name}", tmp_path / "run", capsys)
    finally:
        with pymysql.connect(host="127.0.0.1", port=3306, user="root") as conn:
            conn.cursor().execute(f"DROP DATABASE IF EXISTS {name}")
    assert result.engine.name == "mariadb" and result.database == "MariaDB"
    _check_tprocc(result, tmp_path / "run", capsys)


@pytest.mark.postgresql
def test_relative_out_short_password_nothing_in_tmp(
    hammerdb_dir: Path,
    private_pg_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A relative --out with the password ``1``: HammerDB's TMP is absolute (nothing lands in
    the system's temporary folder), the run is complete, the job id and "Vuser 1" intact, and
    the build's generated owner password is in no kept file."""
    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(system_tmp))  # where HammerDB falls back without TMP
    monkeypatch.chdir(tmp_path)
    owner_pw = f"OwnerPw{secrets.token_hex(6)}"
    monkeypatch.setattr(flow, "new_owner_password", lambda: owner_pw)
    role = ""
    try:
        with fresh_postgres(private_pg_url, "dbbench_hdb") as url:
            role = url.rsplit("/", 1)[1]
            scheme, rest = url.split("://", 1)
            user, host = rest.split("@", 1)
            short = f"{scheme}://{user}:1@{host}"
            args = ["hammerdb", "run", "tprocc", "-e", short, "-o", "rel/run", "--build"]
            code = main([*args, "-u", "1", "--duration", "0.1"])
            captured = capsys.readouterr()
            again = main([*args[:-1], "--force", "-u", "1", "--duration", "0.1"])
            capsys.readouterr()
    finally:
        if role:
            drop_role(private_pg_url, role)
    assert code == 0, captured.err[-3000:]
    assert again == 0  # --force reuses the marked directory; settings do not carry over
    out = tmp_path / "rel" / "run"
    result = HammerDBResult.read(out / "result.json")
    assert result.status == "complete" and re.fullmatch(r"[0-9A-F]{24}", result.jobid)
    assert list(system_tmp.iterdir()) == []
    log = (out / "hammerdb-run.log").read_text()
    assert "Vuser 1:RUNNING" in log and result.jobid in log
    assert not (out / "hammerdb-build").exists()  # --force removed the first build's files
    for file in out.rglob("*"):
        if file.is_file():
            assert owner_pw.encode() not in file.read_bytes(), file
    assert not list(out.rglob("*.db"))  # HammerDB's settings files are gone


@pytest.mark.postgresql
def test_failed_run_is_invalid_with_error_shown_and_outputs_kept(
    hammerdb_dir: Path, pg_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run on a database without the schema: HammerDB's error shown, exit 3, kept outputs."""
    out = tmp_path / "run"
    with fresh_postgres(pg_base_url, "dbbench_hdb") as url:
        code = main(["hammerdb", "run", "tprocc", "-e", url, "-o", str(out), "--duration", "0.1"])
    captured = capsys.readouterr()
    assert code == 3, captured.err[-2000:]
    assert "the HammerDB run is invalid" in captured.err
    result = HammerDBResult.read(out / "result.json")
    assert result.status == "failed" and result.errors
    assert any("exist" in e or "FAILED" in e or "Error" in e for e in result.errors), result.errors
    assert (out / "hammerdb-run.log").is_file() and (out / "run.tcl").is_file()
    assert main(["report", str(out)]) == 0
    assert "Errors" in capsys.readouterr().out


@pytest.mark.nightly
@pytest.mark.postgresql
@pytest.mark.timeout(3600)
def test_tproch_postgresql_sf1(
    hammerdb_dir: Path, pg_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """TPROC-H at HammerDB's smallest scale factor (1): its build alone takes 7 to 40 minutes
    on 2 busy cores, so it runs only with DBBENCH_NIGHTLY=1 (the import test covers a stored
    job store of the same run)."""
    out = tmp_path / "run"
    role = ""
    try:
        with fresh_postgres(pg_base_url, "dbbench_hdb") as url:
            role = url.rsplit("/", 1)[1]
            args = ["hammerdb", "run", "tproch", "-e", url, "-o", str(out), "--build"]
            code = main([*args, "-s", "1", "--build-vus", "2", "--degree-of-parallel", "2"])
    finally:
        if role:
            drop_role(pg_base_url, role)
    assert code == 0, capsys.readouterr().err[-3000:]
    result = HammerDBResult.read(out / "result.json")
    assert result.status == "complete" and result.queries == 22
    assert sorted(q.query for q in result.query_times) == list(range(1, 23))
    assert main(["report", str(out), "-f", "html", "-o", str(out / "r.html")]) == 0
