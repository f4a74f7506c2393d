"""What the package is made from: the saved run, and the few facts the command line takes
from the generator and the query package for it (reports import neither), as plain data."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dbbench.reports.acid.model import AcidResult
from dbbench.reports.tpch.costsheet import CostSheet
from dbbench.reports.tpch.model import DISCLOSURE_KEY, BenchmarkResult


@dataclass(frozen=True)
class QueryText:
    """One query of one stream of one run as executed, and as qgen prints it."""

    run: int
    stream: int
    query: int
    params: tuple[str, ...]
    executed: str  # the engine's dialect, Q15's view named as the run named it
    qgen: str  # the ANSI text qgen prints


@dataclass
class Inputs:
    """Everything a disclosure package is built from.

    ``expected_rows``: the rows the generator makes per table at the run's SF;
    ``regenerated``: each stream's parameters drawn again from its seed
    (``"run/stream" -> query -> values``), for the identity check with qgen."""

    result: BenchmarkResult
    run_dir: Path
    sponsor: str = ""  # the benchmark sponsor (--sponsor); "" when not stated
    cost_sheet: CostSheet | None = None
    cost_sheet_text: str = ""
    acid: AcidResult | None = None
    acid_text: str = ""
    expected_rows: dict[str, int] = field(default_factory=dict)
    regenerated: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    texts: list[QueryText] = field(default_factory=list)
    refresh_sql: list[str] = field(default_factory=list)

    @property
    def facts(self) -> dict[str, object]:
        """What the run took from the database for the disclosure (empty: an older run)."""
        found = self.result.config.get(DISCLOSURE_KEY)
        return found if isinstance(found, dict) else {}

    def rows(self, when: str) -> dict[str, int] | None:
        """Rows per table the run counted ``after_load`` or ``after_test``; None: not taken."""
        found = self.facts.get(f"rows_{when}")
        if not isinstance(found, dict):
            return None
        return {str(k): int(v) for k, v in found.items() if isinstance(v, int)}

    def structures(self, when: str) -> list[str] | None:
        """The keys, indexes and views the catalog listed ``after_load`` or ``after_test``."""
        found = self.facts.get(f"structures_{when}")
        return [str(s) for s in found] if isinstance(found, list) else None

    @property
    def ddl(self) -> list[str]:
        found = self.facts.get("ddl")
        return [str(s) for s in found] if isinstance(found, list) else []
