"""The file moves behind the Spark engine's refresh functions and its storage size.

Plain Parquet tables change by files: RF1 and RF2 stage new files in a hidden folder, then
move them into the table folder and delete the files they replace. Two ways to do that:

* :class:`HadoopFiles`, through the JVM's Hadoop ``FileSystem`` of a classic driver: any
  warehouse URI the cluster reaches (HDFS, S3, a shared folder);
* :class:`LocalFiles`, through this process's own file system, for a Spark Connect session
  (which has no JVM handle) whose warehouse is a ``file://`` folder this machine sees, as the
  Connect server does: the same machine, or a folder mounted on both at the same path.

Neither is crash-atomic; the engine holds queries back while files move.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlparse


class TableFiles(Protocol):
    """What the refresh functions and the storage figure need of a file system."""

    def move_in(self, staging: str, target: str) -> None:
        """Move the Parquet files of ``staging`` into the folder ``target``; drop ``staging``."""

    def delete(self, file: str) -> None:
        """Delete one data file (a file RF2 replaced)."""

    def size(self, folder: str) -> int | None:
        """Bytes under ``folder`` (0 when it does not exist)."""


class HadoopFiles:
    """Hadoop's ``FileSystem`` API through the classic driver's JVM."""

    def __init__(self, spark: Any) -> None:
        self._jvm = spark.sparkContext._jvm
        self._conf = spark.sparkContext._jsc.hadoopConfiguration()

    def _path(self, *parts: Any) -> Any:
        return self._jvm.org.apache.hadoop.fs.Path(*parts)

    def _fs(self, path: Any) -> Any:
        return path.getFileSystem(self._conf)

    def move_in(self, staging: str, target: str) -> None:
        source = self._path(staging)
        fs = self._fs(source)
        if fs.exists(source):
            for status in fs.listStatus(source):
                name = status.getPath().getName()
                if name.endswith(".parquet"):
                    fs.rename(status.getPath(), self._path(self._path(target), name))
        fs.delete(source, True)

    def delete(self, file: str) -> None:
        path = self._path(file)
        self._fs(path).delete(path, False)

    def size(self, folder: str) -> int | None:
        path = self._path(folder)
        fs = self._fs(path)
        return int(fs.getContentSummary(path).getLength()) if fs.exists(path) else 0


def local_path(uri: str) -> Path | None:
    """The local path of a ``file:`` URI (as Spark writes them), else None."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    return Path(unquote(parsed.path))


class LocalFiles:
    """This process's file system, for ``file://`` warehouses it shares with the server."""

    def move_in(self, staging: str, target: str) -> None:
        source, folder = _local(staging), _local(target)
        if source.is_dir():
            for file in source.glob("*.parquet"):
                os.replace(file, folder / file.name)
        shutil.rmtree(source, ignore_errors=True)

    def delete(self, file: str) -> None:
        _local(file).unlink(missing_ok=True)

    def size(self, folder: str) -> int | None:
        root = _local(folder)
        return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())

    @staticmethod
    def sees(files: list[str]) -> bool:
        """True when every one of these files (listed by the server) exists here too."""
        paths = [local_path(f) for f in files]
        return bool(paths) and all(p is not None and p.is_file() for p in paths)


def _local(uri: str) -> Path:
    path = local_path(uri)
    if path is None:
        raise ValueError(f"not a local file URI: {uri}")
    return path
