"""The space checks before work: refuse a database, or generated files, that cannot fit.

An engine states the bytes a loaded database takes per unit of scale factor on this
machine's disk (``engine.facts.bytes_per_sf``; None: not stored here, or unknown: no check).
:func:`check_space` reads the folder of a database file named by the URL;
:func:`check_files_space` the output folder of ``dbbench gen``. Both measure the free space
the same way (:func:`free_bytes`) and raise :class:`NoSpace`.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from dbbench.dbgen import api
from dbbench.dbgen.generators import GENERATORS
from dbbench.dbgen.writer import GenOptions
from dbbench.drivers.errors import DriversError
from dbbench.drivers.url import parse_url

if TYPE_CHECKING:  # ``dbbench gen`` checks its files without importing the engine surface
    from dbbench.drivers.engine import Engine

#: Bytes of a format's files per byte of ``.tbl`` (a lower bound: the size check refuses
#: only what surely cannot fit).
FORMAT_SHARE = {"tbl": 1.0, "csv": 1.0, "parquet": 0.2}
#: Below this many bytes of files the writer's own error (a full disk, a read-only folder)
#: is the precise one, and it removes what it wrote.
CHECKED_FROM = 1e9


class NoSpace(DriversError):
    """The database cannot fit its disk (a study stops at once: every step would fail)."""


def _gb(n: float) -> str:
    """Bytes as GB, never "0.0 GB" for a non-zero amount."""
    gb = n / 1e9
    if gb >= 0.1 or gb == 0:
        return f"{gb:,.1f} GB"
    return f"{n / 1e6:,.1f} MB" if n >= 1e5 else f"{n:,.0f} bytes"


def free_bytes(path: Path) -> tuple[Path, int]:
    """The nearest existing folder at or above ``path`` and the bytes free there."""
    folder = path.resolve()
    while not folder.exists():
        folder = folder.parent
    return folder, shutil.disk_usage(folder).free


def check_space(engine: Engine | type[Engine], url: str, sf: float) -> None:
    """Refuse, before anything is generated, a load whose database cannot fit its disk
    (``engine``: the open engine, or its class before it is opened)."""
    per_sf = engine.facts.bytes_per_sf
    parsed = parse_url(url)
    if per_sf is None or parsed.host is not None:
        return
    if not parsed.database or parsed.database == ":memory:":
        return
    path = Path(parsed.database).resolve()
    there = path.stat().st_size if path.is_file() else 0  # a reload replaces it
    free = free_bytes(path.parent)[1] + there
    need = per_sf * sf
    if need > free:
        raise NoSpace(
            f"SF {sf:g} needs about {_gb(need)} for the database {path}, but only "
            f"{_gb(free)} are free there (--no-space-check to try anyway)"
        )


def check_files_space(options: GenOptions) -> None:
    """Refuse, before any work, files that cannot fit the free space of the output folder
    (``-s 1e9`` once ran until killed)."""
    if options.updates:
        return  # update sets are a thousandth of the data each
    share = FORMAT_SHARE[options.fmt] / (options.parts if options.part is not None else 1)
    need = share * sum(
        api.row_count(t, options.sf) * GENERATORS[t].row_bytes for t in options.tables
    )
    folder, free = free_bytes(options.out_dir)
    if need > max(free, CHECKED_FROM):
        raise NoSpace(
            f"SF {options.sf:g} writes about {need / 1e9:,.1f} GB of {options.fmt} files, "
            f"but only {free / 1e9:,.1f} GB are free in {folder}"
        )
