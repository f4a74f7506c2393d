"""The run lifecycle: the one corridor every workload that touches a database goes through.

A workload (TPC-H's :class:`~dbbench.drivers.sequencer.Benchmark`, o2c's run/search/scale,
HammerDB's build and run) implements :class:`Workload` — ``prepare`` / ``check`` / ``run`` /
``cleanup`` — and runs inside one :func:`open_run`::

    with open_run(urls, out_dir=DIR, force=force) as scope:
        # DIR is a marked run directory, locked for this process (a second process is
        # refused in one line); each URL is an open engine holding its benchmark lock
        # (engine.lock_benchmark(): a second workload on the same database is refused in
        # one line); SIGTERM and the first Ctrl-C raise KeyboardInterrupt, a second one
        # exits at once (drivers.signals)
        result = workload.run(scope)           # writes scope.journal_path as it goes
        scope.write(result)                    # atomic; never through a symbolic link

Whatever fails before the body starts (a malformed URL, an unreachable engine, a lock held
by another run, a refused check) leaves nothing behind: the engines are closed, a run
directory the lifecycle made is removed (a marker it wrote into an existing one too), and
the one error propagates for the CLI to print as one line. However the body ends, the
engines are closed and the run directory is released. Suites and studies compose workloads:
each step opens its own scope, so each takes the same locks.

The exit codes of a workload are :data:`EXIT_OK`, :data:`EXIT_ERROR` (bad input, refused),
:data:`EXIT_INVALID` (ran, but invalid) and :data:`~dbbench.drivers.signals.EXIT_INTERRUPTED`.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import ConnectionLostError, DriversError
from dbbench.drivers.hostnoise import NoiseMonitor
from dbbench.drivers.registry import engine_class, open_engine, spec_for
from dbbench.drivers.rundir import (
    MARKER_FILE,
    prepare_run_dir,
    release_run_dir,
    remove_if_empty,
    remove_own_files,
    unfinished_run,
)
from dbbench.drivers.signals import EXIT_INTERRUPTED, interrupt_on_signals, within
from dbbench.drivers.space import check_space
from dbbench.drivers.url import parse_url, redact
from dbbench.reports.model import JOURNAL_FILE, RESULT_FILE
from dbbench.reports.tpch.model import DUCKDB_FILE

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_INVALID = 3

__all__ = [
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_INVALID",
    "EXIT_OK",
    "DatabaseBusy",
    "KeepsPartial",
    "LoadsAtScale",
    "Result",
    "RunScope",
    "Workload",
    "check_space_ahead",
    "local_url",
    "open_run",
    "relock",
]

#: The engine "URL" that means the default engine: a DuckDB file in the run directory.
BARE_DUCKDB = "duckdb"


def local_url(engine: str, folder: Path) -> str:
    """Bare ``duckdb`` means a database file (:data:`DUCKDB_FILE`) in ``folder``; an engine
    that keeps its data in the working folder when the URL names no place has it in
    ``folder`` (``Engine.in_run_dir``); any other URL is used as given."""
    if engine.strip() == BARE_DUCKDB:
        return f"duckdb:///{(folder / DUCKDB_FILE).resolve()}"
    parsed = parse_url(engine)
    served_by = engine_class(spec_for(parsed))
    if served_by is None:
        return engine
    placed = served_by.in_run_dir(parsed, folder)  # Spark's default warehouse: in folder
    return engine if placed == parsed else placed.render(hide_password=False)


def check_space_ahead(url: str, sf: float) -> None:
    """The space check of :func:`open_run`'s ``load_sf`` before the engine is opened: a
    study checks every step's database before it writes or opens anything (a suite's SF
    1e9 entry was refused only once the entries before it had run)."""
    engine = engine_class(spec_for(parse_url(url)))
    if engine is not None:
        check_space(engine, url, sf)


class Result(Protocol):
    """What a workload's run returns: a result model that writes itself atomically."""

    def write(self, path: Path) -> None: ...


@runtime_checkable
class Workload(Protocol):
    """One workload over the engines of a :class:`RunScope` (``drivers.sequencer.workload
    .TpchWorkload``, ``drivers.o2c.study.O2CWorkload``, ``drivers.hammerdb.flow
    .HammerDBWorkload``, ``drivers.mixed``'s workloads). Its optional parts are the protocols
    :class:`LoadsAtScale` and :class:`KeepsPartial`.

    ``prepare`` makes the database ready (TPC-H: the load; o2c: the master data), ``check``
    lists what is wrong with it (empty: consistent), ``run`` measures and returns the
    result (writing the journal as it goes; a ``KeyboardInterrupt`` must leave a partial
    result), ``cleanup`` restores the database. What ``prepare`` and ``cleanup`` return is
    the workload's own report of it (printed by the CLI)."""

    def prepare(self, scope: RunScope) -> object: ...

    def check(self, scope: RunScope) -> list[str]: ...

    def run(self, scope: RunScope) -> Result: ...

    def cleanup(self, scope: RunScope) -> object: ...


