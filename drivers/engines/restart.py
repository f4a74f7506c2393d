"""A database server restarted between a study's cold passes (the URL's ``restart`` option).

The kit cannot restart a server it did not start: the user (or a test harness with a
private server) names the command that does, e.g. ``pg_ctl -D <data> -w -m fast restart``
or ``systemctl restart postgresql``. It runs as given (split like a shell line, no shell),
with no input, within ``timeout`` seconds; then the kit waits until the server takes
connections again. Whatever goes wrong is one :class:`DriversError` line: the study then
records its passes as warm, never as cold.
"""

from __future__ import annotations

import shlex
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import TypeVar

from dbbench.drivers.errors import DriversError, one_line

T = TypeVar("T")

#: How long a restart command and the server's first connection may take, each.
RESTART_SECONDS = 300.0


def run_restart(engine: str, command: str, timeout: float = RESTART_SECONDS) -> None:
    """Run the restart command; raise :class:`DriversError` unless it exits 0."""
    args = shlex.split(command)
    if not args:
        raise DriversError(f"{engine}: the restart option names no command")
    # output to a file, not a pipe: a server the command starts keeps its descriptors, and a
    # pipe would never reach its end
    with tempfile.TemporaryFile() as output:
        try:
            done = subprocess.run(
                args, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                timeout=timeout, check=False,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError) as exc:
            raise DriversError(f"{engine}: the restart command failed: {one_line(exc)}") from exc
        if done.returncode != 0:
            output.seek(0)
            said = " ".join(output.read()[-300:].decode("utf-8", "replace").split())
            raise DriversError(
                f"{engine}: the restart command exited {done.returncode}: {said or 'no output'}"
            )


def wait_ready(engine: str, connect: Callable[[], T], timeout: float = RESTART_SECONDS) -> T:
    """``connect()`` once the restarted server takes connections (retried until then)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return connect()
        except DriversError as exc:
            if time.monotonic() >= deadline:
                raise DriversError(
                    f"{engine}: no connection {timeout:.0f} s after the restart: {one_line(exc)}"
                ) from exc
        time.sleep(0.2)
