"""The 300 MiB text pool that every comment column is a slice of (tpch.md §5.4).

dbgen builds the pool from one random stream (5), sentence by sentence, and the number of
draws a sentence takes depends on its own draws. The build here stays vectorised anyway:

1. a block of raw draws is made by doubling (:func:`dbgen.rng.geometric`);
2. for *every* position the length (in draws) of a sentence starting there is computed with
   array operations; the actual sentence starts are then found by chasing those lengths from
   the block's first position (the only scalar loop, one step per sentence);
3. a role (noun, verb, terminator, …) is assigned to every draw of every real sentence, the
   draws are resolved to vocabulary pieces, and the bytes are gathered in one go.

The pool is cached on disk (``$DBBENCH_CACHE_DIR`` or ``~/.cache/dbbench``), written under a
temporary name and renamed, memory-mapped so that worker processes share one copy, and its
content checked against a stored SHA-1 on first use in every process. A cache that fails the
check is rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from contextlib import suppress
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from dbbench.dbgen import arrow, dists
from dbbench.dbgen.errors import DbgenError
from dbbench.dbgen.rng import A, P, geometric, mulmod

POOL_SIZE = 300 * 1024 * 1024
#: SHA-1 of the whole pool, fixed once the build reproduced the reference tables byte for byte.
POOL_SHA1 = "419a3776e1827496efe40d77043e3ca05c34d59a"
_CACHE_NAME = "tpch-textpool-v1.bin"
_BLOCK = 1 << 21  # draws per block
_SEGMENT = 2048  # positions per segment of the sentence chase
_OVERLAP = 20  # the longest sentence takes 20 draws

# Roles of a draw inside a sentence; 0 = a form choice that writes nothing.
NOUN, ADJ, ADJC, ADV, VERB, AUX, PREP, TERM = range(1, 9)
_ROLE_WORDS: dict[int, tuple[dists.Dist, str]] = {
    NOUN: (dists.NOUNS, " "),
    ADJ: (dists.ADJECTIVES, " "),
    ADJC: (dists.ADJECTIVES, ", "),
    ADV: (dists.ADVERBS, " "),
    VERB: (dists.VERBS, " "),
    AUX: (dists.AUXILLARIES, " "),
    PREP: (dists.PREPOSITIONS, " the "),
    TERM: (dists.TERMINATORS, " "),
}
_NP_ROLES = ([NOUN], [ADJ, NOUN], [ADJC, ADJ, NOUN], [ADV, ADJ, NOUN])
_VP_ROLES = ([VERB], [AUX, VERB], [VERB, ADV], [AUX, VERB, ADV])
_GRAMMAR = [form.split() for form in dists.GRAMMAR.values]

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]


def _pick(dist: dists.Dist, unit: npt.NDArray[np.float64]) -> I64:
    """A weighted pick from ``x / P`` precomputed (UnifInt's own first operation)."""
    return dist.pick((unit * float(dist.total)).astype(np.int64) + 1)


class _Vocab:
    """Every piece a draw can write, as an Arrow string array with per-role base ids.

    Each piece also exists without its last character (ids shifted by ``len(pieces)``): the
    word before a terminator loses its trailing space. A ``take`` of piece ids then yields
    the text directly as the taken array's data buffer.
    """

    def __init__(self) -> None:
        pieces: list[str] = []
        self.base: dict[int, int] = {}
        for role, (dist, suffix) in _ROLE_WORDS.items():
            self.base[role] = len(pieces)
            pieces.extend(v + suffix for v in dist.values)
        self.trimmed = len(pieces)
        self.strings = arrow.strings(pieces + [p[:-1] for p in pieces])
        self.term_lo = self.base[TERM]


class _Block:
    """Per-position derived values for one block of raw draws."""

    def __init__(self, raw: npt.NDArray[np.uint64]) -> None:
        self.unit = raw.astype(np.float64) / float(P)
        self.np_form = _pick(dists.NP, self.unit)
        self.vp_form = _pick(dists.VP, self.unit)
        self.np_len = np.array([1 + len(r) for r in _NP_ROLES], dtype=np.int64)[self.np_form]
        self.vp_len = np.array([1 + len(r) for r in _VP_ROLES], dtype=np.int64)[self.vp_form]
        self.grammar = _pick(dists.GRAMMAR, self.unit)

    def advance(self, pos: I64, token: str) -> I64:
        """Position after ``token`` (N, V, P or T) starting at ``pos``."""
        if token == "N":
            return pos + self.np_len[pos]
        if token == "V":
            return pos + self.vp_len[pos]
        if token == "P":
            return pos + 1 + self.np_len[pos + 1]
        return pos + 1

    def sentence_ends(self, n: int) -> I64:
        """For every start position ``t < n``: the position after a sentence starting at t."""
        t = np.arange(n, dtype=np.int64)
        out = np.empty(n, dtype=np.int64)
        g = self.grammar[:n]
        for form, tokens in enumerate(_GRAMMAR):
            sel = t[g == form]
            pos = sel + 1
            for tok in tokens:
                pos = self.advance(pos, tok)
            out[sel] = pos
        return out

    def roles(self, starts: I64, size: int) -> npt.NDArray[np.int8]:
        """The role of every draw of the sentences beginning at ``starts``."""
        role = np.zeros(size, dtype=np.int8)
        g = self.grammar[starts]
        for form, tokens in enumerate(_GRAMMAR):
            pos = starts[g == form] + 1
            for tok in tokens:
                if tok == "P":
                    role[pos] = PREP
                    pos = pos + 1
                if tok in "NP":
                    self._phrase(role, pos, self.np_form, _NP_ROLES)
                    pos = pos + self.np_len[pos]
                elif tok == "V":
                    self._phrase(role, pos, self.vp_form, _VP_ROLES)
                    pos = pos + self.vp_len[pos]
                else:
                    role[pos] = TERM
                    pos = pos + 1
        return role

    @staticmethod
    def _phrase(
        role: npt.NDArray[np.int8], pos: I64, forms: I64, table: tuple[list[int], ...]
    ) -> None:
        f = forms[pos]
        for k, words in enumerate(table):
            at = pos[f == k]
            for w, r in enumerate(words):
                role[at + 1 + w] = r


def _chase(ends: I64, n: int) -> tuple[I64, int]:
    """Sentence starts reachable from 0 below ``n``, and the first position at or after n.

    ``n`` is cut into segments; every segment is walked from each of the 20 positions a
    sentence could enter it at, all segments at once (phase 1). Chaining the segments is
    then a short scalar loop over segments (phase 2), and the real walk is replayed for all
    segments at once to list the starts (phase 3). No Python work per sentence.
    """
    seg = _SEGMENT
    first = np.arange(0, n, seg, dtype=np.int64)
    limit = np.minimum(first + seg, n)
    exits = first[:, None] + np.arange(_OVERLAP, dtype=np.int64)[None, :]
    _walk(ends, exits, limit[:, None])
    entry, entries = 0, []
    exit_rows = exits.tolist()
    for s, lo in enumerate(first.tolist()):
        entries.append(entry)
        entry = exit_rows[s][entry - lo]
    pos = np.asarray(entries, dtype=np.int64)
    steps = []
    active = pos < limit
    while active.any():
        steps.append(np.where(active, pos, -1))
        pos = np.where(active, ends[np.minimum(pos, n - 1)], pos)
        active = pos < limit
    visited = np.stack(steps).T.reshape(-1)
    return visited[visited >= 0], entry


def _walk(ends: I64, pos: I64, limit: I64) -> None:
    """Advance every position in ``pos`` sentence by sentence until it reaches ``limit``."""
    n = len(ends)
    active = pos < limit
    while active.any():
        pos[...] = np.where(active, ends[np.minimum(pos, n - 1)], pos)
        active = pos < limit


def _render(block: _Block, role: npt.NDArray[np.int8], end: int, vocab: _Vocab) -> U8:
    """Bytes written by the draws ``0 .. end−1`` of a block."""
    pos = np.flatnonzero(role[:end] > 0)
    r = role[pos]
    ids = np.empty(len(pos), dtype=np.int64)
    for code, (dist, _) in _ROLE_WORDS.items():
        m = r == code
        ids[m] = vocab.base[code] + _pick(dist, block.unit[pos[m]])
    terms = np.flatnonzero(ids >= vocab.term_lo)
    ids[terms - 1] += vocab.trimmed  # the terminator replaces the previous word's space
    text = vocab.strings.take(arrow.ints(ids))
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int32)
    data = np.frombuffer(text.buffers()[2], dtype=np.uint8)
    return data[offsets[0] : offsets[-1]]


