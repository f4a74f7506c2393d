"""The cold and hot passes table the study pages share, as a document section."""

from __future__ import annotations

from dbbench.reports import formatting as fmt
from dbbench.reports.document import Items, Paragraph, Section, Table
from dbbench.reports.tpch.passes import PassTable


def passes_section(passes: PassTable) -> Section:
    """Each entry's cold and hot passes of the 22 queries: the medians apart (ms)."""
    items = []
    for e in passes.entries:
        cold = "cold" if e.cold == "cold" else f"(no cold: {e.cold})"
        text = f"{e.label}: {e.cold_passes} {cold} and {e.hot_passes} hot passes"
        text += f"; {e.note}" if e.note else ""
        text += f"; {e.failed} failed queries" if e.failed else ""
        items.append(text)
    header = ["Query"] + [h for e in passes.entries for h in (f"{e.label} cold ms", "hot ms")]
    rows = [
        [q.column]
        + [v for i in range(len(passes.entries)) for v in (fmt.ms(q.cold[i]), fmt.ms(q.hot[i]))]
        for q in passes.lines
    ]
    return Section(
        "Cold and hot passes",
        [
            Paragraph(
                "The 22 queries after each step's throughput test (validation defaults): the "
                "median of the cold passes and of the hot passes (ms), never averaged together."
            ),
            Items(items),
            Table(header, rows, frozenset(range(1, len(header)))),
        ],
    )
