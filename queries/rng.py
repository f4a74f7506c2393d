"""qgen's random numbers: the Park–Miller stream and its uniform integer draw.

qgen draws a few dozen numbers per stream, so a plain scalar implementation is right here;
the data generator has its own vectorised one (``queries`` imports nothing from the project).
"""

from __future__ import annotations

MODULUS = 2147483647  # 2**31 - 1
MULTIPLIER = 16807


def next_rand(x: int) -> int:
    """One Park–Miller step, exactly as ``NextRand`` in rnd.c (64-bit product, no overflow)."""
    return (x * MULTIPLIER) % MODULUS


class Stream:
    """One random stream: qgen gives each query its own, seeded from the ``-r`` value."""

    __slots__ = ("value",)

    def __init__(self, seed: int) -> None:
        self.value = seed

    def unif_int(self, low: int, high: int) -> int:
        """``UnifInt(low, high)``: advance once, then scale in IEEE double and truncate.

        The division before the multiplication matters for bit-identity with qgen.
        """
        self.value = next_rand(self.value)
        return low + int((self.value / float(MODULUS)) * float(high - low + 1))


def query_streams(seed: int, count: int = 22) -> list[Stream]:
    """Streams 1..count of qgen: stream q starts at the q-th successor of the seed."""
    streams = [Stream(0)]  # stream 0 only carries the chain; qgen never draws from it
    x = seed
    for _ in range(count):
        x = next_rand(x)
        streams.append(Stream(x))
    return streams
