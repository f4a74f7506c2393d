"""Helpers of the studies tests: the CLI in process and a small real run."""

from __future__ import annotations

from pathlib import Path

from dbbench.cli import main

SF = "0.01"


def dbbench(*args: str) -> int:
    """Run the CLI in process and return its exit code."""
    return main(list(args))


def small_run(out: Path, *extra: str, engine: str = "duckdb") -> Path:
    """One performance run with two streams and fine-grained telemetry; the run directory."""
    code = dbbench(
        "run", "-e", engine, "-s", SF, "-S", "2", "--runs", "1", "--seed", "7",
        "--telemetry-interval", "0.2", "-o", str(out), *extra,
    )  # fmt: skip
    assert code == 0, f"dbbench run exited {code}"
    return out
