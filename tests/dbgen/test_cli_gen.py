"""``dbbench gen`` end to end: the real console script in a subprocess, at SF 0.01.

What a user sees: file names as dbgen names them, parts that concatenate to the whole
table, update sets, the trailing separator switch, one-line errors with exit codes for every
kind of bad input, a full disk, a file-size limit and Ctrl-C, and quiet output off a
terminal. Expected contents come from the generator's own API or from a first run of the
command, never from hard-coded numbers.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dbbench.dbgen import api, writer
from dbbench.dbgen.spool import spool_root

SF = "0.01"
DBBENCH = str(Path(sys.executable).parent / "dbbench")
TABLES = (
    "part",
    "partsupp",
    "supplier",
    "customer",
    "orders",
    "lineitem",
    "nation",
    "region",
)
CHUNKED = tuple(t for t in TABLES if t not in ("nation", "region"))


def gen(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run ``dbbench gen`` with stdout/stderr captured (so neither is a terminal)."""
    cmd = [DBBENCH, "gen", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kwargs)  # type: ignore[call-overload, no-any-return]


def one_error_line(result: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    """The failure contract: the exit code, and exactly one stderr line naming the problem."""
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


def leftovers(directory: Path) -> list[str]:
    """Hidden temporaries a run may have left (there must never be any)."""
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole SF 0.01 data set as .tbl, written once with the default options."""
    out = tmp_path_factory.mktemp("base")
    result = gen("-s", SF, "-o", out)
    assert result.returncode == 0, result.stderr
    return out


def test_files_named_as_dbgen_and_nothing_else(base: Path) -> None:
    assert sorted(p.name for p in base.iterdir()) == sorted(f"{t}.tbl" for t in TABLES)
    for table in TABLES:
        data = (base / f"{table}.tbl").read_bytes()
        assert data.endswith(b"|\n") and b"\r" not in data, table
        lines = data.count(b"\n")
        if table == "lineitem":  # one to seven lines per order
            orders = api.order_count(float(SF))
            assert orders <= lines <= 7 * orders
        else:
            assert lines == api.row_count(table, float(SF)), table
    nation = (base / "nation.tbl").read_text().splitlines()[0]
    assert nation == "0|ALGERIA|0| haggle. carefully final deposits detect slyly agai|"


def test_summary_is_one_line_and_quiet_off_a_terminal(base: Path, tmp_path: Path) -> None:
    result = gen("-s", SF, "-o", tmp_path, "-T", "n,r,s")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and "\x1b" not in result.stdout
    rows = sum(
        (tmp_path / f"{t}.tbl").read_bytes().count(b"\n") for t in ("nation", "region", "supplier")
    )
    match = re.match(r"dbbench gen: 3 tables, 3 files, ([\d,]+) rows, [\d.,]+ MB in ", lines[0])
    assert match and int(match.group(1).replace(",", "")) == rows, lines[0]
    quiet = gen("-s", SF, "-o", tmp_path / "q", "-T", "r", "--quiet")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    """With stderr on a pseudo-terminal the rich bar shows rows, MB/s and the ETA."""
    master, slave = os.openpty()
    try:
        proc = subprocess.run(
            [DBBENCH, "gen", "-s", SF, "-o", str(tmp_path), "-T", "O"],
            stdout=subprocess.PIPE,
            stderr=slave,
            timeout=600,
            env={**os.environ, "COLUMNS": "160", "TERM": "xterm"},
        )
        os.close(slave)
        chunks = []
        with contextlib.suppress(OSError):
            while data := os.read(master, 65536):
                chunks.append(data)
    finally:
        os.close(master)
    screen = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 0
    assert "rows" in screen and "MB/s" in screen and "ETA" in screen, screen


def test_segments_in_parallel_equal_serial_output(base: Path, tmp_path: Path) -> None:
    """Many small work units over two processes, and one process: the same bytes."""
    for jobs in ("2", "1"):
        out = tmp_path / jobs
        result = gen("-s", SF, "-o", out, "-j", jobs, "--segment-bytes", "150000")
        assert result.returncode == 0, result.stderr
        for table in TABLES:
            same = (out / f"{table}.tbl").read_bytes() == (base / f"{table}.tbl").read_bytes()
            assert same, f"{table}.tbl differs with --jobs {jobs}"
        assert leftovers(out) == []


def test_parts_concatenate_to_the_whole_table(base: Path, tmp_path: Path) -> None:
    result = gen("-s", SF, "-o", tmp_path, "--parts", "3", "--segment-bytes", "200000")
    assert result.returncode == 0, result.stderr
    expected = {f"{t}.tbl.{k}" for t in CHUNKED for k in (1, 2, 3)} | {"nation.tbl", "region.tbl"}
    assert {p.name for p in tmp_path.iterdir()} == expected
    for table in CHUNKED:
        whole = b"".join((tmp_path / f"{table}.tbl.{k}").read_bytes() for k in (1, 2, 3))
        assert whole == (base / f"{table}.tbl").read_bytes(), f"{table} parts differ"
    one = gen("-s", SF, "-o", tmp_path / "one", "--parts", "3", "--part", "2", "-T", "L")
    assert one.returncode == 0, one.stderr
    assert [p.name for p in (tmp_path / "one").iterdir()] == ["lineitem.tbl.2"]
    got = (tmp_path / "one" / "lineitem.tbl.2").read_bytes()
    assert got == (tmp_path / "lineitem.tbl.2").read_bytes()


def test_no_trailing_separator(base: Path, tmp_path: Path) -> None:
    result = gen("-s", SF, "-o", tmp_path, "-T", "c,O", "--no-trailing-separator")
    assert result.returncode == 0, result.stderr
    for table in ("customer", "orders"):
        want = (base / f"{table}.tbl").read_bytes().replace(b"|\n", b"\n")
        assert (tmp_path / f"{table}.tbl").read_bytes() == want, table


def _keys(path: Path) -> list[int]:
    return [int(line.split("|", 1)[0]) for line in path.read_text().splitlines()]


def test_update_sets_alone(base: Path, tmp_path: Path) -> None:
    result = gen("-s", SF, "-o", tmp_path, "-U", "2")
    assert result.returncode == 0, result.stderr
    names = {p.name for p in tmp_path.iterdir()}
    assert names == {f"{t}.tbl.u{n}" for t in ("orders", "lineitem") for n in (1, 2)} | {
        "delete.1",
        "delete.2",
    }
    per_set = api.rows_per_update_set(float(SF))
    base_keys = _keys(base / "orders.tbl")
    for n in (1, 2):
        deletes = (tmp_path / f"delete.{n}").read_text().splitlines()
        assert all(re.fullmatch(r"\d+\|", line) for line in deletes)
        # RF2 set n deletes the base orders of block n (tpch.md §3.4).
        assert _keys(tmp_path / f"delete.{n}") == base_keys[(n - 1) * per_set : n * per_set]
        inserted = _keys(tmp_path / f"orders.tbl.u{n}")
        assert len(inserted) == per_set
        assert [k - 8 for k in inserted] == _keys(tmp_path / f"delete.{n}")
        assert set(_keys(tmp_path / f"lineitem.tbl.u{n}")) == set(inserted)
    assert _keys(tmp_path / "orders.tbl.u1")[0] == 9  # tpch.md §9: update set 1 starts at 9
    bare = gen("-s", SF, "-o", tmp_path / "bare", "-U", "1", "--no-trailing-separator")
    assert bare.returncode == 0, bare.stderr
    for name in ("orders.tbl.u1", "lineitem.tbl.u1", "delete.1"):
        want = (tmp_path / name).read_bytes().replace(b"|\n", b"\n")
        assert (tmp_path / "bare" / name).read_bytes() == want, name


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("-s", "0"), ("scale factor",)),
        (("-s", "-1"), ("scale factor",)),
        (("-s", "abc"), ("scale factor", "abc")),
        (("-s", "nan"), ("scale factor",)),
        (("-s", "1e15"), ("scale factor",)),
        (("-s", SF, "--parts", "3", "--part", "4"), ("--part", "3")),
        (("-s", SF, "--parts", "3", "--part", "0"), ("--part",)),
        (("-s", SF, "--part", "2"), ("--parts",)),
        (("-s", SF, "-T", "x"), ("x",)),
        (("-s", SF, "-T", "lineitems"), ("lineitems",)),
    ],
)
def test_bad_input_is_one_line_and_exit_1(
    args: tuple[str, ...], words: tuple[str, ...], tmp_path: Path
) -> None:
    result = gen(*args, "-o", tmp_path / "out")
    one_error_line(result, 1, "dbbench: error:", *words)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_existing_files_need_force(base: Path, tmp_path: Path) -> None:
    shutil.copy(base / "region.tbl", tmp_path / "region.tbl")
    (tmp_path / "nation.tbl").write_text("old\n")
    result = gen("-s", SF, "-o", tmp_path, "-T", "n,r")
    one_error_line(result, 1, "already exist", "--force")
    assert (tmp_path / "nation.tbl").read_text() == "old\n"
    forced = gen("-s", SF, "-o", tmp_path, "-T", "n,r", "-f")
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / "nation.tbl").read_bytes() == (base / "nation.tbl").read_bytes()


def test_output_path_under_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    one_error_line(gen("-s", SF, "-o", tmp_path / "file" / "sub"), 1, "output directory")
    one_error_line(gen("-s", SF, "-o", tmp_path / "file"), 1, "not a directory")


@contextlib.contextmanager
def tmpfs(path: Path, options: str) -> Iterator[Path]:
    """A real small filesystem (root only): the honest way to get ENOSPC or EROFS."""
    path.mkdir()
    mount = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True
    )
    if mount.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mount.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=True)


def assert_only_complete_files(out: Path, base: Path) -> None:
    """After a failure: no temporaries, and whatever carries a final name is whole."""
    assert leftovers(out) == []
    for path in out.iterdir():
        assert path.read_bytes() == (base / path.name).read_bytes(), path.name


def test_read_only_directory(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "ro", "size=1m,ro") as ro:
        one_error_line(gen("-s", SF, "-o", ro), 1, "not writable")


def test_full_disk(base: Path, tmp_path: Path) -> None:
    with tmpfs(tmp_path / "small", "size=3m") as small:
        result = gen("-s", SF, "-o", small, "-j", "2", "--segment-bytes", "300000")
        one_error_line(result, 1, "no space left on device", "removed")
        assert_only_complete_files(small, base)


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, 1_000_000))


def test_file_size_limit_is_treated_like_a_full_disk(base: Path, tmp_path: Path) -> None:
    result = gen("-s", SF, "-o", tmp_path, "-T", "O,c", preexec_fn=_limit_file_size)
    one_error_line(result, 1, "file size limit", "full disk")
    assert_only_complete_files(tmp_path, base)


def test_ctrl_c_leaves_no_partial_file(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [DBBENCH, "gen", "-s", "0.3", "-o", str(tmp_path), "-T", "L", "-j", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not leftovers(tmp_path) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "generation ended before it could be interrupted"
    time.sleep(0.1)  # let the workers be in the middle of writing
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, (stdout, stderr)
    assert stderr.splitlines() == ["dbbench: gen interrupted; unfinished files were removed"]
    assert list(tmp_path.iterdir()) == []
    assert _spools_of(proc.pid) == [], "the segment spool was left behind"


def _spools_of(pid: int) -> list[str]:
    root = spool_root(0) or tempfile.gettempdir()
    return [n for n in os.listdir(root) if n.startswith(f"{writer.SPOOL_PREFIX}{pid}-")]


def test_segments_wait_in_a_spool_that_is_removed_even_after_a_kill(tmp_path: Path) -> None:
    """Segments are written in the spool, not the output directory; a gen killed outright
    leaves its spool behind, and the next gen removes it."""
    root = Path(spool_root(0) or tempfile.gettempdir())
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = root / f"{writer.SPOOL_PREFIX}{dead.pid}-test"
    stale.mkdir()
    (stale / ".lineitem.tbl.x.1.seg").write_bytes(b"x")
    seen: set[str] = set()
    proc = subprocess.Popen(
        [
            DBBENCH,
            "gen",
            "-s",
            "0.1",
            "-o",
            str(tmp_path),
            "-T",
            "L",
            "-j",
            "2",
            "--segment-bytes",
            "500000",
        ],
    )
    while proc.poll() is None:
        seen.update(n for n in os.listdir(tmp_path))
        time.sleep(0.01)
    assert proc.returncode == 0
    assert not stale.exists()
    assert not [n for n in seen if n.endswith(".seg")], f"segments in the output directory: {seen}"
    assert _spools_of(proc.pid) == []


def test_byte_identical_to_tpchgen_cli(base: Path, tmp_path: Path) -> None:
    """The reference-identical peer writes the same eight files at SF 0.01."""
    peer = shutil.which("tpchgen-cli", path=str(Path(sys.executable).parent))
    if peer is None:
        pytest.skip("tpchgen-cli is not installed (pip install tpchgen-cli)")
    done = subprocess.run(
        [peer, "-s", SF, "--output-dir", str(tmp_path), "--no-progress"], capture_output=True
    )
    assert done.returncode == 0, done.stderr
    for table in TABLES:
        ours = (base / f"{table}.tbl").read_bytes()
        theirs = (tmp_path / f"{table}.tbl").read_bytes()
        if ours != theirs:
            mine, peers = ours.splitlines(), theirs.splitlines()
            pairs = enumerate(zip(mine, peers, strict=False))
            row = next((i for i, (a, b) in pairs if a != b), min(len(mine), len(peers)))
            pytest.fail(f"{table}.tbl differs from tpchgen-cli at row {row + 1}")


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_a_killed_worker_is_one_line_and_no_partial_file(tmp_path: Path) -> None:
    """A worker killed from outside (the OOM killer, say) fails the run cleanly."""
    proc = subprocess.Popen(
        [DBBENCH, "gen", "-s", "0.3", "-o", str(tmp_path), "-T", "L", "-j", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not leftovers(tmp_path) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    workers = _children(proc.pid)
    assert workers and proc.poll() is None, "no worker to kill"
    os.kill(workers[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=60)
    one_error_line(subprocess.CompletedProcess([], proc.returncode, stdout, stderr), 1, "died")
    assert list(tmp_path.iterdir()) == []