@runtime_checkable
class LoadsAtScale(Protocol):
    """Optional part of a :class:`Workload`: its ``prepare`` loads data at a scale factor
    (TPC-H), so a study can refuse a load its disk cannot hold before it starts."""

    @property
    def load_sf(self) -> float: ...


@runtime_checkable
class KeepsPartial(Protocol):
    """Optional part of a :class:`Workload`: the result a failed or stopped ``run`` left so
    far (TPC-H: what its journal holds), for a study to report; None: nothing yet."""

    def partial(self) -> Result | None: ...


@dataclass
class RunScope:
    """The resources of one workload's run, held by :func:`open_run`."""

    urls: list[str]
    engines: list[Engine]
    out_dir: Path | None = None
    #: what ``--force`` dropped (an unfinished run's journal), as a phrase; None: nothing
    replaced: str | None = None
    notes: list[str] = field(default_factory=list)
    #: the host noise of the workload's phases (``with scope.noise.phase(label):``), recorded
    #: in the result's config it is attached to (:mod:`drivers.hostnoise`)
    noise: NoiseMonitor = field(default_factory=NoiseMonitor)

    @property
    def engine(self) -> Engine:
        """The first (for one database, the only) engine."""
        return self.engines[0]

    def defaulted_places(self) -> list[str]:
        """Where each engine writes whose URL left its host or database to the driver's
        defaults (``postgresql://``: libpq's socket, the OS user and a database of that
        name; ``mysql://``: localhost:3306), as the server reached says it
        (:meth:`Engine.place`): what a command says before it writes anything there."""
        places = []
        for url, engine in zip(self.urls, self.engines, strict=False):
            named = parse_url(url)
            if named.host is None or not named.database:
                where = engine.place()
                if where is not None:
                    places.append(where)
        return places

    @property
    def url(self) -> str:
        return self.urls[0]

    @property
    def journal_path(self) -> Path:
        return self._dir() / JOURNAL_FILE

    @property
    def result_path(self) -> Path:
        return self._dir() / RESULT_FILE

    def write(self, result: Result, path: Path | None = None) -> Path:
        """Write ``result`` atomically (the model's writer: never through a link)."""
        target = path or self.result_path
        config = getattr(result, "config", None)
        if isinstance(config, dict) and self.noise.noise.phases:  # its phases' host noise
            self.noise.attach(config)
        result.write(target)
        return target

    def _dir(self) -> Path:
        if self.out_dir is None:
            raise DriversError("this workload runs without a run directory")
        return self.out_dir


def open_engines(urls: Sequence[str], *, lock: bool = True, role: str = "node {k}") -> list[Engine]:
    """Open each URL and take its benchmark lock; all or nothing. An engine after the first
    that cannot be reached is named by ``role`` (``node 2 (URL) is not reachable: ...``)."""
    opened: list[Engine] = []
    try:
        for k, url in enumerate(urls, 1):
            try:
                engine = open_engine(url)
            except DriversError as exc:
                if k == 1:
                    raise
                name = role.format(k=k)
                raise DriversError(f"{name} ({redact(url)}) is not reachable: {exc}") from exc
            opened.append(engine)
            if lock:
                _lock(engine)
    except BaseException:
        for engine in opened:
            with contextlib.suppress(Exception):
                engine.close()
        raise
    return opened


class DatabaseBusy(DriversError):
    """Another workload holds the database's benchmark lock (a study stops at once)."""


#: The engines whose benchmark lock :func:`open_engines` took (each holds it until it closes).
_LOCKED: weakref.WeakSet[Engine] = weakref.WeakSet()


def _lock(engine: Engine) -> None:
    """The benchmark lock: a second workload on this database stops here, in one line."""
    try:
        engine.lock_benchmark()
    except ConnectionLostError:
        raise
    except DriversError as exc:
        raise DatabaseBusy(str(exc)) from None
    _LOCKED.add(engine)


