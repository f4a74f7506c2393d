"""``verify``'s cross-check of a TPC-H result against its run directory's journal: the
journal is appended as the benchmark runs, so an interval of ``result.json`` that disagrees
with the journal's record of it (an edit made consistent inside the file, ``seconds`` and
``end`` changed together) is caught, naming the interval."""

from __future__ import annotations

from pathlib import Path

from dbbench.reports.model import JOURNAL_FILE
from dbbench.reports.tpch.model import INTERVAL_EVENTS, BenchmarkResult, Interval
from dbbench.reports.tpch.recovery import read_events

SLACK = 0.0005  # seconds: the journal and the result round alike; this is only float noise
_Key = tuple[int, str, str, int, int]


def _name(iv: Interval) -> str:
    what = f"Q{iv.query}" if iv.kind == "query" else iv.kind.upper()
    return f"{what} of the {iv.phase} test, stream {iv.stream}"


def journal_problems(result: BenchmarkResult, run_dir: Path) -> list[tuple[str, str]]:
    """(field, message) per interval whose times or status the journal contradicts, and per
    journal interval the result lacks; nothing without a journal."""
    journal = run_dir / JOURNAL_FILE
    if not journal.is_file():
        return []
    try:
        events = read_events(journal)
    except OSError as exc:
        return [("journal", f"cannot be read: {exc.strerror or exc}")]
    recorded: dict[_Key, Interval] = {}
    for e in events:
        if e["event"] in INTERVAL_EVENTS:
            try:
                iv = Interval.from_event(e)
                recorded[(int(e["run"]), iv.kind, iv.phase, iv.stream, iv.position)] = iv
            except (KeyError, TypeError, ValueError):
                continue
    out = []
    for r, run in enumerate(result.runs):
        for i, iv in enumerate(run.intervals):
            seen = recorded.pop((run.number, iv.kind, iv.phase, iv.stream, iv.position), None)
            if seen is None:
                continue
            where = f"runs[{r}].intervals[{i}]"
            name = f"run {run.number} {_name(iv)}"
            for attr in ("seconds", "start", "end"):
                stated, journaled = getattr(iv, attr), getattr(seen, attr)
                if abs(float(stated) - float(journaled)) > SLACK:
                    out.append(
                        (
                            f"{where}.{attr}",
                            f"{name}: {attr} {stated:.3f} stated, the journal recorded "
                            f"{journaled:.3f}",
                        )
                    )
            if iv.status != seen.status:
                out.append(
                    (
                        f"{where}.status",
                        f"{name}: {iv.status} stated, the journal recorded {seen.status}",
                    )
                )
    return out
