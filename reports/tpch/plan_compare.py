"""Plans in ``dbbench compare``: for results of the same engine, per query, whether their
plans differ from the first result's (by the plans' shapes), and in HTML the plans side by
side. Results of different engines are not compared: their plans cannot be alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dbbench.reports import escape as esc
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


def render_lines(groups: list[PlanGroup], markdown: bool) -> str:
    if not groups:
        return ""
    escape = esc.markdown if markdown else esc.terminal
    out = []
    for g in groups:
        others = g.labels[1:]
        title = f"Query plans of {g.engine} against {g.labels[0]}"
        out += [f"## {escape(title)}" if markdown else escape(title), ""]
        heads = ["query", *others]
        if markdown:
            out.append("| " + " | ".join(map(escape, heads)) + " |")
            out.append("|---|" + "---|" * len(others))
            out += [f"| Q{q} | " + " | ".join(v) + " |" for q, v in g.rows]
        else:
            out += [f"Q{q:<3} " + "  ".join(v) for q, v in g.rows]
        out.append("")
    return "\n".join(out) + "\n"


def render_html(groups: list[PlanGroup]) -> str:
    """A ``<section>`` (every string escaped): the verdicts, and each query's plans side by
    side in a collapsed block."""
    if not groups:
        return ""
    h = esc.html
    parts = ['<section id="plans"><h2>Query plans</h2>']
    for g in groups:
        parts.append(f"<h3>{h(g.engine)}: against {h(g.labels[0])}</h3><table><tr><th>Query</th>")
        parts += [f"<th>{h(label)}</th>" for label in g.labels[1:]]
        parts.append("</tr>")
        for q, verdicts in g.rows:
            cells = "".join(f"<td>{h(v)}</td>" for v in verdicts)
            parts.append(f"<tr><td>Q{q}</td>{cells}</tr>")
        parts.append("</table>")
        for q, verdicts in g.rows:
            summary = f"Q{q}: " + ", ".join(sorted(set(verdicts)))
            cols = "".join(
                f"<div><b>{h(label)}</b><pre>{h(t.get(q) or NO_TEXT)}</pre></div>"
                for label, t in zip(g.labels, g.texts, strict=True)
            )
            parts.append(
                f'<details class="plan"><summary>{h(summary)}</summary>'
                f'<div style="display:flex;gap:1em;overflow-x:auto">{cols}</div></details>'
            )
    parts.append("</section>")
    return "\n".join(parts)


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
