"""How ``make test`` spreads the suite over pytest-xdist workers (``--dist loadfile``).

Two rules on top of pytest-xdist's ``loadfile``:

* **Units.** A test file is one unit of work, except in ``tests/engines/``, where the tests of
  one engine (every file's ``[engine]`` parametrisation) are one unit: an engine is started
  and loaded once per worker (``engines/conftest.py``'s pool), so keeping an engine's tests
  together keeps that cost single, while different engines — Spark's cluster of JVMs among
  them — run on different workers at once.
* **Longest first.** Units are handed out longest first (by ``durations.json``, seconds a unit
  took in a measured run; unknown units count half a second a test), so that no long unit
  starts last and runs alone while the other workers are idle.

``python tests/xdist_schedule.py JUNIT.xml`` rewrites ``durations.json`` from a run's JUnit
report (``pytest --junitxml``); ``--cpu JUNIT.xml`` prints each unit's CPU seconds instead
(the ``cpu_seconds`` property ``tests/conftest.py`` records per test: the cost of a unit on a
busy machine, where its wall seconds also count the tests it shared the CPUs with), and
beside it the shared servers' (``server_cpu_seconds``, with ``DBBENCH_TEST_SERVER_CPU=1``).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DURATIONS = HERE / "durations.json"
ENGINES = "tests/engines/"
#: seconds assumed for a test of a unit durations.json does not know
UNKNOWN_TEST_SECONDS = 0.5
_ENGINE_NAMES = sorted(
    (p.stem.removeprefix("conf_") for p in (HERE / "engines").glob("conf_*.py")),
    key=len,
    reverse=True,
)


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its file, or ``tests/engines[engine]``."""
    path = nodeid.split("::", 1)[0]
    if not path.startswith(ENGINES):
        return path
    params = re.search(r"\[([^\]]*)\]$", nodeid)
    if params:
        tokens = params.group(1).split("-")
        engine = next((t for t in tokens if t in _ENGINE_NAMES), None)
        if engine:
            return f"{ENGINES.rstrip('/')}[{engine}]"
    return path


def _known() -> dict[str, float]:
    try:
        data = json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def cost(unit: str, tests: int, known: dict[str, float]) -> float:
    """Seconds a unit is expected to take."""
    return known.get(unit, UNKNOWN_TEST_SECONDS * tests)


def make_scheduler(config: Any, log: Any) -> Any:
    from xdist.scheduler import LoadFileScheduling

    known = _known()

    class UnitScheduling(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            longest = max(self.workqueue, key=lambda u: cost(u, len(self.workqueue[u]), known))
            self.workqueue.move_to_end(longest, last=False)
            super()._assign_work_unit(node)

    return UnitScheduling(config, log)


def durations_from_junit(junit: Path, cpu: str = "") -> dict[str, float]:
    """Seconds per unit of a JUnit report: wall (``time``), or the tests' properties named
    ``cpu`` (``cpu_seconds``, ``server_cpu_seconds``)."""
    import xml.etree.ElementTree as ET

    seconds: Counter[str] = Counter()
    for case in ET.parse(junit).getroot().iter("testcase"):
        path = (case.get("classname") or "").replace(".", "/") + ".py"
        if cpu:
            spent = sum(
                float(p.get("value") or 0) for p in case.iter("property") if p.get("name") == cpu
            )
        else:
            spent = float(case.get("time") or 0)
        seconds[unit_of(f"{path}::{case.get('name', '')}")] += spent
    return {unit: round(s, 1) for unit, s in seconds.most_common()}


if __name__ == "__main__":
    if sys.argv[1] == "--cpu":
        units = durations_from_junit(Path(sys.argv[2]), cpu="cpu_seconds")
        servers = durations_from_junit(Path(sys.argv[2]), cpu="server_cpu_seconds")
        print("     CPU  servers  unit")
        for unit, spent in units.items():
            print(f"{spent:8.1f} {servers.get(unit, 0.0):8.1f}  {unit}")
        print(f"{sum(units.values()):8.1f} {sum(servers.values()):8.1f}  CPU seconds in all")
    else:
        DURATIONS.write_text(json.dumps(durations_from_junit(Path(sys.argv[1])), indent=1) + "\n")
        print(f"wrote {DURATIONS.name}")
