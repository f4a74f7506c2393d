"""Rebuild a result from a run directory's journal when ``result.json`` is missing or behind.

The result file is rewritten after each phase; the journal (``journal.jsonl``, one JSON event
a line, flushed as it happens) holds every interval measured up to the last moment. After
SIGKILL, a power cut or a full disk, the journal is ahead of the result file: this module
adds what the result file lacks (intervals, runs, the load test, problems), marks the result
partial and says what it recovered. It reads the journal format only (no drivers import):
``benchmark_start``, ``load_start``/``load_end``, ``run_start``, ``update_set_reserved``,
``query_end``/``rf1_end``/``rf2_end`` (an :class:`Interval` plus ``run``), ``problem``,
``benchmark_end``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dbbench.reports.model import JOURNAL_FILE, EngineInfo, SystemInfo
from dbbench.reports.model.codec import parse_json
from dbbench.reports.tpch.model import (
    INTERVAL_EVENTS,
    BenchmarkResult,
    Compliance,
    Interval,
    LoadResult,
    RunResult,
)
from dbbench.reports.tpch.reasons import reason as reason_for


def read_events(path: Path) -> list[dict[str, Any]]:
    """Every complete, well-formed event; a torn last line (a crash mid-write) and a damaged
    one (not JSON, or a value no run records: ``"seconds": NaN``) are skipped."""
    events: list[dict[str, Any]] = []
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.endswith("\n"):
                break
            try:  # the result codec's rules: NaN, Infinity, 1e400, deep nesting are damage
                event = parse_json(line)
            except ValueError:
                continue
            if isinstance(event, dict) and isinstance(event.get("event"), str):
                events.append(event)
    return events


def _key(i: Interval) -> tuple[str, str, int, int]:
    return (i.kind, i.phase, i.stream, i.position)


def _skeleton(events: list[dict[str, Any]]) -> BenchmarkResult | None:
    start = next((e for e in events if e["event"] == "benchmark_start"), None)
    if start is None:
        return None
    try:
        sf, streams = float(start["sf"]), int(start["streams"])
    except (KeyError, TypeError, ValueError):
        return None
    url = str(start.get("engine", ""))
    return BenchmarkResult(
        scale_factor=sf,
        streams=streams,
        engine=EngineInfo(name=url.split(":", 1)[0], url=url),
        system=SystemInfo(),
        kit_version="",
        created=float(start.get("time", 0.0)),
        config={"command": start.get("command"), "runs": start.get("runs")},
    )


def recover(run_dir: Path, result: BenchmarkResult | None) -> tuple[BenchmarkResult, str] | None:
    """``result`` completed from the journal of ``run_dir`` and a sentence saying what was
    recovered; None when the journal adds nothing (or there is none)."""
    journal = run_dir / JOURNAL_FILE
    if not journal.is_file():
        return None
    try:
        events = read_events(journal)
    except OSError:
        return None
    base = result if result is not None else _skeleton(events)
    if base is None:
        return None
    added = 0
    runs = {r.number: r for r in base.runs}
    load_start = None
    for e in events:
        kind = e["event"]
        try:
            if kind == "load_start":
                load_start = float(e["time"])
            elif kind == "load_end" and base.load is None:
                end = float(e["time"])
                base.load = LoadResult(
                    start=load_start if load_start is not None else end - float(e["seconds"]),
                    end=end,
                    seconds=float(e["seconds"]),
                    rows={str(k): int(v) for k, v in dict(e.get("rows", {})).items()},
                    steps={str(k): float(v) for k, v in dict(e.get("steps", {})).items()},
                )
                added += 1
            elif kind == "run_start" and int(e["run"]) not in runs:
                seeds = {str(k): int(v) for k, v in dict(e.get("seeds", {})).items()}
                run = RunResult(number=int(e["run"]), streams=base.streams, seeds=seeds)
                runs[run.number] = run
                base.runs.append(run)
            elif kind == "update_set_reserved" and int(e["run"]) in runs:
                run = runs[int(e["run"])]
                if int(e["update_set"]) not in run.update_sets:
                    run.update_sets.append(int(e["update_set"]))
            elif kind in INTERVAL_EVENTS and int(e["run"]) in runs:
                run = runs[int(e["run"])]
                interval = Interval.from_event(e)
                if _key(interval) not in {_key(i) for i in run.intervals}:
                    run.intervals.append(interval)
                    added += 1
            elif kind == "problem" and str(e.get("message")) not in base.errors:
                base.errors.append(str(e.get("message")))
        except (KeyError, TypeError, ValueError):
            continue  # a damaged event: the others still count
    finished = any(e["event"] == "benchmark_end" for e in events)
    if added == 0 and (result is not None or finished):
        return None
    for run in base.runs:
        run.intervals.sort(key=lambda i: (i.start, i.stream, i.position))
    what = (
        f"{added} measurement(s) recovered from {journal}"
        + ("" if result is not None else " (no result file)")
        + ("" if finished else "; the run never finished")
    )
    base.status = "partial" if base.load is not None or base.runs else "failed"
    reason = f"result rebuilt from the journal: {what}"
    if reason not in base.errors:
        base.errors.append(reason)
    earlier = base.compliance.reasons if result is not None else []
    base.compliance = Compliance(False, [*earlier, reason_for("rebuilt-from-journal", what=what)])
    return base, what
