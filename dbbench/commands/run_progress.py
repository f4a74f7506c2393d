"""Live progress of ``dbbench run`` and friends: rich on a terminal, plain lines elsewhere.

:func:`benchmark_shown` is the CLI's side of every benchmark (``run`` and its parts, a
suite's entry, a scaling study's step): preflight warnings, then the progress display.

The sequencer only keeps counters (:class:`drivers.sequencer.RunProgress`); this module polls
them from a background thread, so drawing never slows a stream down.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from dbbench.commands.preflight import warn_unfair
from dbbench.drivers.lifecycle import RunScope
from dbbench.drivers.sequencer import (
    REFRESH_SETS,
    Benchmark,
    ProgressSnapshot,
    RunOptions,
    RunProgress,
)
from dbbench.drivers.sequencer.workload import TpchWorkload
from dbbench.reports.tpch.compliance import judge

#: Seconds between plain progress lines when stderr is not a terminal.
PLAIN_INTERVAL = float(os.environ.get("DBBENCH_PROGRESS_INTERVAL", "30"))


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--:--"
    s = int(seconds)
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def describe(snap: ProgressSnapshot) -> str:
    """One line: phase, counts, elapsed and ETA (the plain form and the table's caption)."""
    parts = [snap.phase]
    if snap.phase == "load" and snap.load_rows[1]:
        done, total = snap.load_rows
        parts.append(f"rows {done:,}/{total:,}")
    if snap.queries_total:
        parts.append(f"queries {snap.queries_done}/{snap.queries_total}")
    if snap.refresh_total:
        parts.append(f"refresh pairs {snap.refresh_done}/{snap.refresh_total}")
    if snap.failures:
        parts.append(f"failures {snap.failures}")
    parts.append(f"elapsed {_clock(snap.total_elapsed)}")
    parts.append(f"phase ETA {_clock(snap.eta)}")
    return " | ".join(parts)


def phase_breakdown(progress: RunProgress) -> str:
    """Where the wall time went, one line: each phase in order, the refresh-set generation of
    all runs summed into one entry (before the reports, the last phase), what fell between
    phases, and the total."""
    durations, total = progress.phase_seconds()
    refresh = [seconds for name, seconds in durations if name.endswith(REFRESH_SETS)]
    parts = [f"{n} {s:.1f} s" for n, s in durations if not n.endswith(REFRESH_SETS)]
    if refresh:
        at = len(parts) - 1 if durations[-1][0] == "reports" else len(parts)
        parts.insert(at, f"{REFRESH_SETS} {sum(refresh):.1f} s")
    other = max(0.0, total - sum(seconds for _, seconds in durations))
    parts.append(f"other {other:.1f} s")
    return f"phases: {', '.join(parts)}; total {total:.1f} s"


def _table(progress: RunProgress) -> Group:
    """The summary line, then one row per stream of the current phase."""
    snap = progress.snapshot()
    table = Table(show_edge=False)
    table.add_column("stream", justify="right")
    table.add_column("queries done", justify="right")
    for stream, done in sorted(snap.positions.items()):
        table.add_row(str(stream), f"{done}/22")
    return Group(Text(describe(snap)), table)


def _plain(progress: RunProgress, out: TextIO, stop: threading.Event) -> None:
    while not stop.wait(PLAIN_INTERVAL):
        out.write(f"dbbench: {describe(progress.snapshot())}\n")
        out.flush()


@contextmanager
def show_progress(progress: RunProgress, out: TextIO) -> Iterator[None]:
    """Show progress while the body runs; nothing is left running afterwards."""
    if out.isatty():
        console = Console(file=out)
        with Live(get_renderable=lambda: _table(progress), console=console, refresh_per_second=2):
            yield
        return
    stop = threading.Event()
    thread = threading.Thread(target=_plain, args=(progress, out, stop), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


def tpch_workload(
    options: RunOptions, steps: Callable[[Benchmark], None], command: str
) -> TpchWorkload:
    """The TPC-H workload of a command, judged by ``reports.tpch.compliance``."""
    return TpchWorkload(options, steps, command=command, judge=judge)


@contextmanager
def benchmark_shown(scope: RunScope, workload: TpchWorkload) -> Iterator[Benchmark]:
    """The workload's :class:`Benchmark` on the scope, its preflight warnings printed, its
    progress shown on stderr while the body runs it (``workload.run(scope)``)."""
    bench = workload.benchmark(scope)
    warn_unfair(bench.result)
    with show_progress(workload.progress, sys.stderr):
        yield bench
