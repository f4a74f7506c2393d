"""The parts of an o2c result's report: the results summary (in the shape of an SD
certificate's: users, average dialog response time, dialog steps/h, rating, database, OS,
CPU), the response-time tables, the studies' tables and the JSON summary.
:mod:`reports.o2c.document` makes the report of them, always with the disclaimer that the
rating is unofficial and not comparable with SAP's."""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from dbbench.reports.o2c.charts import search_svg
from dbbench.reports.o2c.metrics import (
    DISCLAIMER,
    RATING_NAME,
    TRANSACTION_STEPS,
    ProbeSummary,
    RtStats,
    limits_of,
    summarize,
    summarize_result,
)
from dbbench.reports.o2c.model import O2CProbe, O2CResult
from dbbench.reports.o2c.studies import node_scaling, per_node, repeats, scaling


def _s(value: float, digits: int = 3) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _n(value: float) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:,.0f}"


def summary_rows(result: O2CResult, probe: ProbeSummary) -> list[tuple[str, str]]:
    sysinfo = result.system
    cpu = sysinfo.cpu_model or "unknown CPU"
    if sysinfo.cores:
        cpu += f" ({sysinfo.cores} cores / {sysinfo.threads or sysinfo.cores} threads)"
    rows = [
        ("Benchmark users", f"{probe.users:,}"),
        (
            "Think time",
            f"{probe.think:g} s ({result.probes[0].think_dist}), 15 dialog steps/loop, "
            "5 line items/order",
        ),
        (
            "Work processes (connections)",
            f"{probe.work_processes} ({_s(probe.pool_utilisation * 100, 0)} % busy in the window)",
        ),
        *(
            [("Work processes chosen (auto)", _chosen(result.config))]
            if result.config.get("work_processes") == "auto"
            else []
        ),
        (
            "Steady-state window",
            f"{probe.window_seconds:.1f} s"
            + ("" if probe.sd_like else " (short window, not SD-like: SD needs 15 minutes)"),
        ),
        (
            "Average dialog response time",
            f"{_s(probe.avg_rt)} s (p90 {_s(probe.overall.p90)} s, p99 {_s(probe.overall.p99)} "
            f"s; limits {limits_of(result).text()}) -> " + ("PASS" if probe.passed else "FAIL"),
        ),
        ("  of which wait for a work process", f"{_s(probe.rt_pool_wait)} s"),
        ("  of which database", f"{_s(probe.avg_db)} s"),
        ("  of which driver lag (median)", f"{_s(probe.rt_driver_lag)} s"),
        ("Bottleneck (largest part of the RT)", bottleneck_text(probe)),
        ("Step mix in the window (steps 1..15, nominal 6.7 % each)", mix_text(probe)),
        ("Dialog steps / hour", _n(probe.steps_per_hour)),
        ("Fully processed line items / hour", _n(probe.line_items_per_hour)),
        ("Orders (loops) / hour", _n(probe.orders_per_hour)),
        (RATING_NAME, _n(probe.rating)),
        ("Implied think time (N/X - R)", f"{_s(probe.implied_think)} s"),
        ("Failed dialog steps", str(probe.errors)),
        (
            "Database",
            f"{result.engine.version or result.engine.name} (TPC-H SF {result.scale_factor:g})",
        ),
        ("Operating system", sysinfo.os or "-"),
        ("CPU", cpu),
    ]
    if probe.host_cpu_busy is not None:
        rows.append(("Host CPU utilisation (window)", f"{probe.host_cpu_busy:.0%}"))
    if probe.server_cpu_busy is not None:
        rows.append(("  of it the database server (local)", f"{probe.server_cpu_busy:.0%}"))
    scope = result.config.get("server_cpu")
    if isinstance(scope, str):
        rows.append(("  the server CPU counts", scope))
    if probe.driver_cpu_busy is not None:
        rows.append(("  of it the dbbench driver", f"{probe.driver_cpu_busy:.0%}"))
    if probe.driver_processes > 1 or probe.driver_processes_chosen:
        busy = ", ".join(f"{b:.2f}" for b in probe.driver_busy_by_process) or "not measured"
        plural = "es" if probe.driver_processes > 1 else ""
        rows.append(
            (f"  driven by {probe.driver_processes} driver process{plural}", f"CPUs used: {busy}")
        )
    if probe.driver_processes_chosen:
        rows.append(("  driver processes", probe.driver_processes_chosen))
    for agent in probe.driver_agents:
        rows.append(("  driver agent", agent))
    if probe.host_other_busy is not None:
        rows.append(("  of it neither (not attributable)", f"{probe.host_other_busy:.0%}"))
    servers = result.config.get("servers")
    if isinstance(servers, list) and len(servers) > 1:
        rows.append(("Database servers", "; ".join(map(str, servers))))
    if probe.driver_lag_p99 is not None:
        rows.append(
            (
                "Driver lag, due to running (p50 / p99 / max)",
                f"{probe.driver_lag_p50 or 0:.4f} / {probe.driver_lag_p99:.4f} / "
                f"{probe.driver_lag_max or 0:.4f} s",
            )
        )
    if probe.driver_cpu_ms_per_step is not None:
        rows.append(
            (
                "Driver process CPU per dialog step (incl. an embedded engine)",
                f"{probe.driver_cpu_ms_per_step:.3f} ms",
            )
        )
    return rows


