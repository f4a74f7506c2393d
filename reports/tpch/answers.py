"""Kept answers as every report says them (issue 35): the one line per result, the verdict
that makes a result invalid, and the digests two results can be compared by.

``answers_line`` is what the reports (every format, through the headline), ``compare``, the
suite and the site show per result: ``N of M checked against REF, all agree | K disagree,
J not checked (overlapped a refresh)`` once ``dbbench verify RUN --answers`` has checked
them; otherwise that they were kept and not checked, not kept (``--no-answers``), or not
recorded (a result older than version 4).

``comparable_digests`` and ``first_parting`` compare the kept digests of two results (the
suite's entries): an execution is comparable when it ran entirely outside every refresh
function, after the same refresh functions (kind and update set, in order) and with the
same substitution parameters in both; the first one, in the first result's order, whose
digests differ is where they part. The digest is a quick "same answer" test (normalised by
the spec's column classes); ``verify --answers`` is the judge by value.
"""

from __future__ import annotations

from dataclasses import dataclass

from dbbench.reports.tpch.model import BenchmarkResult, Interval

#: what the headline says of a result older than version 4
NOT_RECORDED = "not recorded (a result older than version 4)"


def answers_line(result: BenchmarkResult) -> str:
    """The result's answers in one line (without the ``answers:`` label)."""
    answers = result.answers
    if answers is None:
        return NOT_RECORDED
    if not answers.kept:
        return "not kept (--no-answers)"
    check = answers.check
    if check is None:
        return (
            f"{len(answers.records)} kept, not checked (dbbench verify RUN --answers checks "
            "them by value)"
        )
    verdict = "all agree" if not check.disagree else f"{check.disagree} disagree"
    return (
        f"{check.checked} of {check.total} checked against {check.reference}, {verdict}, "
        f"{check.not_checked} not checked (overlapped a refresh)"
    )


def disagreements(result: BenchmarkResult) -> int:
    """How many kept outputs ``verify --answers`` found wrong (0: none, or not verified)."""
    check = result.answers.check if result.answers else None
    return check.disagree if check else 0


def first_disagreement(result: BenchmarkResult) -> str:
    """The first disagreement line ``verify --answers`` recorded (empty: none kept)."""
    check = result.answers.check if result.answers else None
    return check.lines[0] if check and check.lines else ""


@dataclass(frozen=True)
class Digest:
    """One kept execution as the comparison of two results sees it."""

    state: tuple[tuple[str, int | None], ...]  # the refresh functions ended before it
    parameters: tuple[str, ...]
    sha256: str
    rows: int


Key = tuple[int, int, int]  # (run, stream, query)


def comparable_digests(result: BenchmarkResult) -> dict[Key, Digest]:
    """Every kept execution that ran outside every refresh function (and after none that
    failed), in the order the result kept them; empty when none were kept."""
    if result.answers is None or not result.answers.kept:
        return {}
    queries: dict[Key, Interval] = {}
    rfs: list[Interval] = []
    params: dict[int, dict[str, dict[str, list[str]]]] = {}
    for run in result.runs:
        params[run.number] = run.params
        for i in run.intervals:
            if i.kind in ("rf1", "rf2"):
                rfs.append(i)
            elif i.kind == "query" and i.status == "ok" and i.query is not None:
                queries[(run.number, i.stream, i.query)] = i
    rfs.sort(key=lambda i: i.start)
    out: dict[Key, Digest] = {}
    for rec in result.answers.records:
        key = (rec.run, rec.stream, rec.query)
        q = queries.get(key)
        if q is None or any(r.start < q.end and r.end > q.start for r in rfs):
            continue
        before = [r for r in rfs if r.end <= q.start]
        if any(r.status != "ok" for r in before):
            continue
        values = params.get(rec.run, {}).get(str(rec.stream), {}).get(str(rec.query), [])
        state = tuple((r.kind, r.update_set) for r in before)
        out[key] = Digest(state, tuple(values), rec.sha256, rec.rows)
    return out


def first_parting(a: dict[Key, Digest], b: dict[Key, Digest]) -> tuple[Key, Digest, Digest] | None:
    """The first execution (in ``a``'s order) both kept at the same state with the same
    parameters whose digests differ; None when every such execution digests alike."""
    for key, da in a.items():
        db = b.get(key)
        if db is None or (db.state, db.parameters) != (da.state, da.parameters):
            continue
        if db.sha256 != da.sha256:
            return key, da, db
    return None


def shared(a: dict[Key, Digest], b: dict[Key, Digest]) -> int:
    """How many executions the two results can be compared on."""
    return sum(
        1
        for key, da in a.items()
        if key in b and (b[key].state, b[key].parameters) == (da.state, da.parameters)
    )
