"""A result's host noise in its document (every format): a table of its phases and a
"HOST BUSY" warning per reason the one judge gives (:mod:`reports.model.hostnoise`). The
families whose drivers record it in ``config`` (o2c, mixed, HammerDB) call :func:`add_noise`;
TPC-H's report judges its telemetry by the same rule."""

from __future__ import annotations

from typing import Any

from dbbench.reports.document import Document, Paragraph, Table
from dbbench.reports.model.hostnoise import (
    OTHER_CPU_LIMIT,
    OTHER_LOAD_LIMIT,
    STEAL_LIMIT,
    HostNoise,
    recorded,
)

HEADER = ["phase", "seconds", "load avg. max", "host CPU %", "kit %", "engine %", "other %",
          "steal %"]  # fmt: skip
BUSY = "HOST BUSY"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def rows(noise: HostNoise) -> list[list[str]]:
    return [
        [
            p.phase,
            f"{max(0.0, p.end - p.start):,.1f}",
            "-" if p.load_max is None else f"{p.load_max:.2f}",
            _pct(p.cpu_busy),
            _pct(p.kit),
            _pct(p.engine),
            _pct(p.other),
            _pct(p.steal),
        ]
        for p in noise.phases
    ]


def busy_lines(config: Any) -> list[str]:
    """The busy-host warnings of a result's recorded noise (none recorded: none)."""
    noise = recorded(config)
    return [] if noise is None else noise.busy()


def warn_busy(doc: Document, items: list[tuple[str, Any]]) -> None:
    """A comparison's HOST BUSY warnings: each busy result's reasons, named by its label."""
    for label, result in items:
        for line in busy_lines(getattr(result, "config", None)):
            doc.warn(f"{BUSY}: {label}: {line}")


def add_noise(doc: Document, config: Any) -> None:
    """The host-noise section and the busy-host warnings of ``config``'s record, if any."""
    noise = recorded(config)
    if noise is None:
        return
    cores = f"{noise.cores} CPUs" if noise.cores else "CPUs not known"
    doc.section(
        "Host noise",
        Paragraph(
            f"Per phase, % of all {cores}: the host's busy CPU, dbbench's (its process and "
            f"children), the engine's ({noise.engine or 'not said'}), other processes' and the "
            f"CPU a hypervisor stole; busy: over {OTHER_CPU_LIMIT:g} % other, over "
            f"{STEAL_LIMIT:g} % stolen, or a load average above the CPU count with over "
            f"{OTHER_LOAD_LIMIT:g} % other (or other not measured): the run's own threads "
            "count in the load average too." + (f" {noise.note}." if noise.note else "")
        ),
        Table(HEADER, rows(noise), frozenset(range(1, len(HEADER)))),
    )
    for line in noise.busy():
        doc.warn(f"{BUSY}: {line}")
