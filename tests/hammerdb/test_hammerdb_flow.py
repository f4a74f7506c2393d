"""The HammerDB flow before HammerDB starts: the URL mapped from the engine's declaration,
the server probed with the kit's own engine (one-line errors), the run lifecycle's locks; and
the masking of passwords only where HammerDB's text holds them."""

from __future__ import annotations

import secrets
from pathlib import Path

import pymysql
import pytest
from private_databases import fresh_postgres

from dbbench.cli import main
from dbbench.drivers.hammerdb.flow import connect
from dbbench.drivers.hammerdb.runner import Redactor
from dbbench.drivers.registry import open_engine
from dbbench.drivers.url import parse_url

JOBID = "6B069D8966E003E213638373"


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends


@pytest.mark.parametrize("scheme", ["postgresql", "mysql"])
def test_closed_port_is_one_line_before_hammerdb(
    scheme: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    url = f"{scheme}://root:pw@127.0.0.1:{_closed_port()}/hdb"
    code = main(["hammerdb", "run", "tprocc", "-e", url, "-o", str(out), "--build"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1, err
    assert "cannot use the server" in err and "pw" not in err.replace("hdb", "")
    assert not out.exists()  # nothing was made, HammerDB never started


@pytest.mark.mariadb
def test_wrong_mariadb_password_is_one_line(
    mariadb_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = mariadb_base_url.replace("mysql+pymysql://root@", "mysql://root:Wrong-Pw-9@")
    out = tmp_path / "run"
    assert main(["hammerdb", "run", "tprocc", "-e", url, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot use the server" in err, err
    assert "Wrong-Pw-9" not in err and not out.exists()


@pytest.mark.mariadb
def test_mysql_url_to_mariadb_for_a_new_database(mariadb_base_url: str) -> None:
    """``mysql://`` to a MariaDB server, for a database HammerDB will create: the probe asks
    the server (not the missing database), finds MariaDB, and HammerDB gets its MariaDB
    driver with its own word for "no password"."""
    name = f"dbbench_hdb_new_{secrets.token_hex(4)}"
    url = parse_url(mariadb_base_url.replace("mysql+pymysql://", "mysql://").rsplit("/", 1)[0])
    conn = connect(parse_url(f"{url.render(hide_password=False)}/{name}"))
    assert conn.target.db == "maria" and conn.info.name == "mariadb"
    assert conn.exists is False and conn.info.version.startswith("MariaDB")
    assert conn.password == "null"  # HammerDB's MariaDB driver then sends none
    with pymysql.connect(host=url.host, port=url.port or 3306, user="root") as c:
        cursor = c.cursor()
        cursor.execute("SHOW DATABASES")
        assert name not in {r[0] for r in cursor.fetchall()}  # the probe created nothing


@pytest.mark.postgresql
def test_run_refuses_a_database_another_workload_holds(
    hammerdb_dir: Path, pg_base_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a private database: the shared ``test`` one may be in use by a test in another worker
    with fresh_postgres(pg_base_url, "dbbench_hdb_held") as url:
        holder = open_engine(url)
        try:
            holder.lock_benchmark()
            out = tmp_path / "run"
            code = main(["hammerdb", "run", "tprocc", "-e", url, "-o", str(out), "-q"])
        finally:
            holder.close()
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1, err
    assert f"another dbbench run is using database {url.rsplit('/', 1)[1]}" in err
    assert not out.exists()  # the lifecycle left nothing behind


def test_short_password_masks_only_where_it_is() -> None:
    redact = Redactor(["1", ""])
    lines = [
        f"Benchmark Run jobid={JOBID}",
        "Vuser 1:RUNNING",
        "Vuser 1:Processing 1000000 transactions with output suppressed...",
        "TEST RESULT : System achieved 21424 NOPM from 49601 PostgreSQL TPM",
    ]
    for line in lines:
        assert redact(line) == line
    assert (
        redact("Changed tpcc:pg_superuserpass from postgres to 1 for PostgreSQL")
        == "Changed tpcc:pg_superuserpass from *** to *** for PostgreSQL"
    )
    assert "1" not in redact(
        "Value 1 for tpcc:pg_pass is the same as existing value 1, no change made"
    )
    assert redact("tpcc {pg_user tpcc pg_pass 1 pg_dbase x}") == (
        "tpcc {pg_user tpcc pg_pass *** pg_dbase x}"
    )


def test_empty_password_masks_nothing_and_long_ones_everywhere() -> None:
    assert Redactor([""])("maria_pass null / Vuser 1 null") == "maria_pass *** / Vuser 1 null"
    long = Redactor(["Hdb-s3cret-Pw"])
    assert long("error: login Hdb-s3cret-Pw refused") == "error: login *** refused"
    assert long(f"jobid={JOBID}") == f"jobid={JOBID}"