def bottleneck_text(probe: ProbeSummary) -> str:
    """The largest part of the RT, and what stood behind a work-process wait the driver's
    CPU most likely caused."""
    if not probe.bottleneck:
        return "-"
    if probe.driver_cpu_bound is None:
        return probe.bottleneck
    return (
        f"{probe.bottleneck}, behind the driver's CPU ({probe.driver_cpu_bound:.2f} of a CPU "
        "used): a wider pool will not lower it"
    )


def mix_text(probe: ProbeSummary) -> str:
    """The window's share of each loop step, in percent."""
    if not probe.step_mix:
        return "-"
    return " ".join(f"{v * 100:.1f}" for _, v in sorted(probe.step_mix.items())) + " %"


def _rt_row(name: str, st: RtStats) -> list[str]:
    return [name, f"{st.count:,}", *(_s(v) for v in (st.avg, st.p50, st.p90, st.p95, st.p99))]


RT_HEADER = ["", "steps", "avg s", "p50 s", "p90 s", "p95 s", "p99 s"]


def transaction_rows(probe: ProbeSummary) -> list[list[str]]:
    rows = [_rt_row(t, probe.per_transaction[t]) for t in TRANSACTION_STEPS]
    rows.append(_rt_row("all steps", probe.overall))
    return rows


def step_rows(probe: ProbeSummary) -> list[list[str]]:
    return [_rt_row(f"step {k}", v) for k, v in probe.per_step.items()]


