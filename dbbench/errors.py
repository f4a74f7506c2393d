"""The CLI boundary: which exceptions are the user's to fix, and the exit codes."""

from __future__ import annotations

import errno
import sys
from enum import IntEnum

from dbbench.dbgen.errors import DbgenError
from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import scrub_password
from dbbench.queries.errors import QueriesError
from dbbench.reports.errors import ReportsError


class ExitCode(IntEnum):
    OK = 0
    USER_ERROR = 1  # bad input, missing resource, engine refused: one clear line
    USAGE = 2  # the command line itself is wrong (click's convention)
    INVALID_RUN = 3  # the benchmark ran but is invalid (a failed query, a lost server)
    REGRESSION = 4  # dbbench gate: the candidate regressed against the baseline
    INTERRUPTED = 130  # Ctrl-C or kill, like a shell: drivers.signals.EXIT_INTERRUPTED
    INTERNAL = 70  # a bug: EX_SOFTWARE


class DbbenchError(Exception):
    """An error of the CLI layer itself (configuration, wiring)."""


USER_ERRORS: tuple[type[BaseException], ...] = (
    DbbenchError,
    DbgenError,
    QueriesError,
    DriversError,
    ReportsError,
    OSError,
)


def error_line(exc: BaseException) -> str:
    """One line for stderr; disk-full and permission errors get a plain explanation."""
    if isinstance(exc, OSError) and not isinstance(exc, USER_ERRORS[:5]):
        where = f" ({exc.filename})" if exc.filename else ""
        if exc.errno == errno.ENOSPC:
            return f"dbbench: error: no space left on device{where}\n"
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return f"dbbench: error: cannot write{where}: {exc.strerror}\n"
        return f"dbbench: error: {exc.strerror or exc}{where}\n"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"dbbench: error: {text}\n"


def hide_passwords(line: str, argv: list[str] | None) -> str:
    """``line`` with every piece of a password given in a URL on the command line hidden:
    the last guard, whatever library quoted the URL in its message."""
    args = sys.argv[1:] if argv is None else argv
    for arg in args:
        if "@" in arg:
            line = scrub_password(line, arg)
    return line
