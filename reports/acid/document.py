"""The ACID result's report as a format-neutral :class:`~reports.document.Document`: the
configuration, each clause-3 test with its verdict, time and detail, the failure types of 3.5
exercised and not, and the result's verdict. Every format renders it (:mod:`reports.renderers`)."""

from __future__ import annotations

from dbbench.reports.acid.model import QUALIFICATION_SF, AcidResult
from dbbench.reports.document import Document, Facts, Items, Outcome, Paragraph, Table

#: the header of the tests' table (the seconds column is a number)
CHECK_HEADER = ("test", "verdict", "seconds", "detail")


def acid_document(result: AcidResult) -> Document:
    engine = f"{result.engine.name} {result.engine.version}".strip()
    doc = Document(f"{result.TITLE}: {engine}", data={"result": result.to_dict()})
    doc.section(
        "Configuration",
        Facts(
            [
                ("engine", engine),
                ("scale factor", f"{result.scale_factor:g}"),
                ("streams", str(result.streams)),
                ("transactions per stream", str(result.transactions_per_stream)),
                ("kit", result.kit_version),
            ]
        ),
        Paragraph(result.summary()),
    )
    rows = [
        [c.name, c.verdict, f"{c.seconds:.3f}", c.message or "; ".join(c.steps[-1:])]
        for c in result.checks
    ]
    doc.section("Tests", Table(CHECK_HEADER, rows, frozenset({2})))
    exercised = [f"{name}: {how}" for name, how in result.failures_exercised.items()]
    if exercised or result.failures_not_exercised:
        failures = doc.section("Failures (clause 3.5)")
        if exercised:
            failures.blocks += [Paragraph("exercised"), Items(exercised)]
        if result.failures_not_exercised:
            failures.blocks += [Paragraph("not exercised"), Items(result.failures_not_exercised)]
    if result.errors:
        doc.section("Errors", Items(result.errors))
    if not result.qualification:
        doc.warn(
            f"not a qualification run: SF {QUALIFICATION_SF:g} is"
            f" (this one: SF {result.scale_factor:g})"
        )
    if result.not_supported:
        doc.warn(f"the engine cannot run the tests: {result.not_supported}")
    verdict = result.verdict
    passed: Outcome = "pass" if verdict == "passed" else "fail" if verdict == "failed" else "none"
    doc.judge("ACID", verdict, passed)
    return doc
