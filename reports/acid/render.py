"""The ACID result's reports: text, Markdown, HTML and JSON."""

from __future__ import annotations

from dbbench.reports import escape
from dbbench.reports.acid.model import AcidResult

FORMATS = ("text", "md", "html", "json")


def render(result: AcidResult, fmt: str) -> str:
    if fmt == "json":
        return result.to_json()
    head = [
        f"{result.TITLE}: {result.engine.name} {result.engine.version}",
        f"scale factor {result.scale_factor:g}"
        + ("" if result.qualification else " (not a qualification run: SF 1 is)"),
        result.summary(),
    ]
    rows = [
        (c.name, c.verdict, f"{c.seconds:.3f}", c.message or "; ".join(c.steps[-1:]))
        for c in result.checks
    ]
    if fmt == "text":
        lines = [escape.terminal(h) for h in head]
        lines += [escape.terminal(f"  {n:<20} {v:<13} {s:>8} s  {m}") for n, v, s, m in rows]
        return "\n".join(lines) + "\n"
    if fmt == "md":
        out = [escape.markdown(h) + "\n" for h in head]
        out.append("| test | verdict | seconds | detail |\n| --- | --- | ---: | --- |")
        out += ["| " + " | ".join(escape.markdown(x) for x in row) + " |" for row in rows]
        return "\n".join(out) + "\n"
    if fmt == "html":
        body = "".join(f"<p>{escape.html(h)}</p>" for h in head)
        cells = "".join(
            "<tr>" + "".join(f"<td>{escape.html(x)}</td>" for x in row) + "</tr>" for row in rows
        )
        heads = "".join(f"<th>{h}</th>" for h in ("test", "verdict", "seconds", "detail"))
        table = f"<table><tr>{heads}</tr>{cells}</table>"
        return f"<!doctype html><html><body>{body}{table}</body></html>\n"
    raise ValueError(f"unknown format {fmt!r}")
