"""The README is a front door: short, its quickstart runs as written, its links resolve."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dbbench.reports.families import families

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
QUICKSTART = "## Compare two engines in three commands"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
DOCS = [
    README,
    ROOT / "ARCHITECTURE.md",
    ROOT / "CONTRIBUTING.md",
    ROOT / "benchmarks" / "README.md",
]


def quickstart_lines() -> list[str]:
    """The shell lines of the first code block under the quickstart heading."""
    text = README.read_text(encoding="utf-8")
    after = text.split(QUICKSTART, 1)[1]
    block = re.search(r"```sh\n(.*?)```", after, flags=re.S)
    assert block is not None, "the quickstart has no ```sh block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_is_short() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_quickstart_is_three_commands_on_the_first_screen() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines.index(QUICKSTART) < 40
    assert len(quickstart_lines()) == 3


def test_quickstart_runs_as_written(tmp_path: Path) -> None:
    """Each line exactly as the README has it, in a fresh folder, at SF 0.01 through $SF."""
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "SF": "0.01", "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}
    env["PYTHONPATH"] = str(ROOT)
    outputs = []
    for line in quickstart_lines():
        done = subprocess.run(
            ["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        outputs.append(done.stdout)
    for name in ("duckdb", "datafusion"):
        assert (tmp_path / "runs" / name / "result.json").is_file()
        assert (tmp_path / "runs" / name / "report.html").is_file()
    compared = outputs[-1]
    assert "DuckDB" in compared and "DataFusion" in compared
    assert "0.01" in compared


def _relative_links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    targets = [m.group(1) for m in LINK.finditer(text)]
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, blanks to hyphens."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    headings = re.findall(r"^#+ (.+)$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize(
    "path",
    DOCS + sorted((ROOT / "docs").glob("*.md")),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_relative_links_resolve(path: Path) -> None:
    """Every relative link names a file that exists, and a heading of it when it has #."""
    missing = []
    for target in _relative_links(path):
        file, _, anchor = target.partition("#")
        linked = path.parent / file if file else path
        broken_anchor = bool(anchor) and linked.suffix == ".md"
        if not linked.exists() or (broken_anchor and anchor not in _anchors(linked)):
            missing.append(target)
    assert not missing, f"{path.name}: links to missing files: {missing}"


def test_readme_picture_is_small_png() -> None:
    pictures = [t for t in _relative_links(README) if t.endswith(".png")]
    assert pictures, "the README shows no picture of a report"
    for picture in pictures:
        data = (ROOT / picture).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) < 200_000


def test_architecture_code_map_names_every_engine_and_family() -> None:
    """Each engine module (one declaring ENGINE) and each built-in family is in the map."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    code_map = text.split("```", 2)[1]
    engines = [
        p.stem
        for p in (ROOT / "drivers" / "engines").glob("*.py")
        if re.search(r"^ENGINE = ", p.read_text(encoding="utf-8"), flags=re.M)
    ]
    assert len(engines) >= 10
    missing = [e for e in engines if f"{e}.py" not in code_map]
    builtin = [f for f in families().values() if f.model.__module__.startswith("dbbench.reports")]
    assert len(builtin) >= 4
    names = [f.name for f in builtin]
    missing += [n for n in names if n not in code_map]
    assert not missing, f"ARCHITECTURE.md's code map does not name: {missing}"


def test_make_run_installs_no_engine_but_duckdb() -> None:
    """`make run` installs the kit with the telemetry extra only; `make test` every extra."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    rules = dict(re.findall(r"^(\S+):[^\n]*\n((?:\t[^\n]*\n)+)", makefile, flags=re.M))
    run_deps = re.search(r"^run: (.*)$", makefile, flags=re.M)
    assert run_deps is not None and run_deps.group(1).split() == ["$(RUN_STAMP)"]
    assert "pip install --quiet -e '.[telemetry]'" in rules["$(RUN_STAMP)"]
    assert "pip install --quiet -e '.[all,dev]'" in rules["$(TEST_STAMP)"]
    test_deps = re.search(r"^test: (.*)$", makefile, flags=re.M)
    assert test_deps is not None and "$(TEST_STAMP)" in test_deps.group(1).split()
