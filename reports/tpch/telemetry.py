"""Resource telemetry in reports: averages per phase and a time-series chart.

Reads only :class:`reports.tpch.model.Telemetry`. Sample ``i`` covers the interval that ends at
``t[i]``; a phase's average weighs each sample by how much of that interval falls inside the
phase, so a phase shorter than the sampling interval still gets the (diluted) figure of the
sample that contains it, and says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from markupsafe import escape

from dbbench.reports.model.hostnoise import EMBEDDED, UNATTRIBUTED, HostNoise, NoisePhase
from dbbench.reports.tpch.model import BenchmarkResult, Telemetry

MB = 1_000_000


@dataclass
class PhaseUsage:
    """Average resource use during one phase of the benchmark."""

    phase: str
    start: float
    end: float
    samples: float  # sampling intervals covered (fractional)
    cpu_busy: float | None = None  # user + system, % of all cores
    cpu_user: float | None = None
    cpu_system: float | None = None
    cpu_iowait: float | None = None
    mem_max: int | None = None  # bytes, the highest sample touching the phase
    read_mbps: float | None = None
    write_mbps: float | None = None
    read_iops: float | None = None
    write_iops: float | None = None
    net_mbps: float | None = None  # sent + received
    engine: dict[str, float] = field(default_factory=dict)  # the engine's counters, averaged
    #: per core: (user, system, iowait) % of that core's time; empty for version 1 samples
    per_core: list[tuple[float, float, float]] = field(default_factory=list)
    load_max: float | None = None  # the highest 1-minute load average sampled
    steal: float | None = None  # % of all cores stolen by a hypervisor
    kit: float | None = None  # % of all cores dbbench's own process used (embedded engines too)

    @property
    def short(self) -> bool:
        """Shorter than one sampling interval: the figures are diluted by idle time."""
        return self.samples < 1.0


@dataclass
class TelemetrySummary:
    scope: str
    note: str
    interval: float
    samples: int
    cores: int | None
    overhead_percent: float | None  # sampler CPU time / wall time of the sampling, one core
    phases: list[PhaseUsage] = field(default_factory=list)
    headline: str = ""
    engine_counters: list[str] = field(default_factory=list)
    busy: list[str] = field(default_factory=list)  # why the host was busy with other work


def phase_windows(result: BenchmarkResult) -> list[tuple[str, float, float]]:
    """(label, start, end) of the load and of each run's power and throughput tests."""
    windows: list[tuple[str, float, float]] = []
    if result.load is not None and not result.load.reused and result.load.end > result.load.start:
        windows.append(("load", result.load.start, result.load.end))
    for run in result.runs:
        if run.power_start is not None and run.power_end is not None:
            windows.append((f"run {run.number} power", run.power_start, run.power_end))
        if run.throughput_start is not None and run.throughput_end is not None:
            windows.append(
                (f"run {run.number} throughput", run.throughput_start, run.throughput_end)
            )
    return windows


def _spans(tel: Telemetry) -> list[tuple[float, float]]:
    spans = []
    for i, t in enumerate(tel.t):
        first = tel.t_start if 0 < tel.t_start < t else t - tel.interval
        begin = tel.t[i - 1] if i > 0 else first
        spans.append((begin, t))
    return spans


def _weighted(values: list[float], weights: list[float]) -> float | None:
    total = sum(weights)
    if total <= 0 or len(values) != len(weights):
        return None
    return sum(v * w for v, w in zip(values, weights, strict=True)) / total


def _per_core(
    tel: Telemetry, avg: Callable[[list[float]], float | None]
) -> list[tuple[float, float, float]]:
    """Each core's average (user, system, iowait) %, where every sample has every core."""
    series = (tel.cpu_core_user, tel.cpu_core_system, tel.cpu_core_iowait)
    if not tel.cpu_core_user or any(len(x) != len(tel.t) for x in series):
        return []
    cores = min(len(row) for x in series for row in x)
    out = []
    for core in range(cores):
        user, system, iowait = (avg([row[core] for row in x]) for x in series)
        if user is None or system is None or iowait is None:
            return []
        out.append((user, system, iowait))
    return out


