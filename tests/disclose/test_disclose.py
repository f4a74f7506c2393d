"""``dbbench disclose``: the package of a real DuckDB run at SF 0.01 (every file, the
three-page Executive Summary PDF and its numbers), the checklist's items and two broken
cases, ``dbbench verify`` on the package, hostile strings, and a PostgreSQL run's DDL and
URL settings; every page of the package in a real headless Chromium, opened from file://:
no console error, no request but itself, no sideways overflow at 1280 px."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pdf_text import page_count, page_texts
from private_databases import fresh_postgres

from dbbench.cli import main
from dbbench.reports import formatting as fmt
from dbbench.reports.disclose.pdf import CHROMIUM_FLAGS
from dbbench.reports.loading import load_result
from dbbench.reports.tpch.analysis import COLUMNS
from dbbench.reports.tpch.summary import build_report

CHROMIUM = "/usr/bin/chromium"
SHEET = Path(__file__).resolve().parents[2] / "examples" / "cost-sheets" / "cloud-vm-3y.toml"
PAGES = ("executive-summary.html", "fdr.html", "checklist.html")
SPONSOR = "Example Sponsor & Co <Benchmarks>"  # conftest's package names it


def _require_chromium() -> None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        found = False
    else:
        found = os.path.exists(CHROMIUM)
    if found:
        return
    if os.environ.get("DBBENCH_REQUIRE_SERVERS", "") not in ("", "0", "false", "no"):
        pytest.fail("chromium or playwright missing and DBBENCH_REQUIRE_SERVERS=1", pytrace=False)
    pytest.skip("needs /usr/bin/chromium (Debian package chromium) and playwright")


def _disclose(run: Path, out: Path, *extra: str) -> dict[str, Any]:
    assert main(["disclose", str(run), "-o", str(out), "--no-pdf", *extra]) == 0
    return {i["key"]: i for i in json.loads((out / "checklist.json").read_text())["items"]}


def _copy(run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(run, tmp_path / "run"))


def _edit(run: Path, change: Any) -> None:
    path = run / "result.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.chromium
def test_the_package_holds_every_file(package: Path) -> None:
    _require_chromium()
    for name in ("executive-summary.html", "executive-summary.pdf", "fdr.html", "fdr.pdf",
                 "checklist.html", "checklist.json", "manifest.json"):  # fmt: skip
        assert (package / name).is_file(), name
    archive = package / "supporting-files"
    for top in ("run1result", "run2result", "benchmark_scripts"):
        assert (archive / top).is_dir(), top
        with zipfile.ZipFile(archive / f"{top}.zip") as zf:
            names = zf.namelist()
        on_disk = sorted(
            p.relative_to(archive).as_posix() for p in (archive / top).rglob("*") if p.is_file()
        )
        assert sorted(names) == on_disk
    # the browser tests below open every HTML file of the package
    assert sorted(p.relative_to(package).as_posix() for p in package.rglob("*.html")) == sorted(
        PAGES
    )
    scripts = archive / "benchmark_scripts"
    assert "CREATE TABLE lineitem (" in (scripts / "ddl.sql").read_text()
    assert len(list((scripts / "queries").rglob("q*.qgen.sql"))) == 2 * 3 * 22
    assert (archive / "run1result" / "output" / "stream0" / "q01.json").is_file()


@pytest.mark.chromium
def test_the_executive_summary_pdf_is_three_pages_with_every_number(
    package: Path, disclose_run: Path
) -> None:
    _require_chromium()
    data = (package / "executive-summary.pdf").read_bytes()
    assert data.startswith(b"%PDF-")
    assert page_count(data) == 3
    pages = page_texts(data)
    assert len(pages) == 3
    report = build_report(load_result(disclose_run))
    h = report.headline
    assert f"QphH@0.01 {fmt.num1(h.qphh)}" in pages[0]
    assert f"Power@0.01 {fmt.num1(h.power)}" in pages[0]
    assert f"Throughput@0.01 {fmt.num1(h.throughput)}" in pages[0]
    assert f"Benchmark sponsor {SPONSOR}" in pages[0]
    assert "9,948.24 USD" in pages[1]  # the sheet's 3-year total, on the pricing page
    third = pages[2]
    for run in report.runs:
        power, throughput = fmt.num1(run.power), fmt.num1(run.throughput)
        assert f"Power@Size {power}, Throughput@Size {throughput}" in third
    cells = [row for run in report.runs for row in run.rows]
    assert "seed " + " ".join(str(row.seed) for row in cells) in third
    for column in COLUMNS:  # every query and refresh time of every stream, in its row
        times = " ".join(fmt.num1(row.cells[column]) for row in cells)
        assert f"{column} {times} " in third + " ", column


@pytest.mark.chromium
def test_a_long_cost_sheet_runs_on_over_more_pages_and_is_not_cut(
    disclose_run: Path, tmp_path: Path
) -> None:
    """90 priced items do not fit one page: the pricing spreadsheet runs on over the next
    pages, every item and the total printed; the numerical quantities follow it whole."""
    _require_chromium()
    head = SHEET.read_text().split("[[item]]", 1)[0]
    items = "".join(
        f'[[item]]\ncategory = "hardware"\ndescription = "Priced part number {n:03d}"\n'
        f"unit_price = {n}.50\nquantity = 1\n\n"
        for n in range(1, 91)
    )
    sheet = tmp_path / "long.toml"
    sheet.write_text(head + items)
    out = tmp_path / "out"
    assert main(["disclose", str(disclose_run), "-o", str(out), "--cost-sheet", str(sheet)]) == 0
    pages = page_texts((out / "executive-summary.pdf").read_bytes())
    assert len(pages) > 3
    text = " ".join(pages)
    for n in range(1, 91):
        assert f"Priced part number {n:03d}" in text, n
    total = sum(n + 0.5 for n in range(1, 91))
    assert f"total {total:,.2f} USD" in text
    assert pages[0].count("Priced part number") == 0  # page 1 is the overview alone
    quantities = [i for i, page in enumerate(pages) if "Numerical quantities" in page]
    assert quantities == [len(pages) - 1]  # the last page, on a page of its own
    assert "Priced part number" not in pages[-1]
    report = build_report(load_result(disclose_run))
    assert "seed " + " ".join(str(row.seed) for run in report.runs for row in run.rows) in pages[-1]


def test_the_checklist_marks_each_item_with_evidence(disclose_run: Path, tmp_path: Path) -> None:
    items = _disclose(disclose_run, tmp_path / "out", "--cost-sheet", str(SHEET))
    assert len(items) == 11
    for item in items.values():
        assert item["status"] in ("pass", "fail", "not checked")
        assert item["evidence"] and item["source"]
    for key in ("rows-after-load", "referential-integrity", "decimal-range", "qgen-identity",
                "params-differ", "rows-after-test"):  # fmt: skip
        assert items[key]["status"] == "pass", items[key]
    assert items["rows-after-load"]["query"].startswith("SELECT COUNT(*)")
    orphans = items["referential-integrity"]
    assert orphans["evidence"] == "no row without its parent, for each of 8 foreign keys"
    assert items["acid"]["status"] == "not checked"
    assert items["aux-structures"]["status"] == "pass"  # DuckDB: no keys, no view left over
    html = (tmp_path / "out" / "checklist.html").read_text()
    assert "Rows after the load equal the generated rows" in html
    fdr = (tmp_path / "out" / "fdr.html").read_text()
    # Q3 as DuckDB ran it: qgen's row limit replaced by the dialect's, both lines marked
    assert "- fetch first 10 rows only;\n+ limit 10;" in fdr
    assert "run 1, stream 2, Q3: parameters" in fdr
    # Q15's view as the run named it (its token kept in the result), against qgen's name
    token = json.loads((disclose_run / "result.json").read_text())["config"]["disclosure"][
        "view_token"
    ]
    assert (
        "- create view revenue2 (supplier_no, total_revenue) as\n"
        f"+ create view revenue2_r1_{token} (supplier_no, total_revenue) as\n"
    ) in fdr
    assert f"- drop view revenue2;\n+ drop view revenue2_r1_{token};" in fdr
    assert f"revenue0_r2_{token}" in fdr
    executed = tmp_path / "out" / "supporting-files" / "benchmark_scripts" / "queries"
    assert f"revenue1_r1_{token}" in (executed / "run1" / "stream1" / "q15.sql").read_text()
    assert "Benchmark sponsor</th><td>not stated" in fdr


def test_a_row_deleted_after_the_load_fails_the_row_count_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row really deleted: between the end of the load and the count the run takes after
    it, another session of the same database deletes region 4 (its five nations are then
    orphans); the kit's own counts find it."""
    import duckdb

    from dbbench.drivers.sequencer import benchmark

    take_facts = benchmark.disclosure_facts
    deleted: list[str] = []

    def delete_then_take(ctx: Any, facts: dict[str, Any], when: str) -> None:
        if when == "after_load":
            session = ctx.open_session()
            try:
                session.execute("DELETE FROM region WHERE r_regionkey = 4")
            finally:
                ctx.close_session(session)
            deleted.append(when)
        take_facts(ctx, facts, when)

    monkeypatch.setattr(benchmark, "disclosure_facts", delete_then_take)
    run = tmp_path / "run"
    args = ["run", "-s", "0.01", "-o", str(run), "--runs", "1", "--telemetry-interval", "0",
            "--plans", "off", "--no-answers"]  # fmt: skip
    assert main(args) == 0
    assert deleted == ["after_load"]
    with duckdb.connect(str(run / "tpch.duckdb"), read_only=True) as db:
        assert db.execute("SELECT COUNT(*) FROM region").fetchone() == (4,)  # it is gone
    items = _disclose(run, tmp_path / "out")
    assert items["rows-after-load"]["status"] == "fail"
    assert items["rows-after-load"]["evidence"] == "region: 4 rows, generated 5"
    assert items["rows-after-test"]["status"] == "pass"  # the test itself changed rows right
    assert items["referential-integrity"]["status"] == "fail"
    assert items["referential-integrity"]["evidence"] == (
        "fk_nation_n_regionkey: 5 rows without a parent"
    )
    verdicts = (tmp_path / "out" / "fdr.html").read_text()
    assert "region: 4 rows, generated 5" in verdicts


