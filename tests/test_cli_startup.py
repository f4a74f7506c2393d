"""The command line loads only what the called command needs.

``dbbench gen`` is compared against a native generator, so its start-up counts: it must
not import the drivers, the reports, pandas (which ``pa.array`` would pull in) or
typer/rich beyond what it uses. And the table of commands that makes this possible must
list exactly what each command module registers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import typer

from dbbench import cli


def test_command_table_matches_what_each_module_registers() -> None:
    for module, names in cli.COMMAND_MODULES.items():
        app = typer.Typer()
        __import__(f"dbbench.commands.{module}", fromlist=["register"]).register(app)
        registered = {c.name for c in app.registered_commands}
        registered |= {g.name for g in app.registered_groups}
        assert registered == set(names), f"dbbench.commands.{module} registers {registered}"


def test_modules_for_picks_the_called_command_or_all() -> None:
    assert cli._modules_for(["-v", "gen", "-s", "1"]) == ["gen"]
    assert cli._modules_for(["compare", "a", "b"]) == ["report"]
    assert cli._modules_for(["--help"]) == list(cli.COMMAND_MODULES)
    assert cli._modules_for(["no-such-command"]) == list(cli.COMMAND_MODULES)


#: What the CLI boundary itself needs of the other packages: their error types (and the
#: password scrubber), which it maps to exit codes.
_BOUNDARY = {
    *("dbbench.drivers", "dbbench.queries", "dbbench.reports"),
    *("dbbench.drivers.errors", "dbbench.queries.errors", "dbbench.reports.errors"),
    "dbbench.drivers.url",
    # the one free-space check of a load and of gen's files (dbgen and the URL parser only)
    "dbbench.drivers.space",
}
_PROBE = """
import json, sys
from dbbench.cli import main
rc = main(sys.argv[1:])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("pandas", "jinja2", "duckdb")
                or m.startswith(("dbbench.drivers", "dbbench.reports", "dbbench.queries")))
print(json.dumps([rc, loaded]))
"""


def _loaded_by(*argv: str) -> tuple[int, list[str]]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=True
    ).stdout
    rc, loaded = json.loads(out.splitlines()[-1])
    return rc, [m for m in loaded if m not in _BOUNDARY]


def test_gen_loads_neither_drivers_reports_nor_pandas(tmp_path: Path) -> None:
    for fmt in ("tbl", "parquet"):
        rc, loaded = _loaded_by(
            "gen", "-s", "0.01", "-q", "-o", str(tmp_path / fmt), "--format", fmt
        )
        assert rc == 0
        assert loaded == [], f"dbbench gen --format {fmt} imported {loaded}"
    rc, loaded = _loaded_by("gen", "-s", "0.01", "-q", "-U", "2", "-o", str(tmp_path / "u"))
    assert (rc, loaded) == (0, [])


def test_help_still_lists_every_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "dbbench", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for names in cli.COMMAND_MODULES.values():
        for name in names:
            assert name in out, f"{name} missing from dbbench --help"
