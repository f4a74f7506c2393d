"""The text pool: its construction, its cache and the cache's integrity check."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dbbench.dbgen import textpool
from dbbench.dbgen.errors import DbgenError


def test_pool_starts_like_the_reference() -> None:
    head = textpool.build_pool(400).tobytes()
    assert head.startswith(
        b"furiously special foxes haggle furiously blithely ironic deposits. slyly final "
        b"theodolites boost slyly even asymptotes. carefully final foxes wake furiously "
        b"around the furiously bold deposits. "
    )


def test_prefix_build_equals_cached_pool() -> None:
    """Any prefix is the same bytes as the full pool's (blocks join seamlessly)."""
    size = (1 << 21) * 3  # crosses several generation blocks
    assert np.array_equal(textpool.build_pool(size), textpool.get_pool()[:size])


def test_cached_pool_checksum() -> None:
    pool = textpool.get_pool()
    assert len(pool) == textpool.POOL_SIZE
    assert hashlib.sha1(pool).hexdigest() == textpool.POOL_SHA1


def _first_use_in_a_new_process(cache: Path) -> None:
    """``get_pool`` in a fresh interpreter, as a new benchmark or worker would call it."""
    code = "from dbbench.dbgen import textpool; textpool.get_pool()"
    env = {**os.environ, "DBBENCH_CACHE_DIR": str(cache)}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=600)


@pytest.mark.slow
def test_cache_corrupted_in_place_is_detected_and_rebuilt(tmp_path: Path) -> None:
    good = textpool.get_pool()
    path = tmp_path / textpool._CACHE_NAME
    path.write_bytes(good.tobytes())
    (tmp_path / (textpool._CACHE_NAME + ".verified")).write_text("an old version's stamp\n")
    _first_use_in_a_new_process(tmp_path)  # accepted as it is: same file, old stamp removed
    before = path.stat()
    assert sorted(p.name for p in tmp_path.iterdir()) == [textpool._CACHE_NAME]
    with path.open("r+b") as f:  # corrupt it in place: one flipped byte ...
        f.seek(12345)
        f.write(bytes([good[12345] ^ 0xFF]))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # ... size, mtime, inode kept
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size, before.st_mtime_ns, before.st_ino
    )  # fmt: skip
    _first_use_in_a_new_process(tmp_path)
    assert hashlib.sha1(path.read_bytes()).hexdigest() == textpool.POOL_SHA1
    assert path.stat().st_ino != before.st_ino  # rebuilt, under a new name renamed over it
    assert sorted(p.name for p in tmp_path.iterdir()) == [textpool._CACHE_NAME]  # no temporaries


def test_right_size_wrong_content_is_not_the_pool(tmp_path: Path) -> None:
    path = tmp_path / textpool._CACHE_NAME
    path.write_bytes(b"x" * textpool.POOL_SIZE)
    assert textpool._open_valid(path) is None
    path.write_bytes(b"x" * 100)
    assert textpool._open_valid(path) is None


def test_unwritable_cache_is_a_dbgen_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(DbgenError, match="cannot write the text pool cache"):
        textpool.load_pool(blocker / "sub")
