"""Formats as an axis: every family's golden results as a document, rendered in every
format (a toy format added as one module too), each showing every warning, verdict and
note the family states; one escaper per format; one style for every HTML page."""

from __future__ import annotations

import html
import importlib
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from dbbench.cli import main
from dbbench.reports import families as registry
from dbbench.reports import renderers
from dbbench.reports.document import Document, Facts, Figure, Items, Paragraph, Table
from dbbench.reports.families import Family, RenderOptions
from dbbench.reports.renderers.html import style

HERE = Path(__file__).parent
GOLDEN = HERE / "golden" / "families"
MIXED_GOLDEN = GOLDEN / "mixed-v1.json"
GOLDENS = sorted(GOLDEN.glob("*.json"))
BUILT_IN = ("text", "md", "html", "json")


@contextmanager
def toy_format(folder: Path) -> Iterator[None]:
    """The toy format's distribution on ``sys.path``: its entry point found by the kit."""
    dist = folder / "dbbench_toy_format-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: dbbench-toy-format\nVersion: 1.0\n"
    )
    (dist / "entry_points.txt").write_text("[dbbench.formats]\ntoy = toy_format:FORMAT\n")
    (folder / "toy_format.py").write_text((HERE / "toy_format.py").read_text())
    sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    renderers.formats.cache_clear()
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("toy_format", None)
        importlib.invalidate_caches()
        renderers.formats.cache_clear()


def _read(golden: Path) -> tuple[Family, Any]:
    family, result, _ = registry.read_result(golden)
    return family, result


def _document(family: Family, result: Any) -> Document:
    assert family.document is not None, f"{family.title} builds no document"
    return family.document(result, RenderOptions())


def test_the_built_in_formats_are_one_module_each() -> None:
    assert tuple(renderers.formats()) == BUILT_IN
    for name, fmt in renderers.formats().items():
        assert fmt.name == name and callable(fmt.escape)


#: families that do not build a document yet, so have no golden here: each is named, and the
#: test fails once one of them gets a golden (then take it off this list)
WITHOUT_DOCUMENT: set[str] = set()


def test_goldens_cover_every_built_in_family() -> None:
    names = {json.loads(p.read_text())["schema"] for p in GOLDENS}
    assert not names & WITHOUT_DOCUMENT
    assert names | WITHOUT_DOCUMENT == set(registry.families()), names


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.stem)
def test_a_toy_format_added_as_one_module_renders_every_familys_golden_results(
    golden: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    family, result = _read(golden)
    assert "toy" not in family.formats()
    assert main(["report", str(golden), "-f", "toy"]) != 0  # not installed: refused
    assert "toy" in capsys.readouterr().err
    with toy_format(tmp_path / "site"):
        assert "toy" in family.formats()
        assert main(["report", str(golden), "-f", "toy"]) == 0
        out = capsys.readouterr().out
        doc = _document(family, result)
        assert out.startswith(f"toy-report: {doc.title}\n")
        for section in doc.sections:
            assert f"section: {section.title}\n" in out
        blocks = [b for s in doc.sections for b in s.blocks]
        tables = [b for b in blocks if isinstance(b, Table)]
        facts = [pair for b in blocks if isinstance(b, Facts) for pair in b.pairs]
        assert tables or facts
        for t in tables:
            assert all("row: " + " ; ".join(row) + "\n" in out for row in t.rows[:3])
        assert all(f"fact: {k} = {v}\n" in out for k, v in facts)
        for w in doc.warnings:
            assert f"warning: {w.text}\n" in out
        assert doc.verdicts
        for v in doc.verdicts:
            assert f"verdict: {v.subject} = {v.outcome} ({v.passed})\n" in out
    assert "toy" not in family.formats()  # uninstalled: gone again


def _shown(text: str, fmt: str) -> str:
    """What a reader sees of ``text`` in format ``fmt``: markup, escapes and line breaks
    gone, white space collapsed, case folded."""
    if fmt == "html":
        text = re.sub(r"<style>.*?</style>|<svg.*?</svg>", " ", text, flags=re.S)
        text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    elif fmt == "md":
        text = html.unescape(re.sub(r"\\([\\`*_\[\]|~])", r"\1", text).replace("**", ""))
    elif fmt == "json":
        text = "\n".join(_strings(json.loads(text)))
    return " ".join(text.split()).casefold()


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _said(text: str) -> str:
    return " ".join(text.split()).casefold()


@pytest.mark.parametrize("fmt", BUILT_IN)
@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.stem)
def test_every_warning_and_verdict_of_every_family_appears_in_every_format(
    golden: Path, fmt: str
) -> None:
    family, result = _read(golden)
    doc = _document(family, result)
    assert doc.verdicts, f"{golden.name}: the family states no verdict"
    out = family.render(result, fmt)
    seen = _shown(out, fmt)
    for w in doc.warnings:
        assert _said(w.text) in seen, (fmt, w.text)
    for v in doc.verdicts:
        assert _said(v.outcome) in seen, (fmt, v.outcome)
    for note in doc.notes:
        assert _said(note) in seen, (fmt, note)
    if fmt == "json":  # programs get them as lists, exactly
        data = json.loads(out)
        assert data["warnings"] == [w.text for w in doc.warnings]
        assert [(v["subject"], v["outcome"]) for v in data["verdicts"]] == [
            (v.subject, v.outcome) for v in doc.verdicts
        ]


def test_the_mixed_golden_states_its_warnings_and_verdict() -> None:
    family, result = _read(MIXED_GOLDEN)
    doc = _document(family, result)
    texts = [w.text for w in doc.warnings]
    assert any(t.startswith("short window") for t in texts)
    assert any("not attributable" in t for t in texts)
    assert [v.outcome for v in doc.verdicts] == ["VALID, within the RT limit"]