def test_an_older_run_s_q15_view_token_comes_from_its_journal(
    disclose_run: Path, tmp_path: Path
) -> None:
    """A run made before the result kept the token: its journal's first event names it."""
    run = _copy(disclose_run, tmp_path)
    token = json.loads((run / "result.json").read_text())["config"]["disclosure"]["view_token"]
    _edit(run, lambda data: data["config"]["disclosure"].pop("view_token"))
    _disclose(run, tmp_path / "journal")
    executed = tmp_path / "journal" / "supporting-files" / "benchmark_scripts" / "queries"
    assert f"revenue0_r1_{token}" in (executed / "run1" / "stream0" / "q15.sql").read_text()
    (run / "journal.jsonl").unlink()  # neither: qgen's own name, as before
    _disclose(run, tmp_path / "none")
    executed = tmp_path / "none" / "supporting-files" / "benchmark_scripts" / "queries"
    assert "view revenue0 " in (executed / "run1" / "stream0" / "q15.sql").read_text()


def test_an_index_dropped_and_a_view_left_by_the_test_fail_the_structures_item(
    disclose_run: Path, tmp_path: Path
) -> None:
    run = _copy(disclose_run, tmp_path)

    def changed(data: dict[str, Any]) -> None:
        facts = data["config"]["disclosure"]
        facts["structures_after_load"] = ["INDEX ix_orders_o_orderdate ON orders"]
        facts["structures_after_test"] = ["VIEW revenue1_r1_abcdef"]

    _edit(run, changed)
    items = _disclose(run, tmp_path / "out")
    assert items["aux-structures"]["status"] == "fail"
    assert items["aux-structures"]["evidence"] == (
        "gone: INDEX ix_orders_o_orderdate ON orders; new: VIEW revenue1_r1_abcdef"
    )


