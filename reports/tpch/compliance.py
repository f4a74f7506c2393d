"""Is a run TPC-H-derived compliant? The one judge, and every reason it is not, in plain words.

The drivers record facts (scale factor, streams, runs, the load, every interval, the update
sets, the problems of the run); this module alone decides. Each reason has a stable code,
stored in the result file, and its English text is derived from the code by
:data:`reports.tpch.reasons.MESSAGES` (one table), so no reason is ever recognised by its wording.

A non-compliant run keeps its numbers (they are shown "for information"), but the verdict and
its reasons travel with them into every report and every comparison.
"""

from __future__ import annotations

from collections import Counter

from dbbench.reports.acid.model import QUALIFICATION_SF
from dbbench.reports.tpch import model
from dbbench.reports.tpch.analysis import RunSummary, phase_label, summarise_run
from dbbench.reports.tpch.model import BenchmarkResult, Compliance, Reason
from dbbench.reports.tpch.reasons import MESSAGES as MESSAGES
from dbbench.reports.tpch.reasons import message as message
from dbbench.reports.tpch.reasons import messages as messages
from dbbench.reports.tpch.reasons import reason

MAX_LISTED_FAILURES = 10

#: Commands that run part of the sequence on a database loaded by an earlier command.
_PART_COMMANDS = ("power", "throughput")


def _scale_and_streams(result: BenchmarkResult) -> list[Reason]:
    sf, streams = result.scale_factor, result.streams
    if not model.is_official_scale_factor(sf):
        return [reason("sf-not-official", sf=sf)]
    needed = model.min_streams(sf)
    if needed is not None and streams < needed:
        return [reason("streams-below-minimum", streams=streams, sf=sf, minimum=needed)]
    return []


def _update_sets(result: BenchmarkResult) -> list[Reason]:
    """Each refresh pair must consume a fresh update set [SPEC 5.3.7.8, kit bookkeeping]."""
    uses: Counter[int] = Counter()
    for run in result.runs:
        sets = [iv.update_set for iv in run.intervals if iv.kind == "rf1" and iv.update_set]
        uses.update(s for s in (sets or run.update_sets) if s is not None)
    reused = sorted(s for s, n in uses.items() if n > 1)
    if not reused:
        return []
    return [reason("update-set-reused", sets=", ".join(str(s) for s in reused))]


def _failures(result: BenchmarkResult, runs: list[RunSummary]) -> list[Reason]:
    failures = [
        reason(
            "interval-failed",
            run=run.number,
            what=f"Q{iv.query}" if iv.kind == "query" else iv.kind.upper(),
            where=phase_label(iv),
            status=iv.status,
            error=iv.error,
        )
        for run in result.runs
        for iv in run.intervals
        if iv.status != "ok"
    ]
    reasons = failures[:MAX_LISTED_FAILURES]
    if len(failures) > MAX_LISTED_FAILURES:
        reasons.append(reason("more-failures", count=len(failures) - MAX_LISTED_FAILURES))
    return reasons + [m for r in runs for m in r.missing]


def _runs_and_load(result: BenchmarkResult) -> list[Reason]:
    reasons = []
    if len(result.runs) != 2:
        reasons.append(reason("runs-not-two", runs=len(result.runs)))
    if result.load is None:
        reasons.append(reason("load-missing"))
    elif result.load.reused:
        part = result.config.get("command") in _PART_COMMANDS
        reasons.append(reason("load-not-in-invocation" if part else "load-reused"))
    for what in result.config.get("refresh_repaired") or []:  # a pair an earlier stop left
        reasons.append(reason("refresh-repaired", what=str(what)))
    o2c = result.config.get("o2c_workload_rows")
    if isinstance(o2c, dict) and o2c.get("orders"):  # o2c's own orders, visible to the queries
        reasons.append(
            reason("o2c-workload-present", orders=o2c.get("orders"), lineitem=o2c.get("lineitem"))
        )
    if result.status != "complete":
        reasons.append(reason("status-not-complete", status=result.status))
    return reasons


def _problems(result: BenchmarkResult) -> list[Reason]:
    """Problems the driver recorded (a failed query, a lost server, an early stop)."""
    if not result.errors:
        return []
    return [reason("problems-recorded", count=len(result.errors), first=result.errors[0])]


def _acid(result: BenchmarkResult) -> list[Reason]:
    """Clause 3: no ACID result attached (the tests not run), one that did not pass, or one
    that passed on a database smaller than the qualification database (a development check,
    not a qualification run)."""
    if result.acid is None:
        return [reason("acid-not-run")]
    if result.acid.verdict != "passed":
        return [reason("acid-not-passed", summary=result.acid.summary)]
    if result.acid.scale_factor < QUALIFICATION_SF:  # a development check (clause 3.1)
        return [reason("acid-not-qualification", sf=f"{result.acid.scale_factor:g}")]
    return []


def _answers(result: BenchmarkResult) -> list[Reason]:
    """Kept outputs ``dbbench verify --answers`` found wrong: the result is invalid."""
    check = result.answers.check if result.answers else None
    if check is None or not check.disagree:
        return []
    first = check.lines[0] if check.lines else "not recorded"
    return [reason("answers-disagree", count=check.disagree, what=check.reference, first=first)]


def evaluate(result: BenchmarkResult, runs: list[RunSummary]) -> Compliance:
    """The verdict from the facts in ``result`` (``runs`` are its summaries)."""
    reasons = [
        *_scale_and_streams(result),
        *_runs_and_load(result),
        *_failures(result, runs),
        *_update_sets(result),
        *_problems(result),
        *_acid(result),
        *_answers(result),
    ]
    return Compliance(compliant=not reasons, reasons=reasons)


def judge(result: BenchmarkResult) -> Compliance:
    """The verdict of a result on its own (what ``dbbench run`` stores in the result file)."""
    return evaluate(result, [summarise_run(run, result.scale_factor) for run in result.runs])
