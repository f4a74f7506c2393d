"""Host noise in every result family: the lifecycle's one monitor (``scope.noise``) sees the
CPU of processes other than the kit and the engine, a result records it per phase, and a busy
host is labelled in every format of every family (o2c, mixed, HammerDB) by the one judge that
TPC-H's report uses too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reports_fixtures import FAMILY_GOLDEN

from dbbench.drivers.lifecycle import open_run
from dbbench.reports.families import read_result
from dbbench.reports.model import EMBEDDED, NOISE_KEY
from dbbench.reports.model.hostnoise import HostNoise, NoisePhase, recorded

BURN = "import time\nend = time.time() + {s}\nwhile time.time() < end: pass\n"


def _detached_burners(n: int, seconds: float) -> None:
    """``n`` CPU burners outside this process's tree (their parent exits at once)."""
    code = (
        "import subprocess, sys\n"
        f"for _ in range({n}): subprocess.Popen([sys.executable, '-c', {BURN.format(s=seconds)!r}],"
        " start_new_session=True)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_monitor_tells_other_processes_from_the_kit(tmp_path: Path) -> None:
    with open_run([f"duckdb:///{tmp_path / 'x.duckdb'}"]) as scope:
        config = scope.noise.attach({})
        assert scope.noise.counting == EMBEDDED
        with scope.noise.phase("others burn"):
            _detached_burners(os.cpu_count() or 2, 2.0)
            time.sleep(2.2)
        with scope.noise.phase("the kit burns"):
            end = time.time() + 1.0
            while time.time() < end:
                pass
    noise = recorded(config)
    assert noise is not None and [p.phase for p in noise.phases] == ["others burn", "the kit burns"]
    others, kit = noise.phases
    assert others.other is not None and others.other > 10.0, others  # burners, not the kit
    assert others.kit is not None and others.kit < others.other
    assert kit.kit is not None and kit.kit > 5.0, kit  # the kit's own CPU is never "other"
    assert others.load_max is not None and others.steal is not None
    assert config[NOISE_KEY]["cores"] == noise.cores > 0


def _busy(config: dict[str, object]) -> None:
    noise = HostNoise(2, EMBEDDED, [NoisePhase("20 users", 1.0, 61.0, 9.0, 95.0, 20.0, 0.0, 0.0)])
    config[NOISE_KEY] = noise.plain()


@pytest.mark.parametrize("golden", ["o2c-v2.json", "mixed-v1.json", "hammerdb-v1.json"])
def test_a_busy_host_is_labelled_in_every_format_of_every_family(
    golden: str, tmp_path: Path
) -> None:
    data = json.loads((FAMILY_GOLDEN / golden).read_text(encoding="utf-8"))
    path = tmp_path / "result.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    family, quiet, _ = read_result(path)
    for fmt in family.formats():
        assert "HOST BUSY" not in family.render(quiet, fmt), fmt
    _busy(data.setdefault("config", {}))
    path.write_text(json.dumps(data), encoding="utf-8")
    family, result, _ = read_result(path)
    for fmt in family.formats():
        out = family.render(result, fmt)
        assert "HOST BUSY: host busy during 20 users: load average 9.0 above its 2 CPUs" in out
        assert "75 % of the CPU used by other processes" in out, fmt
        assert "Host noise" in out, fmt


@pytest.mark.parametrize("golden", ["o2c-v2.json", "mixed-v1.json", "hammerdb-v1.json"])
def test_a_busy_host_is_said_in_compare_too(
    golden: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from studies_helpers import dbbench

    data = json.loads((FAMILY_GOLDEN / golden).read_text(encoding="utf-8"))
    (tmp_path / "quiet.json").write_text(json.dumps(data), encoding="utf-8")
    _busy(data.setdefault("config", {}))
    data["created"] = data.get("created", 0) + 1
    (tmp_path / "busy.json").write_text(json.dumps(data), encoding="utf-8")
    for fmt in ("text", "md", "html"):
        args = [str(tmp_path / "quiet.json"), str(tmp_path / "busy.json"), "-f", fmt]
        assert dbbench("compare", *args) == 0, fmt
        out = capsys.readouterr().out
        assert "host busy during 20 users: load average 9.0" in out, fmt
        assert out.count("load average 9.0") == 1, fmt  # the busy one only, once


def test_a_load_average_of_the_runs_own_threads_is_not_a_busy_host() -> None:
    """An o2c search on an idle 2-core VM: load average 11.8 from its own driver processes
    and server backends, 3.5 % of the CPU other work: not busy. The same load average with
    the other processes' CPU not measured (a server engine not told apart), or beside 12 % of
    it, is; other CPU over its limit is busy whatever the load average."""
    own = NoisePhase("19,200 users", 1.0, 471.0, 11.8, 83.9, 44.8, 35.6, 0.8)
    assert own.other is not None and own.other < 5
    assert HostNoise(2, "postgres", [own]).busy() == []
    unknown = NoisePhase("19,200 users", 1.0, 471.0, 11.8, 83.9, 44.8, None, 0.8, False)
    (reason, why) = HostNoise(2, "postgres", [unknown]).busy()
    assert reason == "host busy during 19,200 users: load average 11.8 above its 2 CPUs"
    assert "not attributable" in why
    shared = NoisePhase("19,200 users", 1.0, 471.0, 11.8, 90.0, 44.8, 33.2, 0.0)
    assert HostNoise(2, "postgres", [shared]).busy() == [
        "host busy during 19,200 users: load average 11.8 above its 2 CPUs"
    ]
    calm_load = NoisePhase("20 users", 1.0, 61.0, 1.0, 95.0, 20.0, 0.0, 0.0)
    (only,) = HostNoise(2, EMBEDDED, [calm_load]).busy()
    assert "75 % of the CPU used by other processes" in only