def test_a_priced_8_cpu_sheet_on_a_2_cpu_run_fails_priced_vs_measured(
    disclose_run: Path, tmp_path: Path
) -> None:
    """The run as measured on this machine (2 CPUs on the development VM), its result not
    edited; the example sheet prices 8 vCPUs (16 on a machine that has 8)."""
    measured = load_result(disclose_run).system
    cpus = measured.threads or measured.cores
    assert cpus == os.cpu_count()  # what the run measured is the machine's
    priced = 8 if cpus != 8 else 16
    sheet = tmp_path / "sheet.toml"
    text = SHEET.read_text().replace("[priced]\nstorage_gib = 500\nmemory_gib = 64\n", "")
    sheet.write_text(text.replace("8 vCPU", f"{priced} vCPU"))
    items = _disclose(disclose_run, tmp_path / "priced", "--cost-sheet", str(sheet))
    assert items["priced-measured"]["status"] == "fail"
    assert items["priced-measured"]["evidence"] == f"priced {priced} CPUs on a {cpus}-CPU run"
    fdr = (tmp_path / "priced" / "fdr.html").read_text()
    assert f"the priced configuration is not the measured one: priced {priced} CPUs" in fdr
    sheet.write_text(text.replace("8 vCPU", f"{cpus} vCPU"))
    items = _disclose(disclose_run, tmp_path / "same", "--cost-sheet", str(sheet))
    assert items["priced-measured"]["status"] == "pass", items["priced-measured"]
    assert items["priced-measured"]["evidence"] == f"priced {cpus} CPUs, measured {cpus}"


