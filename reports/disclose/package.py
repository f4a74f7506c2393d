"""The whole package of one run (``dbbench disclose``): every document through the one
HTML renderer and the one writer, the archive, then the manifest over all of it."""

from __future__ import annotations

import json
from pathlib import Path

from dbbench.reports.disclose.archive import archive_files, write_archive, write_manifest
from dbbench.reports.disclose.checklist import checklist, checklist_json
from dbbench.reports.disclose.fdr import checklist_document, fdr_document
from dbbench.reports.disclose.inputs import Inputs
from dbbench.reports.disclose.pdf import html_to_pdf
from dbbench.reports.disclose.summary import summary_html
from dbbench.reports.document import Document
from dbbench.reports.errors import ReportsError
from dbbench.reports.renderers import html
from dbbench.reports.safeio import write_bytes, write_text
from dbbench.reports.tpch.summary import build_report

SUMMARY_HTML = "executive-summary.html"
SUMMARY_PDF = "executive-summary.pdf"
FDR_HTML = "fdr.html"
FDR_PDF = "fdr.pdf"
CHECKLIST_HTML = "checklist.html"
CHECKLIST_JSON = "checklist.json"


#: long lines of code (the DDL, a query) wrap inside the page, on screen and in print
WRAP_CSS = "<style>pre { white-space: pre-wrap; overflow-wrap: anywhere; }</style>"


def _page(doc: Document) -> str:
    return html.page(doc.title, [WRAP_CSS, *html.body(doc)])


def write_package(inp: Inputs, out: Path, *, pdf: bool = True) -> list[Path]:
    """Write the package under ``out`` (a new or empty folder: the manifest states every file
    in it); the files written, manifest last."""
    if out.is_dir() and any(out.iterdir()):
        raise ReportsError(f"{out} is not empty: the package needs a new or empty folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportsError(f"cannot make {out}: {exc.strerror or exc}") from None
    report = build_report(inp.result, inp.cost_sheet, inp.run_dir)
    items = checklist(inp, report)
    written: list[Path] = []

    def text(name: str, body: str) -> Path:
        path = out / name
        write_text(path, body)
        written.append(path)
        return path

    summary = text(SUMMARY_HTML, summary_html(report, inp.sponsor))
    fdr = text(FDR_HTML, _page(fdr_document(inp, report, items)))
    text(CHECKLIST_HTML, _page(checklist_document(report, items)))
    text(CHECKLIST_JSON, json.dumps(checklist_json(items), indent=2) + "\n")
    if pdf:
        for source, name in ((summary, SUMMARY_PDF), (fdr, FDR_PDF)):
            write_bytes(out / name, html_to_pdf(source))
            written.append(out / name)
    written += write_archive(out, archive_files(inp))
    written.append(write_manifest(out))
    return written
