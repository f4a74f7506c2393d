"""The durability test's streams, in a process of their own (``python -m
dbbench.drivers.acid.streams SPEC``): the process the kit kills with SIGKILL when the engine
is embedded in it, or the client of a server the kit (or the user's command) kills.

Each of the S + 1 streams commits ACID Transactions on its own share of the orders (no two
streams wait on one row, so each reaches its count) and, after each COMMIT returns, appends
one record to the durability success file, flushed and synced. After ``per_stream``
commits a stream says so in the in-flight file, begins one more, runs it to just before
COMMIT, records it there too and waits for the failure (on an engine with one writer at a
time, SQLite, one stream gets its transaction in flight and the others wait to begin).
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from dbbench.drivers.acid.transaction import Applied, acid_transaction, last_line
from dbbench.drivers.engine import Engine
from dbbench.drivers.errors import DriversError
from dbbench.drivers.registry import open_engine

#: a conflict (an abort) is retried this often before the stream gives up
RETRIES = 20


def stamp() -> str:
    """DATE_T with microseconds: a success record matches one HISTORY row."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def record(applied: Applied, date_t: str, stream: int) -> dict[str, Any]:
    line = applied.old_line
    return {
        "stream": stream,
        "p_key": line.partkey,
        "s_key": line.suppkey,
        "o_key": applied.o_key,
        "l_key": applied.l_key,
        "delta": applied.delta,
        "date_t": date_t,
    }


class Files:
    """The success file and the in-flight file, appended to by every stream."""

    def __init__(self, folder: Path) -> None:
        self.lock = threading.Lock()
        self.success = open(folder / "success.jsonl", "a", encoding="utf-8")  # noqa: SIM115
        self.flight = open(folder / "in_flight.jsonl", "a", encoding="utf-8")  # noqa: SIM115

    def append(self, file: TextIO, row: dict[str, Any]) -> None:
        with self.lock:
            file.write(json.dumps(row) + "\n")
            file.flush()
            os.fsync(file.fileno())


def stream(
    engine: Engine,
    k: int,
    orders: list[int],
    per_stream: int,
    files: Files,
    lock: str,
    barrier: threading.Barrier,
) -> None:
    rng = random.Random(7000 + k)
    session = engine.session()
    for n in range(per_stream + 1):
        if n == per_stream:  # its commits are done; the one in flight begins once every
            files.append(files.flight, {"stream": k, "done": True})  # stream's are
            barrier.wait()
        o_key = rng.choice(orders)
        for attempt in range(RETRIES):
            try:
                session.execute(engine.facts.begin)
                date_t = stamp()
                l_key = last_line(session, o_key)
                applied = acid_transaction(session, o_key, l_key, rng.randint(1, 100), date_t, lock)
                if n == per_stream:  # the one in flight: never committed
                    files.append(files.flight, record(applied, date_t, k))
                    while True:
                        time.sleep(1)
                session.execute("COMMIT")
                break
            except DriversError:
                with suppress(DriversError):
                    session.execute("ROLLBACK")
                if attempt == RETRIES - 1:
                    raise
        files.append(files.success, record(applied, date_t, k))


def main(spec_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    engine = open_engine(spec["url"])
    files = Files(Path(spec["folder"]))
    streams: int = spec["streams"]
    orders: list[int] = spec["orders"]
    errors: list[str] = []
    barrier = threading.Barrier(streams)

    def run(k: int) -> None:
        try:
            share = orders[k::streams]
            stream(engine, k, share, spec["per_stream"], files, engine.facts.lock_read, barrier)
        except BaseException as exc:
            errors.append(f"stream {k}: {exc}")
            print(f"stream {k}: {exc}", file=sys.stderr, flush=True)
            os._exit(2)

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(streams)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if __name__ == "__main__":
    main(sys.argv[1])