def usage(tel: Telemetry, label: str, start: float, end: float) -> PhaseUsage:
    """Average use between ``start`` and ``end`` (epoch seconds)."""
    weights = []
    touching = []
    for i, (a, b) in enumerate(_spans(tel)):
        overlap = max(0.0, min(b, end) - max(a, start))
        weights.append(overlap / (b - a) if b > a else 0.0)
        if overlap > 0 or a <= start <= b:
            touching.append(i)
    out = PhaseUsage(label, start, end, samples=sum(weights))
    if not touching:
        return out
    if out.samples <= 0:  # a zero-length phase: the sample that contains it
        weights = [1.0 if i == touching[0] else 0.0 for i in range(len(tel.t))]

    def avg(values: list[float]) -> float | None:
        return _weighted(values, weights) if values else None

    out.cpu_user, out.cpu_system = avg(tel.cpu_user), avg(tel.cpu_system)
    out.cpu_iowait = avg(tel.cpu_iowait)
    if out.cpu_user is not None and out.cpu_system is not None:
        out.cpu_busy = out.cpu_user + out.cpu_system
    out.mem_max = max((tel.mem_used[i] for i in touching if i < len(tel.mem_used)), default=None)
    for name, series in (("read_mbps", tel.disk_read_bps), ("write_mbps", tel.disk_write_bps)):
        value = avg(series)
        setattr(out, name, None if value is None else value / MB)
    out.read_iops, out.write_iops = avg(tel.disk_read_iops), avg(tel.disk_write_iops)
    net = [s + r for s, r in zip(tel.net_sent_bps, tel.net_recv_bps, strict=False)]
    value = avg(net)
    out.net_mbps = None if value is None else value / MB
    out.per_core = _per_core(tel, avg)
    out.load_max = max((tel.load1[i] for i in touching if i < len(tel.load1)), default=None)
    out.steal, out.kit = avg(tel.cpu_steal), avg(tel.cpu_kit)
    for name, series in tel.engine.items():
        if len(series) == len(weights):  # probing stopped early: no per-phase figure
            engine_value = avg(series)
            if engine_value is not None:
                out.engine[name] = engine_value
    return out


def summarise(result: BenchmarkResult) -> TelemetrySummary | None:
    """Per-phase averages and the one-line headline, or None when nothing was sampled."""
    tel = result.telemetry
    if tel is None:
        return None
    wall = (tel.t[-1] - _spans(tel)[0][0]) if tel.t else 0.0
    summary = TelemetrySummary(
        scope=tel.scope,
        note=tel.note,
        interval=tel.interval,
        samples=len(tel.t),
        cores=tel.cores,
        overhead_percent=100.0 * tel.overhead_seconds / wall if wall > 0 else None,
    )
    if not tel.t:
        return summary
    windows = phase_windows(result)
    summary.phases = [usage(tel, *w) for w in windows]
    summary.phases.append(usage(tel, "whole benchmark", _spans(tel)[0][0], tel.t[-1]))
    summary.engine_counters = sorted({k for p in summary.phases for k in p.engine})
    summary.busy = busy_host(summary, embedded=_embedded(result.engine.url))
    busiest = [p for p in summary.phases if "throughput" in p.phase and p.cpu_busy is not None]
    if busiest:
        p = busiest[-1]
        summary.headline = f"CPU {p.cpu_busy:.0f} % during {p.phase}"
        if p.write_mbps is not None and p.read_mbps is not None:
            summary.headline += f", disk {p.read_mbps:.1f} MB/s read, {p.write_mbps:.1f} MB/s write"
    return summary


def _embedded(url: str) -> bool:
    """An engine inside dbbench's process (its URL names no host): its CPU is the kit's."""
    head, _, rest = url.partition("://")
    return bool(head) and not rest.split("/", 1)[0].split("@")[-1].split("?")[0]


def host_noise(summary: TelemetrySummary, embedded: bool) -> HostNoise:
    """The phases' host noise as every family records it (:mod:`reports.model.hostnoise`):
    an embedded engine's CPU is the kit's; a server's is not told apart from other work."""
    noise = HostNoise(summary.cores, EMBEDDED if embedded else UNATTRIBUTED)
    for p in summary.phases:
        if p.phase != "whole benchmark":
            noise.phases.append(
                NoisePhase(
                    p.phase, p.start, p.end, p.load_max, p.cpu_busy, p.kit,
                    0.0 if embedded else None, p.steal, attributable=embedded,
                )
            )  # fmt: skip
    return noise


def busy_host(summary: TelemetrySummary, embedded: bool) -> list[str]:
    """One sentence per phase whose host was busy with other work, by the one judge of every
    family (:meth:`reports.model.hostnoise.HostNoise.busy`): hypervisor steal, (an embedded
    engine) CPU that neither dbbench nor its engine used, or a load average above the CPU
    count beside such CPU (a server engine: the load average alone, as its CPU is not
    attributable, and the report says so)."""
    return host_noise(summary, embedded).busy()


# ---------------------------------------------------------------- the time-series chart

_W, _PANEL_H, _LEFT, _RIGHT, _GAP = 900, 120, 60, 20, 28


def _path(xs: list[float], ys: list[float]) -> str:
    return " ".join(
        f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}"
        for i, (x, y) in enumerate(zip(xs, ys, strict=True))
    )


