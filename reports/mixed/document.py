"""The mixed result's report as a format-neutral :class:`~reports.document.Document`: its
facts, points, interference and frontier (with its chart), problems, warnings and verdict,
and the JSON summary beside them. Every format renders it (:mod:`reports.renderers`)."""

from __future__ import annotations

from dbbench.reports import renderers
from dbbench.reports.document import Document, Facts, Figure, Items, Paragraph, Section, Table
from dbbench.reports.mixed.metrics import UNOFFICIAL, summarize_mixed
from dbbench.reports.mixed.model import MixedResult
from dbbench.reports.mixed.render import (
    COMPARE_HEADER,
    FRONTIER_HEADER,
    INTERFERENCE_HEADER,
    POINT_HEADER,
    _facts,
    _problems,
    _title,
    _warnings,
    compare_rows,
    frontier_rows,
    frontier_svg,
    interference_rows,
    point_row,
    summary_dict,
)
from dbbench.reports.noise import add_noise

#: the number columns of each table (right-aligned)
_POINT_NUMBERS = frozenset({1, 2, *range(4, 13)})
_INTERFERENCE_NUMBERS = frozenset({0, 1, 3, 5, 7})
_FRONTIER_NUMBERS = frozenset({1, 2, 3, 4})


def mixed_document(r: MixedResult) -> Document:
    s = summarize_mixed(r)
    doc = Document(_title(r), UNOFFICIAL, data=summary_dict(r))
    doc.sections.append(Section("Configuration", [Facts(_facts(r))]))
    doc.section(
        "Points",
        Paragraph("each side as measured alone; the window is o2c's"),
        Table(POINT_HEADER, [point_row(p) for p in s.points], _POINT_NUMBERS),
    )
    if s.interference:
        doc.section(
            "Interference",
            Paragraph("mixed against the baselines; x = mixed / alone"),
            Table(INTERFERENCE_HEADER, interference_rows(s), _INTERFERENCE_NUMBERS),
        )
    svg = frontier_svg(s) if s.frontier or s.points else ""
    if s.frontier or svg:
        frontier = doc.section(
            "Frontier", Paragraph("analytical against OLTP throughput at the RT limit")
        )
        if svg:
            alt = "query sets/h against dialog steps/h of every point, the frontier as a line"
            frontier.blocks.append(Figure(svg, alt))
        if s.frontier:
            frontier.blocks.append(Table(FRONTIER_HEADER, frontier_rows(s), _FRONTIER_NUMBERS))
    problems = _problems(s)
    if problems:
        doc.section("Problems", Items(problems))
    for warning in _warnings(s):
        doc.warn(warning)
    add_noise(doc, r.config)
    verdict = "VALID" if s.valid else "INVALID"
    if s.valid and r.kind == "run":
        verdict += ", within the RT limit" if s.passed else ", above the RT limit"
    doc.judge("", verdict, "pass" if s.valid and (s.passed or r.kind != "run") else "fail")
    return doc


def render_mixed(r: MixedResult, fmt: str) -> str:
    """The mixed result's report in the format called ``fmt``."""
    return renderers.render(mixed_document(r), fmt)


def compare_document(items: list[tuple[str, MixedResult]]) -> Document:
    """The mixed part of ``dbbench compare``: a row per mixed point of every result, with
    every result's warnings and verdict."""
    doc = Document("Mixed: o2c users and query streams at once", UNOFFICIAL, name="mixed")
    numbers = frozenset(range(3, 11))
    doc.section("Mixed points", Table(COMPARE_HEADER, compare_rows(items), numbers))
    for label, result in items:
        one = mixed_document(result)
        for w in one.warnings:
            doc.warn(f"{label}: {w.text}")
        for v in one.verdicts:
            doc.judge(label if not v.subject else f"{label} {v.subject}", v.outcome, v.passed)
    return doc


def render_compare(items: list[tuple[str, MixedResult]], fmt: str) -> str:
    """The mixed part of a comparison in the format called ``fmt``."""
    return renderers.render_part(compare_document(items), fmt)
