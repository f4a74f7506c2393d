"""The result envelope and the family registry (issue 19): every family declares the
envelope, reads every earlier version, and a new family is one module plus an entry point."""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import get_type_hints

import pytest

from dbbench.cli import main
from dbbench.errors import ExitCode
from dbbench.reports import families as registry
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.model import ENVELOPE_FIELDS, ResultEnvelope
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.tpch.model import BenchmarkResult

HERE = Path(__file__).parent
GOLDEN = HERE / "golden" / "families"


def test_every_family_has_the_envelope_with_its_types_heading_its_file() -> None:
    envelope = get_type_hints(ResultEnvelope)
    models = {f.model for f in registry.families().values()}
    assert {BenchmarkResult, O2CResult, HammerDBResult} <= models
    for model in models:
        hints = get_type_hints(model)
        names = [f.name for f in fields(model)]
        assert tuple(names[: len(ENVELOPE_FIELDS)]) == ENVELOPE_FIELDS, model.__name__
        for name in ENVELOPE_FIELDS:
            assert hints[name] == envelope[name], f"{model.__name__}.{name}"
        assert all(f.kw_only for f in fields(model) if f.name in ENVELOPE_FIELDS)


def test_the_built_in_families_are_registered_once_by_schema_name() -> None:
    found = registry.families()
    assert {"dbbench-result", "dbbench-o2c-result", "dbbench-hammerdb-result"} <= set(found)
    for name, family in found.items():
        assert family.name == name and family.version == family.model.SCHEMA_VERSION


@pytest.mark.parametrize("golden", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.name)
def test_a_golden_file_of_every_family_and_version_keeps_reading(
    golden: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    family, result, _ = registry.read_result(golden)
    assert family.name == json.loads(golden.read_text())["schema"]
    assert result.schema_version == family.version  # upgraded to the current version
    assert result.status in ("complete", "partial", "failed")
    assert main(["report", str(golden)]) == 0
    assert capsys.readouterr().out


def test_goldens_cover_every_version_of_every_built_in_family() -> None:
    have = {
        (d["schema"], d["schema_version"])
        for d in (json.loads(p.read_text()) for p in GOLDEN.glob("*.json"))
    }
    for family in (BenchmarkResult, O2CResult, HammerDBResult):
        for version in range(1, family.SCHEMA_VERSION + 1):
            assert (family.SCHEMA_NAME, version) in have, (family.SCHEMA_NAME, version)
    for name, declared in registry.families().items():  # the mixed and ACID families too
        for version in range(1, declared.version + 1):
            assert (name, version) in have, (name, version)


def test_an_o2c_result_of_version_1_gets_its_status_from_its_probes() -> None:
    _, result, _ = registry.read_result(GOLDEN / "o2c-v1.json")
    assert isinstance(result, O2CResult)
    assert result.status == "complete" and json.loads(result.to_json())["status"] == "complete"


@contextmanager
def installed(folder: Path) -> Iterator[None]:
    """The toy family's distribution, on ``sys.path`` (its entry point found by the kit)."""
    dist = folder / "dbbench_toy_family-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: dbbench-toy-family\nVersion: 1.0\n"
    )
    (dist / "entry_points.txt").write_text("[dbbench.families]\ntoy = toy_family:FAMILY\n")
    shutil.copytree(HERE / "toy_family", folder / "toy_family")  # the package, as it is
    sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    registry.families.cache_clear()
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("toy_family", None)
        importlib.invalidate_caches()
        registry.families.cache_clear()


