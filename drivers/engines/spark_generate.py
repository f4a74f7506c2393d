"""Spark's distributed generation (:class:`~dbbench.drivers.engine.GeneratesData`): the
load runs dbbench's generator as Spark tasks (task K of a table makes dbgen part K of N as
Arrow batches inside the executor, ``mapInArrow``, and Spark writes them as typed Parquet
into the warehouse: no row passes through this process), and ``dbbench gen --engine`` runs
the file writer as Spark tasks into a folder every executor reaches."""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pyarrow as pa

from dbbench.dbgen import writer
from dbbench.dbgen.progress import Summary
from dbbench.dbgen.schema import TABLES
from dbbench.dbgen.writer import GenOptions
from dbbench.drivers.engine import GeneratesData, TableSource
from dbbench.drivers.engines.common import ErrorPolicy
from dbbench.drivers.errors import DriversError

ROWS_PER_PART = 500_000  # as in the loader: the unit of generation work
SMALL_TABLE_ROWS = 1_000  # tables below this (nation, region) are made by one task


class SparkGeneration(GeneratesData):
    """The generation half of the Spark engine, over its session (``spark``), its error
    policy and its table folders."""

    spark: Any
    classic: bool
    policy: ErrorPolicy

    @abstractmethod
    def location(self, table: str) -> str:
        """The folder of a table in the warehouse."""

    def generate_table(self, table: str, sf: float, source: TableSource) -> int:
        """Task K writes dbgen part K of N of the table as Parquet; returns the rows."""
        from pyspark.sql.pandas.types import from_arrow_schema

        from dbbench.dbgen.api import row_count

        rows = int(row_count(table, sf))
        parts = self.parts_for(rows)
        schema = TABLES[table].arrow_schema
        make = _part_maker(source, table, sf, parts, schema)
        with self.policy.guard(f"generate {table}"):
            self._tag_load(table)
            frame = self.spark.range(1, parts + 1, 1, parts).mapInArrow(
                make, from_arrow_schema(schema)
            )
            self.store_generated(table, frame)
            return int(self.spark.table(table).count())

    def store_generated(self, table: str, frame: Any) -> None:
        """Write a generated table into its folder as Parquet (an engine on another table
        format overrides this)."""
        frame.write.mode("overwrite").parquet(self.location(table))
        self.spark.catalog.refreshTable(table)

    def generate_files(self, options: GenOptions) -> Summary:
        """``dbbench gen`` as Spark tasks: task K runs exactly what ``dbbench gen --parts N
        --part K`` runs (the same writer, one process) into ``options.out_dir``, which every
        executor must reach (a shared file system). Only each part's summary comes back."""
        if options.part is not None or options.updates:
            raise DriversError("gen on spark writes every part of --parts (no --part, no -U)")
        if not self.classic:
            raise DriversError("gen on spark needs a classic driver, not Spark Connect")
        parts = options.parts if options.parts > 1 else self.spark.sparkContext.defaultParallelism
        parts = max(2, parts)
        writer.plan(replace(options, parts=parts))  # bad options fail here, not in a task
        begin = time.perf_counter()
        with self.policy.guard("gen"):
            self._tag_load("gen")
            tasks = self.spark.sparkContext.parallelize(range(1, parts + 1), parts)
            done = tasks.map(_gen_part(replace(options, parts=parts, jobs=1))).collect()
        return Summary(
            tables=len(options.tables),
            files=sum(d[0] for d in done),
            rows=sum(d[1] for d in done),
            nbytes=sum(d[2] for d in done),
            seconds=time.perf_counter() - begin,
        )

    def parts_for(self, rows: int) -> int:
        if rows < SMALL_TABLE_ROWS:
            return 1
        parallelism = self.spark.sparkContext.defaultParallelism if self.classic else 1
        return max(parallelism, -(-rows // ROWS_PER_PART))

    def _tag_load(self, table: str) -> None:
        if self.classic:
            self.spark.sparkContext.setJobGroup(f"dbbench-load-{table}", f"generate {table}")


def _part_maker(source: TableSource, table: str, sf: float, parts: int, schema: pa.Schema) -> Any:
    """The function each task runs: part numbers in, that part's rows out (Arrow)."""

    def make(numbers: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in numbers:
            for part in batch.column(0).to_pylist():
                for out in source.table_batches(table, sf, part=int(part), parts=parts):
                    yield out if out.schema == schema else out.cast(schema)

    return make


def _gen_part(options: GenOptions) -> Any:
    """The function each ``gen`` task runs: one part, all tables, into the shared folder."""

    def run(part: int) -> tuple[int, int, int]:
        from dbbench.dbgen.writer import generate

        summary = generate(replace(options, part=part))
        return summary.files, summary.rows, summary.nbytes

    return run
