"""Synthetic results for the site: copies of a real result with another engine, machine,
scale factor and timings (every interval scaled, its end moved with it, so that the copy's
figures still follow from its measurements)."""

from __future__ import annotations

import copy
from typing import Any


def variant(
    data: dict[str, Any],
    *,
    engine: str,
    version: str,
    host: str,
    factor: float,
    sf: float | None = None,
    created: float | None = None,
) -> dict[str, Any]:
    out = copy.deepcopy(data)
    out["engine"]["name"], out["engine"]["version"] = engine, version
    out["system"]["hostname"] = host
    if sf is not None:
        out["scale_factor"] = sf
    if created is not None:
        out["created"] = created
    # The whole timeline is stretched, so that the copy's intervals are long enough to be
    # told apart after the spec's 0.1 s rounding (a real SF 0.01 run's queries take
    # milliseconds: rounded, every copy would have the same Power) and its Ts follows too.
    stretch = factor * _normalise(data)
    for run in out["runs"]:
        t0 = min(iv["start"] for iv in run["intervals"])

        def at(t: float, t0: float = t0) -> float:
            return t0 + (t - t0) * stretch

        for iv in run["intervals"]:
            iv["start"], iv["end"] = at(iv["start"]), at(iv["end"])
            iv["seconds"] = iv["seconds"] * stretch
        for key in ("power_start", "power_end", "throughput_start", "throughput_end"):
            if run.get(key) is not None:
                run[key] = at(run[key])
    if sf is not None:  # the verdict at the new scale factor, as dbbench run would store it
        from dataclasses import asdict

        from dbbench.reports.tpch.compliance import judge
        from dbbench.reports.tpch.model import BenchmarkResult

        out["compliance"] = asdict(judge(BenchmarkResult.from_dict(out)))
    return out


def _normalise(data: dict[str, Any]) -> float:
    """The stretch that makes the base's longest query interval 10 s (1 when it is longer)."""
    longest = max(
        (iv["seconds"] for run in data["runs"] for iv in run["intervals"] if iv.get("query")),
        default=10.0,
    )
    return max(1.0, 10.0 / max(longest, 1e-3))
