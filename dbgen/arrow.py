"""Arrow arrays from numpy values and Python strings, built from buffers.

``pa.array`` is not used in the generator: on its first call it imports pandas (when
installed) to ask whether its argument is a pandas object, which costs a ``dbbench gen``
process about 0.4 s of start-up, and every call asks again. Built from buffers, integers
are also zero-copy views of the numpy array.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa

_TYPES: dict[type[np.generic], pa.DataType] = {
    np.int8: pa.int8(),
    np.int16: pa.int16(),
    np.int32: pa.int32(),
    np.int64: pa.int64(),
}


def ints(values: npt.ArrayLike | pa.Array, dtype: type[np.generic] = np.int64) -> pa.Array:
    """An Arrow integer array of ``dtype`` (int8 .. int64) over the values, without nulls."""
    if isinstance(values, pa.Array):
        return values.cast(_TYPES[dtype])
    arr = np.ascontiguousarray(values, dtype=dtype)
    return pa.Array.from_buffers(_TYPES[dtype], len(arr), [None, pa.py_buffer(arr)])


def strings(values: Sequence[str]) -> pa.Array:
    """An Arrow string array of the given Python strings, without nulls."""
    encoded = [v.encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    data = b"".join(encoded)
    return pa.StringArray.from_buffers(len(encoded), pa.py_buffer(offsets), pa.py_buffer(data))


def scalar(text: str) -> pa.Scalar:
    """An Arrow string scalar (``pa.scalar`` and compute's own conversion import pandas)."""
    return strings([text])[0]