def relock(engine: Engine) -> None:
    """After :meth:`Engine.reopen`: the benchmark lock taken again where the lifecycle had
    taken it (a server restarted for a cold pass ended the session that held it; a lock the
    session still holds is taken once more, which the engines' locks allow). Engines never
    take the lock themselves: an engine opened without it (``lock=False``) stays without."""
    if engine in _LOCKED:
        _lock(engine)


@contextlib.contextmanager
def open_run(
    urls: Sequence[str],
    *,
    out_dir: Path | None = None,
    force: bool = False,
    keep: tuple[str, ...] = (),
    lock: bool = True,
    must_exist: bool = False,
    check: Callable[[RunScope], None] | None = None,
    engines: list[Engine] | None = None,
    role: str = "node {k}",
    load_sf: float | None = None,
) -> Iterator[RunScope]:
    """The lifecycle around one workload's run (see the module's docstring).

    ``out_dir``: the run directory (prepared as :func:`prepare_run_dir` does, ``force`` and
    ``keep`` as there); None for a workload that writes none (``o2c check``). ``lock``:
    take each database's benchmark lock (False only for read-only commands). ``must_exist``:
    a database file named by a URL must exist already (nothing creates an empty one).
    ``check`` runs on the open, locked scope before the body (e.g. the space check); what it
    raises leaves nothing behind. ``engines``: engines a study opened (and locked) with an
    outer :func:`open_run` for all its steps; they are used as they are and not closed.
    ``role``: how an unreachable engine after the first is named (``{k}``: its number).
    ``load_sf``: the workload loads this scale factor: refuse it first if the database
    cannot fit its disk (:func:`drivers.space.check_space`)."""
    parsed = [parse_url(u) for u in urls]  # a malformed URL: refused before any file
    files = [path for p in parsed if (path := _database_file(p.host, p.database)) is not None]
    if must_exist:
        for path in files:
            if not path.is_file():
                raise DriversError(f"no database file {path}: load one first (dbbench load)")
    new_files = [p for p in files if not p.exists()]
    replaced = None
    marked = created = False
    parents: list[Path] = []  # folders above the run directory this start makes (runs/)
    if out_dir is not None:
        parents = [d for d in out_dir.absolute().parents if not d.exists()]
        marked = not (out_dir / MARKER_FILE).exists()
        replaced = unfinished_run(out_dir) if force else None
        created = prepare_run_dir(out_dir, force=force, keep=keep)
    owned = engines is None
    try:
        opened = open_engines(urls, lock=lock, role=role) if engines is None else engines
    except BaseException:
        _give_up(out_dir, created, marked, new_files, parents)
        raise
    scope = RunScope(list(urls), opened, out_dir, replaced)
    scope.noise = NoiseMonitor(opened[0] if opened else None, urls[0] if urls else "")
    try:
        with interrupt_on_signals():
            if check is not None or load_sf is not None:
                try:
                    if load_sf is not None:
                        for engine, url in zip(opened, urls, strict=True):
                            check_space(engine, url, load_sf)
                    if check is not None:
                        check(scope)
                except BaseException:
                    if owned:
                        _close(opened)
                    _give_up(out_dir, created, marked, new_files, parents)
                    raise
            yield scope
    finally:
        if owned:
            _close(opened)
        if out_dir is not None:
            release_run_dir(out_dir)


def _database_file(host: str | None, database: str | None) -> Path | None:
    """A URL with no host names a local database file by its database part."""
    if host is not None or not database or database == ":memory:":
        return None
    return Path(database)


#: Seconds an engine gets to close (a frozen server never answers a goodbye).
CLOSE_SECONDS = 5.0


def _close(engines: list[Engine]) -> None:
    for engine in engines:
        within(CLOSE_SECONDS, engine.close)


def _give_up(
    out_dir: Path | None,
    created: bool,
    marked: bool,
    new_files: list[Path],
    parents: Sequence[Path] = (),
) -> None:
    """Before anything ran: remove what this start made (a database file an engine
    created on opening, the run directory and the empty folders above it it made, the
    marker), and unlock the run directory."""
    for path in new_files:
        for made in (path, path.with_name(path.name + ".wal")):
            if made.is_file() and not made.is_symlink():
                with contextlib.suppress(OSError):
                    made.unlink()
    if out_dir is None:
        return
    if created:
        remove_own_files(out_dir)
        remove_if_empty(out_dir)
        for folder in parents:  # the deepest first; one that holds anything stays
            with contextlib.suppress(OSError):
                folder.rmdir()
    elif marked:
        release_run_dir(out_dir)
        with contextlib.suppress(OSError):
            (out_dir / MARKER_FILE).unlink()
    release_run_dir(out_dir)
