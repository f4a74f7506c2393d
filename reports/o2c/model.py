"""The o2c workload's result model (``dbbench-o2c-result``), and :class:`UsersResult`, the
head it shares with the mixed result."""

from __future__ import annotations

import math
from collections.abc import Iterable
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
    ResultEnvelope,
    ResultStatus,
    combined_status,
    read_json,
)

# -- o2c: the SD-like order-to-cash dialog workload (a result family of its own) ---------------
O2C_SCHEMA_NAME = "dbbench-o2c-result"
#: 2: ``status`` (derived from the probes; version 1 files lack it); 3: the steps of a large
#: result in a Parquet file beside the JSON (``steps_file``; version 2 files hold them inline)
O2C_SCHEMA_VERSION = 3
#: a result of at least this many steps keeps them in a Parquet file beside its JSON (a smaller
#: one stays one self-contained file); :meth:`O2CResult.write` takes ``columnar`` to choose
COLUMNAR_MIN_STEPS = 100_000


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
        kept = kept_arrays(self)
        if kept is not None:  # the columns a steps file gave: checked as arrays
            step, user, _, wait, db, _ = kept
            if len(step) and (min(wait.min(), db.min()) < 0):
                raise ValueError(f"{where}: a negative step time")
            if len(step) and (user.min() < 0 or step.min() < 0 or step.max() > 99):
                raise ValueError(f"{where}: a negative user or an unknown step")
            return
        # min/max over a whole column (in C), not a generator over millions of steps
        if min(self.wait, default=0) < 0 or min(self.db, default=0) < 0:
            raise ValueError(f"{where}: a negative step time")
        if min(self.user, default=0) < 0 or not 0 <= min(self.step, default=0) <= 99:
            raise ValueError(f"{where}: a negative user or an unknown step")
        if max(self.step, default=0) > 99:
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
    #: ``--driver-processes auto``: how many it took for the probe and why (one line)
    driver_processes_chosen: str = ""
    #: the driver agents on other hosts that drove shares of the probe: address, which
    #: driver process it was, its clock offset (corrected) and the round trip it was
    #: measured in
    driver_agents: list[str] = field(default_factory=list)
    #: the probe's rows in the result's steps file (:class:`O2CStepsFile`, the probes' rows
    #: one after another in probe order); None: its steps are inline (``steps``)
    steps_rows: int | None = None

    def complete_steps(self, folder: Path) -> None:
        """Read the steps from the journal file in ``folder`` when the probe has none (a
        driver that died before writing them left them there); a journal that is a symbolic
        link is not followed."""
        if self.steps_journal and not self.steps.step and not self.steps_rows:
            journal = folder / Path(self.steps_journal).name
            if journal.is_file() and not journal.is_symlink():
                self.steps = _read_journal(journal)


