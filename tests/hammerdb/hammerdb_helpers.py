"""Helpers of the HammerDB tests (a module of its own: ``conftest`` is not importable by name
when several test folders run together)."""

from __future__ import annotations

from pathlib import Path

import psycopg

DATA = Path(__file__).parent / "data"


def drop_role(base_url: str, role: str) -> None:
    """HammerDB's PostgreSQL build creates a role owning its schema: drop it after the test."""
    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f'DROP ROLE IF EXISTS "{role}"')  # type: ignore[arg-type]
