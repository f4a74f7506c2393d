"""The kit's own engine URL options, declared per engine as a typed dataclass, parsed here once.

An engine module declares which query options it consumes itself (``?keys=true``,
``?copy_streams=2``) as a frozen dataclass deriving from :class:`EngineOptions`; every other
option of the URL belongs to the engine's driver and is passed on untouched
(:meth:`EngineOptions.driver_options`). Field types say how a value is checked:

* ``bool``: true/false, yes/no, on/off, 1/0;
* ``int``: a positive integer;
* ``Literal["a", "b"]``: one of the listed words.

A bad value is one :class:`~drivers.errors.DriversError` line naming the option.
"""

from __future__ import annotations

import dataclasses
import os
import typing
from dataclasses import dataclass
from typing import Any, Literal, Self

from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import EngineURL

#: Orders per RF transaction unless the URL says ``?refresh_batch=N``: one transaction for a
#: whole SF1 update set, several for larger ones (the spec allows any batching of orders).
DEFAULT_REFRESH_BATCH = 1500

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def parse_flag(key: str, value: str) -> bool:
    """A yes/no option of the kit itself (``?keys=false``); anything else is an error."""
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise DriversError(f"engine option {key}={value!r} must be true or false")


def parse_count(key: str, value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise DriversError(f"engine option {key}={value!r} must be a positive integer")
    return int(value)


def parse_choice(key: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise DriversError(f"engine option {key}={value!r} must be {' or '.join(choices)}")
    return value


def cpu_streams() -> int:
    """One per CPU, at most 4: the default number of parallel loading connections."""
    return max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class EngineOptions:
    """Options every SQL engine of the kit understands."""

    refresh_batch: int = DEFAULT_REFRESH_BATCH  # orders per RF1/RF2 transaction

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The query options the kit consumes for this engine."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_url(cls, url: EngineURL) -> Self:
        """The engine's options from a URL's query string, each value checked."""
        hints = _hints(cls)
        values: dict[str, Any] = {}
        for name in cls.names():
            text = url.query.get(name)
            if text is not None:
                values[name] = _convert(name, text, hints[name])
        return cls(**values)

    @classmethod
    def driver_options(cls, url: EngineURL) -> dict[str, str]:
        """The URL's other query options: the driver's own (libpq, DuckDB settings, ...)."""
        return dict(url.without(*cls.names()).query)


def _hints(cls: type[EngineOptions]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _convert(name: str, text: str, hint: Any) -> object:
    if hint is bool:
        return parse_flag(name, text)
    if hint is int:
        return parse_count(name, text)
    if typing.get_origin(hint) is Literal:
        return parse_choice(name, text, tuple(str(a) for a in typing.get_args(hint)))
    if hint is str:
        return text
    raise TypeError(f"engine option {name}: unsupported type {hint!r}")  # a kit bug