def build_pool(size: int = POOL_SIZE) -> U8:
    """Build the first ``size`` bytes of the pool from stream 5 (about 10 s for 300 MiB)."""
    vocab = _Vocab()
    out = np.empty(size, dtype=np.uint8)
    filled, x = 0, 933588178
    powers = geometric(A, A, _BLOCK + _OVERLAP)  # A^1 .. A^(B+OV)
    while filled < size:
        raw = mulmod(powers, x)
        block = _Block(raw)
        starts, consumed = _chase(block.sentence_ends(_BLOCK), _BLOCK)
        role = block.roles(starts, _BLOCK + _OVERLAP)
        chunk = _render(block, role, consumed, vocab)
        take = min(len(chunk), size - filled)
        out[filled : filled + take] = chunk[:take]
        filled += take
        x = int(raw[consumed - 1])
    return out


def cache_dir() -> Path:
    env = os.environ.get("DBBENCH_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "dbbench"


def _open_valid(path: Path) -> U8 | None:
    """``path`` memory-mapped if it holds the pool (the right size and the pool's SHA-1 over
    the very mapping returned), else None.

    Nothing about the file (size, modification time, inode, a stamp beside it) is trusted
    instead of its content: a cache corrupted in place keeps all of those. The hash runs over
    the memory-mapped file once per process (:func:`get_pool` is cached; forked workers
    inherit the verified mapping) and costs about 0.2-0.25 s for the 300 MiB once the file is
    in the page cache, which generation then needs anyway."""
    if not path.is_file() or path.stat().st_size != POOL_SIZE:
        return None
    pool: U8 = np.memmap(path, dtype=np.uint8, mode="r").view(np.ndarray)
    return pool if hashlib.sha1(pool.data).hexdigest() == POOL_SHA1 else None


def _write_cache(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        pool = build_pool()
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(pool.tobytes())
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # a shared cache, not mkstemp's private 0600
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise DbgenError(f"cannot write the text pool cache in {path.parent}: {exc}") from exc


def load_pool(directory: Path) -> U8:
    """The pool memory-mapped from ``directory``, built there first if missing or corrupt."""
    path = directory / _CACHE_NAME
    pool = _open_valid(path)
    if pool is None:
        _write_cache(path)
        pool = _open_valid(path)
        if pool is None:
            raise DbgenError(f"the text pool cache {path} failed its SHA-1 check after a rebuild")
    with suppress(OSError):  # the stamp earlier versions trusted instead of the content
        path.with_name(path.name + ".verified").unlink(missing_ok=True)
    return pool


_POOL_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _process_pool() -> U8:
    return load_pool(cache_dir())


def get_pool() -> U8:
    """The process-wide pool (from the cache directory; built and cached on first use).

    Locked so that threads starting together load (or build) it once, not once each."""
    with _POOL_LOCK:
        return _process_pool()


@lru_cache(maxsize=1)
def pool_words() -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32]]:
    """The pool seen as overlapping little-endian 8- and 4-byte words, one at every byte.

    Gathering a value's first 12 bytes is then two word gathers instead of twelve byte ones.
    """
    pool = get_pool()
    first8 = np.ndarray((len(pool) - 7,), dtype="<u8", buffer=pool, strides=(1,))
    next4 = np.ndarray((len(pool) - 3,), dtype="<u4", buffer=pool, strides=(1,))
    return first8, next4
