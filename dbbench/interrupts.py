"""The one signal path's two pieces, in a module that imports nothing of the kit (the console
script puts them in place before the kit's modules load): SIGTERM raised as Ctrl-C's
:class:`KeyboardInterrupt`, and the one line an interrupted command ends with."""

from __future__ import annotations

from types import FrameType

#: The one line of an interrupted command (one that says more prints its own).
INTERRUPTED_LINE = "dbbench: interrupted; everything measured so far was kept\n"


def terminate_as_interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM's handler: the same path as Ctrl-C."""
    raise KeyboardInterrupt
