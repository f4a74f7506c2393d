"""Is a run TPC-H-derived compliant? Every reason it is not, in plain words.

A non-compliant run keeps its numbers (they are shown "for information"), but the verdict and
its reasons travel with them into every report and every comparison.
"""

from __future__ import annotations

import re
from collections import Counter

from dbbench.reports import metrics
from dbbench.reports.analysis import RunSummary
from dbbench.reports.model import BenchmarkResult, Compliance

MAX_LISTED_FAILURES = 10

# A recorded (driver) reason on a topic this module also checks is replaced by ours, so the
# same problem is not listed twice in different words.
_TOPICS: dict[str, re.Pattern[str]] = {
    "scale factor": re.compile(r"^scale factor\b", re.IGNORECASE),
    "streams": re.compile(r"\bthroughput streams\b", re.IGNORECASE),
    "runs": re.compile(r"performance (test needs \d+ runs|run\(s\))", re.IGNORECASE),
    "update sets": re.compile(r"\bupdate set", re.IGNORECASE),
}


def _topic(reason: str) -> str | None:
    return next((name for name, rx in _TOPICS.items() if rx.search(reason)), None)


def _scale_and_streams(result: BenchmarkResult) -> list[str]:
    sf, streams = result.scale_factor, result.streams
    if not metrics.is_official_scale_factor(sf):
        official = ", ".join(str(s) for s in metrics.OFFICIAL_SCALE_FACTORS)
        return [f"scale factor {sf:g} is not an official TPC-H size ({official})"]
    needed = metrics.min_streams(sf)
    if needed is not None and streams < needed:
        return [f"{streams} throughput streams; SF {sf:g} needs at least {needed}"]
    return []


def _update_sets(result: BenchmarkResult) -> list[str]:
    """Each refresh pair must consume a fresh update set [SPEC 5.3.7.8, kit bookkeeping]."""
    uses: Counter[int] = Counter()
    for run in result.runs:
        sets = [iv.update_set for iv in run.intervals if iv.kind == "rf1" and iv.update_set]
        uses.update(s for s in (sets or run.update_sets) if s is not None)
    reused = sorted(s for s, n in uses.items() if n > 1)
    if not reused:
        return []
    listed = ", ".join(str(s) for s in reused)
    return [f"update set(s) {listed} used by more than one refresh pair"]


def _failures(runs: list[RunSummary]) -> list[str]:
    failures = [f for r in runs for f in r.failures]
    reasons = failures[:MAX_LISTED_FAILURES]
    if len(failures) > MAX_LISTED_FAILURES:
        reasons.append(f"... and {len(failures) - MAX_LISTED_FAILURES} more failed intervals")
    missing = [p for r in runs for p in r.problems if "has no interval" in p]
    return reasons + missing


def _runs_and_load(result: BenchmarkResult) -> list[str]:
    reasons = []
    if len(result.runs) < 2:
        reasons.append(f"the performance test needs 2 runs, the result has {len(result.runs)}")
    if result.load is None:
        reasons.append("no load test was recorded")
    elif result.load.reused:
        reasons.append("the load test was not measured: an already loaded database was reused")
    if result.status != "complete":
        reasons.append(f"the benchmark is {result.status}, not complete")
    failed = sorted(v.query for v in result.validation if not v.passed)
    if failed:
        reasons.append("query validation failed for " + ", ".join(f"Q{q}" for q in failed))
    return reasons


def evaluate(result: BenchmarkResult, runs: list[RunSummary]) -> Compliance:
    """The verdict from the rules this kit can check, plus any reason the driver recorded."""
    reasons = [
        *_scale_and_streams(result),
        *_runs_and_load(result),
        *_failures(runs),
        *_update_sets(result),
    ]
    covered = {_topic(r) for r in reasons} - {None}
    recorded = [
        r for r in result.compliance.reasons if r != "not evaluated" and _topic(r) not in covered
    ]
    unique = list(dict.fromkeys([*reasons, *recorded]))
    return Compliance(compliant=not unique, reasons=unique)
