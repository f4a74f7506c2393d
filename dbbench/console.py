"""The console script's first lines: the one signal path, before anything else is imported.

From the process's first instant to its last, SIGTERM is Ctrl-C: it raises
:class:`KeyboardInterrupt` in the main thread, which every command turns into its one line on
stderr and exit 130 (a workload writes what it measured first; the run lifecycle puts its own
handler in place while it runs, with a backstop for a server that does not answer). Without
this, ``kill`` in the first second of a command (while the kit's modules load, before any
command had put a handler in place) ended it silently with the shell's 143.
"""

from __future__ import annotations

import os
import signal
import sys

from dbbench.interrupts import INTERRUPTED_LINE, terminate_as_interrupt


def entry() -> None:
    """The ``dbbench`` console script."""
    signal.signal(signal.SIGTERM, terminate_as_interrupt)
    try:
        from dbbench.cli import entry as cli_entry

        cli_entry()
    except KeyboardInterrupt:  # while the kit's modules load, or past the command's own catch
        sys.stderr.write(INTERRUPTED_LINE)
        sys.stderr.flush()
        os._exit(130)
