"""The o2c family's page of the static site: its row (O2C-SAPS beside the measured figures)
and the scaling or node study a ``scale`` or ``nodes`` result adds to the scaling page."""

from __future__ import annotations

from typing import Any

from dbbench.reports.family import Checked, Row, SiteView
from dbbench.reports.o2c.model import O2CResult
from dbbench.reports.site.rows import columns, finite_or_none, framed


def o2c_row(result: O2CResult, checked: Checked) -> Row:
    from dbbench.reports.o2c.metrics import rating

    f = checked.figures
    sph = f.get("steps_per_hour")
    saps = finite_or_none(rating(float(sph))) if isinstance(sph, int | float) else None
    cells: Row = {"sf": result.scale_factor, "kind": result.kind, "users": f.get("users")}
    cells |= {"steps_per_hour": sph, "avg_rt": f.get("avg_rt"), "rt_limit": result.rt_limit}
    return framed(result, cells | {"saps": saps} | what_ran(result))


def what_ran(result: O2CResult) -> Row:
    """What a result's user count is: a search's count confirmed by a full-length run at the
    response-time limit (``confirmed``), or the count a fixed-user run (or a study's point)
    was given (``fixed``), and ``what`` says which, in words."""
    from dbbench.reports.o2c.metrics import summarize_result

    best = summarize_result(result).best
    confirmed = fixed = None
    if result.kind == "search":
        if best is not None and best.role == "confirmation":
            confirmed, what = best.users, "search: confirmed at the RT limit"
        else:
            what = "search: no confirmed count" if best is None else "search: not confirmed"
    elif result.kind == "run":
        fixed = result.probes[0].users if result.probes else None
        what = "fixed-user run: " + (
            "within the RT limit" if best is not None else "not within the RT limit"
        )
    else:
        what = f"{result.kind} study ({len(result.probes)} points)"
    return {"what": what, "confirmed": confirmed, "fixed": fixed}


def o2c_study(result: O2CResult, title: str) -> dict[str, Any] | None:
    """An o2c scaling study (``scale``: relative dialog steps/h against users, as
    :func:`reports.o2c.studies.scaling` gives it; ``nodes``: against the number of database nodes,
    relative to the fewest), in the form of the scaling page; None for another kind."""
    from dbbench.reports.o2c.metrics import summarize
    from dbbench.reports.o2c.studies import scaling

    if result.kind not in ("scale", "nodes") or not result.probes:
        return None
    summaries = [summarize(p, result.rt_limit) for p in result.probes]
    points: list[dict[str, Any]] = []
    if result.kind == "scale":
        for point in scaling(summaries):
            points.append(
                {
                    "x": point.users,
                    "relative": finite_or_none(point.relative),
                    "per_hour": point.steps_per_hour,
                    "efficiency": finite_or_none(point.efficiency),
                    "status": "ok" if point.passed else "over the RT limit",
                }
            )
    else:
        pairs = sorted(
            ((max(1, len(p.nodes)), s) for p, s in zip(result.probes, summaries, strict=True)),
            key=lambda pair: pair[0],
        )
        first = pairs[0]
        for nodes, summary in pairs:
            base = first[1].steps_per_hour
            relative = summary.steps_per_hour / base if base > 0 else None
            points.append(
                {
                    "x": nodes,
                    "relative": relative,
                    "per_hour": summary.steps_per_hour,
                    "efficiency": None if relative is None else relative / (nodes / first[0]),
                    "status": "ok" if summary.passed else "over the RT limit",
                }
            )
    axis = "users" if result.kind == "scale" else "nodes"
    return {"title": title, "axis": axis, "source": "o2c " + result.kind, "points": points}


def _study(result: O2CResult, row: Row) -> dict[str, Any] | None:
    from dbbench.reports.tpch.summary import database_label

    engine = database_label(result.engine.name, result.engine.version)
    return o2c_study(result, f"o2c {engine} on {row['system']}")


#: the page's note and its columns (``rows.columns``)
NOTE = (
    "What each result ran: a search's user count confirmed at the response-time limit, or a "
    "fixed-user run's given count (not a limit), and dialog steps/h (O2C-SAPS: unofficial)."
)
COLUMNS = columns(
    "id=result|system|engine|version|sf=SF#|what=what ran|"
    "confirmed=users at RT limit (confirmed search)#|fixed=users (fixed-user run)#|"
    "steps_per_hour=steps/h#|avg_rt=avg RT s#|rt_limit=RT limit s#|"
    "saps=O2C-SAPS (unofficial)#|status|host=host noise|date|kit"
)
SITE = SiteView("o2c", "o2c", "o2c landscape", NOTE, o2c_row, COLUMNS, study=_study, order=10)
