"""Engines own their facts: no code outside ``drivers/engines/`` switches on an engine's name.

What the kit knows about an engine is declared in the engine's module (``EngineFacts``, the
hooks of ``Engine``). This test reads the product code (``drivers/``, ``reports/``,
``dbbench/``) as syntax trees and fails on

* a comparison of a name-like value (``x.name``, ``x.dialect``, ``x.scheme``, or a variable
  called ``name``, ``scheme``, ``dialect``, ``engine`` or ending in ``_name``) with an engine's
  name (``== "duckdb"``, ``!= "postgresql"``, ``in ("mysql", "mariadb")``), or a ``match`` on
  one with such a case;
* a dict literal keyed by engine names (``{"postgresql": ...}``).

An engine's name is any name or URL scheme the registry declares, plus the product names the
schemes stand for. Comparisons of other ``.name`` values (tables, columns, files) are not
engine switches and are not flagged.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from pathlib import Path

import pytest

from dbbench.drivers.registry import builtin_engines

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("drivers", "reports", "dbbench")
ENGINES_FOLDER = ROOT / "drivers" / "engines"
#: Besides the declared names and schemes: products served under another engine's name.
PRODUCT_NAMES = frozenset({"mariadb", "postgres"})
NAME_ATTRIBUTES = frozenset({"name", "dialect", "scheme"})
NAME_VARIABLES = frozenset({"name", "scheme", "dialect", "engine", "engine_name"})

#: Switches still in files owned by work in flight, each with its reason; every entry names a
#: file and the exact source text of the switch. Remove an entry with its switch (a stale
#: entry fails ``test_the_allow_list_has_no_stale_entries``).
ALLOWED: dict[tuple[str, str], str] = {
    # HammerDB (its own issue): the Tcl driver package per engine belongs in EngineFacts
    ("drivers/hammerdb/install.py", "DRIVER_PACKAGES"): "HammerDB: Tcl driver per engine",
    # HammerDB's own vocabulary (its ``dbset db`` names pg/maria/mysql), which engines map to
    # through EngineFacts.hammerdb_db: keyed by HammerDB's names, one of which is "mysql"
    ("drivers/hammerdb/flow.py", "_SERVER_DATABASE"): "HammerDB's names, not engines'",
    ("drivers/hammerdb/script.py", "DATABASES"): "HammerDB's names, not engines'",
}


@dataclass(frozen=True)
class Switch:
    path: str  # relative to the repository
    line: int
    text: str  # the source of the comparison, or the dict's assignment target

    def allowed(self) -> bool:
        return any(path == self.path and text in self.text for path, text in ALLOWED)


def engine_names() -> frozenset[str]:
    names = set(PRODUCT_NAMES)
    for spec in builtin_engines().values():
        names.add(spec.name)
        names.update(spec.schemes)
    return frozenset(names)


def _strings(node: ast.expr) -> list[str]:
    """The string constants of ``"x"`` or of a tuple/list/set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
    return []


def _name_like(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in NAME_ATTRIBUTES
    if isinstance(node, ast.Name):
        return node.id in NAME_VARIABLES or node.id.endswith("_name")
    return False


class _Finder(ast.NodeVisitor):
    def __init__(self, path: str, source: str, names: frozenset[str]) -> None:
        self.path, self.source, self.names = path, source, names
        self.found: list[Switch] = []
        self._target = ""

    def _add(self, node: ast.AST, text: str) -> None:
        self.found.append(Switch(self.path, getattr(node, "lineno", 0), text))

    def visit_Compare(self, node: ast.Compare) -> None:
        sides = [node.left, *node.comparators]
        for left, right in itertools.pairwise(sides):
            for a, b in ((left, right), (right, left)):
                if _name_like(a) and set(_strings(b)) & self.names:
                    self._add(node, ast.get_source_segment(self.source, node) or "")
        self.generic_visit(node)

    def visit_Match(self, node: ast.Match) -> None:
        if _name_like(node.subject):
            for case in node.cases:
                for sub in ast.walk(case.pattern):
                    if isinstance(sub, ast.MatchValue) and set(_strings(sub.value)) & self.names:
                        self._add(case.pattern, ast.get_source_segment(self.source, node) or "")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._target = " ".join(ast.unparse(t) for t in node.targets)
        self.generic_visit(node)
        self._target = ""

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._target = ast.unparse(node.target)
        self.generic_visit(node)
        self._target = ""

    def visit_Dict(self, node: ast.Dict) -> None:
        keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
        if keys & self.names:
            text = ast.get_source_segment(self.source, node) or ""
            self._add(node, f"{self._target} = {text}" if self._target else text)
        self.generic_visit(node)


def switches_in(path: Path, names: frozenset[str]) -> list[Switch]:
    source = path.read_text(encoding="utf-8")
    finder = _Finder(path.relative_to(ROOT).as_posix(), source, names)
    finder.visit(ast.parse(source))
    return finder.found


def product_files() -> list[Path]:
    out: list[Path] = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            # dbbench/ links to the pipeline folders: each file is read once, by its own path
            if any(p.is_symlink() for p in (path, *path.parents) if ROOT in p.parents):
                continue
            if ENGINES_FOLDER in path.parents:
                continue
            out.append(path)
    return out


def all_switches() -> list[Switch]:
    names = engine_names()
    return [s for path in product_files() for s in switches_in(path, names)]


def test_no_switch_on_an_engine_name_outside_the_engines() -> None:
    found = [s for s in all_switches() if not s.allowed()]
    assert not found, "engine facts belong in drivers/engines/<engine>.py:\n" + "\n".join(
        f"{s.path}:{s.line}: {s.text}" for s in found
    )


def test_the_allow_list_has_no_stale_entries() -> None:
    found = all_switches()
    stale = [
        key for key in ALLOWED if not any(s.path == key[0] and key[1] in s.text for s in found)
    ]
    assert not stale, f"remove these entries, their switches are gone: {stale}"


@pytest.mark.parametrize(
    "code",
    [
        'if engine.name == "postgresql": pass',
        'if "duckdb" == info.name: pass',
        'ok = engine.name != "postgresql"',
        'ok = engine.name in ("mysql", "mariadb")',
        'ok = engine.dialect == "sqlite"',
        'ok = scheme in ("postgresql", "postgres")',
        'ok = engine_name == "spark"',
        'PER_SF = {"duckdb": 0.25e9, "sqlite": 1.0e9}',
        'x = {"postgresql": "SELECT 1"}.get(engine.name)',
        'match engine.name:\n    case "duckdb":\n        pass',
    ],
)
def test_the_finder_sees_each_form_of_switch(code: str) -> None:
    found = _Finder("drivers/x.py", code, engine_names())
    found.visit(ast.parse(code))
    assert found.found, code


@pytest.mark.parametrize(
    "code",
    [
        'if table.name == "lineitem": pass',
        'ok = column.name in ("l_orderkey", "o_orderkey")',
        'ok = url == "duckdb:///x.db"',
        "ok = engine.facts.transactional",
        'PER_TABLE = {"orders": 1, "lineitem": 4}',
        'ok = path.name == "result.json"',
    ],
)
def test_the_finder_leaves_other_comparisons_alone(code: str) -> None:
    found = _Finder("drivers/x.py", code, engine_names())
    found.visit(ast.parse(code))
    assert not found.found, code
