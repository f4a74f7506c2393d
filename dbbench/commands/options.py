"""Options shared by several commands, each parsed and checked in one place.

``-s/--scale-factor`` is one option type for every command (``gen``, ``qgen``, ``validate``,
``run``, ``load``, ``power``, ``throughput``): a positive finite number, or one clear line and
exit code 1. What a command's library accepts beyond that (dbgen's 64-bit key limit, say) is
checked by the library itself.

A group of options that several commands share (``run``'s engine, scale factor and run
directory; ``o2c``'s dialog settings) is declared once as an :class:`OptionGroup`: its
options are added to each command that names the group, and the command receives them as
one object (:func:`command`).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from dbbench.errors import DbbenchError


def count_series(text: str, option: str, what: str) -> list[int]:
    """``"1,2,4"``: a study's counts (users, streams), ascending, each at least 1, each once;
    an empty item (``1,,2``) or a count given twice (``1,1``) is a typo, refused."""
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        raise DbbenchError(f"{option} must be a comma-separated list of {what}: {text!r}") from None
    if any(v < 1 for v in values):
        raise DbbenchError(f"{option} needs {what} of at least 1: {text!r}")
    if len(set(values)) != len(values):
        raise DbbenchError(f"{option} names one of its {what} twice: {text!r}")
    return sorted(values)


def parse_scale_factor(text: str | float) -> float:
    """The ``-s`` value as a float; "abc", "nan", "inf", "0" and "-1" are one-line errors."""
    try:
        sf = float(text)
    except ValueError:
        raise DbbenchError(f"scale factor must be a number, got {str(text)!r}") from None
    if not math.isfinite(sf) or sf <= 0:
        raise DbbenchError(f"scale factor must be a positive finite number, got {str(text)!r}")
    return sf


#: ``-o/--output FILE`` of the commands that print a report: where to write it instead
OutputFile = Annotated[Path | None, typer.Option("--output", "-o", help="Write to FILE.")]
#: ``--force`` of ``compare`` and ``gate``
ForceCompare = Annotated[bool, typer.Option("--force", help="Compare even when not comparable.")]


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


def option(name: str, kind: Any, default: Any, *flags: str, help: str) -> inspect.Parameter:
    """One option of a group: ``name`` (the parameter), its type, default, flags and help."""
    return inspect.Parameter(
        name,
        inspect.Parameter.KEYWORD_ONLY,
        default=default,
        annotation=Annotated[kind, typer.Option(*flags, help=help)],
    )


@dataclass(frozen=True)
class OptionGroup:
    """Options declared once; ``make(**values)`` builds what the command receives."""

    options: Sequence[inspect.Parameter]
    make: Callable[..., Any]


def grouped(
    fn: Callable[..., None], groups: dict[str, OptionGroup], *, first: bool = False
) -> Callable[..., None]:
    """``fn`` as a command: its own parameters (those not named in ``groups``) and each
    group's options (before its own with ``first``); ``fn`` receives each group as one
    object under the group's name. Register the returned function with ``app.command``."""
    signature = inspect.signature(fn, eval_str=True)
    own = [p for p in signature.parameters.values() if p.name not in groups]
    shared = [p for group in groups.values() for p in group.options]
    params = [*shared, *own] if first else [*own, *shared]
    if first:  # keyword-only after positional-or-keyword, as inspect requires
        params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in params]

    def call(**given: Any) -> None:
        for arg, group in groups.items():
            given[arg] = group.make(**{p.name: given.pop(p.name) for p in group.options})
        fn(**given)

    call.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in params}
    call.__doc__, call.__name__ = fn.__doc__, fn.__name__
    return call


#: A study's passes of the 22 queries after each benchmark (``dbbench suite``, ``scale``).
Cold = Annotated[
    bool,
    typer.Option(
        "--cold",
        help="After each benchmark, one cold pass of the 22 queries per repetition, each after "
        "the engine is reopened and the page cache dropped where allowed (else: warm only).",
    ),
]
Repetitions = Annotated[
    int,
    typer.Option(
        "--repetitions",
        help="After each benchmark, N hot passes of the 22 queries, reported apart from the "
        "cold ones (not a suite file's repetitions of whole benchmarks).",
    ),
]
