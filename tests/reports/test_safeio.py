"""The one output writer (reports.safeio) and the one escaper per format (reports.escape)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from dbbench.reports import escape, safeio


def test_a_new_file_and_a_regular_file_are_written_atomically_with_an_ordinary_mode(
    tmp_path: Path,
) -> None:
    target = tmp_path / "deep" / "out.txt"
    safeio.write_text(target, "one")
    assert target.read_text() == "one"
    safeio.write_text(target, "two")
    assert target.read_text() == "two"
    assert stat.S_IMODE(target.stat().st_mode) == safeio.default_file_mode()
    assert [p.name for p in target.parent.iterdir()] == ["out.txt"]  # no temp file left


def test_a_character_device_is_written_as_a_stream_and_never_replaced() -> None:
    before = os.stat("/dev/null")
    safeio.write_text(Path("/dev/null"), "x" * 10_000)
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_a_fifo_is_written_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        safeio.write_text(fifo, "through the pipe")
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_symlink_even_to_a_regular_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    link = tmp_path / "link.txt"
    link.symlink_to(outside)
    with pytest.raises(safeio.OutputError, match="symbolic link") as info:
        safeio.write_text(link, "overwritten")
    assert "\n" not in str(info.value)
    assert outside.read_text() == "keep" and link.is_symlink()


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(safeio.OutputError, match=r"refusing to replace .*: it is a directory"):
        safeio.write_text(tmp_path, "x")


def test_a_journal_that_is_a_symlink_is_refused_not_appended_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text("")
    journal = tmp_path / "journal.jsonl"
    journal.symlink_to(outside)
    with pytest.raises(safeio.OutputError, match="symbolic link"):
        safeio.open_append(journal)
    assert outside.read_text() == ""
    plain = tmp_path / "plain.jsonl"
    with safeio.open_append(plain) as f:
        f.write("a\n")
    with safeio.open_append(plain) as f:
        f.write("b\n")
    assert plain.read_text() == "a\nb\n"


def test_dash_is_standard_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    safeio.write_output("-", "to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"
    assert not (Path.cwd() / "-").exists()


HOSTILE = "a\x07b\rc\x00d\x1b[31me\u202ef\u2066g\x9bh"


def test_terminal_text_has_no_control_or_bidi_character() -> None:
    out = escape.terminal(HOSTILE)
    assert out == "ab cd[31mefgh"  # the escape sequence is inert without its ESC
    assert escape.terminal("x\ny", keep_newlines=True) == "x\ny"


def test_markdown_lets_no_raw_html_no_table_break_and_no_markup_pass() -> None:
    out = escape.markdown("<script>alert(1)</script> | `code` *b* [l](u)\nnext & more")
    assert "<" not in out and ">" not in out and "\n" not in out
    assert "&lt;script&gt;" in out and "&amp; more" in out
    assert "\\|" in out and "\\`code\\`" in out and "\\*b\\*" in out and "\\[l\\]" in out
    assert escape.markdown(HOSTILE) == "ab cd\\[31mefgh"


def test_html_escapes_markup_and_quotes() -> None:
    assert escape.html('<a href="x">&\u202e') == "&lt;a href=&quot;x&quot;&gt;&amp;"


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1"])
def test_dev_stdout_streams_to_the_process_standard_output(tmp_path: Path, name: str) -> None:
    """``/dev/stdout`` is a symbolic link on Linux; the docs say it streams, so it is written
    to descriptor 1 (a pipe here, then a file the shell redirected to), not refused."""
    if not Path(name).exists():
        pytest.skip(f"no {name} here")
    code = (
        "import sys; from pathlib import Path; from dbbench.reports import safeio;"
        "print('before', flush=False); safeio.write_text(Path(sys.argv[1]), 'streamed\\n')"
    )
    piped = subprocess.run(
        [sys.executable, "-c", code, name], capture_output=True, text=True, check=False
    )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == "before\nstreamed\n"
    target = tmp_path / "redirected.txt"
    with target.open("wb") as out:
        done = subprocess.run([sys.executable, "-c", code, name], stdout=out, check=False)
    assert done.returncode == 0
    assert target.read_text() == "before\nstreamed\n"
    safeio.check_target(Path(name))  # the pre-flight check agrees
