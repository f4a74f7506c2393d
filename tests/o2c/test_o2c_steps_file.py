"""o2c steps in a Parquet file beside the result (schema version 3): the round trip gives the
very steps and summaries, older results with inline steps keep reading, the content hash
covers the steps through the file's digest, and ``verify`` refuses an edited steps file."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from dbbench.cli import main
from dbbench.reports.model import EngineInfo, SystemInfo
from dbbench.reports.o2c.metrics import summarize
from dbbench.reports.o2c.model import (
    COLUMNAR_MIN_STEPS,
    O2C_SCHEMA_VERSION,
    O2CProbe,
    O2CResult,
    O2CSteps,
)
from dbbench.reports.provenance import provenance_of
from dbbench.reports.site.build import build_site
from dbbench.reports.verify import verify

GOLDEN = Path(__file__).parents[1] / "reports" / "golden" / "families"


def _probe(steps: int, seed: int, start: float = 0.0, micros: bool = True) -> O2CProbe:
    rng = random.Random(seed)
    s = O2CSteps()
    t = 0.0
    for i in range(steps):
        t += rng.random() * 0.05
        s.step.append(i % 16)
        s.user.append(rng.randrange(200))
        s.due.append(round(t, 6) if micros else t)
        s.wait.append(round(rng.random() * 0.01, 6) if micros else rng.random() * 0.01)
        s.db.append(round(rng.random() * 0.2, 6))
        s.ok.append(0 if i % 97 == 5 else 1)
    return O2CProbe(
        users=200, think=1.0, think_dist="fixed", work_processes=4, rampup=2.0, start=start,
        window_start=2.0, window_end=max(3.0, t - 1.0), end=t, status="complete",
        logged_on=200, steps=s,
    )  # fmt: skip


def _result(*probes: O2CProbe) -> O2CResult:
    engine = EngineInfo("postgresql", "postgresql://127.0.0.1/tpch")
    return O2CResult(
        "search",
        0.01,
        1,
        1.0,
        engine=engine,
        system=SystemInfo(),
        kit_version="0",
        probes=list(probes),
    )


def _steps_file(folder: Path) -> Path:
    (found,) = folder.glob("*.parquet")
    return found


def test_round_trip_gives_the_very_steps_and_summaries(tmp_path: Path) -> None:
    # a probe of microsecond times, one of full doubles (stored as doubles), an empty one
    result = _result(_probe(3000, 1), _probe(0, 2), _probe(1500, 3, micros=False))
    path = tmp_path / "result.json"
    result.write(path, columnar=True)
    data = json.loads(path.read_text())
    assert data["schema_version"] == O2C_SCHEMA_VERSION == 3
    assert all("steps" not in p for p in data["probes"])  # the JSON: the heads alone
    assert [p["steps_rows"] for p in data["probes"]] == [3000, 0, 1500]
    assert data["steps_file"]["rows"] == 4500
    assert data["steps_file"]["name"] == _steps_file(tmp_path).name
    again = O2CResult.read(path)
    for want, got in zip(result.probes, again.probes, strict=True):
        assert got.steps == want.steps
        assert summarize(got, 1.0) == summarize(want, 1.0)
    assert again.to_dict() == data  # what it reads is what the file says (same hash)
    inline = tmp_path / "inline"
    inline.mkdir()
    again.write(inline / "result.json", columnar=False)
    assert not list(inline.glob("*.parquet"))
    assert O2CResult.read(inline / "result.json").probes[1].steps == result.probes[1].steps
    # steps of microsecond times: the files are at most a quarter of the inline JSON's bytes
    sized = _result(_probe(20_000, 10))
    for folder, columnar in ((tmp_path / "big-columnar", True), (tmp_path / "big-inline", False)):
        folder.mkdir()
        sized.write(folder / "result.json", columnar=columnar)
    files = sum(f.stat().st_size for f in (tmp_path / "big-columnar").iterdir())
    assert files * 4 <= (tmp_path / "big-inline" / "result.json").stat().st_size


def test_a_large_result_goes_columnar_by_default_and_rewrites_leave_one_file(
    tmp_path: Path,
) -> None:
    small = _result(_probe(100, 4))
    path = tmp_path / "result.json"
    small.write(path)
    assert "steps" in json.loads(path.read_text())["probes"][0]  # small: one file
    big = _result(_probe(COLUMNAR_MIN_STEPS, 5))
    big.write(path)
    first = _steps_file(tmp_path)
    big.probes.append(_probe(10, 6))  # a search's next probe: the result written again
    big.write(path)
    second = _steps_file(tmp_path)  # exactly one: the earlier file was removed
    assert second != first
    assert len(O2CResult.read(path).probes[1].steps.step) == 10
    small.write(path)  # back to inline: no steps file is left behind
    assert not list(tmp_path.glob("*.parquet"))


@pytest.mark.parametrize("golden", ["o2c-v1.json", "o2c-v2.json"])
def test_older_results_with_inline_steps_keep_reading(golden: str, tmp_path: Path) -> None:
    old = O2CResult.read(GOLDEN / golden)
    assert old.steps_file is None and old.probes and old.probes[0].steps.step
    old.write(tmp_path / "result.json", columnar=True)  # and upgrade to the columnar form
    again = O2CResult.read(tmp_path / "result.json")
    assert [p.steps for p in again.probes] == [p.steps for p in old.probes]


def test_the_content_hash_covers_the_steps_and_verify_refuses_an_edited_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "result.json"
    result = _result(_probe(2000, 7))
    result.write(path, columnar=True)
    digest = provenance_of(json.loads(path.read_text())).hash
    assert verify(path).ok
    other = tmp_path / "other"
    other.mkdir()
    changed = _result(_probe(2000, 7))
    changed.probes[0].steps.db[1000] += 0.5  # one step's time: another steps file, hash
    changed.write(other / "result.json", columnar=True)
    assert provenance_of(json.loads((other / "result.json").read_text())).hash != digest
    # the steps file edited behind the result's back: refused on read, so by verify
    steps = _steps_file(tmp_path)
    steps.write_bytes(_steps_file(other).read_bytes())
    verdict = verify(path)
    assert not verdict.ok
    assert [p.field for p in verdict.problems] == ["file"]
    assert "does not hash to the result's sha256" in verdict.problems[0].message
    assert main(["verify", str(path)]) != 0
    shown = capsys.readouterr()
    assert "does not hash to the result's sha256" in shown.out + shown.err
    steps.unlink()  # and a missing one
    assert "is not a file beside the result" in verify(path).problems[0].message


def test_a_steps_file_that_lies_about_its_rows_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    _result(_probe(500, 8), _probe(300, 9)).write(path, columnar=True)
    data = json.loads(path.read_text())
    data["probes"][0]["steps_rows"] = 400  # the split no longer adds up to the rows
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="steps_rows make 700, not 800"):
        O2CResult.read(path)
    data["probes"][0]["steps_rows"], data["probes"][1]["steps_rows"] = 400, 400
    path.write_text(json.dumps(data))  # they add up, but split elsewhere: the rows move
    moved = O2CResult.read(path)
    assert [len(p.steps.step) for p in moved.probes] == [400, 400]


def test_a_site_copies_the_steps_file_beside_its_raw_copy(tmp_path: Path) -> None:
    path = tmp_path / "in" / "result.json"
    path.parent.mkdir()
    _result(_probe(800, 11)).write(path, columnar=True)
    out = tmp_path / "site"
    build_site([path], out, force=True, full_reports=False)
    (raw,) = (out / "r").glob("*.json")
    assert _steps_file(out / "r").name == _steps_file(path.parent).name
    assert O2CResult.read(raw).probes[0].steps == O2CResult.read(path).probes[0].steps
