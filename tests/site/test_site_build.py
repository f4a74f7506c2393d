"""Building the site without a browser: what is included, refused and why, the escaped
embedded data, the manifest that verify reads back, and replacing only a site dbbench made."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from reports_fixtures import FAMILY_GOLDEN as GOLDEN

from dbbench.cli import main
from dbbench.reports.errors import ReportsError
from dbbench.reports.site.build import CSP, MARKER, build_site, embed
from dbbench.reports.verify import read_manifest, verify


def test_embedded_json_cannot_close_its_script_element() -> None:
    text = str(embed({"a": "</script><script>x()</script>&amp;\u2028"}))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"a": "</script><script>x()</script>&amp;\u2028"}


def test_a_site_of_every_family_and_bad_input(
    real_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"schema": "someone-else"}')
    out = tmp_path / "site"
    code = main(["site", str(real_run), str(GOLDEN), str(foreign), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 0
    assert err.count("not included") == 1 and "foreign.json" in err
    index = (out / "index.html").read_text()
    assert f'content="{CSP}"' in html.unescape(index) and "<script src=" in index
    manifest = json.loads((out / "manifest.json").read_text())
    families = sorted(e["family"] for e in manifest["results"])
    tpch = len(list(GOLDEN.glob("tpch-*.json"))) + 1  # every version's golden, the real run
    assert families.count("dbbench-result") == tpch and "dbbench-o2c-result" in families
    assert "dbbench-hammerdb-result" in families
    entries = read_manifest(out / "manifest.json")
    for entry in manifest["results"]:  # the site's copies verify against its manifest
        assert verify(out / entry["file"], entries).ok
        assert (out / "r" / f"{entry['id']}.html").is_file()
    assert "foreign.json" in (out / "excluded.html").read_text()


def test_an_existing_directory_is_replaced_only_with_force_and_if_dbbench_made_it(
    tmp_path: Path,
) -> None:
    out = tmp_path / "site"
    build_site([GOLDEN / "tpch-v2.json"], out, full_reports=False)
    assert (out / MARKER).is_file()
    with pytest.raises(ReportsError, match="--force"):
        build_site([GOLDEN / "tpch-v2.json"], out)
    build_site([GOLDEN / "o2c-v2.json"], out, force=True, full_reports=False)
    assert len(json.loads((out / "manifest.json").read_text())["results"]) == 1
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    with pytest.raises(ReportsError, match="did not make it"):
        build_site([GOLDEN / "tpch-v2.json"], mine, force=True)
    assert (mine / "notes.txt").read_text() == "keep"


def test_a_result_failing_verify_is_listed_with_its_reason(tmp_path: Path) -> None:
    bad = tmp_path / "in" / "hdb.json"
    bad.parent.mkdir()
    shutil.copy(GOLDEN / "hammerdb-v1.json", bad)
    data = json.loads(bad.read_text())
    data["nopm"] = 99999.0
    bad.write_text(json.dumps(data))
    outcome = build_site([tmp_path / "in"], tmp_path / "site", full_reports=False)
    assert outcome.included == 0 and outcome.failed[0][1].startswith("nopm:")
    assert "exceed" in (tmp_path / "site" / "excluded.html").read_text()


def _tree(site: Path) -> dict[str, bytes]:
    files = sorted(f for f in site.rglob("*") if f.is_file())
    return {str(f.relative_to(site)): f.read_bytes() for f in files}


def _site_command(inputs: Path, out: Path, *options: str) -> int:
    """``dbbench site`` in a process of its own (no other thread runs there, so the build
    forks its workers, which it never does from a test runner's threaded process); the
    number of processes that built the results, as it reports it."""
    command = [sys.executable, "-m", "dbbench", "site", str(inputs), "-o", str(out), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    found = re.search(r"(\d+) process\(es\)", done.stderr)
    assert found is not None, done.stderr
    return int(found.group(1))


def test_a_rebuild_reuses_the_reports_of_unchanged_results(real_run: Path, tmp_path: Path) -> None:
    """Over a site dbbench made, a result of the same content keeps the report the same kit
    rendered (linked, not rendered again) and its page; a changed result gets its own."""
    from synthetic import variant

    base = json.loads((real_run / "result.json").read_text())
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.json").write_text(json.dumps(base))
    out = tmp_path / "site"
    build_site([inputs], out, workers=1)
    first = json.loads((out / "manifest.json").read_text())["results"][0]
    report = out / "r" / first["report"]
    inode, text = report.stat().st_ino, report.read_text()
    page = (out / "r" / f"{first['id']}.html").read_text()
    changed = variant(base, engine="duckdb", version="1.4", host="other", factor=2.0)
    (inputs / "b.json").write_text(json.dumps(changed))
    build_site([inputs], out, force=True, workers=1)
    entries = {e["source"]: e for e in json.loads((out / "manifest.json").read_text())["results"]}
    again = out / "r" / entries["in/a.json"]["report"]
    assert again.stat().st_ino == inode and again.read_text() == text
    assert (out / "r" / f"{first['id']}.html").read_text() == page
    other = out / "r" / entries["in/b.json"]["report"]
    assert other.stat().st_ino != inode and "other" in other.read_text()


def test_the_workers_build_equals_the_one_process_build(real_run: Path, tmp_path: Path) -> None:
    """``dbbench site --workers 2`` (run as its own process, so that it really forks its
    workers) writes the same files, byte for byte, as a build in one process, and a rebuild
    by the workers links the reports of the unchanged results from the replaced site."""
    from synthetic import variant

    base = json.loads((real_run / "result.json").read_text())
    inputs = tmp_path / "in"
    inputs.mkdir()
    for n, (engine, host) in enumerate([("duckdb", "a"), ("postgresql", "b"), ("sqlite", "c")]):
        data = variant(base, engine=engine, version="1", host=host, factor=1.0 + n)
        (inputs / f"r{n}.json").write_text(json.dumps(data))
    (inputs / "real.json").write_text(json.dumps(base))
    alone = tmp_path / "alone"
    assert build_site([inputs], alone, workers=1).processes == 1
    forked = tmp_path / "forked"
    assert _site_command(inputs, forked, "--workers", "2") >= 2  # the parent and a worker
    assert _tree(forked) == _tree(alone)
    reports = {
        e["source"]: (forked / "r" / e["report"]).stat().st_ino
        for e in json.loads((forked / "manifest.json").read_text())["results"]
    }
    changed = variant(base, engine="duckdb", version="2", host="d", factor=5.0)
    (inputs / "r2.json").write_text(json.dumps(changed))
    assert _site_command(inputs, forked, "--workers", "2", "--force") >= 2
    entries = json.loads((forked / "manifest.json").read_text())["results"]
    kept = {e["source"]: (forked / "r" / e["report"]).stat().st_ino for e in entries}
    assert kept["in/r2.json"] != reports["in/r2.json"]
    assert all(kept[k] == reports[k] for k in ("in/r0.json", "in/r1.json", "in/real.json"))


@pytest.mark.parametrize("workers", [1, 2])
def test_the_same_result_under_two_names_is_one_entry(
    real_run: Path, tmp_path: Path, workers: int
) -> None:
    """Two inputs of the same content (a copy, and the same result formatted otherwise) are
    one result of the site, shown as the first input; the build does not stop on them, and a
    rebuild over that site (reports reused) neither."""
    base = json.loads((real_run / "result.json").read_text())
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.json").write_text(json.dumps(base))
    (inputs / "b.json").write_text(json.dumps(base))
    (inputs / "c.json").write_text(json.dumps(base, indent=2))
    out = tmp_path / "site"
    for force in (False, True):  # the build, then a rebuild reusing its reports
        outcome = build_site([inputs], out, force=force, workers=workers)
        assert outcome.included == 1 and not outcome.failed and not outcome.refused
        (entry,) = json.loads((out / "manifest.json").read_text())["results"]
        assert entry["source"] == "in/a.json"
        page = (out / "r" / f"{entry['id']}.html").read_text()
        assert "in/a.json" in page and "in/b.json" not in page
        assert (out / "r" / entry["report"]).is_file()
        assert sorted(p.name for p in (out / "r").iterdir() if p.name.endswith(".new")) == []


def test_a_result_nested_too_deeply_is_not_included(tmp_path: Path) -> None:
    """Nesting inside a free-form part (``config``) is refused beyond the model's depth limit
    (64 levels below the document) and accepted up to it."""
    from dbbench.reports.model import MAX_DEPTH

    data = json.loads((GOLDEN / "tpch-v3.json").read_text())
    inputs = tmp_path / "in"
    inputs.mkdir()
    # ``levels`` lists in ``config``: the innermost stands at depth levels + 1 (the document
    # is depth 0, config 1, its outer list 2)
    for name, levels in (("deep", MAX_DEPTH - 1), ("deeper", MAX_DEPTH)):
        nested: list[object] = []
        for _ in range(levels - 1):
            nested = [nested]
        data["config"] = {"nested": nested}
        (inputs / f"{name}.json").write_text(json.dumps(data))
    outcome = build_site([inputs], tmp_path / "site", full_reports=False)
    assert outcome.included == 1
    [refused] = outcome.refused
    assert refused.path.name == "deeper.json" and "nested too deeply" in refused.reason


def test_a_mixed_result_is_linked_from_the_index_with_its_figures_and_kit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``mixed run`` result on the site: in the manifest with the figures verify recomputed
    and its kit version, a row of the mixed page (linked from the index's navigation) that
    links its own page, and that page its full report; the manifest verifies it again."""
    source = GOLDEN / "mixed-v1.json"
    out = tmp_path / "site"
    assert main(["site", str(source), "-o", str(out)]) == 0
    assert "not included" not in capsys.readouterr().err
    manifest = json.loads((out / "manifest.json").read_text())
    [entry] = manifest["results"]
    assert entry["family"] == "dbbench-mixed-result" and entry["kit_version"] == "0.1.0"
    figures = entry["figures"]
    assert figures["users"] == 2 and figures["streams"] == 1 and figures["points"] == 3
    assert figures["steps_per_hour"] > 0 and figures["sets_per_hour"] > 0
    assert isinstance(figures["valid"], bool)
    assert 'href="mixed.html"' in (out / "index.html").read_text()
    page = (out / "mixed.html").read_text()
    data = json.loads(page[page.index('id="site-data">') + 15 : page.index("</script>")])
    [row] = data["rows"]
    assert row["id"] == entry["id"] and row["steps_per_hour"] == figures["steps_per_hour"]
    assert ["steps_per_hour", "steps/h", True] in data["columns"]
    own = (out / "r" / f"{entry['id']}.html").read_text()
    assert f"{entry['id']}.report.html" in own
    report = (out / "r" / f"{entry['id']}.report.html").read_text()
    assert "VALID" in report or "INVALID" in report  # the verdict, in the full report
    assert verify(out / entry["file"], read_manifest(out / "manifest.json")).ok
