"""``dbbench verify``: does a result's every stated figure follow from its own measurements?

A result is read through the family registry (schema-checked as ``report`` does), then its
figures are recomputed from what it recorded:

- TPC-H: every interval's time against its own start and end, QphH, Power and Throughput from
  the intervals (:func:`reports.tpch.summary.build_report`), and the compliance verdict re-judged
  (:func:`reports.tpch.compliance.judge`) against the one stored;
- o2c: the status against the probes', dialog steps/h and the average response time of the
  result from the raw steps (:func:`reports.o2c.metrics.summarize_result`);
- HammerDB: NOPM and TPM present for a complete TPROC-C job, NOPM not above TPM; a TPROC-H
  job's query times present and its geometric mean near the one HammerDB printed.

Stated figures come from the result itself, from a site manifest (the figures and the content
hash the site recorded) and from a ``.sha256`` file next to the result. Each disagreement is a
:class:`Problem` naming the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbbench.reports.errors import ReportsError
from dbbench.reports.families import read_result
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.model import read_json
from dbbench.reports.o2c.model import O2CResult, o2c_status
from dbbench.reports.provenance import Provenance, provenance_of, result_file, sidecar_hash
from dbbench.reports.tpch.analysis import RunSummary, summarise_run
from dbbench.reports.tpch.compliance import evaluate
from dbbench.reports.tpch.journal_check import journal_problems
from dbbench.reports.tpch.metrics import lower_qphh
from dbbench.reports.tpch.model import NOT_EVALUATED, BenchmarkResult

MANIFEST_SCHEMA = "dbbench-site-manifest"
#: relative tolerance of a recomputed figure against a stated one
REL_TOL = 1e-6
#: an interval's measured seconds (monotonic clock) may differ from its wall-clock span by
#: this much plus 1 % (clock steps, the wall clock's resolution)
CLOCK_SLACK = 0.5
#: HammerDB prints its geometric mean rounded; the recomputed one must be within 5 %
GEOMEAN_TOL = 0.05


@dataclass(frozen=True)
class Problem:
    field: str
    message: str


@dataclass
class Verdict:
    """What ``verify`` found of one result."""

    path: Path
    family: str = ""
    provenance: Provenance | None = None
    figures: dict[str, float | int | str | bool | None] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    result: Any = None
    runs: list[RunSummary] = field(default_factory=list)  # TPC-H: each run's summary

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        return [f"{self.path}: {p.field}: {p.message}" for p in self.problems]


def reported_run(runs: list[RunSummary]) -> RunSummary | None:
    """The run whose figures are reported (the lower QphH, as
    :func:`reports.tpch.summary.build_report` picks it); None when a run has none."""
    if not runs or any(r.qphh is None for r in runs):
        return None
    return lower_qphh(runs, lambda r: r.qphh or 0.0)


def tpch_figures(
    result: BenchmarkResult, runs: list[RunSummary] | None = None
) -> dict[str, float | int | str | bool | None]:
    """QphH, Power and Throughput of the reported run (``build_report``'s headline, without
    its redacted copy of the result)."""
    runs = runs if runs is not None else summaries(result)
    best = reported_run(runs)
    if best is None:
        return {"qphh": None, "power": None, "throughput": None}
    return {"qphh": best.qphh, "power": best.power, "throughput": best.throughput}


def summaries(result: BenchmarkResult) -> list[RunSummary]:
    return [summarise_run(run, result.scale_factor) for run in result.runs]


def o2c_figures(result: O2CResult) -> dict[str, float | int | str | bool | None]:
    from dbbench.reports.o2c.metrics import summarize_result

    best = summarize_result(result).best
    if best is None:
        return {"users": None, "steps_per_hour": None, "avg_rt": None}
    return {"users": best.users, "steps_per_hour": best.steps_per_hour, "avg_rt": best.avg_rt}


def hammerdb_figures(result: HammerDBResult) -> dict[str, float | int | str | bool | None]:
    return {"nopm": result.nopm, "tpm": result.tpm, "geomean_seconds": result.geomean_seconds}


def figures_of(result: Any) -> dict[str, float | int | str | bool | None]:
    """The headline figures of a result, recomputed from its measurements (a figure that
    is not a finite number is None)."""
    if isinstance(result, BenchmarkResult):
        found = tpch_figures(result)
    elif isinstance(result, O2CResult):
        found = o2c_figures(result)
    elif isinstance(result, HammerDBResult):
        found = hammerdb_figures(result)
    else:
        return {}
    return _finite(found)


def _finite(
    found: dict[str, float | int | str | bool | None],
) -> dict[str, float | int | str | bool | None]:
    return {
        k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in found.items()
    }


def _tpch_problems(result: BenchmarkResult, runs: list[RunSummary]) -> list[Problem]:
    out: list[Problem] = []
    for r, run in enumerate(result.runs):
        for i, iv in enumerate(run.intervals):
            if iv.status != "ok":
                continue
            span = iv.end - iv.start
            if not math.isfinite(iv.seconds) or abs(iv.seconds - span) > CLOCK_SLACK + 0.01 * max(
                abs(span), abs(iv.seconds)
            ):
                out.append(
                    Problem(
                        f"runs[{r}].intervals[{i}].seconds",
                        f"{iv.seconds:g} s stated, but it ran from {iv.start:.3f} to "
                        f"{iv.end:.3f} ({span:g} s)",
                    )
                )
    stored = result.compliance
    if NOT_EVALUATED not in stored.codes and "v1-text" not in stored.codes:
        judged = evaluate(result, runs)  # reports.tpch.compliance.judge, the summaries reused
        if judged.compliant != stored.compliant:
            out.append(
                Problem(
                    "compliance.compliant",
                    f"stated {stored.compliant}, but the measurements judge {judged.compliant}"
                    + (f" ({', '.join(judged.codes)})" if judged.codes else ""),
                )
            )
        elif sorted(judged.codes) != sorted(stored.codes):
            out.append(
                Problem(
                    "compliance.reasons",
                    f"stated {', '.join(stored.codes) or 'none'}, "
                    f"re-judged {', '.join(judged.codes) or 'none'}",
                )
            )
    return out


def _o2c_problems(result: O2CResult) -> list[Problem]:
    derived = o2c_status(result.probes)
    if result.status != derived:
        return [Problem("status", f"stated {result.status!r}, its probes make it {derived!r}")]
    return []


def _hammerdb_problems(result: HammerDBResult) -> list[Problem]:
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


def _differs(stated: Any, computed: Any) -> bool:
    if stated is None or computed is None:
        return stated is not computed
    if isinstance(stated, int | float) and isinstance(computed, int | float):
        return not math.isclose(float(stated), float(computed), rel_tol=REL_TOL, abs_tol=1e-9)
    return bool(stated != computed)


def _stated_figures(verdict: Verdict, stated: dict[str, Any]) -> None:
    for name, value in stated.items():
        if name not in verdict.figures:
            continue
        computed = verdict.figures[name]
        if _differs(value, computed):
            verdict.problems.append(
                Problem(name, f"stated {value!r}, the measurements make {computed!r}")
            )


@dataclass(frozen=True)
class ManifestEntry:
    hash: str
    figures: dict[str, Any]


def read_manifest(path: Path) -> dict[str, ManifestEntry]:
    """A site manifest's entries by file name (the site's copy and the input's name)."""
    try:
        data = read_json(path)
    except (OSError, ValueError) as exc:
        raise ReportsError(f"{path}: not a site manifest ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA:
        raise ReportsError(f"{path}: not a site manifest of dbbench")
    out: dict[str, ManifestEntry] = {}
    for entry in data.get("results", []):
        if not isinstance(entry, dict) or not isinstance(entry.get("hash"), str):
            raise ReportsError(f"{path}: a manifest entry without a hash")
        figures = entry.get("figures") if isinstance(entry.get("figures"), dict) else {}
        item = ManifestEntry(entry["hash"], figures or {})
        for key in ("file", "source"):
            if isinstance(entry.get(key), str):
                out[Path(entry[key]).name] = item
    return out


def verify(
    path: Path,
    manifest: dict[str, ManifestEntry] | None = None,
    expected_hash: str | None = None,
) -> Verdict:
    """The verdict of one result file or run directory (never raises for bad input: a file
    that cannot be read is a verdict with one problem, ``file``)."""
    verdict = Verdict(path)
    try:
        family, result, _ = read_result(path)
        file = result_file(path)
        data = read_json(file)
    except ReportsError as exc:
        verdict.problems.append(Problem("file", str(exc).removeprefix(f"{path}: ")))
        return verdict
    except (OSError, ValueError) as exc:
        verdict.problems.append(Problem("file", str(exc)))
        return verdict
    return verify_loaded(verdict, family.name, file, data, result, manifest, expected_hash)


def verify_loaded(
    verdict: Verdict,
    family: str,
    file: Path | None,
    data: Any,
    result: Any,
    manifest: dict[str, ManifestEntry] | None = None,
    expected_hash: str | None = None,
) -> Verdict:
    """:func:`verify` of a result read already (``data``: its parsed file; ``file`` None:
    rebuilt from a journal, hashed as rebuilt)."""
    verdict.family, verdict.result = family, result
    verdict.provenance = provenance_of(data if data is not None else result.to_dict())
    digest = verdict.provenance.hash
    stated_hashes: list[tuple[str, str | None]] = [("hash", expected_hash)]
    if file is not None:
        try:
            stated_hashes.insert(0, ("sha256", sidecar_hash(file)))
        except (OSError, ValueError) as exc:
            verdict.problems.append(Problem("sha256", str(exc)))
    name = file.name if file is not None else verdict.path.name
    entry = manifest.get(name) if manifest is not None else None
    if manifest is not None and entry is None:
        verdict.problems.append(Problem("manifest", f"{name} is not in the manifest"))
    if entry is not None:
        stated_hashes.append(("manifest.hash", entry.hash))
    for what, stated in stated_hashes:
        if stated is not None and stated.lower() != digest:
            verdict.problems.append(
                Problem(what, f"stated {stated[:16]}..., the content hashes to {digest[:16]}...")
            )
    try:
        if isinstance(result, BenchmarkResult):
            verdict.runs = summaries(result)
            verdict.figures = _finite(tpch_figures(result, verdict.runs))
            verdict.problems.extend(_tpch_problems(result, verdict.runs))
            run_dir = verdict.path if verdict.path.is_dir() else verdict.path.parent
            named = {p.field for p in verdict.problems}  # one line per field: the file's own first
            verdict.problems.extend(
                Problem(f, m) for f, m in journal_problems(result, run_dir) if f not in named
            )
        else:
            verdict.figures = figures_of(result)
            if isinstance(result, O2CResult):
                verdict.problems.extend(_o2c_problems(result))
            elif isinstance(result, HammerDBResult):
                verdict.problems.extend(_hammerdb_problems(result))
    except (ValueError, TypeError, ArithmeticError, KeyError) as exc:
        verdict.problems.append(Problem("measurements", f"cannot be recomputed: {exc}"))
    if entry is not None:
        _stated_figures(verdict, entry.figures)
    return verdict
