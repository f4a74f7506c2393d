"""No piece of a password ever reaches the output (issue: reliability, item 5).

A corpus of malformed engine URLs carrying passwords (bad port, unknown scheme, no scheme,
a password holding ``/``, ``?`` or ``@``, a closed port, a bad driver option) goes through
``dbbench run``; stdout, stderr and every file written are searched for any piece of it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dbbench.cli import main

PASSWORDS = ["Pw7Zq9xK3yVv", "Pw7/Zq9x/K3yVv", "Pw7?Zq9x@K3y#Vv", "Pw7%2FZq9x:K3y"]
TEMPLATES = [
    "postgresql://bench:{pw}@127.0.0.1:notaport/db",
    "postgresql://bench:{pw}@127.0.0.1:99999/db",
    "postgresql://bench:{pw}@127.0.0.1:-1/db",
    "nosuch://bench:{pw}@127.0.0.1/db",
    "9bad://bench:{pw}@127.0.0.1/db",
    "bench:{pw}@127.0.0.1:5432/db",
    "postgresql://bench:{pw}@[::1/db",
    "postgresql://bench:{pw}@127.0.0.1:1/db",
    "mysql+pymysql://root:{pw}@127.0.0.1:1/db",
    "mysql+pymysql://root:{pw}@127.0.0.1:3306/db?charset=nonsense",
    "sqlite://u:{pw}@h/x",
    "duckdb://u:{pw}@/x",
    "postgresql://bench@127.0.0.1:1/db?password={pw}",
    "postgresql://bench:{pw}@127.0.0.1:1/db?sslmode=%zz",
]


def pieces(password: str) -> list[str]:
    return [p for p in re.split(r"[/?#@:%]", password) if len(p) >= 3]


@pytest.mark.parametrize("password", PASSWORDS)
@pytest.mark.parametrize("template", TEMPLATES)
def test_no_piece_of_a_password_is_shown_or_written(
    template: str, password: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = template.format(pw=password)
    code = main(["run", "-e", url, "-s", "0.01", "-o", str(tmp_path / "run")])
    out, err = capsys.readouterr()
    assert code != 0
    assert err.startswith("dbbench: error: ") and err.count("\n") == 1, err
    texts = {"stdout": out, "stderr": err}
    for path in tmp_path.rglob("*"):
        if path.is_file():
            texts[str(path)] = path.read_text(encoding="utf-8", errors="replace")
    for where, text in texts.items():
        for piece in pieces(password):
            assert piece not in text, f"{piece!r} of the password in {where}: {text[:300]}"


def test_a_duckdb_url_with_credentials_is_refused_and_creates_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for url in ("duckdb://u:Pw7Zq9xK3yVv@/x", "duckdb://somehost/x", "duckdb://somehost:5/x"):
        assert main(["load", "-e", url, "-s", "0.01", "-o", str(tmp_path / "out")]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "names a file, not a server" in err, err
        assert "Pw7Zq9xK3yVv" not in err
    assert not (tmp_path / "x").exists()
