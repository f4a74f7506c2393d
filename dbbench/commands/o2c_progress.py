"""Live progress of ``dbbench o2c run|search|scale``: rich on a terminal, plain lines elsewhere.

The simulator reports a :class:`drivers.o2c.simulator.Progress` every progress interval
(users logged on, dialog steps/s and the average response time over the last interval,
errors, the phase and what remains of the measured window); this module draws it. On a
terminal the interval is one second and the lines are one live table; elsewhere (a log, CI)
each report is one line.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from dbbench.drivers.o2c.simulator import Progress

#: Seconds between updates of the live table.
LIVE_INTERVAL = 1.0


def plain_line(p: Progress, label: str = "") -> str:
    """One line of progress (a log's form, and the live table's caption)."""
    head = f"{label} " if label else ""
    return (
        f"{head}[{p.elapsed:6.1f}s] {p.phase:<9} users={p.logged_on}/{p.users} "
        f"steps/s={p.steps_per_second:,.1f} rt avg={p.avg_rt:.3f}s errors={p.errors} "
        f"eta={p.remaining:.0f}s"
    )


def table(p: Progress, label: str = "", rt_limit: float | None = None) -> Table:
    """The live view: one row of the figures a user watches, the limit beside the RT."""
    t = Table(title=f"o2c {label}".rstrip(), title_justify="left", expand=False)
    for head in ("phase", "users logged on", "dialog steps/s", "avg RT (last s)", "errors"):
        t.add_column(head, justify="left" if head == "phase" else "right")
    t.add_column("window left", justify="right")
    over = rt_limit is not None and p.avg_rt > rt_limit
    rt = Text(f"{p.avg_rt:.3f} s", style="bold red" if over else "")
    if rt_limit is not None:
        rt.append(f" / {rt_limit:g}", style="dim")
    t.add_row(
        p.phase,
        f"{p.logged_on:,}/{p.users:,}",
        f"{p.steps_per_second:,.1f}",
        rt,
        Text(str(p.errors), style="bold red" if p.errors else ""),
        f"{p.remaining:.0f} s",
    )
    return t


class O2CDisplay:
    """Receives the simulator's progress; ``label`` names the probe (``search``/``scale``)."""

    def __init__(self, stream: TextIO, live: bool, rt_limit: float | None = None) -> None:
        self.stream = stream
        self.rt_limit = rt_limit
        self.label = ""
        self._live: Live | None = None
        if live:
            self._live = Live(
                Text(""), console=Console(file=stream), auto_refresh=False, transient=True
            )

    @property
    def live(self) -> bool:
        return self._live is not None

    def interval(self, asked: float) -> float:
        """The progress interval to ask the simulator for: a second when live."""
        return min(asked, LIVE_INTERVAL) if self.live else asked

    def __call__(self, p: Progress) -> None:
        if self._live is None:
            print(plain_line(p, self.label), file=self.stream, flush=True)
            return
        self._live.update(table(p, self.label, self.rt_limit), refresh=True)

    def note(self, line: str) -> None:
        """A line that stays (a probe's verdict) above the live table."""
        if self._live is not None:
            self._live.console.print(line, markup=False, highlight=False)
        else:
            print(line, file=self.stream, flush=True)

    @contextmanager
    def shown(self) -> Iterator[O2CDisplay]:
        if self._live is None:
            yield self
            return
        with self._live:
            yield self


def display(rt_limit: float | None = None, stream: TextIO | None = None) -> O2CDisplay:
    """The display for stderr: live when it is a terminal."""
    out = stream if stream is not None else sys.stderr
    return O2CDisplay(out, out.isatty(), rt_limit)