def _toy(folder: Path, name: str, version: int, count: int) -> Path:
    data = {
        "schema": "dbbench-toy-result",
        "schema_version": version,
        "engine": {"name": f"toy<b>{name}", "url": "toy://"},
        "system": {},
        "kit_version": "0",
        "seconds": 2.0,
        "target" if version == 2 else "n": count,
    }
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def test_a_toy_family_from_an_entry_point_is_reported_and_compared_with_no_other_edit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], result: BenchmarkResult
) -> None:
    old = _toy(tmp_path, "old", 1, 1000)
    new = _toy(tmp_path, "new", 2, 4000)
    assert main(["report", str(new)]) == ExitCode.USER_ERROR  # not installed: unknown schema
    assert "not a dbbench result" in capsys.readouterr().err
    with installed(tmp_path / "site"):
        assert main(["report", str(old)]) == 0  # version 1, upgraded by the family
        assert capsys.readouterr().out == "TOY: toy<b>old counted to 1000 in 2 s (500/s)\n"
        assert main(["report", str(new), "-f", "md"]) == 0
        assert "toy&lt;b&gt;new counted to 4000 (2,000/s)" in capsys.readouterr().out
        assert main(["compare", str(old), str(new)]) == 0
        out = capsys.readouterr().out
        assert "TOY COUNTS" in out and "- old: 500/s" in out and "- new: 2,000/s" in out
        tpch = tmp_path / "result.json"
        result.write(tpch)
        page_file = tmp_path / "c.html"
        assert main(["compare", str(tpch), str(new), "-f", "html", "-o", str(page_file)]) == 0
        page = page_file.read_text()
        assert page.count("</body>") == 1
        assert page.index("Toy counts") < page.index("</body>")
        assert "landscape" in page.lower() and "toy&lt;b&gt;" not in page  # labels only


def _manifest(site: Path) -> list[dict[str, object]]:
    entries = json.loads((site / "manifest.json").read_text())["results"]
    assert isinstance(entries, list)
    return entries


def _page_data(page: Path) -> dict[str, object]:
    text = page.read_text()
    start = text.index('id="site-data">') + len('id="site-data">')
    data = json.loads(text[start : text.index("</script>", start)])
    assert isinstance(data, dict)
    return data


def test_a_toy_family_is_verified_and_shown_on_the_site_with_no_other_edit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The toy family declares a check and no site view: ``verify`` recomputes its figure,
    ``site`` gives it a page of its own (the default table of its figures), linked from the
    index's navigation, its row linking the result's page, raw copy and full report."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    new = _toy(inputs, "new", 2, 4000)
    golden = HERE / "toy_family" / "golden" / "toy-v1.json"  # its first version, upgraded
    shutil.copy(golden, inputs / golden.name)
    broken = json.loads(new.read_text()) | {"seconds": 0.0}
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    with installed(tmp_path / "dist"):
        for fmt in ("text", "md", "html", "json"):  # its own renderer of every format
            assert main(["report", str(golden), "-f", fmt]) == 0
            out = capsys.readouterr().out
            assert "8000" in out or "toy&lt;b&gt;golden" in out, (fmt, out)  # upgraded: n
        assert main(["verify", str(golden)]) == 0
        assert main(["verify", str(new)]) == 0
        assert f"{new}: ok sha256:" in capsys.readouterr().out
        assert main(["verify", str(tmp_path / "broken.json")]) == ExitCode.USER_ERROR
        assert "seconds: 0 s is not a time" in capsys.readouterr().err
        site = tmp_path / "site"
        assert main(["site", str(inputs), "-o", str(site)]) == 0
        capsys.readouterr()
    entries = {e["source"]: e for e in _manifest(site)}
    assert entries["in/toy-v1.json"]["figures"] == {"per_second": 2000.0}  # 8,000 in 4 s
    entry = entries["in/new.json"]
    assert entry["family"] == "dbbench-toy-result" and entry["kit_version"] == "0"
    assert entry["figures"] == {"per_second": 2000.0}
    rid = entry["id"]
    assert 'href="toy.html"' in (site / "index.html").read_text()
    data = _page_data(site / "toy.html")
    [row] = [r for r in data["rows"] if r["id"] == rid]  # type: ignore[attr-defined]
    assert row["id"] == rid and row["per_second"] == 2000.0 and row["engine"] == "toy<b>new"
    assert ["per_second", "per second", True] in data["columns"]  # type: ignore[operator]
    links = _page_data(site / "r" / f"{rid}.html")["links"]
    assert ["full report", f"{rid}.report.html"] in links  # type: ignore[operator]
    assert "toy&lt;b&gt;new toy" in (site / "r" / f"{rid}.report.html").read_text()
