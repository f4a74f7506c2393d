"""Parquet sink with real types: BIGINT/INTEGER keys, DECIMAL(15,2), DATE, UTF-8 strings.

Choices, and why:

* Compression **Snappy**: the format's common default and what ``tpchgen-cli`` writes by
  default, so the benchmark compares like with like; it costs little CPU at write time.
* Row groups of up to :data:`ROW_GROUP_ROWS` (2**19) rows: large enough for good encoding
  and for engines that parallelise over row groups (DuckDB, Spark), small enough that the
  buffered row group (about 75 MB for lineitem) bounds memory whatever the scale factor.
* DECIMAL(15,2) stored as INT64 (``store_decimal_as_integer``): the logical type is still
  DECIMAL(15,2), read back as such by every Parquet reader, and it is half the size of the
  16-byte fixed-length form.
* Dictionary encoding for the columns of :data:`dbgen.schema.FEW_VALUES` (flags, modes,
  dates, small integers), which shrink to a few bits per value; not for keys, prices and
  comments, where building a dictionary that overflows costs a sixth of the encoding CPU
  for 1 % of the file size. Statistics on (the writer's default).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from dbbench.dbgen.schema import FEW_VALUES

COMPRESSION = "snappy"
ROW_GROUP_ROWS = 1 << 19


class ParquetTableWriter:
    """Writes batches to one Parquet file, cutting row groups of exactly ROW_GROUP_ROWS.

    Batches arrive in whatever size the generator makes them; buffering them into full row
    groups keeps the file layout independent of the generator's batch size and of how many
    processes produced the data.
    """

    def __init__(self, path: str | Path, schema: pa.Schema) -> None:
        self._schema = schema
        self._writer = pq.ParquetWriter(
            str(path),
            schema,
            compression=COMPRESSION,
            store_decimal_as_integer=True,
            use_dictionary=[name for name in schema.names if name in FEW_VALUES],
        )
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0
        self.rows = 0

    def write(self, batch: pa.RecordBatch) -> None:
        """Buffer ``batch``; write every full row group that the buffer now holds."""
        if batch.num_rows == 0:
            return
        self._pending.append(batch)
        self._pending_rows += batch.num_rows
        self.rows += batch.num_rows
        if self._pending_rows >= ROW_GROUP_ROWS:
            self._flush(final=False)

    def close(self) -> None:
        """Write the last (short) row group and the footer."""
        self._flush(final=True)
        self._writer.close()

    def abort(self) -> None:
        """Release the file handle without caring about the file (it is deleted after)."""
        # The file is being thrown away: whatever state closing leaves it in does not matter.
        with contextlib.suppress(Exception):
            self._writer.close()

    def _flush(self, *, final: bool) -> None:
        if not self._pending:
            if final and self.rows == 0:
                self._writer.write_table(self._schema.empty_table())
            return
        table = pa.Table.from_batches(self._pending, schema=self._schema)
        full = (table.num_rows // ROW_GROUP_ROWS) * ROW_GROUP_ROWS
        cut = table.num_rows if final else full
        if cut:
            self._writer.write_table(table.slice(0, cut), row_group_size=ROW_GROUP_ROWS)
        rest = table.slice(cut)
        self._pending = rest.to_batches() if rest.num_rows else []
        self._pending_rows = rest.num_rows