@dataclass
class O2CStepsFile:
    """The Parquet file beside a result that holds its probes' steps (schema version 3).

    ``name`` is a file name in the result's folder (``<stem>.steps-<hash>.parquet``);
    ``sha256`` the digest of its bytes, so the result's content hash covers every step
    through it (a file that does not hash to it is refused on read, and so by ``verify``);
    ``rows`` the steps of all probes. Its columns (:data:`STEPS_FILE_COLUMNS`): ``step``,
    ``user``, ``ok`` as integers; ``due``, ``wait``, ``db`` as integer microseconds
    (``due_us``...) when every value is a whole number of microseconds (as the simulator
    records them: exact both ways), else as doubles under their own names.
    """

    name: str
    sha256: str
    rows: int
    format: Literal["parquet"] = "parquet"


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
    scale_factor: float
    seed: int
    rt_limit: float

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
    # status (the envelope's): derived from the probes whenever written (:func:`o2c_status`)
    #: the file beside the JSON holding the steps (version 3; None: inline in each probe)
    steps_file: O2CStepsFile | None = None

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

    def to_dict(self) -> dict[str, Any]:
        """The document; with a steps file, without the probes' steps (they are in it)."""
        if self.steps_file is None:
            return super().to_dict()
        held = [p.steps for p in self.probes]
        try:
            for p in self.probes:
                p.steps = O2CSteps()
            data = super().to_dict()
        finally:
            for p, steps in zip(self.probes, held, strict=True):
                p.steps = steps
        for probe in data["probes"]:
            del probe["steps"]
        return data

    def write(self, path: Path, columnar: bool | None = None) -> None:
        """Write atomically; the steps in a Parquet file beside ``path`` when ``columnar``
        (None: when there are :data:`COLUMNAR_MIN_STEPS` or more). The steps file is written
        first under a name of its own content, then the JSON naming it, then a steps file
        an earlier write of ``path`` left is removed: a reader (or a kill) at any moment
        finds the JSON and the steps it names."""
        total = sum(len(p.steps.step) for p in self.probes)
        if columnar is None:
            columnar = total >= COLUMNAR_MIN_STEPS
        if not columnar:
            self.steps_file = None
            for p in self.probes:
                p.steps_rows = None
            super().write(path)
            _remove_steps_files(path, keep=None)
            return
        self.steps_file = write_steps_file(path, self.probes)
        for p in self.probes:
            p.steps_rows = len(p.steps.step)
        super().write(path)
        _remove_steps_files(path, keep=self.steps_file.name)

    def side_files(self) -> list[str]:
        """The names of the files beside the JSON that are part of the result (a copy of
        the result, such as a site's, copies them too)."""
        return [self.steps_file.name] if self.steps_file is not None else []

    def complete_steps(self, folder: Path) -> None:
        """The probes' steps from the steps file in ``folder`` (version 3), then from a
        journal where a probe still has none (:meth:`UsersResult.complete_steps`)."""
        if self.steps_file is not None:
            read_steps_file(folder, self.steps_file, self.probes)
        super().complete_steps(folder)

    @classmethod
    def upgrade_data(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 -> 2: ``status`` added, derived from the probes' statuses; 2 -> 3:
        nothing (a version 2 file holds its steps inline, as 3 may)."""
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
        if data.get("schema_version") == 2:
            data["schema_version"] = 3
        return data


O2C_JOURNAL_COLUMNS = ("step", "user", "due", "wait", "db", "ok")


def _read_journal(path: Path) -> O2CSteps:
    return journal_steps(path.read_text(encoding="utf-8").splitlines())


def journal_steps(lines: Iterable[str]) -> O2CSteps:
    """The steps of step-journal lines (``step,user,due,wait,db,ok``); a line cut by a
    kill or damaged is left out."""
    steps = O2CSteps()
    for line in lines:
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


# -- the steps file (schema version 3) -----------------------------------------------------
#: the steps file's columns: integers as they are, times as integer microseconds when exact
STEPS_FILE_COLUMNS = ("step", "user", "due", "wait", "db", "ok")
_INTEGER_COLUMNS = {"step": "int8", "user": "int32", "ok": "int8"}
_TIME_COLUMNS = ("due", "wait", "db")
#: a time column stored as microseconds is named so
MICROS = "_us"


def steps_file_name(path: Path, digest: str) -> str:
    """The steps file of the result at ``path`` whose bytes hash to ``digest``."""
    return f"{path.stem}.steps-{digest[:16]}.parquet"


def steps_table_bytes(probes: list[O2CProbe]) -> bytes:
    """The Parquet bytes of every probe's steps, the probes' rows one after another."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    def joined(name: str, dtype: str) -> Any:
        parts = [np.asarray(getattr(p.steps, name), dtype=dtype) for p in probes]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

    columns: dict[str, Any] = {}
    encodings: dict[str, str] = {}
    for name in STEPS_FILE_COLUMNS:
        if name in _INTEGER_COLUMNS:
            columns[name] = joined(name, "int64").astype(_INTEGER_COLUMNS[name])
            if name == "user":
                encodings[name] = "DELTA_BINARY_PACKED"
            continue
        seconds = joined(name, "float64")
        micros = np.rint(seconds * 1e6)
        if np.all(np.abs(micros) < 2**52) and np.array_equal(micros / 1e6, seconds):
            columns[name + MICROS] = micros.astype("int64")  # exact: read back as micros/1e6
            encodings[name + MICROS] = "DELTA_BINARY_PACKED"
        else:
            columns[name] = seconds
    # arrays over the numpy buffers (``pa.array`` of an ndarray would import pandas: seconds)
    arrays = [
        pa.Array.from_buffers(pa.from_numpy_dtype(v.dtype), len(v), [None, pa.py_buffer(v)])
        for v in columns.values()
    ]
    table = pa.Table.from_arrays(arrays, names=list(columns))
    sink = pa.BufferOutputStream()
    pq.write_table(
        table,
        sink,
        compression="zstd",
        use_dictionary=[n for n in columns if n not in encodings],
        column_encoding=encodings,
    )
    return bytes(sink.getvalue())


def write_steps_file(path: Path, probes: list[O2CProbe]) -> O2CStepsFile:
    """Write every probe's steps beside the result ``path`` (atomically, never through a
    symbolic link: :mod:`reports.safeio`); what the result records of the file."""
    import hashlib

    from dbbench.reports import safeio

    data = steps_table_bytes(probes)
    digest = hashlib.sha256(data).hexdigest()
    name = steps_file_name(path, digest)
    safeio.write_bytes(path.with_name(name), data)
    return O2CStepsFile(name, digest, sum(len(p.steps.step) for p in probes))


def _remove_steps_files(path: Path, keep: str | None) -> None:
    """Remove the steps files an earlier write of the result ``path`` left (not ``keep``)."""
    for old in path.parent.glob(f"{path.stem}.steps-*.parquet"):
        if old.name != keep and old.is_file() and not old.is_symlink():
            old.unlink(missing_ok=True)


def read_steps_file(folder: Path, ref: O2CStepsFile, probes: list[O2CProbe]) -> None:
    """Each probe's steps from the steps file ``ref`` names in ``folder``; ``ValueError``
    (one line) when it is missing, a symbolic link, does not hash to ``ref.sha256``, or its
    columns do not make ``ref.rows`` steps split as the probes' ``steps_rows`` say."""
    import hashlib

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from dbbench.reports import inputs

    name = Path(ref.name).name
    file = folder / name
    if name != ref.name or file.is_symlink() or not file.is_file():
        raise ValueError(f"steps_file: {ref.name} is not a file beside the result")
    raw = inputs.read_bytes(file, STEPS_FILE_LIMIT, "steps file")
    if hashlib.sha256(raw).hexdigest() != ref.sha256.lower():
        raise ValueError(f"steps_file: {ref.name} does not hash to the result's sha256")
    counts = [p.steps_rows or 0 for p in probes]
    if sum(counts) != ref.rows:
        raise ValueError(f"steps_file: the probes' steps_rows make {sum(counts)}, not {ref.rows}")
    try:  # without the pandas metadata (which would import pandas: seconds)
        table = pq.ParquetFile(pa.BufferReader(raw)).read(use_pandas_metadata=False)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"steps_file: {ref.name} is not a Parquet file ({exc})") from None
    if table.num_rows != ref.rows:
        raise ValueError(f"steps_file: {ref.name} holds {table.num_rows} rows, not {ref.rows}")

    def numbers(name: str, integers: bool) -> Any:
        """A column as int64 or float64 values; refused unless of that kind, without nulls."""
        column = table.column(name)
        kind = pa.types.is_integer if integers else pa.types.is_floating
        if not kind(column.type) or column.null_count:
            what = "integers" if integers else "numbers"
            raise ValueError(f"steps_file: column {name} is not of {what} without nulls")
        width = column.type.bit_width
        signed = not integers or pa.types.is_signed_integer(column.type)
        if (integers and width not in (8, 16, 32, 64)) or (not integers and width not in (32, 64)):
            raise ValueError(f"steps_file: column {name} is of {column.type}")
        whole = column.combine_chunks()  # (no ``cast``: it would import pyarrow.compute)
        dtype = np.dtype(f"{'i' if integers and signed else 'u' if integers else 'f'}{width // 8}")
        values = np.frombuffer(
            whole.buffers()[1], dtype=dtype, count=len(whole), offset=dtype.itemsize * whole.offset
        )
        return values.astype(np.int64 if integers else np.float64)

    arrays: dict[str, Any] = {}
    for col in STEPS_FILE_COLUMNS:
        if col in _INTEGER_COLUMNS and col in table.column_names:
            values = numbers(col, integers=True)
        elif col + MICROS in table.column_names:
            values = numbers(col + MICROS, integers=True) / 1e6
        elif col in table.column_names:
            values = numbers(col, integers=False)
            if not np.all(np.isfinite(values)) or np.any(np.abs(values) > MAX_MAGNITUDE):
                raise ValueError(f"steps_file: column {col} holds a value that is not plausible")
        else:
            raise ValueError(f"steps_file: {ref.name} has no column {col}")
        if col in _INTEGER_COLUMNS and len(values) and np.max(np.abs(values)) > MAX_MAGNITUDE:
            raise ValueError(f"steps_file: column {col} holds a value that is not plausible")
        arrays[col] = values
    start = 0
    for probe, count in zip(probes, counts, strict=True):
        end = start + count
        if count:
            parts = [arrays[col][start:end] for col in STEPS_FILE_COLUMNS]
            probe.steps = O2CSteps(*(part.tolist() for part in parts))
            keep_arrays(probe.steps, parts)
        start = end


