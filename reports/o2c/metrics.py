"""o2c metrics: pure functions of the raw step measurements in an :class:`O2CResult`.

The rating is unofficial and SD-like: **O2C-SAPS (unofficial) = dialog steps per hour / 60**,
the arithmetic of SAP's SAPS definition (100 SAPS = 6,000 dialog steps/h = 2,000 fully
processed order line items/h). It is not SAPS and not comparable with SAP certifications:
there is no application layer, the data are TPC-H's, and the steps are the kit's own.

Closed-loop law (interactive response-time law): X = N / (Z + R), so a user produces at
most 3600 / (Z + R) dialog steps per hour; ``implied_think`` = N / X - R checks that the
driver kept its users' schedule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dbbench.reports.o2c.model import O2CProbe, O2CResult
from dbbench.reports.o2c.series import step_arrays, throughput_series, total

STEPS_PER_LOOP = 15
LINES_PER_ORDER = 5
DIALOG_STEPS_PER_SAPS_HOUR = 60  # 100 SAPS = 6,000 dialog steps/h
#: The loop's transactions and the steps (1..15) that belong to each.
TRANSACTION_STEPS: dict[str, tuple[int, ...]] = {
    "VA01": (1, 2, 3, 4),
    "VL01N": (5, 6),
    "VA03": (7, 8),
    "VL02N": (9, 10, 11),
    "VA05": (12, 13),
    "VF01": (14, 15),
}
RATING_NAME = "O2C-SAPS (unofficial)"
DISCLAIMER = (
    "O2C-SAPS is an unofficial, SD-like rating computed by dbbench (dialog steps/h / 60). "
    "It is not SAPS, this is not the SAP SD benchmark, and the figures are not comparable "
    "with SAP certifications."
)
#: Above this relative gap between implied and configured think time the driver lagged.
THINK_TOLERANCE = 0.05
#: The SAP SD benchmark's rule: at least 15 minutes of high load; shorter windows are
#: labelled "short window, not SD-like".
SD_WINDOW = 900.0
#: The step-mix check: every step's share of the window's dialog steps must be within this
#: relative distance of the nominal 1/15, or within :data:`MIX_SIGMAS` standard deviations
#: of a binomial count of the window's steps (at least :data:`MIX_SLACK_STEPS` steps), for
#: windows whose few steps cannot tell a bad mix from chance; otherwise the probe is invalid.
MIX_TOLERANCE = 0.25
MIX_SLACK_STEPS = 3
MIX_SIGMAS = 3.0
#: The steps that complete a business document: order (VA01), delivery (VL01N), goods
#: issue (VL02N) and invoice (VF01).
DOCUMENT_STEPS = (4, 6, 11, 15)
#: The steadiness check: the probe fails when the average response time of the window's
#: second half exceeds its first half's both by more than this share of the average limit
#: and by more than :data:`STEADY_RATIO` times: the load exceeds what the system sustains
#: (its queues were still growing) and a longer window would show a higher average, so it
#: fails rather than pass on a window too short to show where its queues were heading.
STEADY_RISE = 0.25
STEADY_RATIO = 1.5
#: Above this share of the response time, one part of it is named as the bottleneck.
BOTTLENECK_SHARE = 0.5
#: ``--work-processes auto`` widens the pool of a probe whose RT is mostly work-process
#: wait only when the probe failed or its average RT is at least this share of the average
#: limit: a wait of milliseconds under a 1-s limit decides no verdict, and a wider pool
#: there costs a whole probe (8 minutes at SD's think time) for nothing.
POOL_MATTERS = 0.1
#: Above this share of the host's CPUs busy with neither the driver nor the server, the
#: result warns that other work on the host may have disturbed it.
HOST_OTHER_WARN = 0.10
#: From this share of one CPU, the driver process (one Python process; its work processes
#: are its threads, and the GIL holds it near one CPU: 0.73 to 0.81 of a CPU in every
#: saturated window of the PostgreSQL SF 1 search of 2026-11-29) is named as what a
#: work-process wait most likely waits for, when the database server's CPU was measured
#: apart from it (an embedded engine's work is the driver's own CPU: there it says nothing).
DRIVER_CPU_BOUND = 0.7


@dataclass(frozen=True)
class Limits:
    """The response-time limits a probe must meet: the average (SD's rule), optional
    percentiles (p90, p99) over all the window's dialog steps, and optional averages per
    transaction (VA01, ...)."""

    avg: float
    p90: float | None = None
    p99: float | None = None
    per_transaction: dict[str, float] = field(default_factory=dict)

    def config(self) -> dict[str, object]:
        """The limits beyond the average, as a result's ``config`` records them."""
        return {
            "rt_p90": self.p90,
            "rt_p99": self.p99,
            "rt_limit_transaction": dict(self.per_transaction),
        }

    def text(self) -> str:
        parts = [f"avg {self.avg:g} s"]
        parts += [f"{k} {v:g} s" for k, v in (("p90", self.p90), ("p99", self.p99)) if v]
        parts += [f"{t} avg {v:g} s" for t, v in self.per_transaction.items()]
        return ", ".join(parts)


def limits_of(result: O2CResult) -> Limits:
    """The limits a result was judged by (``rt_limit`` and its config's extra limits)."""
    c = result.config
    tx = c.get("rt_limit_transaction") or {}
    return Limits(
        result.rt_limit,
        _positive(c.get("rt_p90")),
        _positive(c.get("rt_p99")),
        {str(k): float(v) for k, v in tx.items()} if isinstance(tx, dict) else {},
    )


def _positive(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and value > 0 else None


def closed_loop_steps_per_hour(users: float, think: float, rt: float) -> float:
    """X = N x 3600 / (Z + R): dialog steps per hour of N users in a closed loop."""
    return users * 3600.0 / (think + rt)


def rating(steps_per_hour: float) -> float:
    """O2C-SAPS (unofficial): dialog steps per hour / 60 (SAP's SAPS arithmetic)."""
    return steps_per_hour / DIALOG_STEPS_PER_SAPS_HOUR


def implied_think(users: float, steps_per_hour: float, rt: float) -> float:
    """Z = N / X - R, in seconds."""
    return users * 3600.0 / steps_per_hour - rt


def percentile(sorted_values: Sequence[float] | Any, p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of an ascending list or array; NaN when empty."""
    if not len(sorted_values):
        return math.nan
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return float(sorted_values[min(rank, len(sorted_values)) - 1])


@dataclass
class RtStats:
    """Response times of a set of steps, seconds: how many, their average, percentiles
    (nearest rank, :func:`percentile`) and maximum; NaN where there are none."""

    count: int
    avg: float
    p50: float
    p90: float
    p95: float
    p99: float
    max: float

    @classmethod
    def of(cls, values: Sequence[float] | Any, ascending: bool = False) -> RtStats:
        """The stats of ``values`` (a list or a numpy array; ``ascending``: sorted already;
        the average is the sum of the ascending values in order, as
        ``sum(sorted(values))`` makes it)."""
        v = np.asarray(values, dtype=np.float64)
        if not ascending:
            v = np.sort(v)
        if not len(v):
            return cls(0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
        p50, p90, p95, p99 = (percentile(v, p) for p in (50, 90, 95, 99))
        return cls(len(v), total(v) / len(v), p50, p90, p95, p99, float(v[-1]))


@dataclass
class ProbeSummary:
    users: int
    think: float
    work_processes: int
    window_seconds: float
    steps: int  # dialog steps completed in the window (log-ons excluded)
    errors: int  # failed steps (any phase)
    avg_rt: float
    avg_wait: float
    avg_db: float
    steps_per_hour: float
    line_items_per_hour: float
    orders_per_hour: float
    rating: float
    implied_think: float
    rt_limit: float
    passed: bool
    reasons: list[str]
    warnings: list[str]
    overall: RtStats
    per_step: dict[int, RtStats]
    per_transaction: dict[str, RtStats]
    throughput: list[tuple[float, float]] = field(default_factory=list)  # (t, steps/s)
    driver_cpu_ms_per_step: float | None = None
    host_cpu_busy: float | None = None
    #: the local database server's processes' share of all host CPUs in the window, and the
    #: driver process's (None: not measured; an embedded engine is inside the driver's)
    server_cpu_busy: float | None = None
    driver_cpu_busy: float | None = None
    driver_lag_p50: float | None = None  # seconds from due to the user task running
    #: the driver processes that drove the probe, and each one's CPUs used in the window
    driver_processes: int = 1
    driver_busy_by_process: tuple[float, ...] = ()
    driver_processes_chosen: str = ""  # ``--driver-processes auto``: how many and why
    driver_agents: tuple[str, ...] = ()  # agents on other hosts: each one's clock offset
    driver_lag_p99: float | None = None
    driver_lag_max: float | None = None
    #: database time of the window's steps / (work processes x window): near 1, the pool
    #: (not necessarily the database) limits the users; raise --work-processes to see
    pool_utilisation: float = math.nan
    role: str = "probe"  # or "confirmation" (a search's full-length run at its result)
    #: each loop step's (1..15) share of the window's dialog steps (nominal 1/15 each)
    step_mix: dict[int, float] = field(default_factory=dict)
    documents: int = 0  # completed document steps (order, delivery, goods issue, invoice)
    sd_like: bool = False  # the window is at least SD's 15 minutes
    #: where the average response time went: waiting for a work process (less the
    #: driver's own lag), the database call, the driver's lag (its median)
    rt_pool_wait: float = math.nan
    rt_driver_lag: float = math.nan
    bottleneck: str = ""  # "work-process wait", "database" or "driver lag"
    #: the driver process's CPUs over the window, when the RT is mostly work-process wait
    #: and the driver used at least :data:`DRIVER_CPU_BOUND` of a CPU (with the server's CPU
    #: measured apart): the wait was most likely for the driver's own CPU (else None)
    driver_cpu_bound: float | None = None
    #: the host's CPU busy with neither the driver nor the (measured) server, as a share
    #: of all host CPUs in the window (None: not measured)
    host_other_busy: float | None = None


def measured_end(probe: O2CProbe) -> float:
    """The end of the window really measured: the planned end of a complete probe; for a
    stopped or killed one, no later than its last recorded step."""
    w1 = probe.window_end
    if probe.status == "complete":
        return w1
    a = step_arrays(probe.steps)
    last = float(np.max(a.due + a.wait + a.db)) if len(a.step) else 0.0
    return max(probe.window_start, min(w1, last))


def summarize(probe: O2CProbe, rt_limit: float | Limits, bucket: float = 0.0) -> ProbeSummary:
    """Everything a report shows about one probe, from its raw steps; every per-hour figure
    is a rate over the window as really measured (:func:`measured_end`)."""
    limits = rt_limit if isinstance(rt_limit, Limits) else Limits(rt_limit)
    rt_limit = limits.avg
    a = step_arrays(probe.steps)
    w0, w1 = probe.window_start, measured_end(probe)
    window = max(w1 - w0, 1e-9)
    done = a.ok != 0
    errors = int(np.count_nonzero(~done))
    rt_all = a.wait + a.db
    end_all = a.due + rt_all
    measured = done & (a.step != 0) & (end_all >= w0) & (end_all <= w1)
    rts, ends = rt_all[measured], end_all[measured]
    waits, dbs = a.wait[measured], a.db[measured]
    by_step = _by_step(a.step[measured], rts)  # each step's response times, ascending
    n = len(rts)
    counts = {k: len(by_step.get(k, ())) for k in range(1, STEPS_PER_LOOP + 1)}
    avg = total(rts) / n if n else math.nan
    sph = n * 3600.0 / window
    overall = RtStats.of(_of_steps(by_step, sorted(by_step)), ascending=True)
    reasons: list[str] = []
    if probe.status != "complete":
        reasons.append(f"the run is {probe.status}")
    if errors:
        reasons.append(f"{errors} dialog steps failed")
    if not n:
        reasons.append("no dialog step completed in the steady-state window")
    else:
        reasons += _limit_reasons(limits, overall, by_step)  # (per transaction: ascending)
        reasons += mix_reasons(counts)
        reasons += steady_reasons(ends, rts, (w0 + w1) / 2, limits.avg)
    z = implied_think(probe.users, sph, avg) if n else math.nan
    warnings: list[str] = []
    if n and probe.think > 0 and abs(z - probe.think) > THINK_TOLERANCE * probe.think:
        warnings.append(
            f"implied think time {z:.3f} s differs from the configured {probe.think:g} s "
            f"by more than {THINK_TOLERANCE:.0%}: the window is short against the response "
            "time, or the load was still changing (response times count any driver lag, "
            "so this does not invalidate the run)"
        )
    if window < SD_WINDOW:
        warnings.append(
            f"short window, not SD-like: {window:.0f} s measured, the SAP SD benchmark "
            f"requires at least {SD_WINDOW / 60:.0f} minutes of high load"
        )
    avg_wait = total(waits) / n if n else math.nan
    avg_db = total(dbs) / n if n else math.nan
    lag = probe.driver_lag_p50 or 0.0
    pool_wait = max(0.0, avg_wait - lag) if n else math.nan
    bottleneck = ""
    driver_cpus: float | None = None
    if n and avg > 0:
        parts = {"work-process wait": pool_wait, "database": avg_db, "driver lag": lag}
        bottleneck = max(parts, key=lambda k: parts[k])
        if pool_wait > BOTTLENECK_SHARE * avg:
            driver_cpus = _driver_cpus(probe, window)
            if driver_cpus is not None:
                advice = (
                    f"the driver process used {driver_cpus:.2f} of a CPU (its work "
                    "processes are threads of one Python process), so they most likely "
                    "waited for the driver's own CPU: the driver host, not the database, "
                    "limits this figure, and a wider pool will not lower it"
                )
            elif not _verdict_may_change(not reasons, avg, rt_limit):
                advice = (
                    f"a wider pool could lower it, but not change this verdict: the RT is "
                    f"under {POOL_MATTERS:.0%} of the {rt_limit:g}-s limit"
                )
            else:
                advice = (
                    "the pool, not the database, limits this figure; raise "
                    "--work-processes (or search with --work-processes auto)"
                )
            warnings.append(
                f"the response time is mostly waiting for a work process: {pool_wait:.3f} "
                f"of {avg:.3f} s with {probe.work_processes} work processes (the database "
                f"took {avg_db:.3f} s): {advice}"
            )
        elif lag > BOTTLENECK_SHARE * avg:
            warnings.append(
                f"the response time is mostly the driver's own lag ({lag:.3f} of {avg:.3f} s): "
                "the driver host, not the database, limits this figure"
            )
    documents = sum(counts[k] for k in DOCUMENT_STEPS)
    server_busy = _share(probe.server_cpu_seconds, window, probe.host_cpus)
    driver_busy = _share(probe.driver_cpu_seconds, window, probe.host_cpus)
    other = None
    if probe.host_cpu_busy is not None and driver_busy is not None:
        other = max(0.0, probe.host_cpu_busy - driver_busy - (server_busy or 0.0))
        if other > HOST_OTHER_WARN:
            warnings.append(
                f"{other:.0%} of the host's CPU in the window is not attributable to the "
                "driver"
                + ("" if server_busy is None else " or the database server")
                + " (other work on this host): the figures may be disturbed"
            )
    per_tx = {
        t: RtStats.of(_of_steps(by_step, steps), ascending=True)
        for t, steps in TRANSACTION_STEPS.items()
    }
    cpu = probe.driver_cpu_seconds
    return ProbeSummary(
        users=probe.users,
        think=probe.think,
        work_processes=probe.work_processes,
        window_seconds=window,
        steps=n,
        errors=errors,
        avg_rt=avg,
        avg_wait=avg_wait,
        avg_db=avg_db,
        steps_per_hour=sph,
        # one document step of the four completes a 5-line order's stage: line items fully
        # processed per hour = 5 x the document steps / 4
        line_items_per_hour=documents * LINES_PER_ORDER / len(DOCUMENT_STEPS) * 3600.0 / window,
        orders_per_hour=counts[DOCUMENT_STEPS[0]] * 3600.0 / window,
        rating=rating(sph),
        implied_think=z,
        rt_limit=rt_limit,
        passed=not reasons,
        reasons=reasons,
        warnings=warnings,
        overall=overall,
        per_step={k: RtStats.of(v, ascending=True) for k, v in sorted(by_step.items())},
        per_transaction=per_tx,
        throughput=throughput_series(probe, bucket or max(1.0, round(probe.end / 60.0)), a),
        driver_cpu_ms_per_step=(cpu * 1000.0 / n) if cpu is not None and n else None,
        host_cpu_busy=probe.host_cpu_busy,
        server_cpu_busy=server_busy,
        driver_cpu_busy=driver_busy,
        driver_lag_p50=probe.driver_lag_p50,
        driver_processes=probe.driver_processes,
        driver_processes_chosen=probe.driver_processes_chosen,
        driver_agents=tuple(probe.driver_agents),
        driver_busy_by_process=tuple(c / window for c in probe.driver_cpu_by_process if window > 0),
        driver_lag_p99=probe.driver_lag_p99,
        driver_lag_max=probe.driver_lag_max,
        pool_utilisation=(
            total(dbs) / (probe.work_processes * window)
            if n and probe.work_processes > 0
            else math.nan
        ),
        role=probe.role,
        step_mix={k: c / n for k, c in counts.items()} if n else {},
        documents=documents,
        sd_like=window >= SD_WINDOW - 1e-6,
        rt_pool_wait=pool_wait,
        rt_driver_lag=lag if n else math.nan,
        bottleneck=bottleneck,
        driver_cpu_bound=driver_cpus,
        host_other_busy=other,
    )


def _by_step(steps: Any, rts: Any) -> dict[int, Any]:
    """The response times ``rts`` of each step number in ``steps`` (arrays of one length),
    each step's ascending, by step number ascending."""
    if not len(steps):
        return {}
    # step numbers are 0..99 (checked on read): a stable sort of 16-bit keys is a radix sort
    order = np.argsort(steps.astype(np.int16), kind="stable")
    grouped = rts[order]
    found: dict[int, Any] = {}
    start = 0
    for k, count in enumerate(np.bincount(steps).tolist()):
        if count:
            found[k] = np.sort(grouped[start : start + count])
            start += count
    return found


def _of_steps(by_step: dict[int, Any], steps: Sequence[int]) -> Any:
    """The response times of ``steps`` (each ascending in ``by_step``), ascending: the
    runs merged (a stable sort of sorted runs merges them)."""
    parts = [by_step[st] for st in steps if st in by_step]
    if len(parts) == 1:
        return parts[0]
    return np.sort(np.concatenate(parts), kind="stable") if parts else np.zeros(0)


def _limit_reasons(limits: Limits, overall: RtStats, by_step: dict[int, Any]) -> list[str]:
    """Why the window's response times break ``limits`` (empty: they meet them)."""
    found = []
    if overall.avg > limits.avg:
        found.append(
            f"average dialog response time {overall.avg:.3f} s is above the limit {limits.avg:g} s"
        )
    for name, value, limit in (("p90", overall.p90, limits.p90), ("p99", overall.p99, limits.p99)):
        if limit is not None and value > limit:
            found.append(
                f"{name} dialog response time {value:.3f} s is above the limit {limit:g} s"
            )
    for tx, limit in limits.per_transaction.items():
        values = _of_steps(by_step, TRANSACTION_STEPS.get(tx, ()))  # ascending
        if len(values) and (tx_avg := total(values) / len(values)) > limit:
            found.append(
                f"{tx} average response time {tx_avg:.3f} s is above its limit {limit:g} s"
            )
    return found


def mix_reasons(counts: dict[int, int]) -> list[str]:
    """Why the window's step mix is off the nominal 1/15 per step (empty: it is not):
    a step's count may differ from the nominal by :data:`MIX_TOLERANCE` of it, or by what
    chance alone gives a window of so few steps (:data:`MIX_SIGMAS` standard deviations of
    a binomial count, at least :data:`MIX_SLACK_STEPS` steps), whichever is larger. In an
    SD-like window (thousands of steps) the relative tolerance decides; a short probe of a
    few hundred steps (24 per step nominal) is judged invalid only beyond about 60 %: short
    confirmations on a loaded machine failed on chance deviations of about 26 % before."""
    n = sum(counts.values())
    nominal = n / STEPS_PER_LOOP
    share = 1 / STEPS_PER_LOOP
    chance = max(MIX_SIGMAS * math.sqrt(n * share * (1 - share)), MIX_SLACK_STEPS)
    off = [
        k
        for k, c in sorted(counts.items())
        if abs(c - nominal) > max(MIX_TOLERANCE * nominal, chance)
    ]
    if not off:
        return []
    shown = ", ".join(f"step {k} {counts[k] / n:.1%}" for k in off[:5])
    return [
        f"the window's step mix is off the nominal {1 / STEPS_PER_LOOP:.1%} per step "
        f"(tolerance {MIX_TOLERANCE:.0%}): {shown}"
        + (f" and {len(off) - 5} more" if len(off) > 5 else "")
        + " — the window is not whole loops of spread users"
    ]


def pool_bound(s: ProbeSummary) -> bool:
    """Whether a wider pool may change this probe's verdict: its RT is mostly work-process
    wait, and it failed or its average RT is at least :data:`POOL_MATTERS` of the limit."""
    mostly_wait = s.bottleneck == "work-process wait" and s.rt_pool_wait > s.avg_rt / 2
    return mostly_wait and _verdict_may_change(s.passed, s.avg_rt, s.rt_limit)


def _verdict_may_change(passed: bool, avg_rt: float, limit: float) -> bool:
    """Whether a lower work-process wait may change a probe's verdict: it failed, or its
    average RT is at least :data:`POOL_MATTERS` of the limit."""
    return not passed or avg_rt >= POOL_MATTERS * limit


def steady_reasons(
    ends: Sequence[float] | Any, rts: Sequence[float] | Any, middle: float, limit: float
) -> list[str]:
    """Why the window was not steady (empty: it was): the average response time of the
    steps completed after ``middle`` (the window's middle) rose above the first half's by
    more than :data:`STEADY_RISE` of the average ``limit`` and more than
    :data:`STEADY_RATIO` times. Below that the halves differ by chance (a checkpoint, a
    busy second); above it the queues grew through the window, so its average understates
    what the same load gives over a longer one."""
    end_of, rt_of = np.asarray(ends, dtype=np.float64), np.asarray(rts, dtype=np.float64)
    if len(end_of) != len(rt_of):
        raise ValueError("steady_reasons: ends and rts differ in length")
    early = end_of < middle
    first, second = rt_of[early], rt_of[~early]
    if not len(first) or not len(second):
        return []
    a, b = total(first) / len(first), total(second) / len(second)
    if b - a <= STEADY_RISE * limit or b <= STEADY_RATIO * a:
        return []
    return [
        f"not steady: the average response time rose from {a:.3f} s in the window's first "
        f"half to {b:.3f} s in its second (tolerance {STEADY_RISE:.0%} of the {limit:g}-s "
        "limit): the queues were still growing, the load is more than this system sustains"
    ]


def _driver_cpus(probe: O2CProbe, window: float) -> float | None:
    """The driver process's CPUs used over the window, when at least
    :data:`DRIVER_CPU_BOUND` of one and the server's CPU was measured apart (else None)."""
    cpu = probe.driver_cpu_seconds
    if probe.driver_cpu_by_process:  # several driver processes: the busiest one's CPU
        cpu = max(probe.driver_cpu_by_process)
    if cpu is None or probe.server_cpu_seconds is None or window <= 0:
        return None
    used = cpu / window
    return used if used >= DRIVER_CPU_BOUND else None


def _share(cpu_seconds: float | None, window: float, cpus: int | None) -> float | None:
    """CPU seconds as a fraction of every host CPU over the window."""
    if cpu_seconds is None or not cpus or window <= 0:
        return None
    return cpu_seconds / (window * cpus)


@dataclass
class SearchSummary:
    probes: list[ProbeSummary]
    best: ProbeSummary | None  # the largest passing user count (no interpolation)


def summarize_result(result: O2CResult) -> SearchSummary:
    """Every probe's summary and the result: the largest user count whose deciding run
    passed; that run's figures. Runs come in the order made. At one count, a probe with
    more work processes (``--work-processes auto`` widening the pool) decides it only when
    its average RT is lower than the one it widened; one that is no better leaves the count
    to the narrower pool and its verdict, as the search's own rule does
    (``drivers.o2c.search.pool_step``). A confirmation, made after its probe, decides its
    count; a failed one rules the count out."""
    limits = limits_of(result)
    probes = [summarize(p, limits) for p in result.probes]
    decided: dict[int, ProbeSummary] = {}
    settled: set[int] = set()  # counts where a widening was no better: the pool stays
    for p in probes:
        kept = decided.get(p.users)
        if p.role == "confirmation" or kept is None:
            decided[p.users] = p
        elif p.users not in settled:
            if p.avg_rt < kept.avg_rt:
                decided[p.users] = p
            else:
                settled.add(p.users)
    failed = {p.users for p in probes if p.role == "confirmation" and not p.passed}
    passing = [p for p in decided.values() if p.passed and p.users not in failed]
    best = max(passing, key=lambda p: p.users) if passing else None
    return SearchSummary(probes, best)
