"""ARCHITECTURE.md's "one X" claims, checked on the product code read as syntax trees.

* **Defined once**: each name a claim calls the one X (the run lifecycle, the statement
  runner, the resume rule, the result envelope, the family registry's reader, the judge, ...)
  is defined at module level in exactly one product module, the one ARCHITECTURE.md names,
  and ARCHITECTURE.md names it. A second copy under the same name fails.
* **One output writer**: no module of ``drivers/``, ``reports/`` or ``dbbench/`` writes a
  file itself (``open`` for writing or appending, ``Path.write_text``, ``os.open`` with write
  flags, ``os.replace``, ``shutil.copy``...): outputs go through ``reports.safeio``. The
  exceptions are not outputs of the kit, each listed with its reason.
* **One run lifecycle**: only ``drivers/lifecycle.py`` takes a database's benchmark lock or
  marks a run directory.
* **The CLI only parses and prints**: ``dbbench/commands`` runs no statement, opens no
  session, takes no lock, marks no run directory, checks no space and loads nothing; it
  calls the packages for that. The exceptions are listed with their reasons.
* **One HTML escaper of the standard library**: only ``reports/escape.py`` imports ``html``.
* **The generator's table registry**: ``dbgen/api.py`` and ``dbgen/writer.py`` look tables up
  in ``GENERATORS``; they never compare a table's name.

``dbgen/`` is left out of the writer check: it imports nothing from the project, so its
generator writes its data files atomically itself (``dbgen.writer``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
PACKAGES = ("dbgen", "queries", "drivers", "reports", "dbbench")

#: name -> the one module (relative to the repository) that defines it.
DEFINED_ONCE: dict[str, str] = {
    "open_run": "drivers/lifecycle.py",  # the one run lifecycle
    "local_url": "drivers/lifecycle.py",  # the bare-duckdb rewrite
    "run_rendered": "drivers/sequencer/streams.py",  # the one statement runner
    "run_defaults": "drivers/sequencer/defaults.py",  # the 22 queries with the defaults
    "finished_before": "drivers/sequencer/study.py",  # the one resume rule of studies
    "one_line": "drivers/errors.py",  # an exception as one line
    "EngineFacts": "drivers/engine.py",  # what the kit knows about an engine
    "TABLES": "dbgen/schema.py",  # the eight tables
    "FOREIGN_KEYS": "dbgen/schema.py",
    "GENERATORS": "dbgen/generators.py",  # the table registry of the generator
    "ProgressSink": "dbgen/progress.py",  # the generator's and the loader's progress
    "QueryVerdict": "queries/validate.py",  # the one answer-check type
    "ResultEnvelope": "reports/model/envelope.py",  # the one result envelope
    "ResultStatus": "reports/model/envelope.py",  # the one status vocabulary
    "ENVELOPE_FIELDS": "reports/model/envelope.py",
    "plan_shape": "reports/tpch/model.py",
    "read_result": "reports/families.py",  # the one family registry's reader
    "judge": "reports/tpch/compliance.py",  # the one compliance judge
    "MESSAGES": "reports/tpch/reasons.py",  # the one code -> message table
    "open_append": "reports/safeio.py",  # the one output writer
    "write_text": "reports/safeio.py",
    "DATABASES": "drivers/hammerdb/script.py",  # HammerDB's names, stated once
    "COMMAND_MODULES": "dbbench/cli.py",  # the command table
    "ScaleFactor": "dbbench/commands/options.py",  # -s/--scale-factor, declared once
}

#: Writes that are not outputs of the kit: (file, a piece of the call's source) -> reason.
NOT_OUTPUTS: dict[tuple[str, str], str] = {
    ("drivers/sequencer/passes.py", 'path.write_text("3\\n")'): "the kernel's drop_caches",
    ("drivers/rundir.py", "os.open(marker"): "the run directory's marker, opened to be locked",
    ("drivers/engines/spark_launch.py", "os.fdopen(fd"): "the Spark driver JVM's log config",
    ("drivers/engines/spark_launch.py", "open(driver_log()"): "the Spark driver JVM's own log",
    ("drivers/engines/spark_launch.py", "os.replace(temp"): "the Spark driver JVM's log config",
    ("drivers/engines/spark_files.py", "os.replace(file"): "Spark's table files in its warehouse",
    ("drivers/engines/sail.py", "probe.write_text("): "a read-back probe in Sail's warehouse",
    ("drivers/hammerdb/install.py", "script.write_text("): "a probe script in a private tempdir",
    ("drivers/hammerdb/runner.py", "os.open(path"): "HammerDB's live log, O_NOFOLLOW",
    ("drivers/hammerdb/runner.py", "os.fdopen(fd"): "HammerDB's live log, O_NOFOLLOW",
    # dbbench acid's durability test: its streams' spec and the success file, in a private
    # temporary directory, each record flushed and synced as it is written
    ("drivers/acid/durability.py", "spec_file.write_text("): "the durability streams' spec",
    ("drivers/acid/durability.py", 'open(folder / "streams.log"'): "the streams' own log",
    ("drivers/acid/streams.py", 'open(folder / "success.jsonl"'): "the success file",
    ("drivers/acid/streams.py", 'open(folder / "in_flight.jsonl"'): "the in-flight records",
    # the results site: a private build directory written whole, then swapped in
    ("reports/site/build.py", "os.replace("): "the site's private build directory",
    ("reports/site/build.py", "os.open(path"): "the site's private build directory",
    ("reports/site/build.py", "os.fdopen(fd"): "the site's private build directory",
    ("reports/site/build.py", "shutil.copyfile("): "the site's private build directory",
}

#: What only the library does (the CLI calls the packages for it): in dbbench/commands, a
#: call of one of these functions or methods, or of one of the session methods, is flagged.
LIBRARY_ONLY = frozenset(
    {
        "lock_benchmark",  # the lifecycle's database lock
        "prepare_run_dir",  # the lifecycle's run directory
        "release_run_dir",
        "check_space",  # the space check
        "load_database",  # the load
        "check_loaded",
        "open_engine",  # engines are opened by the lifecycle (open_run, open_engines)
    }
)
#: An engine's connection and its statements (as methods of any object).
SESSION_METHODS = frozenset({"session", "execute", "query", "explain"})

#: CLI calls of LIBRARY_ONLY names that stay, with their reasons: (file, call source).
CLI_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("dbbench/commands/gen.py", "open_engine(url)"): "gen --engine: Spark writes files, no DB",
    ("dbbench/commands/preflight.py", "open_engine(engine)"): "preflight reads settings only",
}

WRITE_MODE = re.compile(r"[wax+]")
WRITE_FLAGS = frozenset({"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"})
MOVES = frozenset({("os", "replace"), ("os", "rename"), ("shutil", "move")})


@dataclass(frozen=True)
class Found:
    path: str
    line: int
    text: str


def product_files(*folders: str) -> Iterator[Path]:
    """The product's Python files under ``folders``, each once by its own path (``dbbench/``
    links to the pipeline folders)."""
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if not any(p.is_symlink() for p in (path, *path.parents) if ROOT in p.parents):
                yield path


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _tree(path: Path) -> tuple[str, ast.Module]:
    source = path.read_text(encoding="utf-8")
    return source, ast.parse(source)


def _defined(tree: ast.Module) -> set[str]:
    """Names a module defines at its top level (functions, classes, assignments)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_each_one_x_is_defined_in_one_module_that_architecture_names() -> None:
    where: dict[str, list[str]] = {name: [] for name in DEFINED_ONCE}
    for path in product_files(*PACKAGES):
        for name in _defined(_tree(path)[1]) & set(DEFINED_ONCE):
            where[name].append(_rel(path))
    wrong = {name: found for name, found in where.items() if found != [DEFINED_ONCE[name]]}
    assert not wrong, f"defined elsewhere or more than once (name: modules): {wrong}"
    unnamed = [n for n in DEFINED_ONCE if not re.search(rf"`[^`]*\b{n}\b[^`]*`", ARCHITECTURE)]
    assert not unnamed, f"ARCHITECTURE.md does not name these: {unnamed}"


