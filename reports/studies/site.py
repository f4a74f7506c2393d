"""What the site takes from study directories among its inputs: the cost sheet a suite names
for each of its runs ($/QphH and the storage ratio), and the scaling studies' steps
(relative throughput against streams)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dbbench.reports.errors import ReportsError
from dbbench.reports.model import RESULT_FILE

SUITE_INDEX = "suite.json"
SCALE_INDEX = "scale.json"


def cost_sheets(paths: list[Path]) -> dict[Path, str]:
    """The cost sheet of each result a suite index among ``paths`` names one for, by the
    result file's resolved path (a suite's entry names its sheet resolved already; a relative
    one is taken from the suite's directory)."""
    from dbbench.reports.studies.suite import SuiteIndex

    found: dict[Path, str] = {}
    for path in paths:
        if path.name != SUITE_INDEX:
            continue
        try:
            index = SuiteIndex.read(path.parent)
        except (ReportsError, OSError, ValueError, TypeError, KeyError):
            continue  # not a suite index: the build lists it like any other file
        for entry in index.entries:
            if entry.cost_sheet:
                sheet = path.parent / entry.cost_sheet
                run = (path.parent / entry.run_dir).resolve()
                found[run / RESULT_FILE] = str(sheet)
                found[run] = str(sheet)
    return found


def scaling_studies(paths: list[Path]) -> list[dict[str, Any]]:
    """Each scaling study's steps: streams, throughput (query sets per hour) and throughput
    relative to the study's smallest measured step, as :mod:`reports.studies.scaling` computes
    them."""
    from dbbench.reports.studies.scaling import ScaleIndex, build_study

    studies: list[dict[str, Any]] = []
    for path in paths:
        if path.name != SCALE_INDEX:
            continue
        try:
            study = build_study(path.parent, ScaleIndex.read(path.parent))
        except (ReportsError, OSError, ValueError, TypeError, KeyError):
            continue
        studies.append(
            {
                "title": f"{study.database or study.engine} at SF {study.scale_factor:g}",
                "axis": "streams",
                "source": str(path.parent.name),
                "points": [
                    {
                        "x": r.streams,
                        "relative": r.relative,
                        "per_hour": r.sets_per_hour,
                        "efficiency": r.efficiency,
                        "status": r.status,
                    }
                    for r in study.rows
                ],
            }
        )
    return studies
