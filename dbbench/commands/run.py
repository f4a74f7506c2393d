"""The `dbbench run` command(s)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app (filled in by the owning work item)."""
