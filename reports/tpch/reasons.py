"""The compliance reason codes and their English text: one table, code -> message.

A :class:`~reports.tpch.model.Reason` is a stable code and the facts its message names; the result
file stores reasons, and every report derives the words from this table. Used by
:mod:`reports.tpch.compliance` (the judge) and :mod:`reports.tpch.analysis` (which finds the missing
intervals), so a reason is written in one place however it is found.
"""

from __future__ import annotations

from typing import Any

from dbbench.reports.tpch import model
from dbbench.reports.tpch.model import Compliance, Reason

_OFFICIAL = ", ".join(str(s) for s in model.OFFICIAL_SCALE_FACTORS)

#: code -> message template (``str.format`` over the reason's facts, plus ``official``, the
#: list of official SFs). Codes are stable: a result file stores them; change a message
#: freely, never the meaning of a code.
MESSAGES: dict[str, str] = {
    "sf-not-official": "scale factor {sf:g} is not an official TPC-H size ({official})",
    "streams-below-minimum": "{streams} throughput streams; SF {sf:g} needs at least {minimum}",
    "runs-not-two": "the performance test needs 2 runs, the result has {runs}",
    "load-missing": "no load test was recorded",
    "load-reused": "the load test was not measured: an already loaded database was reused",
    "load-not-in-invocation": "the load test was not part of this invocation",
    "refresh-repaired": "{what}",
    "o2c-workload-present": (
        "the database held {orders} o2c workload orders ({lineitem} lines) that the 22 "
        "queries read too, so answers and times are not TPC-H's (dbbench o2c cleanup removes "
        "them)"
    ),
    "rebuilt-from-journal": "result rebuilt from the journal: {what}",
    "status-not-complete": "the benchmark is {status}, not complete",
    "interval-failed": "run {run}: {what} of the {where} failed ({status}){detail}",
    "more-failures": "... and {count} more failed intervals",
    "interval-missing": "run {run}: {where} has no interval for {what}",
    "stream-missing": "run {run}: throughput stream {stream} has no intervals",
    "update-set-reused": "update set(s) {sets} used by more than one refresh pair",
    "problems-recorded": "{count} problem(s) recorded during the run, the first: {first}",
    "acid-not-passed": "the ACID tests did not pass: {summary}",
    "acid-not-qualification": (
        "the ACID tests passed at SF {sf}, not on the qualification database (SF 1): "
        "a development check, not a qualification run"
    ),
    "acid-not-run": (
        "ACID: not run: no ACID result of this engine and configuration is attached "
        "(dbbench acid, then dbbench run or report --acid)"
    ),
    model.NOT_EVALUATED: "not evaluated",
    "v1-text": "{text}",
    "priced-differs": "{what}: the price is not the measured system's",
}


def reason(code: str, **facts: Any) -> Reason:
    """A reason with a known code (an unknown one is a bug: :data:`MESSAGES` lists them all)."""
    if code not in MESSAGES:
        raise KeyError(f"unknown compliance reason code {code!r}")
    return Reason(code, facts)


def message(r: Reason) -> str:
    """The English text of a reason (an unknown code, e.g. from a newer kit, is shown as is)."""
    template = MESSAGES.get(r.code)
    if template is None:
        return f"{r.code} {r.facts}" if r.facts else r.code
    facts = {"official": _OFFICIAL, **r.facts}
    if "error" in facts:  # an optional detail: ": <error>" or nothing
        facts["detail"] = f": {facts['error']}" if facts["error"] else ""
    try:
        return template.format(**facts)
    except (KeyError, ValueError, TypeError, IndexError):
        return f"{r.code} {r.facts}"


def messages(compliance: Compliance) -> list[str]:
    return [message(r) for r in compliance.reasons]
