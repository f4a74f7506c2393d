"""The mixed family's page of the static site: a row per result, the mixed point's figures
(a frontier: its first mixed point's) and the verdict."""

from __future__ import annotations

from dbbench.reports.family import Checked, Row, SiteView
from dbbench.reports.mixed.model import MixedResult
from dbbench.reports.site.rows import row_date


def mixed_row(result: MixedResult, checked: Checked) -> Row:
    f = checked.figures
    return {
        "system": result.system.hostname,
        "engine": result.engine.name,
        "version": result.engine.version,
        "sf": result.scale_factor,
        "kind": result.kind,
        "points": f.get("points"),
        "users": f.get("users"),
        "streams": f.get("streams"),
        "steps_per_hour": f.get("steps_per_hour"),
        "avg_rt": f.get("avg_rt"),
        "sets_per_hour": f.get("sets_per_hour"),
        "verdict": ("valid" if f.get("valid") else "invalid")
        + (", within the RT limit" if f.get("passed") else ""),
        "status": result.status,
        "date": row_date(result.created),
        "kit": result.kit_version,
    }


SITE = SiteView(
    view="mixed",
    nav="Mixed",
    title="Mixed (o2c users and query streams at once)",
    note="The mixed point of each result: dialog steps/h and query sets/h at once (unofficial).",
    row=mixed_row,
    columns=(
        ("id", "result", False),
        ("system", "system", False),
        ("engine", "engine", False),
        ("version", "version", False),
        ("sf", "SF", True),
        ("kind", "kind", False),
        ("points", "points", True),
        ("users", "users", True),
        ("streams", "streams", True),
        ("steps_per_hour", "steps/h", True),
        ("avg_rt", "avg RT s", True),
        ("sets_per_hour", "query sets/h", True),
        ("verdict", "verdict", False),
        ("status", "status", False),
        ("date", "date", False),
        ("kit", "kit", False),
    ),
    order=30,
)
