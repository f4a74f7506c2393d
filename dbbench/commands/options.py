"""Options shared by several commands, each parsed and checked in one place.

``-s/--scale-factor`` is one option type for every command (``gen``, ``qgen``, ``validate``,
``run``, ``load``, ``power``, ``throughput``): a positive finite number, or one clear line and
exit code 1. What a command's library accepts beyond that (dbgen's 64-bit key limit, say) is
checked by the library itself.
"""

from __future__ import annotations

import math
from typing import Annotated

import typer

from dbbench.errors import DbbenchError


def parse_scale_factor(text: str | float) -> float:
    """The ``-s`` value as a float; "abc", "nan", "inf", "0" and "-1" are one-line errors."""
    try:
        sf = float(text)
    except ValueError:
        raise DbbenchError(f"scale factor must be a number, got {str(text)!r}") from None
    if not math.isfinite(sf) or sf <= 0:
        raise DbbenchError(f"scale factor must be a positive finite number, got {str(text)!r}")
    return sf


#: ``-s/--scale-factor SF`` (default 1), already a checked float inside the command.
ScaleFactor = Annotated[
    float,
    typer.Option(
        "--scale-factor",
        "-s",
        parser=parse_scale_factor,
        metavar="SF",
        help="Scale factor (> 0; the official ones are 1, 10, 30, 100, 300, 1000, ...).",
    ),
]
