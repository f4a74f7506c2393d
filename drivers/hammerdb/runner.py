"""Running ``hammerdbcli auto SCRIPT`` in a run directory, with a private ``TMP``.

HammerDB keeps its settings in ``$TMP/*.db`` (they would leak into the next run), and its job
store ``hammer.DB``, its log and its time profile there too. dbbench gives every invocation a
fresh ``TMP`` inside the run directory, keeps HammerDB's outputs, and removes the settings
files (they hold the password). Output lines are shown as progress with every secret replaced.
"""

from __future__ import annotations

import contextlib
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
from typing import Any, TextIO

from dbbench.drivers.errors import DriversError
from dbbench.drivers.hammerdb.install import HammerDBInstall
from dbbench.drivers.hammerdb.script import JOB_MARKER, OWNER_PASSWORD_ENV, PASSWORD_ENV
from dbbench.drivers.signals import killed_on_abrupt_exit
from dbbench.reports.safeio import write_text

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
_SECRET_SETTING = re.compile(r"((?<![:\w])\w*pass\w*\b\s+)(\{[^}]*\}|\S+)", re.I)


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
    """Masks passwords where HammerDB's text holds them, and only there: the values of its
    ``*pass*`` settings (``diset``'s "Changed ... from A to B" and "Value A ... no change
    made" lines, Tcl dicts of settings, ``-password X``, ``PASSWORD 'X'``); a password of
    :data:`TOKEN_MIN` characters or more also wherever it stands as a whole word. A short
    password (``1``) never touches job ids or "Vuser 1"; an empty one masks nothing."""

    def __init__(self, secrets: list[str]) -> None:
        words = sorted({s for s in secrets if len(s) >= TOKEN_MIN}, key=len, reverse=True)
        self._words = (
            re.compile(
                r"(?<![A-Za-z0-9])(?:" + "|".join(map(re.escape, words)) + r")(?![A-Za-z0-9])"
            )
            if words
            else None
        )

    def __call__(self, text: str) -> str:
        text = _CHANGED.sub(r"\1 from *** to *** for \2", text)
        text = _SAME.sub(_SAME_MASKED, text)
        text = _OPTION.sub(r"\1***", text)
        text = _SQL_PASSWORD.sub(r"\1'***'", text)
        text = self.settings(text)
        return self._words.sub("***", text) if self._words is not None else text

    def settings(self, text: str) -> str:
        """Every ``*pass*`` key's value in a Tcl dict of HammerDB settings."""
        return _SECRET_SETTING.sub(
            lambda m: m.group(1) + ("***" if _is_pass_key(m.group(1)) else m.group(2)), text
        )


#: Passwords at least this long are also masked wherever they stand as a whole word.
TOKEN_MIN = 6
_PASS_KEY = r"\S*:\S*pass\S*"
_CHANGED = re.compile(rf"(Changed {_PASS_KEY}) from .* for (\S+)[ \t]*$", re.I | re.M)
_SAME = re.compile(rf"Value .* for ({_PASS_KEY}) is the same as existing value .*$", re.I | re.M)
_SAME_MASKED = r"Value *** for \1 is the same as existing value ***, no change made"
_OPTION = re.compile(r"(-password\s+)(\{[^}]*\}|\S+)", re.I)
_SQL_PASSWORD = re.compile(r"(PASSWORD\s+)'(?:[^']|'')*'", re.I)


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
    secrets: list[str] | None = None,
    on_line: Callable[[str], None] | None = None,
    timeout: float | None = None,
) -> Invocation:
    """Write ``name.tcl`` into ``out_dir`` and run it; Ctrl-C stops HammerDB and re-raises.

    ``secrets``: the passwords to mask (default: ``password`` and ``owner_password``; give
    the real ones when ``password`` is a driver's stand-in for none)."""
    if install.root is None or not install.usable:
        raise DriversError(install.describe())
    out_dir = out_dir.absolute()  # HammerDB starts in its own folder: nothing relative
    out_dir.mkdir(parents=True, exist_ok=True)
    script = out_dir / f"{name}.tcl"
    write_text(script, script_text)
    tmp = out_dir / f"hammerdb-{name}"
    if tmp.is_symlink():
        raise DriversError(f"{tmp} is a symbolic link; refusing to use it as HammerDB's TMP")
    tmp.mkdir(exist_ok=True)
    for stale in tmp.iterdir():  # a fresh TMP: settings persist in it otherwise
        if stale.is_file() or stale.is_symlink():
            stale.unlink()
    log = out_dir / f"hammerdb-{name}.log"
    redact = Redactor([password, owner_password] if secrets is None else secrets)
    env = {
        **os.environ,
        "TMP": str(tmp),  # absolute, or HammerDB falls back to $TMPDIR, then /tmp
        "TMPDIR": str(tmp),
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
        with _open_log(log) as logf, killed_on_abrupt_exit(proc.pid):
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
        with killed_on_abrupt_exit(proc.pid):  # a second Ctrl-C while it stops kills it
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


def _open_log(path: Path) -> TextIO:
    """A new log file; never written through a symbolic link."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        raise DriversError(f"cannot write {path}: {exc.strerror or exc}") from None
    return os.fdopen(fd, "w", encoding="utf-8")


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
    except (subprocess.TimeoutExpired, KeyboardInterrupt) as exc:
        # no answer in 10 s, or a second Ctrl-C/SIGTERM while waiting: no more waiting
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if isinstance(exc, KeyboardInterrupt):
            raise
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
            write_text(path, redact(path.read_text(encoding="utf-8", errors="replace")))
    store = tmp / JOB_STORE
    if store.is_file():
        redact_job_store(store, redact)


def redact_job_store(store: Path, redact: Redactor) -> None:
    """HammerDB stores every setting, passwords included, in JOBMAIN.jobdict."""
    try:
        with sqlite3.connect(store) as conn:
            rows = conn.execute("SELECT jobid, jobdict FROM JOBMAIN").fetchall()
            for jobid, jobdict in rows:
                clean = redact(str(jobdict)) if jobdict is not None else jobdict
                if clean != jobdict:
                    conn.execute("UPDATE JOBMAIN SET jobdict=? WHERE jobid=?", (clean, jobid))
            out = conn.execute("SELECT rowid, output FROM JOBOUTPUT").fetchall()
            for rowid, text in out:
                clean = redact(str(text)) if text is not None else text
                if clean != text:
                    conn.execute("UPDATE JOBOUTPUT SET output=? WHERE rowid=?", (clean, rowid))
        conn.close()
    except sqlite3.Error:
        return  # not HammerDB's store after all: the import will say so
