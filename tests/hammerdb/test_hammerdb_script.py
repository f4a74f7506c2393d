"""Engine URLs mapped onto HammerDB's settings; what the scripts may and may not contain."""

from __future__ import annotations

import pytest

from dbbench.drivers.errors import DriversError
from dbbench.drivers.hammerdb.script import (
    OWNER_PASSWORD_ENV,
    PASSWORD_ENV,
    TproccOptions,
    TprochOptions,
    build_script,
    run_script,
    target_for,
)
from dbbench.drivers.url import parse_url


def test_postgres_url_maps_to_superuser_owner_and_database() -> None:
    url = parse_url("postgresql://admin:Sup3rSecret@db.local:5433/hdb_c")
    t = target_for(url, "pg")
    assert (t.host, t.port, t.user, t.database, t.owner) == (
        "db.local",
        5433,
        "admin",
        "hdb_c",
        "hdb_c",
    )
    build = build_script(t, "tprocc", TproccOptions(warehouses=2, build_workers=2))
    run = run_script(t, "tprocc", TproccOptions(virtual_users=3, duration_minutes=0.5))
    for text in (build, run):
        assert "Sup3rSecret" not in text
        assert f"$::env({PASSWORD_ENV})" in text
        assert "diset connection pg_port 5433" in text
    assert "diset tpcc pg_count_ware 2" in build
    assert "diset tpcc pg_user hdb_c" in build  # the schema owner HammerDB creates
    assert f"diset tpcc pg_pass $::env({OWNER_PASSWORD_ENV})" in build
    assert "diset tpcc pg_user admin" in run  # runs connect as the URL's user
    assert "vuset vu 3" in run and "diset tpcc pg_duration 0.5" in run
    assert "buildschema" in build and "vurun" in run and "tcstart" in run


def test_mariadb_url_and_tproch_options() -> None:
    t = target_for(parse_url("mysql+pymysql://root@127.0.0.1/hdb_h"), "maria")
    build = build_script(t, "tproch", TprochOptions(scale_factor=10, build_workers=4))
    run = run_script(t, "tproch", TprochOptions(virtual_users=2, query_sets=3, refresh=True))
    assert "dbset db maria" in build and "dbset bm TPC-H" in build
    assert "diset tpch maria_scale_fact 10" in build
    assert "diset tpch maria_num_tpch_threads 4" in build
    assert "diset tpch maria_tpch_dbase hdb_h" in run
    assert "diset tpch maria_total_querysets 3" in run
    assert "diset tpch maria_refresh_on true" in run
    assert "diset connection maria_port 3306" in run
    assert "tcstart" not in run  # no transaction counter for TPROC-H


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://postgres@127.0.0.1", "name the database"),
        ("postgresql://postgres@127.0.0.1/bad-name", "plain SQL identifier"),
        ("postgresql://postgres@127.0.0.1/x?foo=1", "not understood"),
    ],
)
def test_bad_urls_are_one_line_errors(url: str, message: str) -> None:
    with pytest.raises(DriversError, match=message):
        target_for(parse_url(url), "pg")


def test_durations_are_tenths_of_a_minute() -> None:
    t = target_for(parse_url("postgresql://postgres@h/db"), "pg")
    with pytest.raises(DriversError, match=r"0\.1 minute"):
        run_script(t, "tprocc", TproccOptions(duration_minutes=0.25))
    assert "pg_duration 2" in run_script(t, "tprocc", TproccOptions(duration_minutes=2))
