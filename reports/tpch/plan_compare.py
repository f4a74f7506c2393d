"""Plans in ``dbbench compare``: for results of the same engine, per query, whether their
plans differ from the first result's (by the plans' shapes), and the plans of each query
whose plan changed, in every format. Results of different engines are not compared: their
plans cannot be alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dbbench.reports.document import Code, Section, Table
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.plans import PlanVerdict, first_records, read_texts, verdict

NO_TEXT = "(the plan text is not available)"


@dataclass
class PlanGroup:
    """Results of one engine: per query, each result's verdict against the first one."""

    engine: str
    labels: list[str]
    rows: list[tuple[int, list[PlanVerdict]]] = field(default_factory=list)  # others vs first
    texts: list[dict[int, str | None]] = field(default_factory=list)  # per result, per query


def plan_groups(
    items: list[tuple[str, BenchmarkResult]], sources: dict[str, Path] | None = None
) -> list[PlanGroup]:
    by_engine: dict[str, list[tuple[str, BenchmarkResult]]] = {}
    for label, result in items:
        if result.plans is not None:
            by_engine.setdefault(result.engine.name, []).append((label, result))
    groups = []
    for engine, members in by_engine.items():
        if len(members) < 2:
            continue
        group = PlanGroup(engine, [label for label, _ in members])
        records = [first_records(r) for _, r in members]
        for label, result in members:
            found = read_texts(result, (sources or {}).get(label))
            group.texts.append(
                {
                    q: found.texts.get((rec.run, rec.stream, q))
                    for q, rec in first_records(result).items()
                }
            )
        for q in sorted(set().union(*records)):
            base = records[0].get(q)
            group.rows.append((q, [verdict(base, other.get(q)) for other in records[1:]]))
        groups.append(group)
    return groups


def plan_sections(groups: list[PlanGroup]) -> list[Section]:
    """Per engine, a document section: each query's verdicts against the first result, and
    the plans of every query whose plan changed, one after the other (every format)."""
    out = []
    for g in groups:
        table = Table(["Query", *g.labels[1:]], [[f"Q{q}", *v] for q, v in g.rows])
        section = Section(f"Query plans of {g.engine} against {g.labels[0]}", [table], level=3)
        for q, verdicts in g.rows:
            if "plan changed" not in verdicts:
                continue
            for label, texts in zip(g.labels, g.texts, strict=True):
                lines = (texts.get(q) or NO_TEXT).splitlines()
                section.blocks.append(Code([f"Q{q}, {label}:", *lines]))
        out.append(section)
    return out