def timeline_rows(raw: O2CProbe, probe: ProbeSummary, most: int = 12) -> list[list[str]]:
    """Throughput over time in at most ``most`` rows (buckets merged), with the phase."""
    series = probe.throughput
    if not series:
        return []
    step = series[1][0] - series[0][0] if len(series) > 1 else 1.0
    k = max(1, -(-len(series) // most))
    rows = []
    for i in range(0, len(series), k):
        part = series[i : i + k]
        t0, t1 = part[0][0], part[-1][0] + step
        rate = sum(v for _, v in part) / len(part)
        mid = (t0 + t1) / 2
        phase = (
            "ramp-up"
            if mid < raw.window_start
            else "steady"
            if mid <= raw.window_end
            else "ramp-down"
        )
        rows.append([f"{t0:.0f}-{t1:.0f} s", phase, f"{rate:,.1f}"])
    return rows


TIMELINE_HEADER = ["time", "phase", "dialog steps/s"]


def search_rows(probes: list[ProbeSummary]) -> list[list[str]]:
    return [
        [
            f"{p.users:,}" + (" (confirmation)" if p.role == "confirmation" else ""),
            str(p.work_processes),
            _s(p.avg_rt),
            _s(p.overall.p90),
            _s(p.overall.p99),
            f"{_s(p.rt_pool_wait)} / {_s(p.avg_db)} / {_s(p.rt_driver_lag)}",
            _n(p.steps_per_hour),
            _n(p.rating),
            "pass" if p.passed else "fail: " + "; ".join(p.reasons),
        ]
        for p in probes
    ]


SEARCH_HEADER = ["users", "W", "avg RT s", "p90 s", "p99 s", "wait / db / lag s",
                 "dialog steps/h", RATING_NAME, "verdict"]  # fmt: skip
NODES_HEADER = ["nodes", "users found", "limited by", "avg RT s", "p90 s", "p99 s",
                "dialog steps/h", "relative", "per node"]  # fmt: skip
NODES_NOTE = (
    "SD-Parallel-style node study: per cluster size, the largest user count within the "
    "response-time limit (users round-robin over the nodes) and what ended its search (only "
    "'response time' means the limit was reached), its dialog steps/h, relative to the "
    "smallest cluster, and that relative figure per node (1.00 is linear). Nodes that "
    "share one machine share its CPUs: the table shows the method, not what separate "
    "machines would give."
)


def nodes_rows(result: O2CResult) -> list[list[str]]:
    summaries = [summarize(p, limits_of(result)) for p in result.probes]
    counts = [max(1, len(p.nodes)) for p in result.probes]

    def ratio(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.2f}"

    limits = result.config.get("limited_by")
    by_nodes = dict(zip(counts, limits, strict=False)) if isinstance(limits, list) else {}
    pct = {len(p.nodes) or 1: s.overall for p, s in zip(result.probes, summaries, strict=True)}
    return [
        [str(x.nodes), f"{x.users:,}", str(by_nodes.get(x.nodes, "-")), _s(x.avg_rt),
         _s(pct[x.nodes].p90), _s(pct[x.nodes].p99),
         _n(x.steps_per_hour), ratio(x.relative), ratio(x.efficiency)]
        for x in node_scaling(summaries, counts)
    ]  # fmt: skip


NODE_HEADER = ["node", "users", "dialog steps", "errors", "avg RT s", "dialog steps/h"]
NODE_NOTE = (
    "SD-Parallel-style: users are spread round-robin over the database nodes (user u on "
    "node u mod N), each node with its own work processes; totals are above."
)


def node_rows(probe: O2CProbe) -> list[list[str]]:
    return [
        [n.node, f"{n.users:,}", f"{n.steps:,}", f"{n.errors:,}", _s(n.avg_rt),
         _n(n.steps_per_hour)]
        for n in per_node(probe)
    ]  # fmt: skip


SCALE_HEADER = ["users", "avg RT s", "p90 s", "p99 s", "dialog steps/h", "relative",
                "efficiency", "verdict"]  # fmt: skip


def scale_rows(probes: list[ProbeSummary]) -> list[list[str]]:
    def ratio(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.2f}"

    pct = {p.users: p.overall for p in probes}
    return [
        [
            f"{p.users:,}",
            _s(p.avg_rt),
            _s(pct[p.users].p90),
            _s(pct[p.users].p99),
            _n(p.steps_per_hour),
            ratio(p.relative),
            ratio(p.efficiency),
            "within limit" if p.passed else "over limit",
        ]
        for p in scaling(probes)
    ]


REPEAT_HEADER = ["users", "runs", "dialog steps/h (mean ± 95 % CI)", "avg RT s (mean ± 95 % CI)"]


def repeat_rows(probes: list[ProbeSummary]) -> list[list[str]]:
    """Each user count run more than once: the mean and 95 % confidence interval."""
    return [
        [f"{r.users:,}", str(r.steps_per_hour.n),
         f"{_n(r.steps_per_hour.mean)} ± {_n(r.steps_per_hour.half_width)}",
         f"{_s(r.avg_rt.mean)} ± {_s(r.avg_rt.half_width)}"]
        for r in repeats(probes)
    ]  # fmt: skip


SCALE_NOTE = (
    "A scaling study: the same workload at each user count; relative is dialog steps/h "
    "against the smallest count, efficiency is relative / (users / smallest users), 1.00 "
    "being linear. Points over the response-time limit are shown but are no rating."
)


def _headline(result: O2CResult) -> tuple[str, ProbeSummary | None, list[ProbeSummary]]:
    summary = summarize_result(result)
    if result.kind == "search":
        title = f"o2c search: largest number of users within {result.rt_limit:g} s"
        return title, summary.best, summary.probes
    if result.kind == "scale":
        title = f"o2c scaling study: {len(summary.probes)} user counts"
        return title, summary.best, summary.probes
    if result.kind == "nodes":
        title = f"o2c node study: 1 to {max(len(p.nodes) for p in result.probes) or 1} nodes"
        best = max(summary.probes, key=lambda p: p.steps_per_hour, default=None)
        return title, best, summary.probes
    return "o2c run", (summary.probes[0] if summary.probes else None), summary.probes


def _json(
    result: O2CResult, probe: ProbeSummary | None, probes: list[ProbeSummary]
) -> dict[str, Any]:
    def one(p: ProbeSummary) -> dict[str, Any]:
        return {
            "users": p.users,
            "work_processes": p.work_processes,
            "avg_rt": p.avg_rt,
            "p90_rt": p.overall.p90,
            "p99_rt": p.overall.p99,
            "rt_work_process_wait": p.rt_pool_wait,
            "rt_database": p.avg_db,
            "rt_driver_lag": p.rt_driver_lag,
            "bottleneck": p.bottleneck,
            "driver_cpu_bound": p.driver_cpu_bound,
            "window_seconds": p.window_seconds,
            "sd_like": p.sd_like,
            "step_mix": {str(k): v for k, v in p.step_mix.items()},
            "orders_per_hour": p.orders_per_hour,
            "steps_per_hour": p.steps_per_hour,
            "line_items_per_hour": p.line_items_per_hour,
            "rating": p.rating,
            "passed": p.passed,
            "reasons": p.reasons,
        }

    return {
        "kind": result.kind,
        "rating_name": RATING_NAME,
        "disclaimer": DISCLAIMER,
        "engine": result.engine.version or result.engine.name,
        "rt_limit": result.rt_limit,
        "rt_limits": limits_of(result).text(),
        "result": one(probe) if probe else None,
        "probes": [one(p) for p in probes],
        "scaling": [asdict(x) for x in scaling(probes)] if result.kind == "scale" else None,
    }


def _probes_svg(probes: list[ProbeSummary], rt_limit: float) -> str:
    """The probes' average RT against users, their p90 and p99 beside it, and the limit."""
    return search_svg(
        [(p.users, p.avg_rt, p.passed) for p in probes],
        rt_limit,
        [p.overall.p90 for p in probes],
        [p.overall.p99 for p in probes],
    )


def _chosen(config: dict[str, Any]) -> str:
    """The W an ``auto`` search chose (written at its end: a file written before, by a
    search still running or stopped, holds none)."""
    if "work_processes_chosen" not in config:
        return "none: the search did not end (still running, or stopped)"
    pool = config["work_processes_chosen"]
    return "none: no user count passed" if pool is None else str(pool)
