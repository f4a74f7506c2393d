"""What ``verify`` recomputes of a HammerDB result: NOPM and TPM present for a complete
TPROC-C job, NOPM not above TPM; a TPROC-H job's query times present and its geometric mean
near the one HammerDB printed."""

from __future__ import annotations

import math

from dbbench.reports.family import Checked, FigureValue, Problem
from dbbench.reports.hammerdb.model import HammerDBResult

#: HammerDB prints its geometric mean rounded; the recomputed one must be within 5 %
GEOMEAN_TOL = 0.05


def hammerdb_figures(result: HammerDBResult) -> dict[str, FigureValue]:
    return {"nopm": result.nopm, "tpm": result.tpm, "geomean_seconds": result.geomean_seconds}


def hammerdb_problems(result: HammerDBResult) -> list[Problem]:
    out: list[Problem] = []
    if result.benchmark == "TPROC-C" and result.status == "complete":
        for name in ("nopm", "tpm"):
            value = getattr(result, name)
            if value is None or not value > 0:
                out.append(Problem(name, f"a complete TPROC-C job without a positive {name}"))
        if result.nopm is not None and result.tpm is not None and result.nopm > result.tpm:
            out.append(Problem("nopm", f"{result.nopm:g} new orders/min exceed {result.tpm:g} TPM"))
    if result.benchmark == "TPROC-H" and result.status == "complete":
        if not result.query_times:
            out.append(Problem("query_times", "a complete TPROC-H job without query times"))
        elif result.geomean_seconds is not None:
            first = [
                q.seconds
                for q in result.query_times
                if q.vu == result.query_times[0].vu and q.query_set == 1 and q.seconds > 0
            ]
            if first:
                mean = math.exp(sum(math.log(s) for s in first) / len(first))
                if abs(mean - result.geomean_seconds) > GEOMEAN_TOL * mean:
                    out.append(
                        Problem(
                            "geomean_seconds",
                            f"stated {result.geomean_seconds:g} s, the query times make "
                            f"{mean:.4g} s",
                        )
                    )
    return out


def check(result: HammerDBResult) -> Checked:
    return Checked(hammerdb_figures(result), hammerdb_problems(result))
