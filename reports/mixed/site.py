"""The mixed family's page of the static site: a row per result, the mixed point's figures
(a frontier: its first mixed point's) and the verdict."""

from __future__ import annotations

from dbbench.reports.family import Checked, Row, SiteView
from dbbench.reports.mixed.model import MixedResult
from dbbench.reports.site.rows import columns, framed


def mixed_row(result: MixedResult, checked: Checked) -> Row:
    f = checked.figures
    cells: Row = {"sf": result.scale_factor, "kind": result.kind}
    cells |= {k: f.get(k) for k in ("points", "users", "streams", "steps_per_hour", "avg_rt")}
    verdict = "valid" if f.get("valid") else "invalid"
    verdict += ", within the RT limit" if f.get("passed") else ""
    return framed(result, cells | {"sets_per_hour": f.get("sets_per_hour"), "verdict": verdict})


#: the page's heading and note, and its columns (``rows.columns``)
TITLE = "Mixed (o2c users and query streams at once)"
NOTE = "The mixed point of each result: dialog steps/h and query sets/h at once (unofficial)."
COLUMNS = columns(
    "id=result|system|engine|version|sf=SF#|kind|points#|users#|streams#|"
    "steps_per_hour=steps/h#|avg_rt=avg RT s#|sets_per_hour=query sets/h#|verdict|"
    "status|host=host noise|date|kit"
)
SITE = SiteView("mixed", "Mixed", TITLE, NOTE, mixed_row, COLUMNS, order=30)
