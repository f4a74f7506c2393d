"""The study sections of a run's report: latency distributions and resource telemetry.

Kept apart from :mod:`reports.tpch.render` so the report templates only include two fragments
(``studies.html.j2``, ``studies.md.j2``) fed by :func:`study_sections`.
"""

from __future__ import annotations

from typing import Any

from dbbench.reports.tpch.analysis import column_of
from dbbench.reports.tpch.fairness import preflight_result
from dbbench.reports.tpch.latency import distributions, render_boxplot
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.telemetry import render_timeseries, summarise


def study_sections(result: BenchmarkResult) -> dict[str, Any]:
    """Template variables ``lat``/``lat_svg`` and ``tel``/``tel_svg`` (empty when absent)."""
    lat = distributions(result)
    return {
        "lat": lat,
        "lat_svg": render_boxplot(lat, "per-query latency distribution"),
        "tel": summarise(result),
        "tel_svg": render_timeseries(result),
        "fair": preflight_result(result),
        "measured_power": measured_power(result),
    }


def measured_power(result: BenchmarkResult) -> dict[int, dict[str, float]]:
    """Run number -> column -> the power test's measured seconds (not rounded)."""
    return {
        run.number: {
            column_of(iv): iv.seconds
            for iv in run.intervals
            if iv.phase == "power" and iv.status == "ok"
        }
        for run in result.runs
        if any(iv.phase == "power" for iv in run.intervals)
    }


def text_lines(result: BenchmarkResult) -> list[str]:
    """What the terminal summary adds: the telemetry headline (or why there is none)."""
    lines = [f"configuration: {line}" for line in preflight_result(result)]
    tel = summarise(result)
    if tel is None:
        return lines
    if tel.headline:
        lines.append(f"resources: {tel.headline}")
    if tel.note:
        lines.append(f"resources: {tel.note}")
    return lines