def test_the_mixed_html_report_shows_its_warnings_and_verdict_in_the_common_style(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "result.json").write_text(MIXED_GOLDEN.read_text())
    assert main(["report", str(run)]) == 0
    text = capsys.readouterr().out
    assert main(["report", str(run), "-f", "html", "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert style() in page and page.count("<style>") == 1
    for line in text.splitlines():
        if line.startswith("- ") or line.startswith("verdict: "):  # warnings and verdict
            said = line.removeprefix("- ").removeprefix("verdict: ")
            assert html.escape(said, quote=True) in page, said
    assert '<section class="warnings">' in page and "VALID, within the RT limit" in page
    assert "<svg" in page


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.stem)
def test_every_familys_html_page_has_the_one_style(golden: Path) -> None:
    family, result = _read(golden)
    page = family.render(result, "html")
    assert style() in page, golden.name
    assert page.count("<style>") == 1 and page.count("</html>") == 1


CRAFTED = '<script>alert(1)</script> | *x* `y` \x1b[31mred\x07 \u202eevil & "q"\nline'


def _crafted() -> Document:
    doc = Document(CRAFTED, CRAFTED)
    doc.section(
        CRAFTED,
        Paragraph(CRAFTED),
        Facts([(CRAFTED, CRAFTED)]),
        Table([CRAFTED, "n"], [[CRAFTED, "1"]], frozenset({1})),
        Figure("<svg></svg>", CRAFTED),
        Items([CRAFTED]),
    )
    doc.warn(CRAFTED)
    doc.judge(CRAFTED, CRAFTED, "fail")
    doc.notes.append(CRAFTED)
    return doc


@pytest.mark.parametrize("fmt", BUILT_IN)
def test_every_string_of_a_document_passes_its_formats_escaper(fmt: str) -> None:
    out = renderers.render(_crafted(), fmt)
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    if fmt in ("md", "html"):
        assert "<script>" not in out and "&lt;script&gt;" in out
    if fmt == "md":  # a value stays on its line and in its cell
        assert "\\|" in out and "\\*x\\*" in out and "\nline" not in out
    if fmt == "json":
        data = json.loads(out)
        assert data["warnings"] == [CRAFTED] and data["notes"] == [CRAFTED]
        assert data["title"] == CRAFTED  # the encoder escapes, the value is kept exactly
    if fmt == "text":
        assert "<script>alert(1)</script>" in out  # text is shown as it is, controls gone


@pytest.mark.parametrize("fmt", BUILT_IN)
def test_a_table_with_no_rows_renders_its_header_in_every_format(fmt: str) -> None:
    """A table left empty by a stopped run (an o2c run whose node was killed) is a header
    alone, not a crash of the renderer after the measurements were taken."""
    doc = Document("t")
    doc.section("Steps", Table(["step", "count"], [], frozenset({1})))
    out = renderers.render(doc, fmt)
    assert "step" in out and "count" in out


@pytest.mark.parametrize("fmt", BUILT_IN)
def test_a_tables_links_are_relative_encoded_and_shown_in_every_format(fmt: str) -> None:
    """A cell's link (a suite entry's report) is a link in HTML and Markdown, its text in
    the others; the target is percent-encoded, so a crafted run folder cannot leave it."""
    target = 'my run") <b>/report.html'
    table = Table(["entry", "run"], [["a", "run a"], ["b", "run b"]], links={(0, 1): target})
    doc = Document("t")
    doc.section("Entries", table)
    out = renderers.render(doc, fmt)
    encoded = "my%20run%22%29%20%3Cb%3E/report.html"
    if fmt == "html":
        assert f'<a href="{encoded}">run a</a>' in out and "<td>run b</td>" in out
    elif fmt == "md":
        assert f"| [run a]({encoded}) |" in out and "| run b |" in out
    elif fmt == "json":
        links = json.loads(out)["sections"][0]["blocks"][0]["links"]
        assert links == [[0, 1, target]]
    else:
        assert "run a" in out and "report.html" not in out
    for bad in ("javascript:alert(1)", "https://elsewhere/x", "/etc/passwd"):
        with pytest.raises(ValueError, match="relative path"):
            Table(["entry"], [["a"]], links={(0, 0): bad})
    with pytest.raises(ValueError, match="no such cell"):
        Table(["entry"], [["a"]], links={(1, 0): "x.html"})


def test_an_unknown_format_is_one_clear_line() -> None:
    with pytest.raises(Exception, match="unknown format 'nope' \\(choose from text, md"):
        renderers.render(_crafted(), "nope")


def test_a_json_document_may_not_contradict_its_familys_data() -> None:
    doc = Document("t", data={"title": "other"})
    with pytest.raises(ValueError, match="title"):
        renderers.render(doc, "json")
    assert (
        json.loads(renderers.render(Document("t", data={"title": "t", "x": 1}), "json"))["x"] == 1
    )


@pytest.mark.parametrize("fmt", ("text", "md", "html"))
def test_a_mixed_comparison_shows_every_results_warnings_and_verdict(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    family, result = _read(MIXED_GOLDEN)
    doc = _document(family, result)
    out = tmp_path / f"c.{fmt}"
    assert main(["compare", str(MIXED_GOLDEN), str(MIXED_GOLDEN), "-f", fmt, "-o", str(out)]) == 0
    seen = _shown(out.read_text(), fmt)
    for w in doc.warnings:
        assert _said(w.text) in seen, w.text
    for v in doc.verdicts:
        assert _said(v.outcome) in seen
    if fmt == "html":
        page = out.read_text()
        assert style() in page and page.count("<style>") == 1
