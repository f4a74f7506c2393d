"""``dbbench verify``: figures recomputed from a result's own measurements, its content hash
against a ``.sha256`` file or a site manifest; a tampered copy fails naming the field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from reports_fixtures import FAMILY_GOLDEN as GOLDEN

from dbbench.cli import main
from dbbench.reports.provenance import canonical_json, content_hash
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.verify import verify


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=1))


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_canonical_json_ignores_layout_and_key_order() -> None:
    assert canonical_json({"b": 1, "a": [1, 2.5, "é"]}) == '{"a":[1,2.5,"é"],"b":1}'.encode()
    assert content_hash({"a": 1, "b": 2}) == content_hash({"b": 2, "a": 1})
    assert content_hash({"a": 1}) != content_hash({"a": 2})


def test_a_real_run_verifies_with_its_figures_and_kit(
    real_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = verify(real_run)
    assert verdict.ok, verdict.lines()
    result = BenchmarkResult.read(real_run / "result.json")
    assert verdict.provenance is not None
    assert verdict.provenance.kit_version == result.kit_version
    data = json.loads((real_run / "result.json").read_text())
    assert verdict.provenance.hash == content_hash(data)
    qphh = verdict.figures["qphh"]
    assert isinstance(qphh, float) and qphh > 0
    code, out, _ = _cli(capsys, "verify", str(real_run))
    assert code == 0 and f"sha256:{verdict.provenance.hash}" in out


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.json")))
def test_every_family_golden_file_verifies(name: str) -> None:
    verdict = verify(GOLDEN / name)
    assert verdict.ok, verdict.lines()
    assert verdict.figures and any(v is not None for v in verdict.figures.values())


def test_a_changed_interval_fails_naming_it(
    run_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def slower(data: dict[str, Any]) -> None:
        data["runs"][0]["intervals"][3]["seconds"] += 5.0

    _edit(run_copy / "result.json", slower)
    code, _, err = _cli(capsys, "verify", str(run_copy))
    assert code == 1
    assert "runs[0].intervals[3].seconds" in err
    assert len(err.strip().splitlines()) == 1


def test_a_changed_compliance_verdict_fails(
    run_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def claim(data: dict[str, Any]) -> None:
        data["compliance"] = {"compliant": True, "reasons": []}

    _edit(run_copy / "result.json", claim)
    code, _, err = _cli(capsys, "verify", str(run_copy))
    assert code == 1 and "compliance.compliant: stated True" in err


def test_a_sidecar_hash_catches_an_edit_the_figures_cannot(
    run_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = run_copy / "result.json"
    digest = content_hash(json.loads(file.read_text()))
    file.with_name("result.json.sha256").write_text(f"{digest}  result.json\n")
    assert verify(run_copy).ok

    def rename(data: dict[str, Any]) -> None:
        data["system"]["hostname"] = "someone-else"

    _edit(file, rename)
    code, _, err = _cli(capsys, "verify", str(run_copy))
    assert code == 1 and err.startswith(f"{run_copy}: sha256: stated {digest[:16]}")
    code, _, err = _cli(capsys, "verify", "--sha256", digest, str(file))
    assert code == 1 and ": hash: stated" in err


def test_a_manifest_states_figures_and_hash(tmp_path: Path, real_run: Path) -> None:
    file = tmp_path / "a.json"
    shutil.copy(real_run / "result.json", file)
    good = verify(file)
    entry = {"file": "results/a.json", "hash": good.provenance.hash if good.provenance else ""}
    manifest = tmp_path / "manifest.json"

    def write(figures: dict[str, Any]) -> dict[str, Any]:
        from dbbench.reports.verify import read_manifest

        body = {"schema": "dbbench-site-manifest", "results": [{**entry, "figures": figures}]}
        manifest.write_text(json.dumps(body))
        return read_manifest(manifest)

    assert verify(file, write(dict(good.figures))).ok
    inflated = {**good.figures, "qphh": float(good.figures["qphh"] or 0) * 2}
    bad = verify(file, write(inflated))
    assert [p.field for p in bad.problems] == ["qphh"]
    assert verify(tmp_path / "a.json", write({})).ok
    other = tmp_path / "b.json"
    shutil.copy(file, other)
    assert [p.field for p in verify(other, write({})).problems] == ["manifest"]


def test_o2c_status_and_hammerdb_figures_are_checked(tmp_path: Path) -> None:
    o2c = tmp_path / "o2c.json"
    shutil.copy(GOLDEN / "o2c-v2.json", o2c)
    _edit(o2c, lambda d: d.update(status="failed"))
    assert [p.field for p in verify(o2c).problems] == ["status"]
    hdb = tmp_path / "hdb.json"
    shutil.copy(GOLDEN / "hammerdb-v1.json", hdb)
    _edit(hdb, lambda d: d.update(nopm=5000.0))
    problems = verify(hdb).problems
    assert [p.field for p in problems] == ["nopm"] and "exceed" in problems[0].message
    _edit(hdb, lambda d: d.update(nopm=None))
    assert [p.field for p in verify(hdb).problems] == ["nopm"]


def test_a_damaged_file_is_one_problem_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "dbbench-result", "schema_version": 2, "runs": [')
    verdict = verify(bad)
    assert [p.field for p in verdict.problems] == ["file"]
    code, _, err = _cli(capsys, "verify", str(bad), str(GOLDEN / "tpch-v2.json"))
    assert code == 1 and len(err.strip().splitlines()) == 1


def test_tpch_figures_are_the_reports_headline(real_run: Path) -> None:
    from dbbench.reports.tpch.summary import build_report

    result = BenchmarkResult.read(real_run / "result.json")
    headline = build_report(result).headline
    figures = verify(real_run).figures
    assert figures == {
        "qphh": headline.qphh,
        "power": headline.power,
        "throughput": headline.throughput,
    }


def test_an_acid_test_stated_passed_that_read_another_value_fails(tmp_path: Path) -> None:
    data = json.loads((GOLDEN / "acid-v1.json").read_text())
    # every test in it passed, but it holds no isolation-6 and no durability: incomplete
    assert verify(GOLDEN / "acid-v1.json").figures["verdict"] == "incomplete"
    data["checks"][0]["observed"]["history_rows"] = "2"  # the commit wrote two rows
    edited = tmp_path / "acid.json"
    edited.write_text(json.dumps(data))
    verdict = verify(edited)
    assert [p.field for p in verdict.problems] == ["checks[0].observed.history_rows"]
    assert "read '2' where '1' was expected" in verdict.problems[0].message
