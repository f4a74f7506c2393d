"""The Full Disclosure Report (clause 8.3) as one document in clause order, rendered by the
one HTML renderer: what the kit knows of each clause's items, and a clause-by-clause index."""

from __future__ import annotations

import difflib
from urllib.parse import parse_qsl, urlsplit

from dbbench.reports import formatting as fmt
from dbbench.reports.disclose.checklist import Item, priced_cpus
from dbbench.reports.disclose.inputs import Inputs, QueryText
from dbbench.reports.document import Code, Document, Facts, Items, Outcome, Paragraph, Table
from dbbench.reports.tpch.analysis import COLUMNS
from dbbench.reports.tpch.fairness import preflight_result
from dbbench.reports.tpch.redact import redact_text
from dbbench.reports.tpch.summary import Report

#: The clauses of the report, in order, and the part of the FDR that discloses each.
CLAUSES: tuple[tuple[str, str], ...] = (
    ("8.3.1 General items", "Sponsor and configuration: measured and priced"),
    ("8.3.1 General items", "Settings changed from their defaults"),
    ("8.3.2 Clause 1: logical database design", "Database design: DDL, keys, indexes"),
    ("8.3.3 Clause 2: queries and refresh functions", "Query text as executed"),
    ("8.3.3 Clause 2: queries and refresh functions", "Refresh functions"),
    ("8.3.4 Clause 3: ACID properties", "ACID results"),
    ("8.3.5 Clause 4: scaling and database population", "Load"),
    ("8.3.5 Clause 4: scaling and database population", "Qualification: answers"),
    ("8.3.6 Clause 5: performance metrics", "Performance metrics"),
    ("8.3.8 Clause 7: pricing", "Pricing"),
    ("8.3.9 Clause 9: audit", "Auditor's checklist"),
)

_OUTCOMES: dict[str, Outcome] = {"pass": "pass", "fail": "fail", "not checked": "none"}
_SECRET_KEYS = ("password", "passwd", "pwd", "secret", "token", "key")


def url_settings(url: str) -> list[tuple[str, str]]:
    """Every setting the engine URL passes (its query string), a secret's value hidden."""
    pairs = parse_qsl(urlsplit(url).query, keep_blank_values=True)
    return [
        (k, "(hidden)" if any(s in k.lower() for s in _SECRET_KEYS) else redact_text(v))
        for k, v in pairs
    ]


def _storage(devices: list[dict[str, object]]) -> str:
    out = []
    for d in devices:
        size = d.get("bytes")
        gib = fmt.gib(size) if isinstance(size, int) else fmt.NA
        kind = "rotational" if d.get("rotational") else "solid state"
        out.append(f"{d.get('name', '?')} {gib} {kind} {d.get('model') or ''}".strip())
    return "; ".join(out) or fmt.NA


def _configuration(doc: Document, report: Report, items: list[Item], sponsor: str) -> None:
    s = report.result.system
    sheet = report.cost_sheet
    cpus = (
        priced_cpus(" ".join([sheet.system, *(i.description for i in sheet.items)]))
        if (sheet)
        else None
    )
    none = "no cost sheet given"
    rows = [
        ["system", s.hostname or fmt.NA, sheet.system if sheet else none],
        ["processors", report.headline.processors, f"{cpus} CPUs" if cpus else fmt.NA],
        ["memory", fmt.gib(s.memory_bytes),
         f"{sheet.memory_gib:g} GiB" if sheet and sheet.memory_gib else fmt.NA],
        ["storage", _storage(s.storage),
         f"{sheet.storage_gib:g} GiB" if sheet and sheet.storage_gib else fmt.NA],
        ["operating system", report.headline.os, fmt.NA],
    ]  # fmt: skip
    engine = report.result.engine
    doc.section(
        CLAUSES[0][1],
        Facts([("Benchmark sponsor", sponsor or "not stated"),
               ("Database", report.headline.database), ("Engine URL (no password)", engine.url),
               ("Kit", report.result.kit_version), ("Query set", report.result.query_version)]),
        Table(["", "measured", "priced"], rows, row_headers=True,
              caption="the measured and the priced configuration"),
    )  # fmt: skip
    for line in preflight_result(report.result):
        doc.warn(line)
    mismatch = next((i for i in items if i.key == "priced-measured"), None)
    if mismatch is not None and mismatch.status == "fail":
        doc.warn(f"the priced configuration is not the measured one: {mismatch.evidence}")


