"""Private scratch directories for data in flight between processes.

The writer's segments wait in one until the parent joins them into their file, the loaders'
batches until their loading thread takes them. Shared memory (``/dev/shm``, a tmpfs) is used
when it has room: there the data never reaches a disk. In a directory on disk it would be
written twice, once as scratch and once into the final file or database, and at SF10 (11 GB
of ``.tbl``, far more than the kernel keeps as dirty pages) that doubled disk traffic costs
more than the copy itself. Elsewhere the system's temporary directory is used.

A spool is named ``<prefix><pid>-<random>``; the spools of processes that are gone (killed
before they could clean up) are removed when the next one is made, because in shared memory
they would hold memory until the next reboot.
"""

from __future__ import annotations

import os
import shutil
import tempfile

SHARED_MEMORY = "/dev/shm"


def spool_root(min_bytes: int) -> str | None:
    """Shared memory when it is writable with ``min_bytes`` free, else None (the system's
    temporary directory). Containers often give ``/dev/shm`` only 64 MiB."""
    try:
        stat = os.statvfs(SHARED_MEMORY)
    except OSError:
        return None
    room = stat.f_bavail * stat.f_frsize
    return SHARED_MEMORY if room >= min_bytes and os.access(SHARED_MEMORY, os.W_OK) else None


def make_spool(prefix: str, min_bytes: int) -> str:
    """A new private spool directory (see :func:`spool_root`); stale ones are removed."""
    root = spool_root(min_bytes)
    remove_stale_spools(prefix, root)
    return tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=root)


def remove_stale_spools(prefix: str, root: str | None) -> None:
    """Remove the spools under ``root`` whose process is gone."""
    folder = root or tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(folder) if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix) :].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but not ours to signal
        return True
    return True
