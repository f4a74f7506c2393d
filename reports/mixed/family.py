"""The mixed workload's result family (``dbbench-mixed-result``): its reader (o2c steps
completed from their journals beside the result, query intervals from the run's journal
when the driver died before writing them), its report formats and its part of a
comparison."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dbbench.reports.family import Family, of_items, of_result
from dbbench.reports.mixed.document import mixed_document, render_compare
from dbbench.reports.mixed.model import MixedResult
from dbbench.reports.mixed.site import SITE
from dbbench.reports.mixed.verify import check
from dbbench.reports.model import JOURNAL_FILE
from dbbench.reports.tpch.model import INTERVAL_EVENTS, Interval
from dbbench.reports.tpch.recovery import read_events


def read(path: Path, data: Any) -> tuple[MixedResult, str | None]:
    result = MixedResult.from_parsed(data)
    folder = path if path.is_dir() else path.parent
    result.complete_steps(folder)
    note = _complete_intervals(result, folder / JOURNAL_FILE)
    return result, note


def _complete_intervals(result: MixedResult, journal: Path) -> str | None:
    """The query intervals of points that have none, from the run's journal (a driver
    killed during the point wrote them there only); a link is not followed."""
    missing = {p.tpch.number: p.tpch for p in result.points if p.tpch and not p.tpch.intervals}
    if not missing or not journal.is_file() or journal.is_symlink():
        return None
    found = 0
    for event in read_events(journal):  # a line cut by the kill is left out
        number = event.get("run")
        run = missing.get(number) if isinstance(number, int) else None
        if run is None or event["event"] not in INTERVAL_EVENTS:
            continue
        try:
            run.intervals.append(Interval.from_event(event))
        except TypeError:
            continue
        found += 1
    return f"{found} query intervals recovered from {journal.name}" if found else None


FAMILY = Family(
    model=MixedResult, read=read, document=of_result(mixed_document),
    compare_section=of_items(render_compare), verify=check, site=SITE,
)  # fmt: skip
