"""Build the static results site: verify every result, write the pages, the raw JSON copies,
the full reports and the manifest (every file through :mod:`reports.safeio`)."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any, NamedTuple

from markupsafe import Markup, escape

from dbbench.reports import inputs, safeio
from dbbench.reports.errors import ReportsError
from dbbench.reports.families import families
from dbbench.reports.family import Checked, Family
from dbbench.reports.model import kit_version
from dbbench.reports.provenance import content_hash
from dbbench.reports.site import rows
from dbbench.reports.site.collect import Found, Refused, candidates, read_candidate
from dbbench.reports.studies.site import cost_sheets as _cost_sheets
from dbbench.reports.studies.site import scaling_studies as _scaling
from dbbench.reports.templating import environment
from dbbench.reports.verify import MANIFEST_SCHEMA, Verdict, verify_loaded

#: the file that says dbbench made a directory (only such a directory is replaced)
MARKER = ".dbbench-site"
MANIFEST = "manifest.json"
ID = re.compile("[0-9a-f]{16}")
CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:"
#: a full report (the family's own HTML, inline styles, no script) may style itself only
REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
ASSETS = ("site.js", "site.css")


def _views() -> list[Family]:
    """The families in the order of their links (each has a page: its own or a table)."""
    return sorted(families().values(), key=lambda f: f.site_view().order)


def _nav() -> tuple[tuple[str, str], ...]:
    """The navigation: every family's pages, then the scaling studies and what was left out."""
    links = [(_file(p.view), p.nav) for f in _views() for p in f.site_view().pages()]
    return (*links, ("scaling.html", "Scaling"), ("excluded.html", "Not included"))


def _file(view: str) -> str:
    return "index.html" if view == "tpch" else f"{view}.html"


@dataclass
class Outcome:
    included: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (input, reason)
    refused: list[Refused] = field(default_factory=list)
    pages: int = 0
    processes: int = 0  # how many processes read, verified and wrote the results


def embed(data: Any) -> Markup:
    """``data`` as JSON safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, code)
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


class Page(NamedTuple):
    """One page of the site (the template's ``page``): its view (the table the script
    draws), heading, note and data; where the site's root is from it (``../`` from a
    result's own page) and how many results the site it belongs to has."""

    view: str
    title: str
    note: str
    data: Markup
    root: str = ""
    results: int = 1

    @property
    def file(self) -> str:
        """The page's file name (the navigation marks its link as the current page)."""
        return _file(self.view)


def _render(page: Page) -> str:
    """The page, with what every page shows: the policy, the navigation, the kit."""
    template = environment().get_template("site_page.html.j2")
    return template.render(csp=CSP, nav=_nav(), kit=_kit(), page=page)


@cache
def _kit() -> str:
    """The kit's version, looked up once per process (reading the package metadata costs
    about a millisecond: once per result was a tenth of a site's build)."""
    return kit_version()


def _report_html(found: Found, checked: Checked) -> str | None:
    """The family's full HTML report, with a policy that forbids any script or fetch
    (``checked``: what verify recomputed, which the family's site report may reuse)."""
    if found.record is not None or "html" not in found.family.formats():
        return None
    view = found.family.site_view()
    if view.report is not None:
        html = view.report(found.result, checked)
    else:
        html = found.family.render(found.result, "html")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{REPORT_CSP}">'
    head = html.find("<head>")
    if head >= 0:
        return html[: head + 6] + meta + html[head + 6 :]
    start = re.search(r"<html\b[^>]*>", html, re.IGNORECASE)  # a page without a head: one
    if start is None:
        return None
    return html[: start.end()] + f"<head>{meta}</head>" + html[start.end() :]