def test_an_acid_result_is_disclosed_and_a_failed_test_fails_its_item(
    disclose_run: Path, tmp_path: Path
) -> None:
    acid = tmp_path / "acid"
    assert main(["acid", "-s", "0.01", "--transactions", "5", "-o", str(acid)]) == 0
    not_run = "ACID: not run: no ACID result of this engine and configuration is attached"
    _disclose(disclose_run, tmp_path / "without")
    assert not_run in (tmp_path / "without" / "executive-summary.html").read_text()
    items = _disclose(disclose_run, tmp_path / "out", "--acid", str(acid / "result.json"))
    assert items["acid"]["status"] == "pass", items["acid"]
    # attached to the run: page 1's compliance no longer lists ACID as not run
    summary = (tmp_path / "out" / "executive-summary.html").read_text()
    assert "Why not compliant" in summary and not_run not in summary
    assert (
        "atomicity" in items["acid"]["evidence"]
        and "isolation-1: passed" in items["acid"]["evidence"]
    )
    fdr = (tmp_path / "out" / "fdr.html").read_text()
    assert "<td>isolation-1</td><td>passed</td>" in fdr
    archived = tmp_path / "out" / "supporting-files" / "benchmark_scripts" / "acid-result.json"
    assert json.loads(archived.read_text())["schema"] == "dbbench-acid-result"

    # attached by dbbench run --acid: the checklist reads it from the result
    run = tmp_path / "run"
    args = ["run", "-s", "0.01", "-o", str(run), "--runs", "1", "--acid",
            str(acid / "result.json"), "--telemetry-interval", "0", "--plans", "off",
            "--no-answers"]  # fmt: skip
    assert main(args) == 0
    attached = _disclose(run, tmp_path / "attached")["acid"]
    assert attached["status"] == "pass", attached
    assert attached["evidence"].startswith("ACID: passed")
    assert attached["source"].startswith("the ACID result attached to the run")

    def one_failed(data: dict[str, Any]) -> None:
        data["checks"][0]["verdict"] = "failed"

    _edit(acid, one_failed)
    items = _disclose(disclose_run, tmp_path / "failed", "--acid", str(acid / "result.json"))
    assert items["acid"]["status"] == "fail"


def test_the_answers_item_follows_the_kept_answer_check(disclose_run: Path, tmp_path: Path) -> None:
    run = _copy(disclose_run, tmp_path)

    def checked(disagree: int) -> Any:
        def change(data: dict[str, Any]) -> None:
            lines = ["run 1 stream 0 Q1: l_returnflag differs"] if disagree else []
            data["answers"]["check"] = {
                "reference": "duckdb", "total": 132, "checked": 120, "disagree": disagree,
                "not_checked": 12, "lines": lines,
            }  # fmt: skip

        return change

    _edit(run, checked(0))
    assert _disclose(run, tmp_path / "agree")["answers"]["status"] == "pass"
    _edit(run, checked(1))
    items = _disclose(run, tmp_path / "disagree")
    assert items["answers"]["status"] == "fail"
    assert items["answers"]["evidence"].startswith("120 of 132 outputs compared with duckdb: 1")


