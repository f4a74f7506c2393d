"""``dbbench verify`` cross-checks ``result.json`` against the run's ``journal.jsonl``: an
edit kept consistent inside the file (Q18's ``seconds`` and ``end`` halved together) is
contradicted by the journal and caught, naming the interval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dbbench.cli import main


def test_a_journal_contradicted_edit_fails_naming_the_interval(
    run_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", str(run_copy)]) == 0  # the untouched run agrees with its journal
    capsys.readouterr()
    path = run_copy / "result.json"
    data = json.loads(path.read_text())
    iv = next(
        (r, i, v)
        for r, run in enumerate(data["runs"])
        for i, v in enumerate(run["intervals"])
        if v.get("query") == 18 and v["phase"] == "power"
    )
    r, i, q18 = iv
    q18["seconds"] /= 2
    q18["end"] = q18["start"] + q18["seconds"]  # consistent inside the file
    path.write_text(json.dumps(data, indent=1))
    assert main(["verify", str(run_copy)]) == 1
    err = capsys.readouterr().err
    assert f"runs[{r}].intervals[{i}].seconds" in err
    assert "Q18 of the power test" in err and "the journal recorded" in err


def test_verify_takes_a_folder_of_results_and_a_suite_folder(
    real_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from dbbench.reports.studies.suite import EntryRecord, SuiteIndex

    folder = tmp_path / "runs"
    for name in ("a", "b"):
        shutil.copytree(real_run, folder / name)
    assert main(["verify", str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"{folder / 'a'}: ok" in out and f"{folder / 'b'}: ok" in out
    index = SuiteIndex("suite.toml", "a")
    index.entries = [EntryRecord(n, "duckdb", 0.01, 1, n, "ok") for n in ("a", "b")]
    index.write(folder)
    path = folder / "b" / "result.json"
    data = json.loads(path.read_text())
    data["runs"][0]["intervals"][0]["seconds"] += 1.0
    path.write_text(json.dumps(data))
    assert main(["verify", str(folder)]) == 1  # the suite's entries, one of them edited
    captured = capsys.readouterr()
    assert f"{folder / 'a'}: ok" in captured.out and "runs[0].intervals[0].seconds" in captured.err
