"""Issue 39: the hostile-input classes, one reproducer each, through the shared mechanism
(the bounded input reader, the safe writer, the secret scrubber, the option checks).

Each test here failed on the code before issue 39: a traceback (exit 70), a device read
whole, a FIFO that hung a walk, a password echoed, a device replaced.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from reports_fixtures import make_result

from dbbench.cli import main
from dbbench.errors import ExitCode

COST_SHEET = Path(__file__).parent.parent / "examples" / "cost-sheets" / "cloud-vm-3y.toml"
PUBLISHED = Path(__file__).parent.parent / "examples" / "published" / "ibm-x3950-m2-300gb.toml"
SUITE = Path(__file__).parent.parent / "examples" / "suites" / "analytical-sf0.1.toml"


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("dbbench: error: ") and err.count("\n") == 1, err
    return err


@pytest.fixture()
def result_file(tmp_path: Path) -> Path:
    path = tmp_path / "result.json"
    make_result().write(path)
    return path


@pytest.fixture()
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.toml"
    os.mkfifo(path)
    return path


# ------------------------------------------------------------- S4: unbounded reads, FIFOs

DEVICE = Path("/dev/zero")  # endless: read whole, it was > 2 GB in seconds


@pytest.mark.parametrize("source", ["device", "fifo"])
def test_a_cost_sheet_that_is_a_device_or_fifo_is_refused_unread(
    source: str,
    fifo: Path,
    result_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sheet = DEVICE if source == "device" else fifo
    out = tmp_path / "r.md"
    code = main(["report", str(result_file), "-c", str(sheet), "-o", str(out)])
    assert code == ExitCode.USER_ERROR
    err = _one_line_error(capsys)
    assert ("character device" if source == "device" else "FIFO") in err
    assert not out.exists()


def test_a_result_baseline_or_record_that_is_a_device_is_refused(
    result_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(DEVICE), "-f", "md", "-o", "-"]) == ExitCode.USER_ERROR
    assert "character device" in _one_line_error(capsys)
    code = main(["compare", str(result_file), str(DEVICE), "-f", "md", "-o", "-"])
    assert code == ExitCode.USER_ERROR
    assert "character device" in _one_line_error(capsys)


def test_a_suite_file_that_is_a_device_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["suite", str(DEVICE), "--out", str(tmp_path / "s")])
    assert code == ExitCode.USER_ERROR
    assert "character device" in _one_line_error(capsys)
    assert not (tmp_path / "s").exists()


def test_a_site_walk_skips_a_fifo_without_hanging(
    result_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = result_file.parent
    os.mkfifo(inputs / "trap.json")
    os.mkfifo(inputs / "trap.toml")
    out = tmp_path / "site"
    code = main(["site", str(inputs), "-o", str(out)])
    err = capsys.readouterr().err
    assert "FIFO" in err, err
    assert code in (ExitCode.OK, ExitCode.USER_ERROR) and (out / "index.html").is_file()


@pytest.mark.parametrize("case", ["missing", "empty-dir", "no-result"])
def test_a_site_of_a_missing_or_empty_input_is_one_line_and_no_site(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It exited 0 with an empty site; now one line, exit 1, nothing written (and an
    earlier site in the way is left as it was)."""
    inputs = tmp_path / "inputs"
    if case != "missing":
        inputs.mkdir()
    if case == "no-result":
        (inputs / "notes.json").write_text('{"not": "a result"}', encoding="utf-8")
    out = tmp_path / "site"
    code = main(["site", str(inputs), "-o", str(out)])
    assert code == ExitCode.USER_ERROR
    if case == "no-result":  # each file read says why it is not a result, then the error
        *why, err = capsys.readouterr().err.splitlines()
        assert err.startswith("dbbench: error: ") and len(why) == 1 and "notes.json" in why[0]
    else:
        err = _one_line_error(capsys)
    assert str(inputs) in err and "nothing written" in err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == (["inputs"] if case != "missing" else [])


