"""Engine URLs: every form users type, option precedence, and the password never shown."""

from __future__ import annotations

import pytest

from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import parse_url, redact

SECRET = "s3cr#t:p@ss/word"
ENCODED = "s3cr%23t%3Ap%40ss%2Fword"


@pytest.mark.parametrize(
    ("text", "scheme", "driver", "database"),
    [
        ("duckdb", "duckdb", None, None),
        ("duckdb:///bench.db", "duckdb", None, "bench.db"),
        ("duckdb:////abs/path/bench.db", "duckdb", None, "/abs/path/bench.db"),
        ("duckdb:///:memory:", "duckdb", None, ":memory:"),
        ("sqlite:///file.db", "sqlite", None, "file.db"),
        ("sqlite://", "sqlite", None, None),
        ("mysql+pymysql://root@127.0.0.1:3306/test", "mysql", "pymysql", "test"),
        ("MariaDB+PyMySQL://root@h/test", "mariadb", "PyMySQL", "test"),
        ("postgres://u@h/db", "postgres", None, "db"),
    ],
)
def test_forms(text: str, scheme: str, driver: str | None, database: str | None) -> None:
    url = parse_url(text)
    assert (url.scheme, url.driver, url.database) == (scheme, driver, database)


def test_postgresql_url_parts_and_options() -> None:
    url = parse_url(f"postgresql://bench:{ENCODED}@db.example:6543/tpch?sslmode=require&x=a+b")
    assert url.username == "bench"
    assert url.password == SECRET
    assert (url.host, url.port, url.database) == ("db.example", 6543, "tpch")
    assert url.query == {"sslmode": "require", "x": "a b"}
    assert url.drivername == "postgresql"


def test_ipv6_host() -> None:
    url = parse_url("postgresql://u@[::1]:5432/db")
    assert (url.host, url.port) == ("::1", 5432)
    assert str(url) == "postgresql://u@[::1]:5432/db"


def test_keyword_options_override_query_string() -> None:
    url = parse_url("duckdb:///x.db?threads=4&memory_limit=1GB")
    merged = url.with_options(threads=2, keys=True, memory_limit=None)
    assert merged.query == {"threads": "2", "keys": "true"}
    assert url.query == {"threads": "4", "memory_limit": "1GB"}  # the original is untouched
    assert merged.without("keys").query == {"threads": "2"}


def test_password_never_in_str_repr_or_render() -> None:
    url = parse_url(f"postgresql://bench:{ENCODED}@h/db")
    for text in (str(url), repr(url), url.render(), redact(url), f"{url}"):
        assert SECRET not in text
        assert ENCODED not in text
    assert "bench:***@h" in str(url)
    assert parse_url(url.render(hide_password=False)).password == SECRET


def test_password_given_as_an_option_is_hidden_too() -> None:
    url = parse_url("postgresql://u@h/db?sslmode=require&password=hunter2")
    assert url.query["password"] == "hunter2"
    assert "hunter2" not in str(url) and "password=***" in str(url)
    assert (
        redact("postgresql://u@h/db?PassWord=hunter2&x=1") == "postgresql://u@h/db?PassWord=***&x=1"
    )


def test_redact_text_that_does_not_parse() -> None:
    assert redact("postgresql://u:hunter2@h:notaport/db") == "postgresql://u:***@h:notaport/db"
    assert redact("mysql+pymysql://root:p@ss@h/db") == "mysql+pymysql://root:***@h/db"
    assert redact("duckdb:///x.db") == "duckdb:///x.db"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "not a url",
        "postgresql://u:hunter2@h:notaport/db",
        "postgresql://u:hunter2@h:99999/db",
        "1bad://u:hunter2@h/db",
        "postgresql://u:hunter2@h/db?novalue",
    ],
)
def test_bad_urls_are_one_line_without_password(text: str) -> None:
    with pytest.raises(DriversError) as info:
        parse_url(text)
    message = str(info.value)
    assert "hunter2" not in message
    assert "\n" not in message
