"""``dbbench acid``'s workload through the one run lifecycle: the qualification database
(loaded as ``run`` loads it, or reused when dbbench loaded it at this SF), the HISTORY
table (dropped at the end, Ctrl-C included), the tests, the result written atomically."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from dbbench.drivers.acid.checks import Checks
from dbbench.drivers.acid.durability import CRASH, Failure, commands, embedded, run_durability
from dbbench.drivers.acid.restore import restore
from dbbench.drivers.acid.transaction import HISTORY_DDL
from dbbench.drivers.engine import STATE_SCALE_FACTOR, Engine
from dbbench.drivers.errors import DriversError
from dbbench.drivers.lifecycle import open_run
from dbbench.drivers.loader import load_database
from dbbench.drivers.registry import open_engine
from dbbench.drivers.sysinfo import engine_info, system_info
from dbbench.drivers.url import parse_url
from dbbench.reports.acid.model import QUALIFICATION_SF, AcidCheck, AcidResult
from dbbench.reports.model import kit_version

NOT_EXERCISED = [
    "loss of a durable medium (data or log)",
    CRASH,
    "loss of memory",
    "loss of power",
]


def choose_failure(url: str, kill: str = "", restart: str = "") -> Failure | str:
    """The crash the kit can cause on this engine, or why it cannot (a phrase)."""
    parsed = parse_url(url)
    if kill or restart:
        if not (kill and restart):
            raise DriversError("durability: give both --kill and --restart, or neither")
        return commands(parsed.scheme, kill, restart)
    if parsed.host is None and parsed.database not in (None, "", ":memory:"):
        return embedded()
    if parsed.host is None:
        return "an in-memory database does not survive its process: give a file URL"
    return "the kit cannot crash a server it did not start: give --kill and --restart"


def _loaded_at(engine: Engine, sf: float) -> bool:
    """dbbench loaded this database at ``sf`` (its state says ``1`` for SF 1.0)."""
    try:
        return math.isclose(float(engine.read_state()[STATE_SCALE_FACTOR]), sf, rel_tol=1e-9)
    except (KeyError, ValueError):
        return False


def _setup(engine: Engine) -> list[int]:
    """HISTORY created; the order keys the tests draw from (the first 20,000)."""
    admin = engine.session()
    try:
        admin.execute(HISTORY_DDL)
        rows = admin.query("SELECT o_orderkey FROM orders WHERE o_orderkey <= 20000").rows
    finally:
        admin.close()
    return [int(r[0]) for r in rows]


def run_acid(
    url: str,
    sf: float,
    out_dir: Path,
    *,
    streams: int = 2,
    per_stream: int = 100,
    kill: str = "",
    restart: str = "",
    progress: Callable[[str], None] | None = None,
) -> AcidResult:
    """The tests on ``url`` (``progress``: told each test's name as it starts); the
    database is left as it was: HISTORY dropped and every changed row restored, after
    Ctrl-C too, or the result's errors say what was not."""
    failure = choose_failure(url, kill, restart)

    def say(line: str) -> None:
        if progress is not None:
            progress(line)

    def step(result: AcidResult, name: str, test: Callable[[], AcidCheck]) -> None:
        say(name)
        result.checks.append(test())

    with open_run([url], out_dir=out_dir) as scope:
        engine = scope.engine
        result = AcidResult(
            engine=engine_info(engine, url),
            system=system_info(),
            kit_version=kit_version(),
            scale_factor=sf,
            created=time.time(),
            qualification=sf >= QUALIFICATION_SF,
            streams=streams,
            transactions_per_stream=per_stream,
            failures_not_exercised=list(NOT_EXERCISED),
            config={"scale_factor": sf, "streams": streams, "per_stream": per_stream},
        )
        if not engine.facts.transactional:
            result.not_supported = f"{engine.name} has no multi-statement transactions"
            result.status = "complete"
            scope.write(result)
            return result
        if not _loaded_at(engine, sf):
            load_database(engine, sf)
        left = restore(engine)  # a HISTORY an earlier interrupted run could not undo
        if left:
            raise DriversError(f"the database holds changes of an earlier acid run: {left[0]}")
        reopen = False  # the durability test closed the engine and had not reopened it
        try:
            orders = _setup(engine)
            checks = Checks(engine, orders, progress=say)
            step(result, "atomicity-commit", lambda: checks.atomicity(commit=True))
            step(result, "atomicity-rollback", lambda: checks.atomicity(commit=False))
            step(result, "consistency", lambda: checks.consistency(streams + 1, per_stream))
            for number in (1, 2, 3, 4, 5, 6):
                step(result, f"isolation-{number}", partial(checks.isolation, number))
            if isinstance(failure, str):
                result.skipped["durability"] = failure
            else:
                say("durability")
                reopen = True
                check, scope.engines[0] = run_durability(
                    url, engine, orders, checks.rng.sample(orders, min(10, len(orders))),
                    streams=streams + 1, per_stream=per_stream, failure=failure,
                )  # fmt: skip
                reopen = False
                result.checks.append(check)
                if check.verdict == "passed":
                    result.failures_exercised[CRASH] = failure.how
                    result.failures_not_exercised.remove(CRASH)
            result.status = "complete"
        except KeyboardInterrupt:
            result.status = "partial"
            result.errors.append("interrupted")
            raise
        finally:
            try:
                if reopen:
                    scope.engines[0] = open_engine(url)
                problems = restore(scope.engines[0])
            except Exception as exc:  # said in the result and on stderr
                problems = [f"the changed rows were not restored: {exc}"]
            result.errors.extend(f"cleanup: {p}" for p in problems)
            for p in problems:
                say(f"cleanup: {p}")
            with contextlib.suppress(Exception):
                scope.write(result)
        return result
