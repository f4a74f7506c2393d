"""The space check before a load: refuse a database that cannot fit its disk.

An engine states the bytes a loaded database takes per unit of scale factor on this
machine's disk (``engine.facts.bytes_per_sf``; None: not stored here, or unknown: no check).
The check reads the folder of a database file named by the URL.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import parse_url


class NoSpace(DriversError):
    """The database cannot fit its disk (a study stops at once: every step would fail)."""


def _gb(n: float) -> str:
    """Bytes as GB, never "0.0 GB" for a non-zero amount."""
    gb = n / 1e9
    if gb >= 0.1 or gb == 0:
        return f"{gb:,.1f} GB"
    return f"{n / 1e6:,.1f} MB" if n >= 1e5 else f"{n:,.0f} bytes"


def check_space(engine: Engine, url: str, sf: float) -> None:
    """Refuse, before anything is generated, a load whose database cannot fit its disk."""
    per_sf = engine.facts.bytes_per_sf
    parsed = parse_url(url)
    if per_sf is None or parsed.host is not None:
        return
    if not parsed.database or parsed.database == ":memory:":
        return
    path = Path(parsed.database).resolve()
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    there = path.stat().st_size if path.is_file() else 0  # a reload replaces it
    free = shutil.disk_usage(folder).free + there
    need = per_sf * sf
    if need > free:
        raise NoSpace(
            f"SF {sf:g} needs about {_gb(need)} for the database {path}, but only "
            f"{_gb(free)} are free there (--no-space-check to try anyway)"
        )
