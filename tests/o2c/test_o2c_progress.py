"""The o2c progress display: plain lines in a log, a live table on a terminal."""

from __future__ import annotations

import io

from rich.console import Console

from dbbench.commands.o2c_progress import LIVE_INTERVAL, O2CDisplay, display, plain_line, table
from dbbench.drivers.o2c.simulator import Progress

P = Progress("steady", 12.5, 180, 200, 17.25, 1.234, 2, 47.6)


def test_plain_lines_in_a_log() -> None:
    out = io.StringIO()  # not a terminal
    shown = display(1.0, out)
    assert not shown.live and shown.interval(10.0) == 10.0
    shown.label = "search probe 2: 200 users"
    shown(P)
    shown.note("probe 200 users: ... -> fail")
    lines = out.getvalue().splitlines()
    assert lines[0] == (
        "search probe 2: 200 users [  12.5s] steady    users=180/200 steps/s=17.2 "
        "rt avg=1.234s errors=2 eta=48s"
    )
    assert lines[1] == "probe 200 users: ... -> fail"
    assert plain_line(P) == lines[0].removeprefix("search probe 2: 200 users ")


def test_live_table_shows_the_watched_figures() -> None:
    console = Console(file=io.StringIO(), width=120, record=True)
    console.print(table(P, "search probe 2: 200 users", rt_limit=1.0))
    text = console.export_text()
    for needle in ("o2c search probe 2: 200 users", "steady", "180/200", "17.2", "1.234 s / 1",
                   "48 s"):  # fmt: skip
        assert needle in text, needle
    shown = O2CDisplay(io.StringIO(), live=True, rt_limit=1.0)
    assert shown.live and shown.interval(10.0) == LIVE_INTERVAL
    with shown.shown():
        shown(P)  # draws without error on a (pretend) terminal
        shown.note("kept above the table")
