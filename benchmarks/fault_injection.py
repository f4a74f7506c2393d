"""Fault injection: signals during each phase, on each engine; then the next run.

For every engine × phase × signal, ``dbbench run`` is started in a process group of its
own, the signal is sent to the group (as a terminal's Ctrl-C would) once the phase has
begun, and then the next ``dbbench run`` on the same database is started. A row is green
when: the stopped run ended as it should (130 for SIGINT/SIGTERM, killed for SIGKILL) with
no traceback; every measurement in its journal is in the result ``dbbench report`` reads
(rebuilt from the journal where the result file lags); and the next run succeeded on a
database that is exactly as the load and the completed refresh pairs left it (no refresh
pair pending). Also: a second run on the same database while one is running, and a run
whose run directory cannot grow (RLIMIT_FSIZE for the server engines; a 64 KiB tmpfs for
DuckDB, whose own file the limit would stop first).

The phase ``refresh`` signals the run as soon as the power test's RF1 has started (with
``?refresh_batch=1`` on the server engines, so RF1 is many small transactions and the
signal lands inside it); the next run must find the pair pending and repair it by key.
``--frozen`` adds, per server engine, a private server frozen with SIGSTOP during the power
test and a SIGTERM to the run (a CI timeout): it must end within 30 s with exit 130.
``--studies`` adds a suite and a scaling study stopped by SIGINT/SIGTERM (exit 130, one
line, the step marked) and ``--force`` over a journal or report that is a link to a file
outside (never written through). ``--server-kill`` adds, per server engine, a private server
(started in a temporary directory on a free loopback port; never the shared one) killed
with -9 during the
throughput test: the run must stop with one line and exit 3, keep what it measured, and the
next run on the restarted server must find the database exact.

    python benchmarks/fault_injection.py --engines duckdb,postgresql,mariadb --sf 0.1 \
        --phases load,power,throughput,refresh --server-kill

PostgreSQL and MariaDB: the servers of the test suite (127.0.0.1:5432, 127.0.0.1:3306);
a private database is created and dropped for each.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from _private_servers import PrivateServer, private_mariadb, private_postgres

from dbbench.drivers.journal import read_journal
from dbbench.drivers.loader import check_loaded
from dbbench.drivers.registry import open_engine
from dbbench.reports.loading import load_result
from dbbench.reports.model import JOURNAL_FILE, REPORT_HTML_FILE

PG = "postgresql://postgres@127.0.0.1:5432"
MARIADB = "mysql+pymysql://root@127.0.0.1:3306"
EVENTS = {
    "load": "load_start",
    "power": "phase_start",
    "throughput": "phase_start",
    "refresh": "rf1_start",
}
SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM, "SIGKILL": signal.SIGKILL}


@contextlib.contextmanager
def database(engine: str, tmp: Path) -> Iterator[str]:
    """A private, empty database of ``engine``; its URL."""
    name = f"dbbench_fault_{secrets.token_hex(3)}"
    if engine == "duckdb":
        yield f"duckdb:///{tmp / 'bench.duckdb'}"
    elif engine == "postgresql":
        import psycopg

        with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        try:
            yield f"{PG}/{name}"
        finally:
            with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
                conn.execute(f"DROP DATABASE {name} WITH (FORCE)")
    else:
        import pymysql

        conn = pymysql.connect(host="127.0.0.1", user="root", autocommit=True)
        conn.cursor().execute(f"CREATE DATABASE {name}")
        try:
            yield f"{MARIADB}/{name}"
        finally:
            conn.cursor().execute(f"DROP DATABASE {name}")
            conn.close()


def dbbench(*args: str, limit: int | None = None) -> subprocess.Popen[str]:
    def setup() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.Popen(
        [sys.executable, "-m", "dbbench", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "DBBENCH_PROGRESS_INTERVAL": "3600"},
        start_new_session=True,
        preexec_fn=setup,
    )


def wait_event(journal: Path, event: str, phase: str, proc: subprocess.Popen[str]) -> bool:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.exists():
            for e in read_journal(journal):
                if e["event"] == event and (
                    event in ("load_start", "rf1_start") or e.get("phase") == phase
                ):
                    return True
        time.sleep(0.01)
    return False


def measured(out: Path) -> tuple[int, int]:
    """(intervals in the journal, intervals in the result ``dbbench report`` reads)."""
    ends = ("query_end", "rf1_end", "rf2_end")
    journaled = sum(1 for e in read_journal(out / JOURNAL_FILE) if e["event"] in ends)
    try:
        kept = sum(len(r.intervals) for r in load_result(out).runs)
    except Exception:
        kept = -1
    return journaled, kept


def state_ok(url: str, sf: float) -> str:
    engine = open_engine(url)
    try:
        check_loaded(engine, sf)  # exact counts, nothing pending
        return "exact"
    except Exception as exc:
        return f"BAD: {exc}"
    finally:
        engine.close()


def run_args(url: str, sf: str, out: Path, *extra: str) -> list[str]:
    return ["run", "-e", url, "-s", sf, "-o", str(out), "--runs", "1", "--streams", "2", *extra]


def one_case(engine: str, phase: str, sig: str, sf: str, tmp: Path) -> list[str]:
    with database(engine, tmp) as url:
        if phase == "refresh" and engine != "duckdb":
            url += "?refresh_batch=1"
        if phase != "load":
            setup = dbbench("load", "-e", url, "-s", sf, "-o", str(tmp / "load"))
            setup.communicate()
        out = tmp / "stopped"
        proc = dbbench(*run_args(url, sf, out, *(["--reload"] if phase == "load" else [])))
        caught = wait_event(out / JOURNAL_FILE, EVENTS[phase], phase, proc)
        time.sleep({"load": 0.5, "refresh": 0.0}.get(phase, 0.2))
        if not caught or proc.poll() is not None:
            proc.communicate()
            return [engine, phase, sig, "MISSED (ended first)", "", "", "red"]
        os.killpg(proc.pid, SIGNALS[sig])
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return [engine, phase, sig, "HUNG", "", "", "red"]
        expected = -9 if sig == "SIGKILL" else 130
        clean = proc.returncode == expected and "Traceback" not in err
        journaled, kept = measured(out)
        nxt = dbbench(*run_args(url, sf, tmp / "next"))
        nxt.communicate()
        state = state_ok(url, float(sf)) if nxt.returncode == 0 else f"next run {nxt.returncode}"
        if phase == "refresh":
            state += f" ({pair_state(out, tmp / 'next')})"
        green = clean and kept == journaled and state.startswith("exact")
        return [
            engine,
            phase,
            sig,
            f"exit {proc.returncode}" + ("" if clean else " + traceback/wrong code"),
            f"{kept}/{journaled}",
            state,
            "green" if green else "red",
        ]


def pair_state(stopped: Path, nxt: Path) -> str:
    """Where the stop caught the refresh pair, and what the next run did about it."""
    events = [e["event"] for e in read_journal(stopped / JOURNAL_FILE)]
    where = "RF1 done" if "rf1_end" in events else "inside RF1"
    repaired = any(e["event"] == "refresh_repaired" for e in read_journal(nxt / JOURNAL_FILE))
    return f"{where}, {'repaired' if repaired else 'nothing to repair'}"


def server_killed_case(engine: str, sf: str, tmp: Path) -> list[str]:
    """kill -9 of a private server during the throughput test; then restart it."""
    servers = {"postgresql": private_postgres, "mariadb": private_mariadb}
    with servers[engine]() as server:
        url = _bench_database(engine, server)
        dbbench("load", "-e", url, "-s", sf, "-o", str(tmp / "load")).communicate()
        out = tmp / "killed"
        proc = dbbench(*run_args(url, sf, out))
        caught = wait_event(out / JOURNAL_FILE, "phase_start", "throughput", proc)
        time.sleep(0.3)
        if not caught or proc.poll() is not None:
            proc.communicate()
            return [engine, "throughput", "server kill -9", "MISSED (ended first)", "", "", "red"]
        server.kill()
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return [engine, "throughput", "server kill -9", "HUNG", "", "", "red"]
        # one line saying the connection was lost (a preflight warning may precede it), and
        # where the partial result is
        lost = [ln for ln in err.splitlines() if "connection to the engine was lost" in ln]
        kept_line = any(ln.startswith("dbbench: partial result: ") for ln in err.splitlines())
        clean = proc.returncode == 3 and len(lost) == 1 and kept_line and "Traceback" not in err
        journaled, kept = measured(out)
        server.start()
        nxt = dbbench(*run_args(url, sf, tmp / "next"))
        nxt.communicate()
        state = state_ok(url, float(sf)) if nxt.returncode == 0 else f"next run {nxt.returncode}"
        green = clean and kept == journaled and state == "exact"
        if not clean:
            print(f"[{engine} server kill] stderr: {err!r}", file=sys.stderr)
        return [engine, "throughput", "server kill -9",
                f"exit {proc.returncode}" + ("" if clean else " + not one line/wrong code"),
                f"{kept}/{journaled}", state, "green" if green else "red"]  # fmt: skip


def _bench_database(engine: str, server: PrivateServer) -> str:
    if engine == "postgresql":
        import psycopg

        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute("CREATE DATABASE bench")
        return server.url.rsplit("/", 1)[0] + "/bench"
    return server.url  # the private MariaDB comes with its database ``bench``


@contextlib.contextmanager
def small_tmpfs(size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (needs root); the directory."""
    mnt = Path(tempfile.mkdtemp(prefix="dbbench-full-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=False)
        mnt.rmdir()


def concurrent_case(engine: str, sf: str, tmp: Path) -> list[str]:
    """A second run while the first one is loading (the longest phase)."""
    with database(engine, tmp) as url:
        first = dbbench("load", "-e", url, "-s", sf, "-o", str(tmp / "first"))
        wait_event(tmp / "first" / JOURNAL_FILE, "load_start", "load", first)
        second = dbbench(*run_args(url, sf, tmp / "second"))
        _, err = second.communicate()
        still = first.poll() is None
        first.communicate()
        one_line = err.count("\n") == 1 and err.startswith("dbbench: error: ")
        holder = "lock" in err.lower() or "another dbbench" in err
        green = still and second.returncode == 1 and one_line and holder
        green = green and first.returncode == 0
        return [engine, "load", "second run", f"exit {second.returncode}", "-",
                f"first run exit {first.returncode}", "green" if green else "red"]  # fmt: skip


def disk_full_case(engine: str, sf: str, tmp: Path) -> list[str]:
    with database(engine, tmp) as url, contextlib.ExitStack() as stack:
        dbbench("load", "-e", url, "-s", sf, "-o", str(tmp / "load")).communicate()
        if engine == "duckdb":  # the run directory on a full disk; the database file not
            out = stack.enter_context(small_tmpfs("64k")) / "full"
            proc = dbbench(*run_args(url, sf, out), "--no-space-check")
        else:
            out = tmp / "full"
            proc = dbbench(*run_args(url, sf, out), limit=20_000)
        _, err = proc.communicate()
        journaled, kept = measured(out)
        named = "(during " in err and str(out) in err
        nxt = dbbench(*run_args(url, sf, tmp / "next"))
        nxt.communicate()
        state = state_ok(url, float(sf)) if nxt.returncode == 0 else f"next run {nxt.returncode}"
        green = proc.returncode == 1 and named and kept == journaled and state == "exact"
        return [engine, "run", "disk full", f"exit {proc.returncode}", f"{kept}/{journaled}",
                state, "green" if green else "red"]  # fmt: skip


def frozen_server_case(engine: str, sf: str, tmp: Path) -> list[str]:
    """SIGSTOP of a private server during the power test, then SIGTERM to the run (a CI
    timeout): the run must end within 30 s, exit 130, keeping what it measured."""
    servers = {"postgresql": private_postgres, "mariadb": private_mariadb}
    with servers[engine]() as server:
        url = _bench_database(engine, server)
        out = tmp / "frozen"
        proc = dbbench(*run_args(url, sf, out))
        if not wait_event(out / JOURNAL_FILE, "phase_start", "power", proc):
            proc.communicate()
            return [engine, "power", "server frozen", "MISSED (ended first)", "", "", "red"]
        time.sleep(0.5)
        assert server.proc is not None
        os.killpg(server.proc.pid, signal.SIGSTOP)
        time.sleep(1.0)
        began = time.monotonic()
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            err = "HUNG"
        took = time.monotonic() - began
        os.killpg(server.proc.pid, signal.SIGCONT)
        journaled, kept = measured(out)
        green = proc.returncode == 130 and took < 30 and "Traceback" not in err
        return [engine, "power", "server frozen + SIGTERM",
                f"exit {proc.returncode} in {took:.0f} s", f"{kept}/{journaled}", "-",
                "green" if green else "red"]  # fmt: skip


def study_signal_case(study: str, sig: str, tmp: Path) -> list[str]:
    """A suite or a scaling study (DuckDB) signalled during its first step: exit 130, one
    "interrupted" line, the step marked failed/interrupted in the study's index."""
    out = tmp / "study"
    if study == "suite":
        suite = tmp / "suite.toml"
        suite.write_text(
            "scale_factor = 0.01\nstreams = 1\nruns = 1\ntelemetry_interval = 0\n"
            '[[engine]]\nname = "a"\nurl = "duckdb"\n[[engine]]\nname = "b"\nurl = "duckdb"\n',
            encoding="utf-8",
        )
        proc = dbbench("suite", str(suite), "-o", str(out))
        step, index, key, phase = out / "a-sf0.01", out / "suite.json", "entries", "power"
    else:
        proc = dbbench("scale", "-s", "0.01", "-S", "1,2", "-o", str(out))
        step, index, key, phase = out / "streams-1", out / "scale.json", "steps", "throughput"
    if not wait_event(step / JOURNAL_FILE, "query_start", phase, proc):
        proc.communicate()
        return ["duckdb", study, sig, "MISSED (ended first)", "", "", "red"]
    os.killpg(proc.pid, SIGNALS[sig])
    _, err = proc.communicate(timeout=120)
    first = json.loads(index.read_text(encoding="utf-8"))[key][0]
    marked = (first["status"], first["message"]) == ("failed", "interrupted")
    said = sum("dbbench: interrupted" in line for line in err.splitlines()) == 1
    green = proc.returncode == 130 and marked and said and "Traceback" not in err
    return ["duckdb", study, sig, f"exit {proc.returncode}", "-",
            "step marked interrupted" if marked else "step not marked",
            "green" if green else "red"]  # fmt: skip


def symlink_case(name: str, tmp: Path) -> list[str]:
    """``--force`` on a run directory whose journal or report is a link to a file outside:
    the file outside must stay as it was (the link is removed, never written through)."""
    out = tmp / "run"
    dbbench("load", "-s", "0.01", "-o", str(out)).communicate()
    outside = tmp / "outside.txt"
    outside.write_text("mine\n", encoding="utf-8")
    (out / name).unlink()
    (out / name).symlink_to(outside)
    proc = dbbench("load", "-s", "0.01", "-o", str(out), "--force")
    proc.communicate()
    kept = outside.read_text(encoding="utf-8") == "mine\n"
    green = proc.returncode == 0 and kept and not (out / name).is_symlink()
    return ["duckdb", "load", f"{name} -> outside, --force", f"exit {proc.returncode}", "-",
            "outside file untouched" if kept else "WRITTEN THROUGH",
            "green" if green else "red"]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engines", default="duckdb")
    parser.add_argument("--phases", default="load,power,throughput")
    parser.add_argument("--signals", default="SIGINT,SIGTERM,SIGKILL")
    parser.add_argument("--sf", default="0.1")
    parser.add_argument("--server-kill", action="store_true", help="add the killed-server rows")
    parser.add_argument("--no-extra", action="store_true", help="only the signal rows")
    parser.add_argument(
        "--frozen", action="store_true", help="add the frozen-server rows (server engines)"
    )
    parser.add_argument(
        "--studies", action="store_true", help="add the suite/scale signal and link rows"
    )
    args = parser.parse_args()
    rows = [["engine", "phase", "fault", "stopped run", "kept/journal", "db after next", ""]]
    engines = args.engines.split(",")
    for engine in engines:
        for phase in filter(None, args.phases.split(",")):
            for sig in args.signals.split(","):
                with tempfile.TemporaryDirectory() as tmp:
                    rows.append(one_case(engine, phase, sig, args.sf, Path(tmp)))
                print(" | ".join(rows[-1]), flush=True)
        if args.no_extra:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            rows.append(concurrent_case(engine, "0.3" if engine == "duckdb" else "0.1", Path(tmp)))
        print(" | ".join(rows[-1]), flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            rows.append(disk_full_case(engine, "0.01", Path(tmp)))
        print(" | ".join(rows[-1]), flush=True)
        if args.server_kill and engine != "duckdb":
            with tempfile.TemporaryDirectory() as tmp:
                rows.append(server_killed_case(engine, args.sf, Path(tmp)))
            print(" | ".join(rows[-1]), flush=True)
        if args.frozen and engine != "duckdb":
            with tempfile.TemporaryDirectory() as tmp:
                rows.append(frozen_server_case(engine, args.sf, Path(tmp)))
            print(" | ".join(rows[-1]), flush=True)
    if args.studies:
        for study in ("suite", "scale"):
            for sig in ("SIGINT", "SIGTERM"):
                with tempfile.TemporaryDirectory() as tmp:
                    rows.append(study_signal_case(study, sig, Path(tmp)))
                print(" | ".join(rows[-1]), flush=True)
        for name in (JOURNAL_FILE, REPORT_HTML_FILE):
            with tempfile.TemporaryDirectory() as tmp:
                rows.append(symlink_case(name, Path(tmp)))
            print(" | ".join(rows[-1]), flush=True)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print()
    for row in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
    return 0 if all(r[-1] == "green" for r in rows[1:]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