def _mode(call: ast.Call, at: int) -> str | None:
    """The mode argument of an ``open``-like call (positional ``at`` or ``mode=``)."""
    node = call.args[at] if len(call.args) > at else None
    for keyword in call.keywords:
        if keyword.arg == "mode":
            node = keyword.value
    if node is None:
        return "r"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None  # not a literal: cannot tell, so flagged


def _writes(call: ast.Call, safeio_names: set[str]) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        if func.id == "open":
            mode = _mode(call, 1)
            return mode is None or bool(WRITE_MODE.search(mode))
        return func.id in ("write_text", "write_bytes") and func.id not in safeio_names
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value.id if isinstance(func.value, ast.Name) else ""
    if func.attr in ("write_text", "write_bytes"):
        return owner != "safeio"
    if owner == "os" and func.attr == "open":
        if len(call.args) < 2 or isinstance(call.args[1], ast.Name):
            return True  # flags in a variable: cannot tell, so flagged
        flags = {n.attr for n in ast.walk(call.args[1]) if isinstance(n, ast.Attribute)}
        return bool(flags & WRITE_FLAGS)
    if (owner == "os" and func.attr == "fdopen") or (func.attr == "open" and owner != "os"):
        mode = _mode(call, 1 if func.attr == "fdopen" else 0)
        return mode is None or bool(WRITE_MODE.search(mode))
    return (owner, func.attr) in MOVES or (owner == "shutil" and func.attr.startswith("copy"))


def writes_in(path: Path) -> list[Found]:
    source, tree = _tree(path)
    safeio_names = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "dbbench.reports.safeio"
        for alias in node.names
    }
    return [
        Found(_rel(path), node.lineno, ast.get_source_segment(source, node) or "")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _writes(node, safeio_names)
    ]


def _allowed(found: Found, table: dict[tuple[str, str], str]) -> bool:
    return any(path == found.path and text in found.text for path, text in table)