def _prepare(out: Path, force: bool) -> Path:
    """A new empty directory beside ``out`` to build into (swapped in at the end)."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ReportsError(f"refusing to replace {out}: it is not a directory")
    if out.exists() and any(out.iterdir()):
        if not force:
            raise ReportsError(f"{out} exists: give --force to replace a site dbbench made")
        if not (out / MARKER).is_file():
            raise ReportsError(f"refusing to replace {out}: dbbench site did not make it")
    out.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))


def _swap(tmp: Path, out: Path) -> None:
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
        os.replace(out, old / "site")
    os.replace(tmp, out)
    if old is not None:
        shutil.rmtree(old)


def _label(path: Path, inputs: list[Path]) -> str:
    for root in inputs:
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        return str(Path(root.name) / rel) if str(rel) != "." else root.name
    return path.name


def build_site(
    inputs: list[Path],
    out: Path,
    *,
    force: bool = False,
    full_reports: bool = True,
    warn: Callable[[str], None] = lambda line: None,
    workers: int | None = None,
) -> Outcome:
    """Build the site of every result under ``inputs`` into ``out`` (``workers``: processes
    reading, verifying and writing the results; default: up to 2, one for a few results).

    Refused with one line, before anything is written, when an input does not exist or no
    input holds anything to read; and, leaving any earlier site as it was, when none of
    what was read is a result: an empty site is never the outcome of a typo."""
    found = _check_inputs(inputs)
    tmp = _prepare(out, force)
    try:
        reuse = _reusable_reports(out) if full_reports else {}
        outcome = _build(inputs, found, tmp, full_reports, warn, workers, reuse)
        if not outcome.included and not outcome.failed:
            read = len(outcome.refused)
            raise ReportsError(
                f"no results in {_names(inputs)} ({read} file(s) read, none a result); "
                "nothing written"
            )
        _put(tmp / MARKER, b"made by dbbench site\n")
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return outcome


def _names(inputs: list[Path]) -> str:
    shown = ", ".join(str(p) for p in inputs[:3])
    return shown + (f" and {len(inputs) - 3} more" if len(inputs) > 3 else "")


def _check_inputs(inputs: list[Path]) -> list[Path]:
    """Every input exists and together they hold something to read (:func:`build_site`):
    the paths to read, walked once."""
    if not inputs:
        raise ReportsError("no inputs: name result files or directories")
    paths, missing = candidates(inputs)
    if missing:
        raise ReportsError(f"{missing[0].reason}; nothing written")
    if not paths:
        raise ReportsError(f"no results in {_names(inputs)} (nothing to read); nothing written")
    return paths


def _reusable_reports(out: Path) -> dict[str, str]:
    """The full reports of the site being replaced that the same kit rendered, by content hash
    (a result's report is a function of its content and the kit: rebuilt sites reuse it)."""
    try:
        body = json.loads(inputs.read_text(out / MANIFEST, inputs.JSON_LIMIT, "site manifest"))
        entries = body["results"] if body.get("schema") == MANIFEST_SCHEMA else []
    except (OSError, ValueError, KeyError, AttributeError):
        return {}
    found: dict[str, str] = {}
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("report_kit") != _kit():
            continue
        rid, digest = entry.get("id"), entry.get("hash")
        if isinstance(rid, str) and isinstance(digest, str) and ID.fullmatch(rid):
            report = out / "r" / f"{rid}.report.html"
            if report.is_file() and not report.is_symlink():
                found[digest] = str(report)
    return found


def _workers(count: int, asked: int | None) -> int:
    if asked is not None:
        return max(1, asked)
    if count < 40:  # a pool's start costs more than it saves
        return 1
    return max(1, min(2, os.cpu_count() or 1))


def _build(
    inputs: list[Path],
    paths: list[Path],
    site: Path,
    full_reports: bool,
    warn: Callable[[str], None],
    workers: int | None,
    reuse: dict[str, str],
) -> Outcome:
    outcome = Outcome()  # every input exists (_check_inputs): nothing refused yet
    sheets = _cost_sheets(paths)
    (site / "r").mkdir()
    common = Common(str(site), full_reports, reuse)
    jobs = [
        Job(path, _label(path, inputs), sheets.get(path.resolve()) if sheets else None)
        for path in paths
    ]
    count = _workers(len(jobs), workers)
    # forking a process that runs other threads (a test runner's, a browser driver's) copies
    # their locks in whatever state they are: build in this process then (and when the
    # first result, built here, leaves fewer than 2 for the workers)
    if count == 1 or len(jobs) < 3 or threading.active_count() > 1:
        done = [_job(common, job) for job in jobs]
    else:  # the first in this process: the workers are forked with its caches warm
        done = [_job(common, jobs[0])]
        rest = jobs[1:]
        context = multiprocessing.get_context("fork")
        # ``common`` reaches each worker once, by the fork (not pickled with every task); small
        # chunks keep both workers busy to the end (a result takes some 10 ms)
        chunk = max(1, min(8, len(rest) // (count * 8)))
        with ProcessPoolExecutor(count, context, initializer=_start, initargs=(common,)) as pool:
            done.extend(pool.map(_work, rest, chunksize=chunk))
    tables: dict[str, list[rows.Row]] = {f.site_view().view: [] for f in _views()}
    manifest: list[dict[str, Any]] = []
    seen: dict[str, Done] = {}
    studies = _scaling(paths)
    for item in done:
        if item.refused is not None:
            outcome.refused.append(Refused(item.path, item.refused))
        if item.failed is not None:
            outcome.failed.append((item.label, item.failed))
        if item.row is None or item.entry is None:
            continue
        digest = item.entry["hash"]
        if digest in seen:  # the same content twice: its pages show the first
            if item.page != seen[digest].page:
                _replace(site / "r" / f"{digest[:16]}.html", seen[digest].page.encode("utf-8"))
            continue
        seen[digest] = item
        if item.study is not None:
            studies.append(item.study)
        row = dict(item.row)
        tables.setdefault(row.pop("table"), []).append(row)
        manifest.append(item.entry)
    for refused in outcome.refused:
        warn(refused.reason)
    for label, reason in outcome.failed:
        warn(f"{label}: fails verify: {reason}")
    outcome.included = outcome.pages = len(manifest)
    outcome.processes = len({item.pid for item in done})
    _write_pages(site, tables, outcome, studies, len(manifest))
    body = {"schema": MANIFEST_SCHEMA, "schema_version": 1, "results": manifest}
    _put(site / MANIFEST, (json.dumps(body, indent=1, allow_nan=False) + "\n").encode())
    return outcome


def _write_pages(
    site: Path,
    tables: dict[str, list[rows.Row]],
    outcome: Outcome,
    scaling: list[dict[str, Any]],
    count: int,
) -> None:
    pages: list[tuple[str, str, str, dict[str, Any]]] = []
    for family in _views():
        view = family.site_view()
        pages += [
            (p.view, p.title, p.note, p.data(tables.get(view.view, []))) for p in view.pages()
        ]
    pages += [
        (
            "scaling",
            "Scaling studies",
            "Throughput relative to the smallest step of each study: TPC-H query sets/h against "
            "streams, o2c dialog steps/h against users or database nodes.",
            {"studies": scaling},
        ),
        (
            "excluded",
            "Not included",
            "Inputs that are not results, and results whose figures do not follow from their "
            "measurements or whose hash does not match.",
            {
                "refused": [{"path": str(r.path), "reason": r.reason} for r in outcome.refused],
                "failed": [{"path": p, "reason": why} for p, why in outcome.failed],
            },
        ),
    ]
    for view_name, title, note, data in pages:
        page = Page(view_name, title, note, embed(data), results=count)
        _put(site / page.file, _render(page).encode("utf-8"))
    (site / "assets").mkdir()
    assets = files(__package__).joinpath("assets")
    for name in ASSETS:
        _put(site / "assets" / name, assets.joinpath(name).read_bytes())


def _put(path: Path, data: bytes, *, same_content: bool = False) -> None:
    """Write a new file of the site being built. The build directory is a fresh private one
    (``mkdtemp``) swapped in whole at the end, so a file is created exclusively, never
    replaced, and not synced one by one (a site is derived data: rebuilt, not recovered).
    ``same_content``: a result's own file (named by its content hash), which another input of
    the same content may have written already: that one stays."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except FileExistsError:
        if same_content:
            return
        raise safeio.OutputError(f"cannot write {path}: it exists") from None
    except OSError as exc:
        raise safeio.OutputError(f"cannot write {path}: {exc.strerror}") from None
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _replace(path: Path, data: bytes) -> None:
    """Replace a file this build wrote (a result's page that a duplicate input wrote first)."""
    fresh = path.with_name(path.name + ".new")
    _put(fresh, data)
    os.replace(fresh, path)


@dataclass(frozen=True)
class Common:
    """What every result's job shares: the build directory, whether full reports are made,
    the replaced site's reports by content hash."""

    site: str
    full: bool
    reuse: dict[str, str]


@dataclass(frozen=True)
class Job:
    path: Path
    label: str
    cost_sheet: str | None


#: a worker process's :class:`Common` (set once by :func:`_start` as the worker starts)
_COMMON: Common | None = None


def _start(common: Common) -> None:
    global _COMMON
    _COMMON = common


def _work(job: Job) -> Done:
    assert _COMMON is not None
    return _job(_COMMON, job)


@dataclass
class Done:
    path: Path
    label: str
    row: rows.Row | None = None
    entry: dict[str, Any] | None = None
    page: str = ""
    refused: str | None = None
    failed: str | None = None
    study: dict[str, Any] | None = None  # an o2c scaling or node study
    pid: int = field(default_factory=os.getpid)  # the process that built it


def _job(common: Common, job: Job) -> Done:
    """Read, verify and write one result (in a worker process): its raw copy, its page and
    its full report; the row and manifest entry go back to the parent."""
    done = Done(job.path, job.label)
    item = read_candidate(job.path)
    if item is None:
        return done
    if isinstance(item, Refused):
        done.refused = item.reason
        return done
    row, verdict = _row(item)
    if verdict is not None and not verdict.ok:
        done.failed = "; ".join(f"{p.field}: {p.message}" for p in verdict.problems)
        return done
    if job.cost_sheet is not None:
        row.update(rows.priced(row, job.cost_sheet))
    digest = row["hash"]
    rid = digest[:16]
    row.update(id=rid, label=job.label)
    site = Path(common.site)
    checked = verdict.checked if verdict is not None else Checked()
    report = _result_files(site, rid, item, checked, common.full, common.reuse.get(digest))
    done.page = _result_page(rid, row, report is not None, item)
    _put(site / "r" / f"{rid}.html", done.page.encode("utf-8"), same_content=True)
    done.row = row
    study = item.family.site_view().study if item.record is None else None
    if study is not None:
        done.study = study(item.result, row)
        if done.study is not None:
            done.study["id"] = rid
    done.entry = {
        "id": rid,
        "file": f"r/{rid}{_ext(item)}",
        "source": job.label,
        "family": item.family.name if item.record is None else item.record.name,
        "hash": digest,
        "kit_version": row.get("kit", ""),
        "figures": verdict.figures if verdict is not None else {},
    }
    if report is not None:
        done.entry.update(report=report, report_kit=_kit())
    return done


def _without_queries(row: rows.Row) -> rows.Row:
    return {k: v for k, v in row.items() if k != "queries"}


def _row(item: Found) -> tuple[rows.Row, Verdict | None]:
    if item.record is not None:  # a record published elsewhere: a row of its family's view
        text = item.path.read_text(encoding="utf-8", errors="replace")
        row = item.record.row(item.result)
        table, hashed = item.family.site_view().view, content_hash({item.record.name: text})
        row.update(table=table, hash=hashed, family=item.record.name)
        return row, None
    verdict = verify_loaded(Verdict(item.path), item.family.name, item.file, item.data, item.result)
    assert verdict.provenance is not None
    view = item.family.site_view()
    row = view.row(item.result, verdict.checked)
    row.update(table=view.view, hash=verdict.provenance.hash, family=item.family.name)
    row["suite"] = rows.suite_of(item.path)  # provenance: the suite file that ran it, if any
    return row, verdict


def _ext(item: Found) -> str:
    return item.record.suffix if item.record is not None else ".json"


def _result_files(
    site: Path, rid: str, item: Found, checked: Checked, full: bool, reuse: str | None
) -> str | None:
    """Write the raw copy and the full report; the report's file name (None: no report)."""
    raw = item.file.read_bytes() if item.file is not None else None
    if raw is None:
        raw = item.result.to_json().encode("utf-8") if hasattr(item.result, "to_json") else b""
    _put(site / "r" / f"{rid}{_ext(item)}", raw, same_content=True)
    if item.file is not None and item.record is None:  # files its raw copy names (o2c steps)
        for side in getattr(item.result, "side_files", list)():
            data = (item.file.parent / side).read_bytes()
            _put(site / "r" / side, data, same_content=True)  # named by their content
    if not full or item.record is not None:  # a published record has no report
        return None
    name = f"{rid}.report.html"
    if reuse is not None:  # the replaced site's file, linked (it is never written again)
        try:
            os.link(reuse, site / "r" / name, follow_symlinks=False)
            return name
        except FileExistsError:  # another input of the same content linked it
            return name
        except OSError:
            try:
                shutil.copyfile(reuse, site / "r" / name, follow_symlinks=False)
                return name
            except OSError:
                pass
    report = _report_html(item, checked)
    if report is None:
        return None
    _put(site / "r" / name, report.encode("utf-8"), same_content=True)
    return name


def _result_page(rid: str, row: rows.Row, report: bool, item: Found) -> str:
    links = [["raw " + _ext(item)[1:].upper(), f"{rid}{_ext(item)}"]]
    if report:
        links.insert(0, ["full report", f"{rid}.report.html"])
    data = {"row": _without_queries(row), "queries": row.get("queries", {}), "links": links}
    return _fill(
        _page_parts(_nav()),
        title=str(escape(f"Result {rid}")),
        note=str(escape(f"Verified: figures follow from the measurements; sha256 {row['hash']}.")),
        data=str(embed(data)),
    )


@cache
def _page_parts(nav: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The per-result page as literal parts and field names, alternating (rendered once per
    navigation: the families installed make it)."""
    marks = {"\x00title\x00": "title", "\x00note\x00": "note", "\x00data\x00": "data"}
    text = _render(Page("result", "\x00title\x00", "\x00note\x00", Markup("\x00data\x00"), "../"))
    parts: list[str] = []
    for piece in re.split("(\x00(?:title|note|data)\x00)", text):
        parts.append(marks.get(piece, piece) if piece in marks else piece)
    return tuple(parts)


def _fill(parts: tuple[str, ...], **values: str) -> str:
    return "".join(values[p] if i % 2 else p for i, p in enumerate(parts))
