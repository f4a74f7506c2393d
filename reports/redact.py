"""Keep secrets out of every report: passwords in URLs, DSNs and password-like settings.

The drivers already strip the password from ``engine.url``, but a report must not depend on
that: an error message or a configuration value may still carry a connection string. So
before rendering, every string of the result is scrubbed, and every password found anywhere
is also removed wherever else it appears verbatim.

Most results hold no secret at all: one walk gathers every string (and every password-like
setting) and one search of their joined text finds none, so nothing is copied.
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

from dbbench.reports.model import BenchmarkResult

MASK = "***"
# The lookbehind anchors a scheme at the start of its run of letters: without it, a long run
# of letters was rescanned from every position (quadratic: 3.4 ms per KB of text).
_URL_PASSWORD = re.compile(
    r"(?<![A-Za-z0-9+.\-])(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s]*):(?P<pw>[^@\s/]+)@"
)
_KEY_VALUE = re.compile(
    r"(?P<key>\b(?:password|passwd|pwd|secret|token|api_key)\s*[=:]\s*)(?P<pw>[^\s;&,'\"]+)",
    re.IGNORECASE,
)
_SECRET_KEYS = re.compile(r"pass|pwd|secret|token|api.?key|credential", re.IGNORECASE)

T = TypeVar("T")


def _collect(value: Any, found: set[str]) -> None:
    if isinstance(value, str):
        found.update(m.group("pw") for m in _URL_PASSWORD.finditer(value))
        found.update(m.group("pw") for m in _KEY_VALUE.finditer(value))
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str) and _SECRET_KEYS.search(k) and isinstance(v, str) and v:
                found.add(v)
            _collect(v, found)
    elif isinstance(value, list | tuple):
        for v in value:
            _collect(v, found)
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            _collect(getattr(value, f.name), found)


def redact_text(text: str, secrets: set[str] | frozenset[str] = frozenset()) -> str:
    """Mask URL passwords, ``password=...`` pairs and any known secret in ``text`` (in time
    linear in the text's length)."""
    if "://" in text:
        text = _URL_PASSWORD.sub(lambda m: f"{m.group('head')}:{MASK}@", text)
    text = _KEY_VALUE.sub(lambda m: f"{m.group('key')}{MASK}", text)
    pattern = _secrets_pattern(frozenset(secrets))
    return pattern.sub(MASK, text) if pattern is not None else text


@functools.lru_cache(maxsize=8)
def _secrets_pattern(secrets: frozenset[str]) -> re.Pattern[str] | None:
    """One alternation of the known secrets, longest first (shorter "secrets" than 3
    characters would mask ordinary text)."""
    kept = sorted((s for s in secrets if len(s) >= 3), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, kept))) if kept else None


def _scrub(value: Any, secrets: set[str]) -> Any:
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, dict):
        return {
            k: (
                MASK
                if isinstance(k, str) and _SECRET_KEYS.search(k) and isinstance(v, str) and v
                else _scrub(v, secrets)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    if is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            setattr(value, f.name, _scrub(getattr(value, f.name), secrets))
        return value
    return value


#: joins the gathered strings: no match of either pattern crosses it (it is neither a word
#: character nor ``=``/``:``, ends any password and ``\s*``; ``\n`` stands for a string's start)
_JOIN = "\n;\n"
_FIELDS: dict[type, tuple[str, ...]] = {}
_LEAVES = frozenset({int, float, bool, type(None)})


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return names


def _gather(value: Any, texts: list[str]) -> bool:
    """Append every string under ``value`` to ``texts``; False when a password-like setting
    holds a value (then the full scrub runs)."""
    kind = type(value)
    if kind is str:
        texts.append(value)
    elif kind in _LEAVES:
        pass
    elif kind is list or kind is tuple:
        if not set(map(type, value)) <= _LEAVES:  # a list of numbers: nothing to read
            for v in value:
                if not _gather(v, texts):
                    return False
    elif kind is dict:
        for k, v in value.items():
            if isinstance(k, str):
                if isinstance(v, str) and v and _SECRET_KEYS.search(k):
                    return False
                texts.append(k)
            if not _gather(v, texts):
                return False
    elif is_dataclass(value) and not isinstance(value, type):
        for name in _field_names(kind):
            if not _gather(getattr(value, name), texts):
                return False
    elif isinstance(value, str | dict | list | tuple):  # a subclass: the full scrub
        return False
    return True


def _clean(result: BenchmarkResult) -> bool:
    """Whether no string of ``result`` holds a secret (then scrubbing changes nothing)."""
    texts: list[str] = []
    if not _gather(result, texts):
        return False
    joined = _JOIN.join(texts)
    return _KEY_VALUE.search(joined) is None and (
        "://" not in joined or _URL_PASSWORD.search(joined) is None
    )


def redact_result(result: BenchmarkResult) -> BenchmarkResult:
    """``result`` with every secret masked; the original is untouched. A result without any
    secret comes back as a shallow copy sharing its parts with the original (read the
    redacted result, never change it)."""
    if _clean(result):
        return copy.copy(result)
    clean = copy.deepcopy(result)
    secrets: set[str] = set()
    _collect(clean, secrets)
    scrubbed: BenchmarkResult = _scrub(clean, secrets)
    return scrubbed
