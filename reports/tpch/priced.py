"""Priced against measured: a cost sheet prices one configuration, and a result is priced
honestly only when it was measured on that configuration. Where the sheet's ``[priced]``
CPUs or memory differ from the system the run captured, every format warns and the result
is not compliant (reason ``priced-differs``)."""

from __future__ import annotations

import re
from decimal import Decimal

from dbbench.reports.model import SystemInfo
from dbbench.reports.tpch.costsheet import CostSheet

GIB = Decimal(2**30)
MEMORY_TOLERANCE = Decimal("0.10")  # the OS and firmware keep some memory: 10 % is the same


_CPUS = re.compile(r"(\d+)\s*v?CPUs?\b", re.I)


def priced_cpus(sheet: CostSheet) -> int | None:
    """``[priced] cpus``, else the largest "8 vCPU" the sheet's system or items name."""
    if sheet.cpus is not None:
        return sheet.cpus
    text = " ".join([sheet.system, *(i.description for i in sheet.items)])
    found = [int(n) for n in _CPUS.findall(text)]
    return max(found) if found else None


def mismatches(system: SystemInfo, sheet: CostSheet) -> list[str]:
    """One sentence per priced resource that differs from the captured system."""
    out = []
    measured_cpus = system.threads or system.cores
    cpus = priced_cpus(sheet)
    if cpus is not None and measured_cpus and cpus != measured_cpus:
        out.append(f"the cost sheet prices {cpus} CPUs, the run was measured on {measured_cpus}")
    if sheet.memory_gib is not None and system.memory_bytes:
        gib = Decimal(system.memory_bytes) / GIB
        if abs(sheet.memory_gib - gib) > MEMORY_TOLERANCE * max(gib, sheet.memory_gib):
            out.append(
                f"the cost sheet prices {sheet.memory_gib:g} GiB of memory, the run was "
                f"measured with {gib:.1f} GiB"
            )
    return out
