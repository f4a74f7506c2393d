"""Running ``hammerdbcli auto SCRIPT`` in a run directory, with a private ``TMP``.

HammerDB keeps its settings in ``$TMP/*.db`` (they would leak into the next run), and its job
store ``hammer.DB``, its log and its time profile there too. dbbench gives every invocation a
fresh ``TMP`` inside the run directory, keeps HammerDB's outputs, and removes the settings
files (they hold the password). Output lines are shown as progress with every secret replaced.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from dbbench.drivers.errors import DriversError
from dbbench.drivers.hammerdb.install import HammerDBInstall
from dbbench.drivers.hammerdb.script import JOB_MARKER, OWNER_PASSWORD_ENV, PASSWORD_ENV

JOB_STORE = "hammer.DB"
KEPT = (JOB_STORE, "hammerdb.log", "hdbxtprofile.log")
_JOBID = re.compile(r"jobid=([0-9A-Fa-f]{16,})")
# Lines of HammerDB's output that mean a virtual user (or the whole job) failed.
_FAILURE = re.compile(
    r"FINISHED FAILED|Error in Virtual User|^Error[: ]|Failed to load|"
    r"could not connect|connection .* failed|terminated, any pending output",
    re.I,
)
_CREATED = re.compile(r"(\d+) Virtual Users Created")
_FINISHED = re.compile(r"Vuser (\d+):FINISHED")
HANG_GRACE = 25.0  # seconds HammerDB may take to end after its last virtual user
_SECRET_SETTING = re.compile(r"(\b\w*pass\w*\b\s+)(\S+)", re.I)


@dataclass
class Invocation:
    """What one ``hammerdbcli`` process did."""

    script: Path
    tmp: Path
    log: Path
    returncode: int
    seconds: float
    jobid: str | None
    failures: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    @property
    def job_store(self) -> Path:
        return self.tmp / JOB_STORE

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.jobid is not None and not self.failures


class Redactor:
    """Replaces the passwords (and any ``*pass*`` setting's value) in HammerDB's text."""

    def __init__(self, secrets: list[str]) -> None:
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def settings(self, text: str) -> str:
        """Also every ``*pass`` key's value in a Tcl dict of HammerDB settings."""
        return _SECRET_SETTING.sub(
            lambda m: m.group(1) + ("***" if _is_pass_key(m.group(1)) else m.group(2)),
            self(text),
        )


def _is_pass_key(word: str) -> bool:
    w = word.strip().lower()
    return w.endswith(("pass", "_pass", "password", "passwd", "superuserpass"))


def run_hammerdb(
    install: HammerDBInstall,
    script_text: str,
    out_dir: Path,
    name: str,
    *,
    password: str,
    owner_password: str = "",
    on_line: Callable[[str], None] | None = None,
    timeout: float | None = None,
) -> Invocation:
    """Write ``name.tcl`` into ``out_dir`` and run it; Ctrl-C stops HammerDB and re-raises."""
    if install.root is None or not install.usable:
        raise DriversError(install.describe())
    out_dir.mkdir(parents=True, exist_ok=True)
    script = out_dir / f"{name}.tcl"
    script.write_text(script_text, encoding="utf-8")
    tmp = out_dir / f"hammerdb-{name}"
    tmp.mkdir(exist_ok=True)
    for stale in tmp.iterdir():  # a fresh TMP: settings persist in it otherwise
        if stale.is_file():
            stale.unlink()
    log = out_dir / f"hammerdb-{name}.log"
    redact = Redactor([password, owner_password])
    env = {
        **os.environ,
        "TMP": str(tmp),
        PASSWORD_ENV: password,
        OWNER_PASSWORD_ENV: owner_password or password,
    }
    started = time.monotonic()
    lines: list[str] = []
    failures: list[str] = []
    jobid: str | None = None
    vus = 0
    finished: set[int] = set()
    all_done: float | None = None
    proc = subprocess.Popen(
        [*install.command, "auto", str(script.resolve())],
        cwd=install.root,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        bufsize=1,
        start_new_session=True,  # Ctrl-C reaches dbbench; dbbench stops HammerDB's group
    )
    assert proc.stdout is not None
    previous = _on_sigterm()  # HammerDB runs in its own session: never leave it behind
    try:
        with log.open("w", encoding="utf-8") as logf:
            for raw in proc.stdout:
                line = redact(raw.rstrip("\n"))
                logf.write(line + "\n")
                logf.flush()
                lines.append(line)
                if line.startswith(JOB_MARKER):
                    m = _JOBID.search(line)
                    jobid = m.group(1) if m else None
                    if jobid is None:
                        failures.append(line[len(JOB_MARKER) :].strip() or "no job id returned")
                elif _FAILURE.search(line):
                    failures.append(line.strip())
                if on_line is not None:
                    on_line(line)
                if m := _CREATED.search(line):
                    vus = int(m.group(1))
                elif m := _FINISHED.search(line):
                    finished.add(int(m.group(1)))
                    if vus and len(finished) >= vus and all_done is None:
                        all_done = time.monotonic()
                elif "ALL VIRTUAL USERS COMPLETE" in line:
                    all_done = None  # HammerDB saw it too and goes on by itself
                if all_done is not None and time.monotonic() - all_done > HANG_GRACE:
                    # HammerDB 4.x does not end a timed run whose virtual users all failed
                    failures.append("every virtual user ended but HammerDB did not; stopped it")
                    _stop(proc)
                    break
                if timeout is not None and time.monotonic() - started > timeout:
                    failures.append(f"stopped after the {timeout:.0f} s time limit")
                    _stop(proc)
                    break
        returncode = proc.wait()
    except BaseException:  # Ctrl-C or a callback's error: stop HammerDB, keep what it wrote
        _stop(proc)
        _tidy(tmp, redact)
        raise
    finally:
        proc.stdout.close()
        _restore_sigterm(previous)
    _tidy(tmp, redact)
    if returncode != 0 and not failures:
        failures.append(f"hammerdbcli exited with code {returncode}")
    if jobid is None and not failures:
        failures.append("hammerdbcli returned no job id (see its output)")
    return Invocation(
        script, tmp, log, returncode, time.monotonic() - started, jobid, failures, lines
    )


class Terminated(KeyboardInterrupt):
    """dbbench got SIGTERM while HammerDB ran (handled like Ctrl-C)."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


def _on_sigterm() -> Any:
    try:
        return signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:  # not the main thread: leave signals alone
        return None


def _restore_sigterm(previous: Any) -> None:
    if previous is not None:
        signal.signal(signal.SIGTERM, previous)


def _stop(proc: subprocess.Popen[str]) -> None:
    """SIGTERM to HammerDB's process group, SIGKILL after 10 s."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    except ProcessLookupError:
        pass


def _tidy(tmp: Path, redact: Redactor) -> None:
    """Drop HammerDB's settings files (they hold passwords); redact what is kept."""
    for item in tmp.iterdir():
        if item.name in KEPT:
            continue
        if item.is_file() and item.suffix == ".db":
            item.unlink()
    for name in ("hammerdb.log", "hdbxtprofile.log"):
        path = tmp / name
        if path.is_file():
            path.write_text(redact(path.read_text(encoding="utf-8", errors="replace")))
    store = tmp / JOB_STORE
    if store.is_file():
        redact_job_store(store, redact)


def redact_job_store(store: Path, redact: Redactor) -> None:
    """HammerDB stores every setting, passwords included, in JOBMAIN.jobdict."""
    try:
        with sqlite3.connect(store) as conn:
            rows = conn.execute("SELECT jobid, jobdict FROM JOBMAIN").fetchall()
            for jobid, jobdict in rows:
                clean = redact.settings(str(jobdict))
                if clean != jobdict:
                    conn.execute("UPDATE JOBMAIN SET jobdict=? WHERE jobid=?", (clean, jobid))
            out = conn.execute("SELECT rowid, output FROM JOBOUTPUT").fetchall()
            for rowid, text in out:
                clean = redact(str(text))
                if clean != text:
                    conn.execute("UPDATE JOBOUTPUT SET output=? WHERE rowid=?", (clean, rowid))
        conn.close()
    except sqlite3.Error:
        return  # not HammerDB's store after all: the import will say so