def _stale(found: list[Found], table: dict[tuple[str, str], str]) -> list[tuple[str, str]]:
    return [k for k in table if not any(f.path == k[0] and k[1] in f.text for f in found)]


def test_outputs_are_written_through_safeio() -> None:
    found = [
        f
        for path in product_files("drivers", "reports", "dbbench")
        if _rel(path) != "reports/safeio.py"
        for f in writes_in(path)
    ]
    bad = [f for f in found if not _allowed(f, NOT_OUTPUTS)]
    assert not bad, "write outputs through reports.safeio:\n" + "\n".join(
        f"{f.path}:{f.line}: {f.text}" for f in bad
    )
    assert not _stale(found, NOT_OUTPUTS), f"stale entries: {_stale(found, NOT_OUTPUTS)}"


@pytest.mark.parametrize(
    "code",
    [
        'open(p, "w")',
        'open(p, mode="ab")',
        "open(p, m)",
        'p.open("a", encoding="utf-8")',
        "p.write_text(text)",
        "p.write_bytes(data)",
        "os.open(p, os.O_WRONLY | os.O_CREAT)",
        "os.open(p, flags, 0o644)",
        'os.fdopen(fd, "w")',
        "os.replace(a, b)",
        "shutil.copyfile(a, b)",
        'gzip.open(p, "wt")',
    ],
)
def test_the_writer_check_sees_each_form_of_write(code: str, tmp_path: Path) -> None:
    call = ast.parse(code).body[0]
    assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)
    assert _writes(call.value, set()), code


@pytest.mark.parametrize(
    "code",
    [
        "open(p)",
        'open(p, "rb")',
        'p.open("r")',
        "safeio.write_text(p, text)",
        "os.open(p, os.O_RDONLY)",
        "p.read_text()",
    ],
)
def test_the_writer_check_leaves_reads_alone(code: str) -> None:
    call = ast.parse(code).body[0]
    assert isinstance(call, ast.Expr) and isinstance(call.value, ast.Call)
    assert not _writes(call.value, set()), code


def _calls(path: Path, names: frozenset[str], methods: frozenset[str] = frozenset()) -> list[Found]:
    """Calls of ``names`` (functions or methods) and of ``methods`` (methods only)."""
    source, tree = _tree(path)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name in names or (isinstance(func, ast.Attribute) and name in methods):
            out.append(Found(_rel(path), node.lineno, ast.get_source_segment(source, node) or ""))
    return out


def test_only_the_lifecycle_locks_a_database_or_marks_a_run_directory() -> None:
    held = frozenset({"lock_benchmark", "prepare_run_dir"})
    found = [
        f
        for path in product_files("drivers", "reports", "dbbench")
        if _rel(path) != "drivers/lifecycle.py"
        for f in _calls(path, held)
    ]
    assert not found, "\n".join(f"{f.path}:{f.line}: {f.text}" for f in found)


def test_every_reopen_is_followed_by_the_lifecycle_relock() -> None:
    """A reopen (a server restart) ends the session that held the benchmark lock: the code
    that reopens an engine takes it back through the lifecycle (``relock``), in the same
    function, right after."""
    reopens = [
        f
        for path in product_files("drivers", "reports", "dbbench")
        for f in _calls(path, frozenset(), frozenset({"reopen"}))
    ]
    assert reopens, "no reopen found: the check looks at nothing"
    for f in reopens:
        source = (ROOT / f.path).read_text(encoding="utf-8").splitlines()
        after = "\n".join(source[f.line : f.line + 3])
        assert "relock(" in after, f"{f.path}:{f.line}: {f.text} without relock after it"


def test_the_cli_only_parses_and_prints() -> None:
    found = [
        f
        for path in product_files("dbbench/commands")
        for f in _calls(path, LIBRARY_ONLY, SESSION_METHODS)
    ]
    bad = [f for f in found if not _allowed(f, CLI_EXCEPTIONS)]
    assert not bad, "the CLI calls the packages for this:\n" + "\n".join(
        f"{f.path}:{f.line}: {f.text}" for f in bad
    )
    assert not _stale(found, CLI_EXCEPTIONS), f"stale entries: {_stale(found, CLI_EXCEPTIONS)}"


def test_only_reports_escape_imports_the_standard_html_escaper() -> None:
    found = []
    for path in product_files(*PACKAGES):
        for node in ast.walk(_tree(path)[1]):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            if "html" in names:
                found.append(_rel(path))
    assert found == ["reports/escape.py"], found


def test_the_generator_looks_tables_up_and_never_compares_their_names() -> None:
    from dbbench.dbgen.schema import TABLES

    found = []
    for rel in ("dbgen/api.py", "dbgen/writer.py"):
        source, tree = _tree(ROOT / rel)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            for side in (node.left, *node.comparators):
                values = [side, *getattr(side, "elts", [])]
                if any(isinstance(v, ast.Constant) and v.value in TABLES for v in values):
                    found.append(f"{rel}:{node.lineno}: {ast.get_source_segment(source, node)}")
    assert not found, found
