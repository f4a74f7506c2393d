"""The o2c workload's result model (``dbbench-o2c-result``), and :class:`UsersResult`, the
head it shares with the mixed result."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import (
    Any,
    ClassVar,
    Literal,
    TypeVar,
)

from dbbench.reports.model import (
    MAX_MAGNITUDE,
    EngineInfo,
    ResultEnvelope,
    ResultStatus,
    SystemInfo,
    combined_status,
    read_json,
)

# -- o2c: the SD-like order-to-cash dialog workload (a result family of its own) ---------------
O2C_SCHEMA_NAME = "dbbench-o2c-result"
O2C_SCHEMA_VERSION = 2  # 2: ``status`` (derived from the probes; version 1 files lack it)


@dataclass
class O2CSteps:
    """Raw measurements of every dialog step, one list per field (columnar, compact JSON).

    ``step`` 0 is the log-on (not a dialog step of the loop), 1..15 the loop's steps.
    ``due`` is when the step became due (the think time expired), in seconds since the
    probe started; the dialog response time is ``wait + db`` (waiting for a work process,
    then the database call), measured from ``due`` so that a lagging driver cannot hide it.
    """

    step: list[int] = field(default_factory=list)
    user: list[int] = field(default_factory=list)
    due: list[float] = field(default_factory=list)
    wait: list[float] = field(default_factory=list)
    db: list[float] = field(default_factory=list)
    ok: list[int] = field(default_factory=list)  # 1 done, 0 failed

    #: written as whole lists (:func:`reports.model.codec.plain`)
    COLUMNAR: ClassVar[bool] = True

    def check(self, where: str) -> None:
        """Raise ``ValueError`` naming ``where`` when the columns cannot be measured steps."""
        columns = (self.step, self.user, self.due, self.wait, self.db, self.ok)
        if len({len(c) for c in columns}) > 1:
            raise ValueError(f"{where}: the columns differ in length")
        if any(v < 0 for v in self.wait) or any(v < 0 for v in self.db):
            raise ValueError(f"{where}: a negative step time")
        if any(v < 0 for v in self.user) or any(not 0 <= v <= 99 for v in self.step):
            raise ValueError(f"{where}: a negative user or an unknown step")


@dataclass
class O2CProbe:
    """One run at a fixed number of users: ramp-up, the measured steady window, ramp-down."""

    users: int
    think: float
    think_dist: str
    work_processes: int
    rampup: float
    start: float  # Unix epoch seconds
    window_start: float  # seconds since start: the steady-state window alone is measured
    window_end: float
    end: float
    status: ResultStatus = "partial"
    logged_on: int = 0
    steps: O2CSteps = field(default_factory=O2CSteps)
    errors: list[str] = field(default_factory=list)
    driver_cpu_seconds: float | None = None  # the driver process's CPU during the window
    host_cpu_busy: float | None = None  # busy fraction of all host CPUs during the window
    host_cpus: int | None = None
    #: CPU seconds of the database server's processes on this host during the window (None:
    #: not seen: embedded in the driver, on another host, or without psutil)
    server_cpu_seconds: float | None = None
    #: the driver's own lag, seconds from a step's due time (the end of its think time) to
    #: its user task running: near zero unless the driver itself is the bottleneck
    driver_lag_p50: float | None = None
    driver_lag_p99: float | None = None
    driver_lag_max: float | None = None
    #: a CSV file next to the result holding the steps, when the driver died before it
    #: wrote them here (columns: :data:`O2C_JOURNAL_COLUMNS`, no header); read on load
    steps_journal: str | None = None
    #: ``probe``: one step of a search or study; ``confirmation``: the full-length run a
    #: search makes at the user count it found (its verdict decides that count)
    role: Literal["probe", "confirmation"] = "probe"
    #: SD-Parallel: the database nodes (URLs without password) the users were spread over,
    #: round-robin: user ``u`` worked on node ``u % len(nodes)``; empty for one database
    nodes: list[str] = field(default_factory=list)
    #: the driver processes that drove the probe (``--driver-processes``; users split
    #: ``i % N``) and the CPU seconds each used during the window
    driver_processes: int = 1
    driver_cpu_by_process: list[float] = field(default_factory=list)

    def complete_steps(self, folder: Path) -> None:
        """Read the steps from the journal file in ``folder`` when the probe has none (a
        driver that died before writing them left them there); a journal that is a symbolic
        link is not followed."""
        if self.steps_journal and not self.steps.step:
            journal = folder / Path(self.steps_journal).name
            if journal.is_file() and not journal.is_symlink():
                self.steps = _read_journal(journal)


def o2c_status(probes: list[O2CProbe]) -> ResultStatus:
    """An o2c result's status, from its probes' (:func:`combined_status`)."""
    return combined_status(p.status for p in probes)


@dataclass
class UsersResult(ResultEnvelope):
    """What the families of simulated o2c users share (:class:`O2CResult`, the mixed
    result): the head of the file, in its order (the kind, the engine, the system, the kit,
    the scale factor, the seed, the response-time limit, the schema), then each family's
    measured parts (its own fields, declared by the family after its ``kind``). The status
    is derived from the parts whenever the result is written (:func:`combined_status`), and
    the o2c steps a driver left in journal files are read back when it is read."""

    COMPACT: ClassVar[bool] = True

    kind: str
    engine: EngineInfo
    system: SystemInfo
    kit_version: str
    scale_factor: float
    seed: int
    rt_limit: float
    schema: str = ""  # the family's SCHEMA_NAME, filled in when constructed
    schema_version: int = 0  # likewise its SCHEMA_VERSION (a file read is upgraded to it)
    created: float = 0.0

    def __post_init__(self) -> None:
        self.schema = self.schema or self.SCHEMA_NAME
        self.schema_version = self.schema_version or self.SCHEMA_VERSION

    def parts_status(self) -> ResultStatus:
        """The status the parts make (each family says which its parts are)."""
        raise NotImplementedError

    def o2c_probes(self) -> list[O2CProbe]:
        """The o2c probes among the parts (their steps may be in journal files)."""
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["status"] = self.parts_status()
        return data

    def check(self) -> None:
        if self.rt_limit <= 0:
            raise ValueError(f"rt_limit: {self.rt_limit!r} is not a response-time limit")

    @classmethod
    def read(cls: type[U], path: Path) -> U:
        """The result, its o2c steps completed from the journal files beside it."""
        result = cls.from_parsed(read_json(path))
        result.complete_steps(path.parent)
        return result

    def complete_steps(self, folder: Path) -> None:
        """Every o2c probe's steps from its journal file in ``folder`` where the result has
        none (:meth:`O2CProbe.complete_steps`: the driver died before writing them; a
        symbolic link is not followed), then the result checked."""
        for probe in self.o2c_probes():
            probe.complete_steps(folder)
        self.check()


U = TypeVar("U", bound=UsersResult)


@dataclass
class O2CResult(
    UsersResult,
    schema_name=O2C_SCHEMA_NAME,
    schema_version=O2C_SCHEMA_VERSION,
    title="dbbench o2c result",
):
    """An o2c ``run`` (one probe), ``search`` (every probe it made), ``scale`` (a scaling
    study: one probe per user count of a series) or ``nodes`` (an SD-Parallel-style node
    study: per cluster size, the run at the user count its search found)."""

    kind: Literal["run", "search", "scale", "nodes"]
    probes: list[O2CProbe] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    #: derived from the probes whenever the result is written (:func:`o2c_status`)
    status: ResultStatus = "partial"

    def parts_status(self) -> ResultStatus:
        return o2c_status(self.probes)

    def o2c_probes(self) -> list[O2CProbe]:
        return self.probes

    def check(self) -> None:
        super().check()
        for n, p in enumerate(self.probes):
            where = f"probes[{n}]"
            if p.work_processes < 1:
                raise ValueError(f"{where}.work_processes: must be at least 1")
            if p.users < 0 or p.think < 0 or p.rampup < 0:
                raise ValueError(f"{where}: users, think and rampup must not be negative")
            if p.window_end < p.window_start:
                raise ValueError(f"{where}: window_end is before window_start")
            p.steps.check(f"{where}.steps")

    @classmethod
    def upgrade_data(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 -> 2: ``status`` added, derived from the probes' statuses."""
        data = dict(data)
        if data.get("schema_version") == 1:
            probes = data.get("probes")
            statuses = (
                [p.get("status", "partial") for p in probes if isinstance(p, dict)]
                if (isinstance(probes, list))
                else []
            )
            data["status"] = combined_status(statuses)
            data["schema_version"] = 2
        return data


O2C_JOURNAL_COLUMNS = ("step", "user", "due", "wait", "db", "ok")


def _read_journal(path: Path) -> O2CSteps:
    steps = O2CSteps()
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split(",")
        if len(parts) != len(O2C_JOURNAL_COLUMNS):
            continue  # a line cut by the kill
        try:
            step, user, due, wait, db, ok = parts
            row = (int(step), int(user), float(due), float(wait), float(db), int(ok))
        except ValueError:
            continue
        if not all(math.isfinite(v) and abs(v) <= MAX_MAGNITUDE for v in row):
            continue  # damage, not a measurement
        steps.step.append(row[0])
        steps.user.append(row[1])
        steps.due.append(row[2])
        steps.wait.append(row[3])
        steps.db.append(row[4])
        steps.ok.append(row[5])
    return steps