def _settings(doc: Document, report: Report) -> None:
    engine = report.result.engine
    passed = url_settings(engine.url)
    blocks: list[Code | Facts | Table | Paragraph | Items] = []
    blocks.append(
        Table(["setting passed in the engine URL", "value"], passed, caption="engine URL")
        if passed
        else Paragraph("The engine URL passes no setting: the engine's defaults apply.")
    )
    shown = sorted(engine.settings.items())
    if shown:
        blocks.append(Table(["engine setting (as read)", "value"], shown, caption="engine"))
    s = report.result.system
    blocks.append(Facts([("Kernel", s.kernel or fmt.NA), ("Python", s.python or fmt.NA)]))
    doc.section(CLAUSES[1][1], *blocks)


def _design(doc: Document, inp: Inputs) -> None:
    if not inp.ddl:
        doc.section(CLAUSES[2][1], Paragraph("This run recorded no DDL (an older result)."))
        return
    indexes = [s for s in inp.ddl if s.upper().startswith("CREATE INDEX")]
    doc.section(
        CLAUSES[2][1],
        Paragraph(
            f"{len(inp.ddl)} statements as executed, {len(indexes)} of them indexes; "
            "no partitioning."
        ),
        Code([line for s in inp.ddl for line in f"{s};".splitlines()]),
    )


def marked(text: QueryText) -> list[str]:
    """The executed text, each line qgen's output lacks marked ``+`` and each it has but
    the engine's dialect changed marked ``-``; unchanged lines indented."""
    out = []
    for line in difflib.ndiff(text.qgen.splitlines(), text.executed.splitlines()):
        if line[:1] in "+- ":
            out.append(line)
    return out


def _queries(doc: Document, inp: Inputs) -> None:
    section = doc.section(
        CLAUSES[3][1],
        Paragraph(
            "Each query of each stream as executed; lines marked + differ from the "
            "qgen output, - are qgen's lines the dialect replaced. The archive's "
            "benchmark_scripts holds every text as a file."
        ),
    )
    for text in inp.texts:
        section.blocks.append(
            Paragraph(
                f"run {text.run}, stream {text.stream}, Q{text.query}: parameters "
                f"{', '.join(text.params) or 'none'}"
            )
        )
        section.blocks.append(Code(marked(text)))


def _refresh(doc: Document, inp: Inputs) -> None:
    rows = [
        [str(run.number), iv.phase, str(iv.stream), iv.kind.upper(), str(iv.update_set or ""),
         str(iv.rows if iv.rows is not None else ""), fmt.num1(iv.seconds), iv.status]
        for run in inp.result.runs for iv in run.intervals if iv.kind != "query"
    ]  # fmt: skip
    header = ["run", "phase", "pair", "function", "update set", "rows", "seconds", "status"]
    blocks: list[Paragraph | Table | Code] = [
        Paragraph("RF1 inserts an update set's new ORDERS and LINEITEM rows, RF2 deletes the "
                  "set's old orders and their lines by key, each in its own transaction(s)."),
        Table(header, rows, frozenset({4, 5, 6})),
    ]  # fmt: skip
    if inp.refresh_sql:
        blocks.append(Code(inp.refresh_sql))
    doc.section(CLAUSES[4][1], *blocks)


def _acid(doc: Document, inp: Inputs) -> None:
    acid = inp.acid
    if acid is None:
        doc.section(CLAUSES[5][1], Paragraph("No ACID result was given (--acid): not disclosed."))
        return
    rows = [[c.name, c.verdict, fmt.num1(c.seconds), c.message] for c in acid.checks]
    doc.section(
        CLAUSES[5][1],
        Facts([("Engine", acid.engine.name), ("Status", acid.status),
               ("Failures exercised", "; ".join(f"{k}: {v}" for k, v in
                                                 acid.failures_exercised.items()) or fmt.NA)]),
        Table(["test", "verdict", "seconds", "method / message"], rows, frozenset({2})),
    )  # fmt: skip


def _load(doc: Document, inp: Inputs) -> None:
    load = inp.result.load
    if load is None:
        doc.section(CLAUSES[6][1], Paragraph("No load was recorded."))
        return
    after = inp.rows("after_load") or {}
    rows = [
        [t, f"{n:,}", f"{after[t]:,}" if t in after else fmt.NA,
         f"{inp.expected_rows[t]:,}" if t in inp.expected_rows else fmt.NA]
        for t, n in load.rows.items()
    ]  # fmt: skip
    doc.section(
        CLAUSES[6][1],
        Facts([("Start", fmt.when(load.start)), ("End", fmt.when(load.end)),
               ("Load time", fmt.duration(load.seconds)), ("Reused", "yes" if load.reused
                                                           else "no")]),
        Table(["step", "seconds"], [[k, fmt.num2(v)] for k, v in load.steps.items()],
              frozenset({1})),
        Table(["table", "loaded", "counted after the load", "generated"], rows,
              frozenset({1, 2, 3})),
    )  # fmt: skip


