"""What the run was measured on: the machine and the engine, captured once per run.

Timings without their environment are worth little (STYLE.md). Everything is read from
``/proc`` and ``/sys`` where Linux offers it and degrades to "unknown" (empty or ``None``)
elsewhere: a missing file never stops a benchmark.
"""

from __future__ import annotations

import os
import platform
import socket
import sys
from pathlib import Path
from typing import Any

from dbbench.drivers.engine import Engine
from dbbench.drivers.url import redact
from dbbench.reports.model import EngineInfo, SystemInfo, kit_version

_PROC = Path("/proc")
_SYS_BLOCK = Path("/sys/block")
_VIRTUAL_BLOCK = ("loop", "ram", "zram", "dm-", "sr", "nbd", "md")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _cpu(cpuinfo: str) -> tuple[str, int | None, int | None, int | None]:
    """Model, chips (sockets), cores and hardware threads from ``/proc/cpuinfo`` text."""
    model = ""
    chips: set[str] = set()
    cores: set[tuple[str, str]] = set()
    threads = 0
    physical = core = ""
    for line in [*cpuinfo.splitlines(), ""]:
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "processor":
            threads += 1
        elif key == "model name" and not model:
            model = value
        elif key == "physical id":
            physical = value
            chips.add(value)
        elif key == "core id":
            core = value
        elif not key:  # end of one processor block
            if core:
                cores.add((physical, core))
            physical = core = ""
    return (
        model or platform.processor(),
        len(chips) or None,
        len(cores) or None,
        threads or os.cpu_count(),
    )


def _memory_bytes(meminfo: str) -> int | None:
    for line in meminfo.splitlines():
        if line.startswith("MemTotal:"):
            fields = line.split()
            if len(fields) >= 2 and fields[1].isdigit():
                return int(fields[1]) * 1024
    return None


def _os_name() -> str:
    for line in _read(Path("/etc/os-release")).splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.partition("=")[2].strip().strip('"')
    return f"{platform.system()} {platform.release()}".strip()


def storage_devices(root: Path = _SYS_BLOCK) -> list[dict[str, Any]]:
    """Physical block devices: name, size in bytes, rotational or not, model when known."""
    devices: list[dict[str, Any]] = []
    if not root.is_dir():
        return devices
    for dev in sorted(root.iterdir()):
        if dev.name.startswith(_VIRTUAL_BLOCK):
            continue
        sectors = _read(dev / "size").strip()
        rotational = _read(dev / "queue" / "rotational").strip()
        devices.append(
            {
                "name": dev.name,
                "bytes": int(sectors) * 512 if sectors.isdigit() else None,
                "rotational": rotational == "1" if rotational else None,
                "model": _read(dev / "device" / "model").strip(),
            }
        )
    return devices


def system_info() -> SystemInfo:
    """The machine as far as it can be seen from this process."""
    model, chips, cores, threads = _cpu(_read(_PROC / "cpuinfo"))
    return SystemInfo(
        hostname=socket.gethostname(),
        cpu_model=model,
        chips=chips,
        cores=cores,
        threads=threads,
        memory_bytes=_memory_bytes(_read(_PROC / "meminfo")),
        os=_os_name(),
        kernel=platform.release(),
        python=f"{platform.python_implementation()} {sys.version.split()[0]}",
        dbbench_version=kit_version(),
        storage=storage_devices(),
    )


def engine_info(engine: Engine, url: str) -> EngineInfo:
    """The engine's identity and settings; a failing probe leaves its field empty."""
    info = EngineInfo(name=engine.name, url=redact(url), dialect=engine.dialect)
    try:
        info.version = engine.version()
    except Exception as exc:  # disclosure must never stop a run
        info.version = f"unknown ({type(exc).__name__})"
    try:
        info.settings = {k: str(v) for k, v in engine.settings().items()}
    except Exception:  # same: an engine without a settings view
        info.settings = {}
    if engine.capabilities.storage_size:
        try:
            info.storage_bytes = engine.storage_bytes()
        except Exception:  # same
            info.storage_bytes = None
    return info
