"""An ACID result attached to a TPC-H result (``dbbench run --acid``, ``dbbench report
--acid``): refused unless it is of the same engine and configuration, then kept in the
result as its verdict and summary, which every report format and the compliance judge read.

The same configuration: the same engine (name), the same version, and the same value of
every disclosed engine setting the two results both recorded, except those that say where
the database is (:data:`WHERE`, and any whose two values are both absolute paths). The
scale factor may differ (clause 3 runs on the qualification database, SF 1, whatever SF
the run has).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dbbench.reports import renderers
from dbbench.reports.acid.model import AcidResult
from dbbench.reports.document import Document, Outcome, Paragraph
from dbbench.reports.errors import ReportsError
from dbbench.reports.tpch.model import AcidVerdict, BenchmarkResult

#: what a TPC-H result with no ACID result attached says, in every format and comparison
NOT_RUN = "ACID: not run (no ACID result attached: dbbench acid, then run or report --acid)"

#: settings that say where the database is, not how the engine runs (the qualification
#: database is another one than the run's)
WHERE = frozenset({"database", "data_directory", "datadir", "path", "file"})


def _place(value: str) -> bool:
    """A file or folder (an absolute path): where, not how (DuckDB's temp_directory)."""
    return value.startswith("/")


def attach(result: BenchmarkResult, acid: AcidResult, source: str = "") -> None:
    """Set ``result.acid`` from ``acid``; a different engine or configuration: one line."""
    mine, theirs = result.engine, acid.engine
    where = f" ({source})" if source else ""
    if mine.name != theirs.name:
        raise ReportsError(
            f"the ACID result{where} is of engine {theirs.name!r}, the run of {mine.name!r}"
        )
    if mine.version != theirs.version:
        raise ReportsError(
            f"the ACID result{where} is of {theirs.name} {theirs.version!r}, the run of "
            f"{mine.version!r}: not the same configuration"
        )
    differ = sorted(
        k for k in mine.settings.keys() & theirs.settings.keys() - WHERE
        if mine.settings[k] != theirs.settings[k]
        and not (_place(mine.settings[k]) and _place(theirs.settings[k]))
    )  # fmt: skip
    if differ:
        k = differ[0]
        raise ReportsError(
            f"the ACID result{where} ran with {k} = {theirs.settings[k]!r}, the run with "
            f"{mine.settings[k]!r}: not the same configuration"
        )
    result.acid = AcidVerdict(
        verdict=acid.verdict,
        summary=acid.summary(),
        engine=theirs.name,
        engine_version=theirs.version,
        scale_factor=acid.scale_factor,
        source=source,
    )


def acid_line(result: BenchmarkResult) -> str:
    """The run's ACID verdict in one line: the attached result's summary (``ACID: passed
    (tests ...; failures ...)``, ``ACID: failed: ...``, ``ACID: incomplete (...)``, ``ACID:
    not supported (...)``), or :data:`NOT_RUN`."""
    return result.acid.summary if result.acid is not None else NOT_RUN


def acid_outcome(result: BenchmarkResult) -> Outcome:
    """pass only for a passed ACID result; anything else (not run included) fails."""
    return "pass" if result.acid is not None and result.acid.verdict == "passed" else "fail"


#: what the ACID part of a comparison says above its verdicts
PART_NOTE = (
    "Each result's ACID tests (clause 3): the ACID result attached to it (dbbench run or "
    "report --acid), of the same engine and configuration. A result without a passed one is "
    "not compliant."
)


def acid_document(
    items: Sequence[tuple[str, BenchmarkResult]], title: str = "ACID tests"
) -> Document:
    """The ACID part of a comparison (``compare``, the suite): one verdict per result,
    ``label: ACID: passed (...)`` / ``failed: ...`` / ``not run (...)`` / ``not supported
    (...)``, in no format yet (every format's renderer shows every verdict)."""
    doc = Document(title, name="acid")
    doc.section("ACID tests of each result", Paragraph(PART_NOTE))
    for label, result in items:
        doc.judge(label, acid_line(result), acid_outcome(result))
    return doc


def acid_part(
    items: Sequence[tuple[str, BenchmarkResult]], fmt: str, title: str = "ACID tests"
) -> str:
    """:func:`acid_document` as a part of a comparison in the format called ``fmt``; no
    results: nothing."""
    return renderers.render_part(acid_document(items, title), fmt) if items else ""


def acid_data(items: Sequence[tuple[str, BenchmarkResult]]) -> dict[str, Any]:
    """:func:`acid_document` as a JSON comparison's value (the JSON format's document)."""
    parsed: dict[str, Any] = json.loads(renderers.render_part(acid_document(items), "json"))
    return parsed
