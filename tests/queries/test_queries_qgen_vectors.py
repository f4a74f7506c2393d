"""``dbbench qgen -l`` against parameter logs written by the real qgen 2.17.3.

The vectors (tests/vectors/qgen/, see its manifest) cover several seeds including negative
ones, streams 0, 1, 5 and 40, SFs 0.01 to 100000 (Q11's fraction) and ``-d``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dbbench.cli import main

VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "qgen"
ENTRIES: list[dict[str, Any]] = json.loads((VECTORS / "manifest.json").read_text())["files"]


def _args(entry: dict[str, Any], log: Path) -> list[str]:
    args = ["qgen", "-s", entry["sf"], "-l", str(log)]
    if entry["defaults"]:
        args.append("-d")
    else:
        args += ["-r", str(entry["seed"])]
    if entry["stream"] is not None:
        args += ["-p", str(entry["stream"])]
    return args


def test_vectors_cover_what_matters() -> None:
    assert len(ENTRIES) >= 100
    assert {e["stream"] for e in ENTRIES} >= {None, 0, 1, 5, 40}
    assert {e["sf"] for e in ENTRIES} >= {"0.01", "1", "100", "100000"}
    assert any(e["seed"] is not None and e["seed"] < 0 for e in ENTRIES)
    assert any(e["defaults"] for e in ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_parameter_log_is_qgen_s(
    entry: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "params.log"
    assert main(_args(entry, log)) == 0
    expected = (VECTORS / entry["file"]).read_text()
    got = log.read_text()
    for number, (want, have) in enumerate(
        zip(expected.splitlines(), got.splitlines(), strict=False), 1
    ):
        assert have == want, f"{entry['command']}: log line {number} differs"
    assert got == expected
    header = capsys.readouterr().out.splitlines()[0]
    if entry["defaults"]:
        assert header == "-- using default substitutions"
    else:
        assert header == f"-- using {entry['effective_seed']} as a seed to the RNG"
