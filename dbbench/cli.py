"""The ``dbbench`` command line: thin commands that call dbgen, queries, drivers and reports.

Every command lives in its own module under :mod:`dbbench.commands` and registers itself on
the one Typer app through a ``register(app)`` function listed in :data:`COMMAND_MODULES`.
A call imports only the module of the command it names (all of them for ``--help`` or a
name that is not a command): ``dbbench gen`` starts without loading the drivers, the
reports or their libraries, which is a good part of a second on a small machine.
Errors raised deep in the packages become one line on stderr and a non-zero exit here;
``--verbose`` shows the traceback.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import signal
import sys
from collections.abc import Iterable, Iterator
from typing import Any

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

import dbbench
from dbbench.errors import USER_ERRORS, ExitCode, error_line, hide_passwords, scrubbed_output
from dbbench.interrupts import INTERRUPTED_LINE, terminate_as_interrupt
from dbbench.option_check import OptionError, check_arguments

#: Modules under dbbench.commands, each with ``register(app: typer.Typer) -> None``, and
#: the top-level commands each registers (checked against the modules by the tests).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "gen": ("gen",),
    "qgen": ("qgen",),
    "validate": ("validate",),
    "answers": ("answers",),
    "run": ("run", "load", "power", "throughput"),
    "engines": ("engines",),
    "report": ("report", "compare"),
    "gate": ("gate",),
    "suite": ("suite",),
    "scale": ("scale",),
    "preflight": ("preflight",),
    "o2c": ("o2c",),
    "mixed": ("mixed",),
    "hammerdb": ("hammerdb",),
    "acid": ("acid",),
    "site": ("site", "verify"),
    "disclose": ("disclose",),
}
_MODULE_OF = {command: module for module, names in COMMAND_MODULES.items() for command in names}


class _Interrupted(Exception):
    """A KeyboardInterrupt (Ctrl-C, or SIGTERM by the one signal path) that no command
    caught, carried past typer, which would turn it into a silent ``Exit(130)``."""


class _Commands(TyperGroup):
    """The root group: an interrupt that leaves a command reaches :func:`_main`, which
    prints the one line every interrupted command ends with."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise _Interrupted from exc


app = typer.Typer(
    cls=_Commands,
    name="dbbench",
    help="TPC-H style database benchmark kit: generate data, run the spec's tests, report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_state = {"verbose": False}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"dbbench {dbbench.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show tracebacks and details."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    _state["verbose"] = verbose
    quiet_libraries(verbose)


def quiet_libraries(verbose: bool) -> None:
    """The drivers' own log records (psycopg's "error ignored terminating Copy" for every
    table a lost server's load was copying) are not dbbench's output: the one line of the
    error says what happened. ``--verbose`` shows them."""
    root = logging.getLogger()
    if verbose:
        logging.basicConfig(level=logging.WARNING)
    elif not root.handlers:
        root.addHandler(logging.NullHandler())  # no "last resort" printing to stderr


_registered: set[str] = set()


def register(modules: Iterable[str] = COMMAND_MODULES) -> None:
    """Import these command modules and add their commands to :data:`app` (once each)."""
    for name in modules:
        if name not in _registered:
            importlib.import_module(f"dbbench.commands.{name}").register(app)
            _registered.add(name)


def _modules_for(args: list[str]) -> list[str]:
    """The command module the arguments call (the first word that is not an option), or
    every module when there is none or it names no command (help, usage errors)."""
    command = next((a for a in args if not a.startswith("-")), None)
    module = _MODULE_OF.get(command or "")
    return [module] if module is not None else list(COMMAND_MODULES)


def entry() -> None:
    """The console script and ``python -m dbbench``: :func:`main`, then exit.

    An interrupted workload may leave threads inside an engine's C code (a stream's
    statement being cancelled); finalising the interpreter under them can abort it (seen:
    ``PyGILState_Release`` at exit). What was measured is written and flushed by then, so an
    interrupted command leaves as a second Ctrl-C does, without finalising."""
    code = main()
    if code == ExitCode.INTERRUPTED:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    raise SystemExit(code)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    if argv is None:  # the process is the command's (also `python -m dbbench.cli`)
        signal.signal(signal.SIGTERM, terminate_as_interrupt)
    try:  # every value on the command line checked before any command is loaded
        check_arguments(sys.argv[1:] if argv is None else argv)
    except OptionError as exc:
        with scrubbed_output(argv):
            sys.stderr.write(f"dbbench: error: {exc}\n")
        return ExitCode.USER_ERROR
    register(_modules_for(sys.argv[1:] if argv is None else argv))
    with scrubbed_output(argv):
        if argv is None:  # the console script: the process ends with the command
            return _main(argv)
        with _signal_handlers_kept():
            return _main(argv)


@contextlib.contextmanager
def _signal_handlers_kept() -> Iterator[None]:
    """SIGINT's and SIGTERM's handlers as they were before the command (an interrupted
    workload leaves one that exits at once on a second signal; a program that calls
    :func:`main` gets its own back)."""
    try:
        saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        # the one signal path: SIGTERM is Ctrl-C for the command's whole life (console.py
        # puts it in place from the process's start)
        signal.signal(signal.SIGTERM, terminate_as_interrupt)
    except ValueError:  # not the main thread: signals are not this call's to handle
        saved = {}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(signum, handler)


def _main(argv: list[str] | None) -> int:
    try:
        # Outside standalone mode click *returns* a typer.Exit's code instead of raising it.
        result = app(args=argv, standalone_mode=False)
    except (KeyboardInterrupt, _Interrupted):
        sys.stderr.write(INTERRUPTED_LINE)
        return ExitCode.INTERRUPTED
    except USER_ERRORS as exc:
        if _state["verbose"]:
            raise
        sys.stderr.write(hide_passwords(error_line(exc), argv))
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
        line = f"dbbench: internal error: {type(exc).__name__}: {exc}\n"
        sys.stderr.write(hide_passwords(line, argv))
        sys.stderr.write("dbbench: run again with --verbose for the traceback\n")
        return ExitCode.INTERNAL
    return result if isinstance(result, int) else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
