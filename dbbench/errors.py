"""The CLI boundary: which exceptions are the user's to fix, and the exit codes."""

from __future__ import annotations

import contextlib
import errno
import sys
from collections.abc import Iterable, Iterator
from enum import IntEnum
from typing import Any, TextIO

from dbbench.dbgen.errors import DbgenError
from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import has_secret, scrub_secrets
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
    """``line`` with every secret of the command line hidden (a URL's password, libpq's
    ``password=``, ``PGPASSWORD=``) and any the line itself holds: the last guard, whatever
    library quoted the URL in its message."""
    return scrub_secrets(line, sys.argv[1:] if argv is None else argv)


class _Scrubbed:
    """A text stream that hides the command line's secrets in everything written to it
    (progress, warnings, errors, usage messages alike); the rest is the wrapped stream's."""

    def __init__(self, stream: TextIO, args: list[str]) -> None:
        self._stream = stream
        self._args = args

    def write(self, text: str) -> int:
        self._stream.write(scrub_secrets(text, self._args))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def scrubbed_output(argv: list[str] | None) -> Iterator[None]:
    """While a command runs, every line it prints on stdout or stderr goes through the one
    secret scrubber (:func:`dbbench.drivers.url.scrub_secrets`) when its command line holds
    a password; a command line without one is printed through untouched (no cost)."""
    args = sys.argv[1:] if argv is None else argv
    if not has_secret(args):
        yield
        return
    out, err = sys.stdout, sys.stderr
    sys.stdout = _Scrubbed(out, args)
    sys.stderr = _Scrubbed(err, args)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
