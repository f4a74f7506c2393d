"""Query plans in reports: the texts of a run's plan file, each query's plan, and whether
two results planned a query the same way (the gate's "plan changed" / "same plan").

The result holds each plan's hash and shape (:class:`reports.tpch.model.Plans`); the texts are
in the run directory's plan file. A plan file that is missing or damaged costs the report
one line, never the report itself.
"""

from __future__ import annotations

import difflib
import gzip
import hashlib
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from dbbench.reports.tpch.model import BenchmarkResult, PlanRecord, plan_shape

#: Lines of each side shown for the first difference between two plans.
DIFF_LINES = 4

#: "parameters differ": the gate's word where the two results drew other seeds (a shape
#: that changed with the literals is not a plan change of the build)
PlanVerdict = Literal["same plan", "plan changed", "no plan", "parameters differ"]


@dataclass
class QueryPlan:
    """One query's plan as a report shows it: the first stream's plan of the first run,
    and how many different plans (shapes) the query had over every stream and run."""

    query: int
    run: int
    stream: int
    text: str | None  # None: not readable (the file) or not captured (``error``)
    error: str | None
    shapes: int  # distinct plans of this query over the run's streams


@dataclass
class PlanTexts:
    """A result's plan texts by (run, stream, query), or why there are none."""

    texts: dict[tuple[int, int, int], str] = field(default_factory=dict)
    note: str | None = None  # one line: the file is missing or damaged


def read_texts(result: BenchmarkResult, run_dir: Path | None) -> PlanTexts:
    """The texts of ``result``'s plan file in ``run_dir``, each checked against its hash."""
    plans = result.plans
    if plans is None or run_dir is None:
        return PlanTexts()
    path = run_dir / Path(plans.file).name  # a name, never a path out of the run directory
    try:
        raw = gzip.decompress(path.read_bytes()).decode("utf-8")
    except FileNotFoundError:
        return PlanTexts(note=f"plans: {path.name} is missing: the plan texts are not shown")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:
        return PlanTexts(note=f"plans: {path.name} is damaged ({exc}): not shown")
    hashes = {(r.run, r.stream, r.query): r.sha256 for r in plans.records}
    found = PlanTexts()
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line:
            continue
        try:
            entry = json.loads(line)
            key = (int(entry["run"]), int(entry["stream"]), int(entry["query"]))
            text = entry["text"]
        except (ValueError, KeyError, TypeError) as exc:
            return PlanTexts(note=f"plans: {path.name} is damaged (line {number}: {exc})")
        if text is None:
            continue
        if not isinstance(text, str) or hashes.get(key) != _digest(text):
            return PlanTexts(
                note=f"plans: {path.name} is damaged (line {number}: not the plan the result names)"
            )
        found.texts[key] = text
    return found


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def first_records(result: BenchmarkResult) -> dict[int, PlanRecord]:
    """Each query's plan record of the lowest run and stream: the query's plan."""
    out: dict[int, PlanRecord] = {}
    records = result.plans.records if result.plans else []
    for rec in sorted(records, key=lambda r: (r.run, r.stream)):
        out.setdefault(rec.query, rec)
    return out


def query_plans(result: BenchmarkResult, texts: PlanTexts) -> list[QueryPlan]:
    """Each captured query's plan, in query order."""
    if result.plans is None:
        return []
    shapes: dict[int, set[str]] = {}
    for rec in result.plans.records:
        if rec.shape is not None:
            shapes.setdefault(rec.query, set()).add(rec.shape)
    return [
        QueryPlan(
            q,
            rec.run,
            rec.stream,
            texts.texts.get((rec.run, rec.stream, q)),
            rec.error,
            len(shapes.get(q, ())),
        )
        for q, rec in sorted(first_records(result).items())
    ]


def verdict(base: PlanRecord | None, cand: PlanRecord | None) -> PlanVerdict:
    """Whether two results planned a query the same way (by the plans' shapes)."""
    if base is None or cand is None or base.shape is None or cand.shape is None:
        return "no plan"
    return "same plan" if base.shape == cand.shape else "plan changed"


def first_difference(base: str | None, cand: str | None, lines: int = DIFF_LINES) -> list[str]:
    """The first lines where two plans differ ("- " baseline, "+ " candidate), compared
    by shape (costs, estimates and literals apart) and shown as captured."""
    if base is None or cand is None:
        return []
    a, b = base.splitlines(), cand.splitlines()
    sa, sb = plan_shape(base).splitlines(), plan_shape(cand).splitlines()
    if len(sa) != len(a) or len(sb) != len(b):  # cannot happen: shape keeps the lines
        sa, sb = a, b
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, sa, sb, autojunk=False).get_opcodes():
        if tag != "equal":
            return [f"- {x.strip()}" for x in a[i1:i2][:lines]] + [
                f"+ {x.strip()}" for x in b[j1:j2][:lines]
            ]
    return []
