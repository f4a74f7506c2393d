"""``dbbench verify``: does a result's every stated figure follow from its own measurements?

A result is read through the family registry (schema-checked as ``report`` does), then its
family's check (``Family.verify``, e.g. :mod:`reports.tpch.verify`, :mod:`reports.o2c.verify`,
:mod:`reports.hammerdb.verify`, :mod:`reports.mixed.verify`) recomputes its headline figures
from what it recorded and says where the result disagrees with them.

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
from dbbench.reports.families import family_of, read_result
from dbbench.reports.family import Checked, FigureValue, Problem
from dbbench.reports.model import read_json
from dbbench.reports.provenance import Provenance, provenance_of, result_file, sidecar_hash
from dbbench.reports.tpch.analysis import RunSummary
from dbbench.reports.tpch.journal_check import journal_problems
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.verify import reported_run as reported_run
from dbbench.reports.tpch.verify import summaries as summaries
from dbbench.reports.tpch.verify import tpch_figures as tpch_figures

__all__ = ["Problem", "Verdict", "figures_of", "read_manifest", "verify", "verify_loaded"]

MANIFEST_SCHEMA = "dbbench-site-manifest"
#: relative tolerance of a recomputed figure against a stated one
REL_TOL = 1e-6


@dataclass
class Verdict:
    """What ``verify`` found of one result."""

    path: Path
    family: str = ""
    provenance: Provenance | None = None
    figures: dict[str, FigureValue] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    result: Any = None
    runs: list[RunSummary] = field(default_factory=list)  # TPC-H: each run's summary
    checked: Checked = field(default_factory=Checked)  # what its family recomputed

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        return [f"{self.path}: {p.field}: {p.message}" for p in self.problems]


def figures_of(result: Any) -> dict[str, FigureValue]:
    """The headline figures of a result, recomputed from its measurements by its family (a
    figure that is not a finite number is None; a family without a check: none)."""
    family = family_of(getattr(result, "schema", None))
    return family.check(result).figures if family is not None else {}


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
    known = family_of(family)
    try:
        if known is not None:
            verdict.checked = known.check(result)
            verdict.figures, verdict.runs = verdict.checked.figures, verdict.checked.runs
            verdict.problems.extend(verdict.checked.problems)
        if isinstance(result, BenchmarkResult):  # its journal, where it has one, agrees
            run_dir = verdict.path if verdict.path.is_dir() else verdict.path.parent
            named = {p.field for p in verdict.problems}  # one line per field: the file's first
            verdict.problems.extend(
                Problem(f, m) for f, m in journal_problems(result, run_dir) if f not in named
            )
    except (ValueError, TypeError, ArithmeticError, KeyError) as exc:
        verdict.problems.append(Problem("measurements", f"cannot be recomputed: {exc}"))
    if entry is not None:
        _stated_figures(verdict, entry.figures)
    return verdict