#: where :func:`keep_arrays` keeps a steps' numpy columns (an attribute, not a field)
ARRAYS_ATTRIBUTE = "_arrays"


def keep_arrays(steps: O2CSteps, arrays: list[Any]) -> None:
    """Keep the numpy columns ``steps``' lists were made of (in :data:`STEPS_FILE_COLUMNS`
    order), for the metrics to use while ``steps`` holds those very lists, of the same
    lengths (``reports.o2c.series.step_arrays``): a read does not convert millions of
    numbers to lists and back. Nothing of the kit edits a read result's steps in place."""
    lists = tuple(getattr(steps, col) for col in STEPS_FILE_COLUMNS)
    vars(steps)[ARRAYS_ATTRIBUTE] = (lists, tuple(arrays))


def kept_arrays(steps: O2CSteps) -> tuple[Any, ...] | None:
    """The columns :func:`keep_arrays` kept, while ``steps`` holds the lists made of them."""
    kept = vars(steps).get(ARRAYS_ATTRIBUTE)
    if kept is None:
        return None
    lists, arrays = kept
    now = tuple(getattr(steps, col) for col in STEPS_FILE_COLUMNS)
    if any(a is not b or len(a) != len(c) for a, b, c in zip(now, lists, arrays, strict=True)):
        return None
    return tuple(arrays)


#: the largest steps file read (a billion steps would be about 8 GB)
STEPS_FILE_LIMIT = 16 * 1024**3
