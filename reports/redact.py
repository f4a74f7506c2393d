"""Keep secrets out of every report: passwords in URLs, DSNs and password-like settings.

The drivers already strip the password from ``engine.url``, but a report must not depend on
that: an error message or a configuration value may still carry a connection string. So
before rendering, every string of the result is scrubbed, and every password found anywhere
is also removed wherever else it appears verbatim.
"""

from __future__ import annotations

import copy
import re
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

from dbbench.reports.model import BenchmarkResult

MASK = "***"
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s]*):(?P<pw>[^@\s/]+)@")
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
    """Mask URL passwords, ``password=...`` pairs and any known secret in ``text``."""
    text = _URL_PASSWORD.sub(lambda m: f"{m.group('head')}:{MASK}@", text)
    text = _KEY_VALUE.sub(lambda m: f"{m.group('key')}{MASK}", text)
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= 3:  # shorter "secrets" would mask ordinary text
            text = text.replace(secret, MASK)
    return text


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


def redact_result(result: BenchmarkResult) -> BenchmarkResult:
    """A deep copy of ``result`` with every secret masked; the original is untouched."""
    clean = copy.deepcopy(result)
    secrets: set[str] = set()
    _collect(clean, secrets)
    scrubbed: BenchmarkResult = _scrub(clean, secrets)
    return scrubbed