def _qualification(doc: Document, inp: Inputs) -> None:
    answers = inp.result.answers
    if answers is None or answers.check is None:
        text = "The kept answers were not verified (dbbench verify RUN --answers)."
        doc.section(CLAUSES[7][1], Paragraph(text))
        return
    c = answers.check
    doc.section(
        CLAUSES[7][1],
        Facts([("Reference", c.reference), ("Outputs", str(c.total)), ("Compared", str(c.checked)),
               ("Disagree", str(c.disagree)), ("Not compared", str(c.not_checked))]),
        Items(list(c.lines) or ["every compared output agrees"]),
    )  # fmt: skip


def _metrics(doc: Document, report: Report) -> None:
    runs = [
        [str(r.number), str(r.streams), fmt.num1(r.power), fmt.num1(r.throughput),
         fmt.num1(r.qphh), fmt.duration(r.ts_seconds)]
        for r in report.runs
    ]  # fmt: skip
    section = doc.section(
        CLAUSES[8][1],
        Table(["run", "streams", "Power@Size", "Throughput@Size", "QphH@Size", "Ts"], runs,
              frozenset(range(5))),
    )  # fmt: skip
    for run in report.runs:
        header = ["stream", "seed", *COLUMNS]
        rows = [
            [str(row.stream), str(row.seed or ""),
             *(fmt.num1(row.cells.get(c)) if c in row.cells else "" for c in COLUMNS)]
            for row in run.rows
        ]  # fmt: skip
        section.blocks.append(
            Table(header, rows, frozenset(range(2, len(header))), caption=f"run {run.number}")
        )
    intervals = [
        [str(run.number), iv.phase, str(iv.stream), str(iv.position),
         f"Q{iv.query}" if iv.kind == "query" else iv.kind.upper(), fmt.when(iv.start),
         fmt.when(iv.end), f"{iv.seconds:.3f}", iv.status]
        for run in report.result.runs for iv in run.intervals
    ]  # fmt: skip
    section.blocks.append(
        Table(["run", "phase", "stream", "position", "interval", "start", "end", "seconds",
               "status"], intervals, frozenset({7}), caption="every interval")
    )  # fmt: skip


def _pricing(doc: Document, report: Report) -> None:
    sheet = report.cost_sheet
    if sheet is None:
        doc.section(CLAUSES[9][1], Paragraph("No cost sheet was given: no price is disclosed."))
        return
    doc.section(
        CLAUSES[9][1],
        Facts([("Total (3 years)", fmt.money(sheet.total_3y, sheet.currency)),
               ("Price/QphH", fmt.money(report.headline.price_performance, sheet.currency)),
               ("Availability date", fmt.day(sheet.availability_date))]),
        Paragraph("The whole spreadsheet is page 2 of the Executive Summary."),
    )  # fmt: skip


def fdr_document(inp: Inputs, report: Report, items: list[Item]) -> Document:
    """The report, clause after clause, then its index."""
    doc = Document(f"Full Disclosure Report: {report.headline.database} @ SF "
                   f"{fmt.sf(report.headline.scale_factor)}", report.disclosure)  # fmt: skip
    doc.section("Clause index", Table(["clause", "part of this report"], list(CLAUSES)))
    _configuration(doc, report, items, inp.sponsor)
    _settings(doc, report)
    _design(doc, inp)
    _queries(doc, inp)
    _refresh(doc, inp)
    _acid(doc, inp)
    _load(doc, inp)
    _qualification(doc, inp)
    _metrics(doc, report)
    _pricing(doc, report)
    rows = [[i.title, i.status, i.evidence] for i in items]
    doc.section(CLAUSES[10][1], Table(["item", "status", "evidence"], rows))
    for item in items:
        if item.status == "fail":
            doc.judge(item.title, item.evidence, "fail")
    return doc


def checklist_document(report: Report, items: list[Item]) -> Document:
    doc = Document(f"Auditor's checklist: {report.headline.database}", report.disclosure)
    rows = [[i.title, i.status, i.evidence, i.source, i.query] for i in items]
    doc.section("Items the kit checks", Table(["item", "status", "evidence", "source", "query"],
                                              rows))  # fmt: skip
    for item in items:
        doc.judge(item.title, item.status, _OUTCOMES[item.status])
    return doc
