"""The one way the kit writes an output file (standard library only, so the drivers use it too).

A regular file or a new path is replaced atomically: a temp file in the same folder, fsync,
rename (a reader never sees half a file; the mode is an ordinary ``open``'s, 0666 less the
umask). A character device or a FIFO (``/dev/null``, ``/dev/stdout``, a pipe) is written as a
stream and never replaced. A symbolic link (even to a regular file), a directory or any other
non-regular file is refused with :class:`OutputError`, one line. ``-`` means standard output;
so do ``/dev/stdout`` and its kin (``/dev/stderr``, ``/dev/fd/N``), which are symbolic links
on Linux: they are written to the process's own descriptor, never opened through the link.

Appending (journals) opens with ``O_NOFOLLOW``: a journal that is a symbolic link is refused,
not written through.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from dbbench.reports.inputs import file_kind

#: The path that means "standard output" on a command line (``-o -``).
STDOUT = "-"


class OutputError(OSError):
    """An output path the kit refuses to write, or a write that failed (the message is one
    line). An :class:`OSError`, so a full disk keeps its errno and file name for the callers
    that explain it (``dbbench run``: the phase and the journal to rebuild from)."""

    def __str__(self) -> str:
        if self.errno is not None and self.filename is not None:
            return f"cannot write {self.filename}: {self.strerror}"
        return super().__str__()


def _failed(path: Path, exc: OSError) -> OutputError:
    """A failed write as an :class:`OutputError` with the OSError's errno."""
    return OutputError(exc.errno, exc.strerror or str(exc), str(path))


def default_file_mode() -> int:
    """0666 less the process umask: the mode an ordinary ``open(path, "w")`` would give."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


_STANDARD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_FD_DIRS = ("/dev/fd/", "/proc/self/fd/")


def standard_stream(path: Path | str) -> int | None:
    """The descriptor that ``/dev/stdout``, ``/dev/stderr`` or ``/dev/fd/N`` name, else None.

    These are the system's links to a process's own streams: writing them means streaming
    to that descriptor (a terminal, a pipe, or the file the shell redirected to), which the
    link rule (never write through a symbolic link) is not about."""
    text = str(path)
    if text in _STANDARD:
        return _STANDARD[text]
    for prefix in _FD_DIRS:
        if text.startswith(prefix) and text[len(prefix) :].isdigit():
            return int(text[len(prefix) :])
    return None


def _refusal(path: Path, mode: int) -> str | None:
    """Why ``path`` (with ``lstat`` mode ``mode``) may not be replaced; None: it may."""
    if stat.S_ISLNK(mode):
        return "it is a symbolic link"
    if stat.S_ISREG(mode) or stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return None
    return f"it is {file_kind(mode)}"


def _writable_mode(path: Path, verb: str = "replace") -> int | None:
    """``path``'s ``lstat`` mode (None: no such path); :class:`OutputError` ("refusing to
    VERB PATH: why") when it is something :func:`write_bytes` refuses."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _failed(path, exc) from None
    why = _refusal(path, mode)
    if why is not None:
        raise OutputError(f"refusing to {verb} {path}: {why}")
    return mode


def check_target(path: Path) -> None:
    """Raise :class:`OutputError` when ``path`` is something :func:`write_bytes` refuses."""
    if standard_stream(path) is None:
        _writable_mode(path)


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``: atomically for a regular file or a new path, as a stream
    to a character device or a FIFO (``/dev/stdout`` too); refuse a symlink, a directory or
    another special file."""
    fd = standard_stream(path)
    if fd is not None:
        _write_fd(path, fd, data)
        return
    mode = _writable_mode(path)
    if mode is not None and (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        _stream(path, data)
        return
    _atomic(path, data)


def write_text(path: Path, text: str) -> None:
    """:func:`write_bytes` of ``text`` as UTF-8."""
    write_bytes(path, text.encode("utf-8"))


def write_output(target: str | Path, text: str) -> None:
    """A command's ``-o``: ``-`` is standard output, anything else :func:`write_text`."""
    if str(target) == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_text(Path(target), text)


def _write_fd(path: Path, fd: int, data: bytes) -> None:
    """``data`` written to the open descriptor ``fd`` (after what Python buffered for it)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and stream.fileno() == fd:
                stream.flush()
        except (OSError, ValueError):  # not a real file (captured), or closed
            pass
    _write_all(path, fd, data)


def _write_all(path: Path, fd: int, data: bytes) -> None:
    """Every byte of ``data`` written to ``fd`` (a short write goes on where it stopped)."""
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except OSError as exc:
        raise _failed(path, exc) from None


def _stream(path: Path, data: bytes) -> None:
    flags = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _failed(path, exc) from None
    try:
        _write_all(path, fd, data)
    finally:
        os.close(fd)


def _atomic(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise _failed(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, default_file_mode())  # mkstemp makes 0600; outputs are to share
        check_target(path)  # it may have become a symlink meanwhile: still never replace one
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise _failed(path, exc) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def open_append(path: Path, buffering: int = -1) -> TextIO:
    """``path`` opened for appending text (created 0666 less umask when missing); a symbolic
    link, a directory or another non-regular file is refused with :class:`OutputError`.
    ``buffering`` as :func:`open`'s (1: each line reaches the file as it is written)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        _writable_mode(path, "append to")
        raise _failed(path, exc) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OutputError(f"refusing to append to {path}: it is not a regular file")
    return os.fdopen(fd, "a", encoding="utf-8", buffering=buffering)


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one existing file (an output that would overwrite an input)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