def test_verify_catches_an_edited_file_of_the_archive(
    disclose_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    _disclose(disclose_run, out)
    assert main(["verify", str(out)]) == 0
    assert "every file as its manifest states" in capsys.readouterr().out
    ddl = out / "supporting-files" / "benchmark_scripts" / "ddl.sql"
    ddl.write_text(ddl.read_text().replace("NOT NULL", "NULL", 1))
    assert main(["verify", str(out)]) == 1
    err = capsys.readouterr().err
    assert "supporting-files/benchmark_scripts/ddl.sql: edited" in err
    (out / "extra.txt").write_text("x")
    assert main(["verify", str(out)]) == 1
    assert "extra.txt: not in the manifest" in capsys.readouterr().err


def test_bad_inputs_are_one_line_and_a_non_zero_exit(
    disclose_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        ([str(tmp_path / "nope"), "-o", str(tmp_path / "a")], "no such result file"),
        ([str(disclose_run), "-o", str(disclose_run)], "is not empty"),
        ([str(disclose_run), "-o", str(tmp_path / "b"), "--acid",
          str(disclose_run / "result.json")], "not an ACID result"),
        ([str(disclose_run), "-o", str(tmp_path / "c"), "--cost-sheet",
          str(tmp_path / "none.toml")], "cannot read cost sheet"),
    ]  # fmt: skip
    for args, words in cases:
        assert main(["disclose", *args, "--no-pdf"]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err, err


HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">'


def test_a_hostile_string_is_escaped_in_every_file(disclose_run: Path, tmp_path: Path) -> None:
    run = _copy(disclose_run, tmp_path)

    def hostile(data: dict[str, Any]) -> None:
        data["engine"]["settings"]["evil"] = HOSTILE
        data["system"]["os"] = HOSTILE
        data["engine"]["version"] = HOSTILE  # in every page's title

    _edit(run, hostile)
    sheet = tmp_path / "evil.toml"
    quoted = HOSTILE.replace('"', '\\"')
    sheet.write_text(SHEET.read_text().replace('system = "Cloud VM', f'system = "{quoted} VM'))
    _disclose(run, tmp_path / "out", "--cost-sheet", str(sheet), "--sponsor", HOSTILE)
    pages = list((tmp_path / "out").glob("*.html"))
    assert len(pages) == 3
    for page in pages:
        text = page.read_text()
        assert "<script" not in text and "<img" not in text, page.name
        assert "&lt;script&gt;alert(1)" in text, page.name


@pytest.mark.postgresql
def test_a_postgresql_run_discloses_its_index_ddl_and_every_url_setting(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    with fresh_postgres(request.getfixturevalue("pg_base_url"), "dbbench_disclose") as url:
        secret = "s3cret-disclose-pw"
        options = "options=-c%20work_mem%3D64MB%20-c%20random_page_cost%3D1.5"
        engine = (f"{url}?application_name=dbbench_disclose&copy_streams=2&{options}"
                  f"&password={secret}")  # fmt: skip
        run = tmp_path / "run"
        args = ["run", "-e", engine, "-s", "0.01", "-o", str(run), "--runs", "1",
                "--telemetry-interval", "0", "--plans", "off", "--no-answers"]  # fmt: skip
        assert main(args) == 0
    items = _disclose(run, tmp_path / "out")
    assert items["referential-integrity"]["status"] == "pass"
    aux = items["aux-structures"]
    assert aux["status"] == "pass" and aux["evidence"].startswith("the same "), aux
    assert int(aux["evidence"].split()[2]) >= 8 + 9 + 4  # primary keys, foreign keys, indexes
    fdr = (tmp_path / "out" / "fdr.html").read_text()
    assert "CREATE INDEX ix_lineitem_l_shipdate ON lineitem (l_shipdate)" in fdr
    assert "CREATE INDEX ix_orders_o_orderdate ON orders (o_orderdate)" in fdr
    assert "FOREIGN KEY (l_orderkey) REFERENCES orders (o_orderkey)" in fdr
    passed = fdr.split("setting passed in the engine URL", 1)[1].split("</table>", 1)[0]
    for name, value in (("application_name", "dbbench_disclose"), ("copy_streams", "2"),
                        ("options", "-c work_mem=64MB -c random_page_cost=1.5"),
                        ("password", "(hidden)")):  # fmt: skip
        assert f"<td>{name}</td><td>{value}</td>" in passed, name
    assert passed.count("<tr>") == 4  # every setting the URL passes, none more
    read = fdr.split("engine setting (as read)", 1)[1].split("</table>", 1)[0]
    assert "<td>work_mem</td><td>64MB</td>" in read  # as the server took it
    assert "<td>random_page_cost</td><td>1.5</td>" in read
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS))
        yield b
        b.close()


@pytest.mark.chromium
@pytest.mark.parametrize("name", PAGES)
def test_a_page_of_the_package_renders_offline_without_errors_or_overflow(
    browser: Any, package: Path, name: str
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "assert") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    own = (package / name).resolve().as_uri()
    page.on("request", lambda r: requests.append(r.url) if r.url != own else None)
    page.goto(own, wait_until="load")
    width = page.evaluate("document.documentElement.scrollWidth")
    heading = page.evaluate("document.querySelector('h1').textContent")
    page.close()
    assert errors == []
    assert requests == []
    assert width <= 1280, f"{name} is {width} px wide"
    assert heading


@pytest.mark.chromium
def test_each_printed_page_of_the_executive_summary_holds_its_content(
    browser: Any, package: Path
) -> None:
    """Printed (A4 less its margins: 190 mm wide), no page's content is cut off."""
    page = browser.new_page(viewport={"width": 718, "height": 1000})
    page.emulate_media(media="print")
    page.goto((package / "executive-summary.html").resolve().as_uri(), wait_until="load")
    sizes = page.evaluate(
        "Array.from(document.querySelectorAll('section.page'))"
        ".map(s => [s.scrollWidth, s.clientWidth, s.scrollHeight, s.clientHeight])"
    )
    page.close()
    assert len(sizes) == 3
    for wide, width, high, height in sizes:
        assert wide <= width and high <= height, sizes