# --------------------------------------------------- exit 70: TOML and numbers, one reader


def _sheet_with(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sheet.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "extra, words",
    [
        ("deep = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        ("huge = " + "9" * 5000 + "\n", "not valid TOML"),
        ("big = " + "9" * 25 + "\n", "integer too large"),
    ],
    ids=["nested-5000", "int-5000-digits", "int-25-digits"],
)
def test_hostile_toml_in_a_cost_sheet_is_one_line(
    extra: str,
    words: str,
    result_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sheet = _sheet_with(tmp_path, extra + COST_SHEET.read_text(encoding="utf-8"))
    code = main(["report", str(result_file), "-c", str(sheet), "-o", str(tmp_path / "r.md")])
    assert code == ExitCode.USER_ERROR
    assert words in _one_line_error(capsys)


def test_nan_in_a_cost_sheets_priced_table_is_one_line(
    result_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = COST_SHEET.read_text(encoding="utf-8")
    assert "[priced]" in text
    head, _, tail = text.partition("[priced]\n")
    key = tail.split("=", 1)[0].strip()
    rest = tail.split("\n", 1)[1]
    sheet = _sheet_with(tmp_path, f"{head}[priced]\n{key} = nan\n{rest}")
    code = main(["report", str(result_file), "-c", str(sheet), "-o", str(tmp_path / "r.md")])
    assert code == ExitCode.USER_ERROR
    assert "must be a finite number" in _one_line_error(capsys)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_published_record_with_a_non_finite_qphh_is_one_line(
    value: str, result_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = PUBLISHED.read_text(encoding="utf-8").splitlines()
    lines = [f"qphh = {value}" if line.startswith("qphh") else line for line in lines]
    record = tmp_path / "record.toml"
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(["compare", str(result_file), str(record), "-f", "md", "-o", "-"])
    assert code == ExitCode.USER_ERROR
    assert "must be a finite number" in _one_line_error(capsys)


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe\x00binary\x00",
        (
            "scale_factor = 1"
            + "0" * 19
            + "\n"
            + SUITE.read_text(encoding="utf-8").split("scale_factor = 0.1\n", 1)[1]
        ).encode(),
        b"x = " + b"{a = " * 5000 + b"1" + b"}" * 5000 + b"\n",
    ],
    ids=["binary", "sf-20-digits", "nested-5000"],
)
def test_a_hostile_suite_file_is_one_line_and_writes_nothing(
    content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite.toml"
    suite.write_bytes(content)
    code = main(["suite", str(suite), "--out", str(tmp_path / "s")])
    assert code == ExitCode.USER_ERROR
    _one_line_error(capsys)
    assert not (tmp_path / "s").exists()


def test_a_fifo_and_a_directory_given_as_inputs_are_named() -> None:
    from dbbench.reports import inputs

    with pytest.raises(inputs.InputError, match="a directory"):
        inputs.read_bytes(Path(__file__).parent)
    assert stat.S_ISCHR(os.stat(DEVICE).st_mode)
    with pytest.raises(inputs.InputError, match="too large"):
        inputs.read_bytes(Path(__file__), limit=10)


# ------------------------------------------------------ S2: one scrubber for every line


@pytest.mark.parametrize(
    "args",
    [
        ["run", "-e", "host=127.0.0.1 port=1 password=PWSECRET"],
        ["power", "-e", "host=127.0.0.1 port=1 password='PW SECRET'"],
        ["preflight", "-e", "host=127.0.0.1 sslpassword=PWSECRET"],
        ["validate", "-e", "PGPASSWORD=PWSECRET host=127.0.0.1"],
        ["o2c", "check", "-e", "host=127.0.0.1 port=1 password=PWSECRET"],
    ],
    ids=["run", "power-quoted", "preflight-sslpassword", "validate-pgpassword", "o2c-check"],
)
def test_a_libpq_key_value_password_is_never_printed(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) != ExitCode.OK
    out, err = capsys.readouterr()
    assert "SECRET" not in out + err and "***" in err, err


def test_every_line_printed_goes_through_the_scrubber(capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    from dbbench.errors import scrubbed_output

    with scrubbed_output(["-e", "postgresql://u:TOPSECRET@h/db", "x password=OTHERPW"]):
        print("progress on postgresql://u:TOPSECRET@h/db")
        sys.stderr.write("warning: OTHERPW and TOPSECRET\n")
    out, err = capsys.readouterr()
    assert "TOPSECRET" not in out + err and "OTHERPW" not in out + err
    assert out.count("***") == 1 and err.count("***") == 2


# ------------------------------------------ S3: every Markdown study escapes what it prints


def test_a_failed_suite_entrys_error_text_is_escaped_in_comparison_md(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "s.toml"
    suite.write_text(
        'scale_factor = 0.01\nruns = 1\n[[engine]]\nname = "pg"\n'
        'url = "postgresql://127.0.0.1:1/x<script>alert(1)</script>"\n',
        encoding="utf-8",
    )
    main(["suite", str(suite), "--out", str(tmp_path / "out")])
    capsys.readouterr()
    md = (tmp_path / "out" / "comparison.md").read_text(encoding="utf-8")
    assert "&lt;script&gt;" in md and "<script>" not in md


# ------------------------------------- S1: the generator never replaces a special file


@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
def test_gen_force_never_replaces_a_special_file(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    target = out / "region.tbl"
    kept = tmp_path / "kept.txt"
    kept.write_text("keep")
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink":
        target.symlink_to(kept)
    else:
        try:
            os.mknod(target, 0o644 | stat.S_IFCHR, os.makedev(1, 7))
        except PermissionError:
            pytest.skip("mknod needs CAP_MKNOD")
    before = target.lstat()
    code = main(["gen", "-s", "0.01", "-T", "r", "-o", str(out), "-q", "-f"])
    assert code == ExitCode.USER_ERROR
    assert "refusing to replace" in _one_line_error(capsys)
    after = target.lstat()
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert kept.read_text() == "keep"


def test_gen_refuses_an_output_directory_that_is_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert main(["gen", "-s", "0.01", "-T", "r", "-o", str(link), "-q"]) == ExitCode.USER_ERROR
    assert "symbolic link" in _one_line_error(capsys)
    assert not any(real.iterdir())


# ------------------- exit 70 / leftovers: every command-line value checked before any work


@pytest.mark.parametrize(
    "args, words",
    [
        (["o2c", "run", "-e", "duckdb", "-u", "1", "--steady", "nan"], "must be a finite number"),
        (["o2c", "search", "-e", "duckdb", "--steady=inf"], "must be a finite number"),
        (["mixed", "run", "-e", "duckdb", "--think", "nan"], "must be a finite number"),
        (["mixed", "run", "-e", "duckdb", "--freshness", "inf"], "must be a finite number"),
        (["scale", "-e", "duckdb", "--query-timeout", "NaN"], "must be a finite number"),
        (["run", "-e", "duckdb", "-s", "1", "--seed", "9" * 20], "too large"),
        (["gen", "-s", "0.01", "-T", "r", "-o", "OUT\udcff"], "not UTF-8"),
        (["run", "-e", "duckdb", "-s", "0.01", "-o", "OUT\udcff"], "not UTF-8"),
    ],
    ids=[
        "o2c-steady",
        "o2c-search",
        "mixed-think",
        "mixed-freshness",
        "scale-timeout",
        "run-seed",
        "gen-o",
        "run-o",
    ],
)
def test_a_value_no_command_accepts_is_refused_before_any_work(
    args: list[str],
    words: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(args) == ExitCode.USER_ERROR
    assert words in _one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []  # nothing written, no database, no run directory


# ------------- leftovers: every benchmark a command or study will run checked before any work


def _suite_with(tmp_path: Path, head: str) -> Path:
    suite = tmp_path / "suite.toml"
    suite.write_text(f'{head}\n[[engine]]\nname = "duckdb"\nurl = "duckdb"\n', encoding="utf-8")
    return suite


@pytest.mark.parametrize(
    "head, words",
    [
        ("scale_factor = 0.01\nstreams = 1000000000", "update sets"),
        ("scale_factor = 0.01\nruns = 1000000", "update sets"),
        ("scale_factors = [0.01, 1e9]", "are free there"),
        ("scale_factors = [0.01, 1e-9]", "too small"),
    ],
    ids=["streams", "runs", "sf-1e9-second", "sf-1e-9-second"],
)
def test_a_suite_entry_that_cannot_run_is_refused_before_the_first_entry(
    head: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["suite", str(_suite_with(tmp_path, head)), "--out", str(out)]) == 1
    assert words in _one_line_error(capsys)
    assert not out.exists()  # no suite.json, no entry folder, no database


@pytest.mark.parametrize(
    "args, words",
    [
        (["scale", "-S", "1000000"], "update sets"),
        (["scale", "--max-streams", "1000000000"], "update sets"),
        (["scale", "--repetitions", "-1"], "--repetitions must be at least 0"),
        (["scale", "--repetitions", "1000000000"], "at most 1000 passes"),
        (["scale", "--seed", "-1"], "--seed -1"),
        (["scale", "-S", "1,1"], "twice"),
        (["scale", "-S", "1,,2"], "comma-separated"),
        (["run", "-s", "1e-9"], "too small"),
        (["gen", "-s", "0.01", "-C", "1000000000", "-o", "g", "-q"], "at most 15,000"),
        (["o2c", "run", "-e", "duckdb:///gone.duckdb", "-u", "1", "--steady", "1e12"], "a week"),
        (["o2c", "search", "-e", "duckdb:///gone.duckdb", "--think", "1e308"], "a week"),
        (["mixed", "run", "-e", "duckdb:///gone.duckdb", "-u", "1", "-S", "1000000"], "update"),
        (["mixed", "run", "-e", "duckdb:///gone.duckdb", "-u", "1", "--query-timeout", "0"], "pos"),
        (["mixed", "frontier", "-e", "duckdb:///gone.duckdb", "--seed", "-1"], "--seed -1"),
        (["mixed", "frontier", "-e", "duckdb:///gone.duckdb", "-u", "1,1"], "twice"),
        (["power", "-e", "duckdb:///gone.duckdb", "-s", "0.01"], "no database file"),
        (["throughput", "-e", "duckdb:///sub/gone.duckdb", "-s", "0.01"], "no database file"),
        (["power", "-e", "duckdb:///empty.duckdb", "-s", "0.01"], "not loaded by dbbench"),
    ],
    ids=lambda v: "-".join(v) if isinstance(v, list) else "",
)
def test_a_plan_that_cannot_run_is_refused_before_anything_is_written(
    args: list[str],
    words: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The one validator (``check_options`` on every benchmark a command will run, the
    space check, a database that must exist and be loaded) runs before the first write: a
    scaling study used to load first, a mixed run to measure its o2c-only point, power to
    create the database file and a run directory."""
    monkeypatch.chdir(tmp_path)
    if "duckdb:///empty.duckdb" in args:
        import duckdb

        duckdb.connect("empty.duckdb").close()
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main([*args[:1], *(["-s", "0.01"] if args[0] == "scale" else []), *args[1:]]) == 1
    assert words in _one_line_error(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no runs/, no database


# --------------------------------------------- multi-line: one line for what went wrong


@pytest.fixture(scope="module")
def loaded_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DuckDB database dbbench loaded at SF 0.01, in its load's run directory."""
    out = tmp_path_factory.mktemp("loaded") / "load"
    assert main(["load", "-s", "0.01", "-o", str(out)]) == 0
    return out


def test_a_run_with_many_problems_says_so_in_one_line(
    loaded_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    url = f"duckdb:///{loaded_dir / 'tpch.duckdb'}"
    args = ["power", "-e", url, "-s", "0.01", "--query-timeout", "1e-9", "-o", str(tmp_path / "p")]
    assert main(args) == ExitCode.INVALID_RUN
    err = capsys.readouterr().err
    (line,) = [x for x in err.splitlines() if "invalid" in x or "problem" in x]
    assert "timeout" in line and "more problems" in line, err


def test_power_at_another_scale_factor_is_refused_without_warnings(
    loaded_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    url = f"duckdb:///{loaded_dir / 'tpch.duckdb'}"
    assert main(["power", "-e", url, "-s", "1e9", "-o", str(tmp_path / "p")]) == 1
    assert "holds scale factor 0.01, not 1e+09" in _one_line_error(capsys)  # no memory warning
    assert not (tmp_path / "p").exists()


def test_a_journal_event_holding_nan_is_damage_skipped_in_one_line(
    loaded_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    run = tmp_path / "run"
    run.mkdir()
    lines = (loaded_dir / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(x) for x in lines]
    end = next(e for e in events if e["event"] == "load_end")
    end["seconds"] = float("nan")
    text = "\n".join(json.dumps(e) for e in events) + "\n"
    (run / "journal.jsonl").write_text(text, encoding="utf-8")
    capsys.readouterr()
    code = main(["report", str(run), "-f", "md", "-o", "-"])
    err = capsys.readouterr().err
    # the damaged event is skipped as a torn one is (it was exit 70, or the rebuilt note
    # and then the error): one line either way
    assert code in (ExitCode.OK, ExitCode.USER_ERROR) and err.count("\n") == 1, err


# ------------------------- url: a URL with no host names the place; foreign tables refused


@pytest.fixture()
def scratch_pg(pg_base_url: str) -> Iterator[str]:
    """A database of this test's own on the shared server (127.0.0.1), holding one table
    dbbench did not create; dropped after."""
    import psycopg

    name = f"dbbench_rel39_{os.getpid()}"
    admin = pg_base_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    try:
        with psycopg.connect(f"{admin.rsplit('/', 1)[0]}/{name}", autocommit=True) as conn:
            conn.execute("CREATE TABLE kept (a int)")
            conn.execute("INSERT INTO kept VALUES (1)")
        yield name
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_a_load_beside_tables_dbbench_did_not_create_is_refused(
    scratch_pg: str,
    pg_base_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``-e postgresql://`` reached a database by libpq's defaults and loaded TPC-H beside
    its tables. The URL here names no host either: PGHOST says 127.0.0.1 (the test server)."""
    import psycopg

    monkeypatch.setenv("PGHOST", "127.0.0.1")
    monkeypatch.setenv("PGPORT", pg_base_url.rsplit(":", 1)[1].split("/")[0])
    out = tmp_path / "load"
    url = f"postgresql://postgres@/{scratch_pg}"
    assert main(["load", "-e", url, "-s", "0.01", "-o", str(out)]) == ExitCode.USER_ERROR
    err = _one_line_error(capsys)
    assert f"database '{scratch_pg}' on 127.0.0.1:" in err and "did not create (kept)" in err
    assert not out.exists()
    with psycopg.connect(f"{pg_base_url.rsplit('/', 1)[0]}/{scratch_pg}") as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchall()
    assert tables == [("kept",)]  # nothing of TPC-H's written beside it


@pytest.fixture()
def scratch_maria(mariadb_base_url: str) -> Iterator[str]:
    """A database of this test's own on the shared MariaDB server; dropped after."""
    from urllib.parse import urlsplit

    import pymysql

    server = urlsplit(mariadb_base_url)
    if server.port != 3306:
        pytest.skip("a URL with no host reaches port 3306: the test server is elsewhere")
    name = f"dbbench_rel39_{os.getpid()}"
    conn = pymysql.connect(host=server.hostname, port=server.port, user="root", autocommit=True)
    try:
        conn.cursor().execute(f"DROP DATABASE IF EXISTS {name}")
        conn.cursor().execute(f"CREATE DATABASE {name}")
        yield name
    finally:
        conn.cursor().execute(f"DROP DATABASE IF EXISTS {name}")
        conn.close()


def test_a_mariadb_url_with_no_host_names_where_it_writes_before_writing(
    scratch_maria: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``mysql://root@/DB`` reaches PyMySQL's default, localhost:3306; like the PostgreSQL
    no-host case, the one notice (``RunScope.defaulted_places``) says which database on
    which server, and it comes before the load's first line."""
    out = tmp_path / "load"
    url = f"mysql://root@/{scratch_maria}"
    assert main(["load", "-e", url, "-s", "0.01", "-o", str(out)]) == ExitCode.OK
    lines = capsys.readouterr().err.splitlines()
    notice = f"dbbench: the URL names no host or database: database '{scratch_maria}' on "
    [first] = [n for n, line in enumerate(lines) if line.startswith(notice)]
    assert "localhost:3306 as user 'root@" in lines[first]
    assert not any("load" in line.lower() for line in lines[:first]), lines[:first]


# ------------------------------- spark: a URL with no warehouse keeps it in the run dir


_SPARK_PROBE = """
import sys
from pathlib import Path
from dbbench.drivers.lifecycle import local_url
from dbbench.drivers.registry import open_engine
out = Path(sys.argv[1])
url = local_url("spark://local[1]", out)
assert str(out / "spark-warehouse") in url, url
engine = open_engine(url)
try:
    session = engine.session()
    try:
        session.execute("CREATE TABLE region_probe USING parquet AS SELECT 1 AS r")
        assert session.query("SELECT count(*) FROM region_probe").rows[0][0] == 1
    finally:
        session.close()
finally:
    engine.close()
"""


def test_spark_without_a_warehouse_leaves_nothing_in_the_working_folder(tmp_path: Path) -> None:
    """``spark://local[1]`` put ``spark-warehouse/`` (a folder per table) in the working
    folder; the run's warehouse is its run directory's (``Engine.in_run_dir``, placed by the
    lifecycle's ``local_url``), and Spark's own ``spark.sql.warehouse.dir`` with it. One
    table is made (a whole SF 0.01 load took 453 s on a busy 2-core VM), in a process of its
    own: Spark takes one master a process, and an earlier test of this worker may run one."""
    pytest.importorskip("pyspark")
    work = tmp_path / "work"
    work.mkdir()
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-c", _SPARK_PROBE, str(out)],
        cwd=work, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in work.iterdir()) == []  # no spark-warehouse/, no metastore
    made = sorted(str(p.relative_to(out)) for p in out.rglob("region_probe"))
    assert made and all(m.startswith("spark-warehouse") for m in made), made


def test_force_loads_beside_them_and_a_url_with_no_host_names_where_it_writes(
    scratch_pg: str,
    pg_base_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import psycopg

    monkeypatch.setenv("PGHOST", "127.0.0.1")
    monkeypatch.setenv("PGPORT", pg_base_url.rsplit(":", 1)[1].split("/")[0])
    url = f"postgresql://postgres@/{scratch_pg}"
    args = ["load", "-e", url, "-s", "0.01", "-o", str(tmp_path / "load"), "--force"]
    assert main(args) == ExitCode.OK
    err = capsys.readouterr().err
    assert f"the URL names no host or database: database '{scratch_pg}' on 127.0.0.1:" in err
    with psycopg.connect(f"{pg_base_url.rsplit('/', 1)[0]}/{scratch_pg}") as conn:
        assert conn.execute("SELECT count(*) FROM kept").fetchone() == (1,)
        assert conn.execute("SELECT count(*) FROM region").fetchone() == (5,)
