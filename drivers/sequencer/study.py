"""One workload run inside a study (a suite's entry, a scaling study's step).

:func:`run_step` runs any :class:`~dbbench.drivers.lifecycle.Workload` (TPC-H's today)
through the run lifecycle (:func:`drivers.lifecycle.open_run`),
keeps its directory, and returns how it ended as an :class:`Outcome` instead of exiting, so
the study goes on with the next one. A database another workload holds (``DatabaseBusy``)
or a disk too small for the load (``NoSpace``) stops the whole study, and so do Ctrl-C and
``kill`` (``KeyboardInterrupt``), after the partial result and its reports are written.
What a step needs beyond the four verbs is the protocol's optional parts: a workload that
loads at a scale factor (:class:`LoadsAtScale`) gets the space check, one that keeps a
partial result (:class:`KeepsPartial`) gets it reported when it fails or is stopped.
:func:`finished_before` is the one resume rule of suites and scaling studies.

Drivers neither draw nor render: the caller passes :class:`StudyHooks` (the CLI's progress
display and preflight warnings, the reports writer, the result reader, its one-line errors).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Literal, Protocol, TypeVar, cast

from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import DriversError, one_line
from dbbench.drivers.lifecycle import (
    DatabaseBusy,
    KeepsPartial,
    LoadsAtScale,
    RunScope,
    Workload,
    open_run,
)
from dbbench.drivers.sequencer.config import RunOptions
from dbbench.drivers.space import NoSpace
from dbbench.reports.model import RESULT_FILE
from dbbench.reports.tpch.model import BenchmarkResult

#: ok; invalid (the run has errors); failed (nothing usable)
StepStatus = Literal["ok", "invalid", "failed"]


class StepResult(Protocol):
    """What a study reads of a step's result: its errors (any: the step is invalid) and
    its writer."""

    @property
    def errors(self) -> list[str]: ...

    def write(self, path: Path) -> None: ...


W = TypeVar("W", bound=Workload)
R = TypeVar("R", bound=StepResult)


@dataclass
class Outcome(Generic[R]):
    """How one step of a study ended; ``message`` says why when it is not ``ok``."""

    status: StepStatus
    message: str = ""
    result: R | None = None


@dataclass(frozen=True)
class StudyHooks(Generic[W, R]):
    """What the caller supplies to a study's steps.

    ``shown``: the workload shown on the scope while the body runs it (the CLI, for
    TPC-H: preflight warnings and progress); ``write_reports``: a step's reports beside
    its result (called after every step, partial ones too; it must not raise for a result it
    cannot report); ``read_result``: a finished step's result (:func:`finished_before`);
    ``user_error``: the one line of an error that is the user's to fix (an unreachable
    engine, a bad URL), ``None`` for any other (it propagates).
    """

    shown: Callable[[RunScope, W], AbstractContextManager[object]]
    write_reports: Callable[[R, Path], None]
    read_result: Callable[[Path], R]
    user_error: Callable[[BaseException], str | None]


def run_step(
    url: str,
    workload: W,
    out_dir: Path,
    hooks: StudyHooks[W, R],
    *,
    engine: Engine | None = None,
    space_check: bool = False,
) -> Outcome[R]:
    """Run ``workload`` into ``out_dir`` (replaced); a failure becomes the outcome, not an
        exit. ``engine``: the study's own, already open and locked, for every step on one
        database. ``space_check``: refuse a load that cannot fit its disk (the study stops; only
    for a workload that :class:`LoadsAtScale`). The hooks read the results ``workload`` writes
    (``R``)."""
    load_sf = workload.load_sf if space_check and isinstance(workload, LoadsAtScale) else None
    with contextlib.ExitStack() as stack:
        try:
            scope = stack.enter_context(
                open_run(
                    [url],
                    out_dir=out_dir,
                    force=True,
                    engines=None if engine is None else [engine],
                    load_sf=load_sf,
                )
            )
        except (DatabaseBusy, NoSpace):
            raise  # another workload on this database, a disk too small: the study stops
        except Exception as exc:
            line = hooks.user_error(exc)
            if line is None:
                raise
            return Outcome("failed", line)
        with hooks.shown(scope, workload):
            try:
                result = cast(R, workload.run(scope))
            except (DriversError, OSError) as exc:
                partial = _partial(workload, out_dir, hooks)
                return Outcome("failed", one_line(exc), partial)
            except KeyboardInterrupt:
                _partial(workload, out_dir, hooks)
                raise
    hooks.write_reports(result, out_dir)
    if result.errors:
        return Outcome("invalid", result.errors[0], result)
    return Outcome("ok", "", result)


def _partial(workload: Workload, out_dir: Path, hooks: StudyHooks[W, R]) -> R | None:
    """The partial result of a failed or stopped step, reported (when the workload keeps one)."""
    partial = cast("R | None", workload.partial() if isinstance(workload, KeepsPartial) else None)
    if partial is not None:
        hooks.write_reports(partial, out_dir)
    return partial


def same_settings(result: BenchmarkResult, options: RunOptions) -> bool:
    """Whether ``result`` is a complete, error-free run of ``options`` (scale factor,
    streams, runs, seed, the cold and hot passes)."""
    return (
        result.status == "complete"
        and not result.errors
        and result.scale_factor == options.sf
        and result.streams == options.streams
        and result.config.get("runs") == options.runs
        and result.config.get("seed") == options.seed
        and result.config.get("repetitions", 0) == options.repetitions
        and bool(result.config.get("cold", False)) == options.cold
    )


def finished_before(
    run_dir: Path, options: RunOptions, hooks: StudyHooks[W, BenchmarkResult]
) -> bool:
    """A re-run of a study keeps a step whose result in ``run_dir`` has the same settings
    (:func:`same_settings`): the one resume rule of suites and scaling studies. A missing or
    unreadable result is not finished."""
    if not (run_dir / RESULT_FILE).is_file():
        return False
    try:
        result = hooks.read_result(run_dir)
    except Exception:
        return False
    return same_settings(result, options)
