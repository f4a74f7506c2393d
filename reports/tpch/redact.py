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
import operator
import re
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

from dbbench.reports.tpch.model import BenchmarkResult

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
_LEAVES = frozenset({int, float, bool, type(None)})


_VALUES: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def _field_values(cls: type) -> Callable[[Any], tuple[Any, ...]] | None:
    """A function of an instance of the dataclass ``cls`` giving its fields' values, in
    their order (made once per class; None: ``cls`` is not a dataclass)."""
    found = _VALUES.get(cls)
    if found is None and is_dataclass(cls):
        names = tuple(f.name for f in fields(cls))
        if len(names) > 1:
            found = operator.attrgetter(*names)
        else:  # attrgetter of one name gives the value itself, of none is refused
            found = functools.partial(_values_of, names)
        _VALUES[cls] = found
    return found


def _values_of(names: tuple[str, ...], value: Any) -> tuple[Any, ...]:
    return tuple(getattr(value, name) for name in names)


def _gather(value: Any, texts: list[str]) -> bool:
    """Append every string under ``value`` to ``texts``; False when a password-like setting
    holds a value (then the full scrub runs). A string or a number inside a container, and
    the fields of a dataclass in a list, are taken there (a call for each of a result's
    thousands of them was most of the walk)."""
    kind = type(value)
    fields_of = _VALUES.get(kind)  # a dataclass met before
    if fields_of is not None:
        return _gather_all(fields_of(value), texts)
    if kind is str:
        texts.append(value)
    elif kind in _LEAVES:
        pass
    elif kind is list or kind is tuple:
        if not set(map(type, value)) <= _LEAVES:  # a list of numbers: nothing to read
            for v in value:
                item = type(v)
                if item is str:
                    texts.append(v)
                elif item in _LEAVES:
                    continue
                elif (fields_of := _VALUES.get(item)) is not None:  # a list of dataclasses
                    if not _gather_all(fields_of(v), texts):
                        return False
                elif not _gather(v, texts):
                    return False
    elif kind is dict:
        for k, v in value.items():
            if isinstance(k, str):
                if isinstance(v, str) and v and _SECRET_KEYS.search(k):
                    return False
                texts.append(k)
            if type(v) is str:
                texts.append(v)
            elif type(v) not in _LEAVES and not _gather(v, texts):
                return False
    elif not isinstance(value, type) and (fields_of := _field_values(kind)) is not None:
        return _gather_all(fields_of(value), texts)  # a dataclass met the first time
    elif isinstance(value, str | dict | list | tuple):  # a subclass: the full scrub
        return False
    return True


def _gather_all(values: tuple[Any, ...], texts: list[str]) -> bool:
    """:func:`_gather` of each of a dataclass's field ``values``."""
    for v in values:
        if type(v) is str:
            texts.append(v)
        elif type(v) not in _LEAVES and not _gather(v, texts):
            return False
    return True


#: the characters other than the ASCII letters that the case-blind keywords of
#: :data:`_KEY_VALUE` match (``re.IGNORECASE``: dotted and dotless i, long s, the Kelvin sign)
_FOLDED = re.compile("[\u0130\u0131\u017f\u212a]")
#: what every key of :data:`_KEY_VALUE` holds, in lower case ("passw": password, passwd)
_KEYWORDS = ("passw", "pwd", "secret", "token", "api_key")
#: what every match of :data:`_URL_PASSWORD` ends with (a quick search: it starts with a
#: literal, where the whole pattern is tried at every position)
_URL_TAIL = re.compile(r"://[^:/@\s]*:[^@\s/]+@")


def _may_hold_secret(text: str) -> bool:
    """False only when neither pattern matches anywhere in ``text``: the patterns are tried
    at every position of the text, their necessary parts are found in a tenth of the time.
    A key of :data:`_KEY_VALUE` is one of :data:`_KEYWORDS` in lower case (an ASCII letter
    only matches letters whose lower case it is, the rest are :data:`_FOLDED`)."""
    if not text.isascii() and _FOLDED.search(text):
        return _KEY_VALUE.search(text) is not None or _url_password(text)
    low = text.lower()
    if any(word in low for word in _KEYWORDS) and _KEY_VALUE.search(text) is not None:
        return True
    return _url_password(text)


def _url_password(text: str) -> bool:
    return (
        "://" in text
        and _URL_TAIL.search(text) is not None
        and (_URL_PASSWORD.search(text) is not None)
    )


def _clean(result: BenchmarkResult) -> bool:
    """Whether no string of ``result`` holds a secret (then scrubbing changes nothing)."""
    texts: list[str] = []
    if not _gather(result, texts):
        return False
    return not _may_hold_secret(_JOIN.join(texts))


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
