"""The auditor's checklist items (clause 9.2) the kit checks mechanically, each pass, fail
or not checked, with its evidence, where the evidence comes from and the query that showed
it. The items that need the database (rows after the load and after the test, the DDL as
executed) read what the run took from it and kept in its result (``config.disclosure``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any, Literal

from dbbench.reports.disclose.inputs import Inputs
from dbbench.reports.tpch.metrics import GIB
from dbbench.reports.tpch.summary import Report

Status = Literal["pass", "fail", "not checked"]

#: Two runs' QphH may differ by this share before the checklist asks for an explanation.
REPEATABLE_SHARE = 0.05
#: The spec's money columns: DECIMAL with 2 places holding at least 15 digits [SPEC 1.3.1].
MONEY_COLUMNS = ("p_retailprice", "ps_supplycost", "s_acctbal", "c_acctbal", "o_totalprice",
                 "l_extendedprice")  # fmt: skip
_CATALOG_SQL = "information_schema.table_constraints, .views and the engine's index list"
_COUNT_SQL = "SELECT COUNT(*) FROM {table}  -- each of the eight tables"


@dataclass(frozen=True)
class Item:
    """One checklist item."""

    key: str
    title: str
    status: Status
    evidence: str
    source: str  # where the evidence comes from
    query: str = ""  # the query that showed it, if one did


def _rows_after_load(inp: Inputs, report: Report) -> Item:
    title = "Rows after the load equal the generated rows"
    counted = inp.rows("after_load")
    source = "counted in the database after the load, during the run"
    if counted is None and inp.result.load is not None:
        counted, source = dict(inp.result.load.rows), "the loader's own count (an older run)"
    if not counted or not inp.expected_rows:
        return Item("rows-after-load", title, "not checked", "no row counts recorded", source)
    wrong = [
        f"{t}: {counted.get(t, 0):,} rows, generated {n:,}"
        for t, n in inp.expected_rows.items()
        if counted.get(t) != n
    ]
    total = sum(counted.values())
    if wrong:
        return Item("rows-after-load", title, "fail", "; ".join(wrong), source, _COUNT_SQL)
    evidence = f"all {len(counted)} tables as generated ({total:,} rows)"
    return Item("rows-after-load", title, "pass", evidence, source, _COUNT_SQL)


def _foreign_keys(inp: Inputs, report: Report) -> Item:
    title = "Referential integrity holds after the load"
    declared = [s for s in inp.ddl if "FOREIGN KEY" in s.upper()]
    orphans = inp.facts.get("orphans_after_load")
    if declared:
        source = "the DDL as executed: the engine checked every row when the key was declared"
        evidence = f"{len(declared)} FOREIGN KEY constraints declared"
        return Item("referential-integrity", title, "pass", evidence, source, declared[0])
    source = "counted in the database after the load, during the run"
    if not isinstance(orphans, dict) or not orphans:
        why = "no foreign keys declared and no orphans counted"
        return Item("referential-integrity", title, "not checked", why, source)
    query = "SELECT COUNT(*) FROM child c WHERE NOT EXISTS (SELECT 1 FROM parent p WHERE ...)"
    bad = {k: n for k, n in orphans.items() if n}
    if bad:
        evidence = "; ".join(f"{k}: {n:,} rows without a parent" for k, n in sorted(bad.items()))
        return Item("referential-integrity", title, "fail", evidence, source, query)
    evidence = f"no row without its parent, for each of {len(orphans)} foreign keys"
    return Item("referential-integrity", title, "pass", evidence, source, query)


_DECIMAL = re.compile(r"^\s*(\w+)\s+(?:DECIMAL|NUMERIC)\((\d+),\s*(\d+)\)", re.I | re.M)


def _decimal_range(inp: Inputs, report: Report) -> Item:
    title = "Decimal columns hold the range the spec requires"
    source = "the column types of the DDL as executed"
    if not inp.ddl:
        return Item("decimal-range", title, "not checked", "no DDL recorded", source)
    typed = {m[1].lower(): (int(m[2]), int(m[3])) for s in inp.ddl for m in _DECIMAL.finditer(s)}
    bad = [c for c in MONEY_COLUMNS if typed.get(c, (0, 0))[0] < 15 or typed.get(c, (0, 0))[1] < 2]
    if bad:
        why = ", ".join(f"{c} is not DECIMAL(15,2) or wider" for c in bad)
        return Item("decimal-range", title, "fail", why, source)
    return Item("decimal-range", title, "pass",
                f"{len(MONEY_COLUMNS)} money columns DECIMAL(15,2) or wider", source)  # fmt: skip


def _qgen_identity(inp: Inputs, report: Report) -> Item:
    title = "dbgen and qgen identity of data and parameters"
    source = "every stream's parameters drawn again from its seed by the kit's qgen"
    runs = inp.result.runs
    if not inp.regenerated or not any(r.params for r in runs):
        return Item("qgen-identity", title, "not checked", "no parameters recorded", source)
    wrong = []
    count = 0
    for run in runs:
        for stream, queries in run.params.items():
            again = inp.regenerated.get(f"{run.number}/{stream}", {})
            for q, values in queries.items():
                count += 1
                if again.get(q) != values:
                    wrong.append(f"run {run.number} stream {stream} Q{q}")
    version = f"queries {inp.result.query_version}, kit {inp.result.kit_version}"
    if wrong:
        return Item("qgen-identity", title, "fail", f"differ: {', '.join(wrong[:10])}", source)
    evidence = f"{count} parameter sets equal qgen's for their seeds ({version})"
    return Item("qgen-identity", title, "pass", evidence, source)


def _params_differ(inp: Inputs, report: Report) -> Item:
    title = "Substitution parameters differ across streams"
    source = "the parameters each stream recorded"
    same = []
    checked = 0
    for run in inp.result.runs:
        streams = sorted(run.params)
        for i, a in enumerate(streams):
            for b in streams[i + 1 :]:
                checked += 1
                if run.params[a] == run.params[b]:
                    same.append(f"run {run.number}: streams {a} and {b}")
    if not checked:
        return Item("params-differ", title, "not checked", "fewer than two streams", source)
    if same:
        return Item("params-differ", title, "fail", "identical: " + "; ".join(same), source)
    return Item("params-differ", title, "pass", f"{checked} pairs of streams differ", source)


def _rows_after_test(inp: Inputs, report: Report) -> Item:
    title = "Rows after the test equal base + inserted - deleted"
    source = "counted in the database after the test, during the run; RF rows from the intervals"
    base, after = inp.rows("after_load"), inp.rows("after_test")
    if base is None or after is None:
        return Item("rows-after-test", title, "not checked", "no counts after the test", source)
    rfs = [iv for run in inp.result.runs for iv in run.intervals if iv.kind != "query"]
    inserted = sum(iv.rows or 0 for iv in rfs if iv.kind == "rf1" and iv.status == "ok")
    deleted = sum(iv.rows or 0 for iv in rfs if iv.kind == "rf2" and iv.status == "ok")
    want, got = sum(base.values()) + inserted - deleted, sum(after.values())
    evidence = f"{sum(base.values()):,} + {inserted:,} - {deleted:,} = {want:,}; counted {got:,}"
    status: Status = "pass" if want == got else "fail"
    return Item("rows-after-test", title, status, evidence, source, _COUNT_SQL)


def _aux_structures(inp: Inputs, report: Report) -> Item:
    title = "Indexes and views the same after the load and after the test"
    source = "the catalog's keys, indexes and views, listed after the load and after the test"
    before, after = inp.structures("after_load"), inp.structures("after_test")
    if before is None or after is None:
        why = "the catalog was not listed (an engine without one, or an older run)"
        return Item("aux-structures", title, "not checked", why, source)
    gone = sorted(set(before) - set(after))
    new = sorted(set(after) - set(before))
    if gone or new:
        what = [*(f"gone: {s}" for s in gone), *(f"new: {s}" for s in new)]
        return Item("aux-structures", title, "fail", "; ".join(what[:10]), source, _CATALOG_SQL)
    evidence = f"the same {len(before)} keys, indexes and views"
    return Item("aux-structures", title, "pass", evidence, source, _CATALOG_SQL)


def _repeatable(inp: Inputs, report: Report) -> Item:
    title = "Run 1 and run 2 are repeatable"
    source = "QphH@Size of each run"
    values = [r.qphh for r in report.runs if r.qphh]
    if len(values) < 2:
        return Item("repeatable", title, "not checked", "fewer than two runs with a QphH", source)
    share = abs(values[0] - values[1]) / max(values)
    evidence = f"QphH {values[0]:,.1f} and {values[1]:,.1f}: {share:.1%} apart"
    status: Status = "pass" if share <= REPEATABLE_SHARE else "fail"
    return Item("repeatable", title, status, f"{evidence} (limit {REPEATABLE_SHARE:.0%})", source)


_CPUS = re.compile(r"(\d+)\s*(?:v?CPUs?|cores?|threads?|processors?)\b", re.I)


def priced_cpus(text: str) -> int | None:
    """The processors a cost sheet's text names ("8 vCPU"), the largest mention."""
    found = [int(m[1]) for m in _CPUS.finditer(text)]
    return max(found) if found else None


