"""The one check of every command-line value, before any command is loaded or starts work.

Every argument of every command (option values and positional arguments alike) is checked
once, on the raw command line:

* a number is finite: ``nan``, ``inf``, ``infinity`` (any case, any sign) are refused for
  every option (``--steady nan`` used to reach ``int()`` after the database was opened);
* an integer fits 64 bits (a 20-digit seed used to overflow inside an engine);
* a text or a path is UTF-8 (a non-UTF-8 ``-o`` name used to fail with
  ``UnicodeEncodeError`` or a C++ ``std::bad_cast`` after work started).

The commands' own checks (ranges, combinations) follow; none of them sees such a value.
"""

from __future__ import annotations

import re

#: the largest integer an option may hold (what the engines and the generator accept)
MAX_INT = 2**63 - 1
_NOT_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?\d+")


#: what the short options the error names stand for
_NAMES = {"-s": " (scale factor)", "-S": " (scale factors)", "-u": " (users)", "-j": " (jobs)"}


class OptionError(ValueError):
    """A command-line value refused before any work (one line)."""


def _value(token: str) -> tuple[str, str]:
    """The option a token names (or "") and the value it holds (``--steady=nan``)."""
    if token.startswith("--") and "=" in token:
        name, _, value = token.partition("=")
        return name, value
    return "", token


def check_arguments(args: list[str]) -> None:
    """Raise :class:`OptionError` for the first value of ``args`` no command may be given."""
    previous = ""
    for token in args:
        name, value = _value(token)
        option = name or (previous if previous.startswith("-") else "")
        where = f" for {option}{_NAMES.get(option, '')}" if option else ""
        what = _NAMES.get(option, "")[2:-1] or option or "a value"
        try:
            token.encode("utf-8")
        except UnicodeEncodeError:
            shown = token.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            raise OptionError(f"{shown!r}{where} is not UTF-8 text (a file name?)") from None
        if _NOT_FINITE.fullmatch(value.strip()):
            raise OptionError(f"{what} must be a finite number, got {value!r}")
        if _INTEGER.fullmatch(value.strip()) and abs(int(value[:40])) > MAX_INT:
            raise OptionError(f"{value[:30]!r}{where} is too large (at most {MAX_INT})")
        previous = token