def _panel(
    top: float,
    title: str,
    xs: list[float],
    series: list[tuple[str, list[float]]],
    ceiling: float | None = None,
) -> list[str]:
    values = [v for _, s in series for v in s]
    peak = ceiling if ceiling is not None else max(values, default=0.0)
    peak = peak if peak > 0 else 1.0
    bottom = top + _PANEL_H

    def y(v: float) -> float:
        return bottom - _PANEL_H * min(v, peak) / peak

    out = [
        f'<text x="{_LEFT}" y="{top - 6:.0f}" class="tick">{escape(title)}</text>',
        f'<line x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{bottom:.1f}" y2="{bottom:.1f}" class="axis"/>',
        f'<text x="{_LEFT - 6}" y="{top + 8:.0f}" text-anchor="end" class="tick">'
        f"{peak:,.4g}</text>",
        f'<text x="{_LEFT - 6}" y="{bottom:.0f}" text-anchor="end" class="tick">0</text>',
    ]
    for cls, s in series:
        if s and len(s) == len(xs):
            out.append(f'<path d="{_path(xs, [y(v) for v in s])}" class="ts {cls}"/>')
    return out


def render_timeseries(result: BenchmarkResult) -> str:
    """CPU, disk and memory over time with the phases shaded: an ``<svg>`` string."""
    tel = result.telemetry
    if tel is None or len(tel.t) < 1:
        return ""
    t0 = _spans(tel)[0][0]
    span = max(tel.t[-1] - t0, 1e-9)

    def x(t: float) -> float:
        return _LEFT + (_W - _LEFT - _RIGHT) * (t - t0) / span

    xs = [x(t) for t in tel.t]
    # lane 0: the power test; 1..S: the query streams; S + 1: the throughput refresh stream
    lanes = 2 + max((iv.stream for r in result.runs for iv in r.intervals), default=0)
    lanes_top = 3 * (_PANEL_H + _GAP) + 12
    height = lanes_top + _LANE * lanes + 30
    out = [
        f'<svg class="chart telemetry" viewBox="0 0 {_W} {height}" role="img" '
        f'aria-label="resource use over time" width="100%">'
    ]
    for i, (label, start, end) in enumerate(phase_windows(result)):
        x0, x1 = x(max(start, t0)), x(min(end, tel.t[-1]))
        out.append(
            f'<rect x="{x0:.1f}" y="{_GAP - 4}" width="{max(x1 - x0, 1):.1f}" '
            f'height="{height - _GAP - 26}" class="phase p{i % 2}"><title>{escape(label)}</title>'
            f'</rect><text x="{x0 + 2:.1f}" y="{height - 8}" class="tick">{escape(label)}</text>'
        )
    busy = [u + s for u, s in zip(tel.cpu_user, tel.cpu_system, strict=False)]
    out += _panel(
        _GAP,
        "CPU % (busy, iowait)",
        xs,
        [("cpu", busy), ("iowait", tel.cpu_iowait)],
        100.0,
    )
    out += _panel(
        _GAP * 2 + _PANEL_H,
        "Disk MB/s (read, write)",
        xs,
        [
            ("read", [v / MB for v in tel.disk_read_bps]),
            ("write", [v / MB for v in tel.disk_write_bps]),
        ],
    )
    out += _panel(
        _GAP * 3 + 2 * _PANEL_H,
        "Memory used, GB",
        xs,
        [("mem", [v / 1e9 for v in tel.mem_used])],
    )
    out += _lanes(result, x, lanes_top, t0, tel.t[-1], lanes)
    out.append(
        f'<text x="{_W - _RIGHT}" y="{height - 8}" text-anchor="end" class="tick">'
        f"{span:,.0f} s</text></svg>"
    )
    return "".join(out)


_LANE = 9


def _lanes(
    result: BenchmarkResult,
    x: Callable[[float], float],
    top: float,
    t0: float,
    t1: float,
    lanes: int,
) -> list[str]:
    """One lane per stream (top: the power test; bottom: the throughput test's refresh
    stream) with each query and refresh function."""
    out = [
        f'<text x="{_LEFT}" y="{top - 3:.0f}" class="tick">'
        "Streams (top: power test; bottom: refresh stream)</text>"
    ]
    for run in result.runs:
        for iv in run.intervals:
            if iv.end < t0 or iv.start > t1:
                continue
            lane = lanes - 1 if iv.kind != "query" and iv.phase == "throughput" else iv.stream
            y = top + 2 + lane * _LANE
            what = f"Q{iv.query}" if iv.kind == "query" else iv.kind.upper()
            cls = "q" if iv.status == "ok" else "qfail"
            cls += " rf" if iv.kind != "query" else ""
            x0 = x(max(iv.start, t0))
            out.append(
                f'<rect x="{x0:.1f}" y="{y:.1f}" width="{max(x(iv.end) - x0, 0.8):.1f}" '
                f'height="{_LANE - 2}" class="{cls}"><title>run {run.number} stream '
                f"{iv.stream} {what}: {iv.seconds * 1000:,.1f} ms ({iv.status})</title></rect>"
            )
    return out
