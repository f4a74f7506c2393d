"""The one way the kit reads an input file (standard library only: the commands and the
drivers use it too).

Every file a user hands the kit (a cost sheet, a suite, a published record, a result, a
``--baseline``, a manifest, a site's inputs) is read here:

* only a regular file is read: a FIFO, a device, a socket or a directory is refused with one
  line (a FIFO is opened without blocking, so a walk never hangs on one);
* at most ``limit`` bytes (a ``/dev/zero``-like file is never read whole);
* UTF-8 text without NUL characters;
* TOML within :data:`MAX_DEPTH` levels, with integers of at most :data:`MAX_INT_DIGITS`
  digits and every number finite (``nan``, ``inf`` refused), checked before any caller sees
  a value.

Errors are :class:`InputError` (a :class:`ValueError`), one line naming the file.
"""

from __future__ import annotations

import decimal
import math
import os
import stat
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: the largest TOML input (cost sheets, suites, published records are a few KB)
TOML_LIMIT = 4 << 20
#: the largest JSON input (a result; a 5-million-step o2c result is about 200 MB)
JSON_LIMIT = 1 << 30
#: the deepest nesting of tables and arrays accepted in a TOML input
MAX_DEPTH = 32
#: integers longer than this are refused (2**63 has 19 digits)
MAX_INT_DIGITS = 19
_MAX_INT = 2**63 - 1
_CHUNK = 1 << 20


class InputError(ValueError):
    """An input file the kit refuses to read (the message is one line)."""


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words (``stat`` mode ``mode``)."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes(path: Path, limit: int = JSON_LIMIT, what: str = "input") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; :class:`InputError`
    for anything else (``OSError`` when it cannot be opened, e.g. it does not exist)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{what} {path}: refusing to read it: it is {file_kind(info.st_mode)}")
        if info.st_size > limit:
            raise InputError(
                f"{what} {path}: too large ({info.st_size:,} bytes, at most {limit:,})"
            )
        os.set_blocking(fd, True)
        parts: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            parts.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while being read
                raise InputError(f"{what} {path}: too large (more than {limit:,} bytes)")
        return b"".join(parts)
    finally:
        os.close(fd)


def read_text(path: Path, limit: int = JSON_LIMIT, what: str = "input") -> str:
    """:func:`read_bytes` decoded as UTF-8 text without NUL characters."""
    raw = read_bytes(path, limit, what)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{what} {path}: not a text file (not UTF-8)") from None
    if "\x00" in text:
        raise InputError(f"{what} {path}: not a text file (binary content)")
    return text


def read_toml_text(path: Path, what: str, error: Callable[[str], Exception]) -> str:
    """The text of the TOML file ``path`` (at most :data:`TOML_LIMIT` bytes): any failure is
    ``error`` of one line ("cannot read <what> <path>: ...", or why it is refused)."""
    try:
        return read_text(path, TOML_LIMIT, what)
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except InputError as exc:
        raise error(str(exc)) from None


def parse_toml(
    text: str, name: str = "<toml>", parse_float: Callable[[str], Any] = float
) -> dict[str, Any]:
    """The TOML document ``text``, checked: :class:`InputError` (starting with ``name``) for
    invalid TOML, nesting deeper than :data:`MAX_DEPTH`, an integer beyond 19 digits, a
    number that is not finite. ``tomllib.TOMLDecodeError`` is turned into InputError too."""
    _shallow(text, name)
    try:
        data = tomllib.loads(text, parse_float=parse_float)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{name}: not valid TOML: {exc}") from None
    except RecursionError:
        raise InputError(f"{name}: nested too deeply (at most {MAX_DEPTH} levels)") from None
    except (ValueError, decimal.InvalidOperation) as exc:  # e.g. a 5,000-digit integer
        raise InputError(f"{name}: not valid TOML: {str(exc).splitlines()[0]:.120}") from None
    _check(data, name, 0, "")
    return data


def read_toml(
    path: Path, what: str, parse_float: Callable[[str], Any] = float, limit: int = TOML_LIMIT
) -> tuple[str, dict[str, Any]]:
    """The text and the checked document of the TOML file ``path`` (``what`` names it)."""
    text = read_text(path, limit, what)
    return text, parse_toml(text, f"{what} {path}", parse_float)


def _shallow(text: str, name: str) -> None:
    """Refuse a text whose brackets nest deeper than :data:`MAX_DEPTH` before the parser
    recurses into them (brackets inside strings count too: a legitimate input never comes
    near the limit)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH * 2:
        return
    depth = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH * 2:
                raise InputError(f"{name}: nested too deeply (at most {MAX_DEPTH} levels)")
        elif ch in "]}":
            depth = max(depth - 1, 0)


def _check(value: Any, name: str, depth: int, where: str) -> None:
    if depth > MAX_DEPTH:
        raise InputError(f"{name}: nested too deeply (at most {MAX_DEPTH} levels)")
    if isinstance(value, dict):
        for k, v in value.items():
            _check(v, name, depth + 1, f"{where}.{k}" if where else str(k))
    elif isinstance(value, list):
        for v in value:
            _check(v, name, depth + 1, where)
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if abs(value) > _MAX_INT:
            raise InputError(
                f"{name}: '{where}': integer too large ({len(str(abs(value)))} digits)"
            )
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{name}: '{where}' must be a finite number, got {value}")
    elif isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise InputError(f"{name}: '{where}' must be a finite number, got {value}")
        if value.adjusted() > 18 or value.adjusted() < -30:
            raise InputError(
                f"{name}: '{where}' must have a magnitude between 1e-30 and 1e18, got {value:.6}"
            )