def _priced_vs_measured(inp: Inputs, report: Report) -> Item:
    title = "The priced configuration is the measured one"
    source = "the cost sheet against the system the run measured"
    sheet, system = inp.cost_sheet, inp.result.system
    if sheet is None:
        return Item("priced-measured", title, "not checked", "no cost sheet given", source)
    texts = " ".join([sheet.system, *(i.description for i in sheet.items)])
    cpus, measured = priced_cpus(texts), system.threads or system.cores
    facts, wrong = [], []
    if cpus is not None and measured:
        facts.append(f"priced {cpus} CPUs, measured {measured}")
        if cpus != measured:
            wrong.append(f"priced {cpus} CPUs on a {measured}-CPU run")
    if sheet.memory_gib is not None and system.memory_bytes:
        gib = Decimal(system.memory_bytes) / GIB
        facts.append(f"priced {sheet.memory_gib:g} GiB, measured {gib:.1f} GiB")
        if abs(gib - sheet.memory_gib) > sheet.memory_gib * Decimal("0.1"):
            wrong.append(f"priced {sheet.memory_gib:g} GiB of memory, measured {gib:.1f} GiB")
    if wrong:
        return Item("priced-measured", title, "fail", "; ".join(wrong), source)
    if not facts:
        return Item("priced-measured", title, "not checked", "the sheet names no CPUs", source)
    return Item("priced-measured", title, "pass", "; ".join(facts), source)


