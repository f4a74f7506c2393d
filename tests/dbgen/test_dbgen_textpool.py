"""The text pool: its construction, its cache and the cache's integrity check."""

from __future__ import annotations

import hashlib
import os
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


@pytest.mark.slow
def test_corrupt_cache_is_rebuilt(tmp_path: Path) -> None:
    good = textpool.get_pool()
    path = tmp_path / textpool._CACHE_NAME
    path.write_bytes(good.tobytes())
    textpool.load_pool(tmp_path)  # verified once: the stamp now vouches for this file
    stamp = tmp_path / (textpool._CACHE_NAME + ".verified")
    assert stamp.is_file()
    with path.open("r+b") as f:  # corrupt it in place after it was stamped: one flipped byte
        f.seek(12345)
        f.write(bytes([good[12345] ^ 0xFF]))
    os.utime(path, ns=(1, 1))  # whatever the clock's resolution, the file is not the stamped one
    pool = textpool.load_pool(tmp_path)
    assert pool[12345] == good[12345]
    assert hashlib.sha1(path.read_bytes()).hexdigest() == textpool.POOL_SHA1
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted([textpool._CACHE_NAME, stamp.name])  # no temporaries


def test_stamp_skips_the_hash_only_for_the_stamped_file(tmp_path: Path) -> None:
    path = tmp_path / textpool._CACHE_NAME
    path.write_bytes(b"x" * textpool.POOL_SIZE)  # right size, wrong content
    stamp = tmp_path / (textpool._CACHE_NAME + ".verified")
    stamp.write_text("0 0 0 " + textpool.POOL_SHA1 + "\n", encoding="ascii")  # a stale stamp
    assert not textpool._valid(path)


def test_unwritable_cache_is_a_dbgen_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(DbgenError, match="cannot write the text pool cache"):
        textpool.load_pool(blocker / "sub")
