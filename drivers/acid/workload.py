"""``dbbench acid``'s workload through the one run lifecycle: the qualification database
(loaded as ``run`` loads it, or reused when dbbench loaded it at this SF), the HISTORY
table (dropped at the end, Ctrl-C included), the tests, the result written atomically."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from dbbench.drivers.acid.checks import Checks
from dbbench.drivers.acid.transaction import HISTORY, HISTORY_DDL
from dbbench.drivers.engine import STATE_SCALE_FACTOR
from dbbench.drivers.errors import DriversError
from dbbench.drivers.lifecycle import open_run
from dbbench.drivers.loader import load_database
from dbbench.drivers.sysinfo import engine_info, system_info
from dbbench.reports.acid.model import AcidResult
from dbbench.reports.model import kit_version

NOT_EXERCISED = [
    "loss of a durable medium (data or log)",
    "system crash (process or server killed)",
    "loss of memory",
    "loss of power",
]


def run_acid(
    url: str, sf: float, out_dir: Path, *, streams: int = 2, per_stream: int = 100
) -> AcidResult:
    with open_run([url], out_dir=out_dir) as scope:
        engine = scope.engine
        result = AcidResult(
            engine=engine_info(engine, url),
            system=system_info(),
            kit_version=kit_version(),
            scale_factor=sf,
            created=time.time(),
            qualification=sf >= 1,
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
        if engine.read_state().get(STATE_SCALE_FACTOR) != str(sf):
            load_database(engine, sf)
        admin = engine.session()
        try:
            with contextlib.suppress(DriversError):
                admin.execute(f"DROP TABLE {HISTORY}")
            admin.execute(HISTORY_DDL)
            top = int(admin.query("SELECT MAX(o_orderkey) FROM orders").rows[0][0])
            orders = [
                int(r[0])
                for r in admin.query(
                    f"SELECT o_orderkey FROM orders WHERE o_orderkey <= {min(top, 20000)}"
                ).rows
            ]
            checks = Checks(engine, orders)
            result.checks.append(checks.atomicity(commit=True))
            result.checks.append(checks.atomicity(commit=False))
            result.checks.append(checks.consistency(streams + 1, per_stream))
            for number in (1, 2, 3, 4, 5):
                result.checks.append(checks.isolation(number))
            result.status = "complete"
        except KeyboardInterrupt:
            result.status = "partial"
            result.errors.append("interrupted")
            raise
        finally:
            with contextlib.suppress(DriversError):
                admin.execute(f"DROP TABLE {HISTORY}")
            admin.close()
            with contextlib.suppress(Exception):
                scope.write(result)
        return result
