"""Errors raised by the `drivers` package; the CLI turns them into one line and an exit code."""

from __future__ import annotations

from collections.abc import Iterable


class DriversError(Exception):
    """A problem the user can fix (bad input, missing resource); its message is one line."""


class ConnectionLostError(DriversError):
    """The connection is gone (server stopped, backend terminated, network): the session can
    not be used again, so a run stops instead of recording every later query as failed."""


class QueryCancelledError(DriversError):
    """The statement was cancelled through :meth:`drivers.engine.Session.cancel` (a query
    timeout); the session stays usable."""


def one_line(exc: BaseException, *, secrets: Iterable[str] = (), limit: int = 400) -> str:
    """An exception as one short line, for a message or a result file.

    The first meaningful line of its text (SQLAlchemy's "Background on this error" note
    dropped), every secret replaced by ``***``, at most ``limit`` characters. The kit's own
    errors are written as lines already; any other exception (a database driver's, a bug) gets
    its type name first, so "KeyError: 'x'" does not read as "'x'".
    """
    text = str(exc).split("(Background on this error")[0]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if lines and "RPC that terminated with" in lines[0]:  # gRPC: the details say what
        details = [ln.partition("=")[2].strip(' "') for ln in lines if ln.startswith("details")]
        lines = details[:1] or lines
    line = " ".join(lines[0].split()) if lines else ""
    for secret in filter(None, secrets):
        line = line.replace(secret, "***")
    if not isinstance(exc, DriversError):
        line = f"{type(exc).__name__}: {line}" if line else type(exc).__name__
    line = line or type(exc).__name__
    return line if len(line) <= limit else line[: limit - 3] + "..."