def _acid(inp: Inputs, report: Report) -> Item:
    title = "ACID tests"
    source = "the ACID result given (dbbench acid)"
    if inp.acid is None:
        kept = inp.result.acid  # attached by dbbench run or report --acid
        if kept is None:
            return Item("acid", title, "not checked", "no ACID result given (--acid)", source)
        status: Status = "pass" if kept.verdict == "passed" else "fail"
        return Item("acid", title, status, kept.summary, f"the ACID result attached to the run"
                    f"{f' ({kept.source})' if kept.source else ''}")  # fmt: skip
    verdicts = [f"{c.name}: {c.verdict}" for c in inp.acid.checks]
    failed = [c for c in inp.acid.checks if c.verdict != "passed"]
    status = "fail" if failed or not verdicts else "pass"
    return Item("acid", title, status, "; ".join(verdicts) or "no test recorded", source)


def _answers(inp: Inputs, report: Report) -> Item:
    title = "Query answers"
    source = "dbbench verify --answers, kept in the result"
    answers = inp.result.answers
    if answers is None or answers.check is None:
        why = "answers not verified (dbbench verify RUN --answers)"
        return Item("answers", title, "not checked", why, source)
    c = answers.check
    evidence = (f"{c.checked} of {c.total} outputs compared with {c.reference}: {c.disagree} "
                f"disagree, {c.not_checked} not compared")  # fmt: skip
    status: Status = "fail" if c.disagree else "pass" if c.checked else "not checked"
    return Item("answers", title, status, evidence, source)


CHECKS: tuple[Callable[[Inputs, Report], Item], ...] = (
    _rows_after_load, _foreign_keys, _decimal_range, _qgen_identity, _params_differ,
    _rows_after_test, _aux_structures, _repeatable, _priced_vs_measured, _acid, _answers,
)  # fmt: skip


def checklist(inp: Inputs, report: Report) -> list[Item]:
    """Every item, in the checklist's order."""
    return [check(inp, report) for check in CHECKS]


def checklist_json(items: list[Item]) -> dict[str, Any]:
    """The checklist as ``checklist.json`` states it."""
    counts = {s: sum(1 for i in items if i.status == s) for s in ("pass", "fail", "not checked")}
    return {"schema": "dbbench-checklist", "version": 1, "counts": counts,
            "items": [asdict(i) for i in items]}  # fmt: skip
