"""The ``dbbench`` command line: thin commands that call dbgen, queries, drivers and reports.

Every command lives in its own module under :mod:`dbbench.commands` and registers itself on
the one Typer app through a ``register(app)`` function listed in :data:`COMMAND_MODULES`.
Errors raised deep in the packages become one line on stderr and a non-zero exit here;
``--verbose`` shows the traceback.
"""

from __future__ import annotations

import importlib
import sys

import typer
from typer.exceptions import TyperException

from dbbench import __version__
from dbbench.errors import USER_ERRORS, ExitCode, error_line

#: Modules under dbbench.commands, each with ``register(app: typer.Typer) -> None``.
COMMAND_MODULES: tuple[str, ...] = (
    "gen",
    "qgen",
    "validate",
    "run",
    "engines",
    "report",
    "gate",
    "suite",
    "scale",
    "preflight",
    "o2c",
)

app = typer.Typer(
    name="dbbench",
    help="TPC-H style database benchmark kit: generate data, run the spec's tests, report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_state = {"verbose": False}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"dbbench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show tracebacks and details."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    _state["verbose"] = verbose


for _name in COMMAND_MODULES:
    importlib.import_module(f"dbbench.commands.{_name}").register(app)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    try:
        # Outside standalone mode click *returns* a typer.Exit's code instead of raising it.
        result = app(args=argv, standalone_mode=False)
    except KeyboardInterrupt:
        sys.stderr.write("dbbench: interrupted; everything measured so far was kept\n")
        return ExitCode.INTERRUPTED
    except USER_ERRORS as exc:
        if _state["verbose"]:
            raise
        sys.stderr.write(error_line(exc))
        return ExitCode.USER_ERROR
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except typer.Abort:
        sys.stderr.write("dbbench: aborted\n")
        return ExitCode.INTERRUPTED
    except TyperException as exc:  # usage errors: typer prints them as click did
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        return int(getattr(exc, "exit_code", ExitCode.USAGE))
    except Exception as exc:  # the unexpected: a bug
        if _state["verbose"]:
            raise
        sys.stderr.write(f"dbbench: internal error: {type(exc).__name__}: {exc}\n")
        sys.stderr.write("dbbench: run again with --verbose for the traceback\n")
        return ExitCode.INTERNAL
    return result if isinstance(result, int) else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
