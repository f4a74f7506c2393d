"""Finding a usable HammerDB: ``--hammerdb DIR``, ``$DBBENCH_HAMMERDB``, or ``hammerdbcli`` on
PATH; and saying precisely why one is not usable and what to install."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from dbbench.drivers.errors import DriversError

ENV_VAR = "DBBENCH_HAMMERDB"
CLI_NAME = "hammerdbcli"
INSTALL_HINT = (
    "install HammerDB (a release bundle from hammerdb.com, or its source tree with "
    "Debian's tcl8.6 tcl-thread libsqlite3-tcl libpgtcl mysqltcl plus Tcl adapters on "
    "TCLLIBPATH for the packages a system Tcl lacks: ticklecharts, mariatcl, Pgtcl's "
    f"pg_notice_handler) and pass --hammerdb DIR or set {ENV_VAR}=DIR"
)
# The Tcl packages HammerDB's PostgreSQL and MariaDB/MySQL drivers load.
DRIVER_PACKAGES = {"postgresql": "Pgtcl", "mariadb": "mariatcl", "mysql": "mysqltcl"}
_SYSTEM_TCLSH = ("tclsh8.6", "tclsh9.0", "tclsh")
PROBE_TIMEOUT = 60.0


@dataclass
class HammerDBInstall:
    """Where HammerDB is, how to start it, and whether it works here."""

    root: Path | None  # the directory holding hammerdbcli (HammerDB starts from inside it)
    found_by: str  # "--hammerdb", "$DBBENCH_HAMMERDB", "PATH" or "" (not found)
    command: list[str] = field(default_factory=list)  # argv prefix: [tclsh, ./hammerdbcli]
    version: str = ""
    usable: bool = False
    problem: str = ""  # why not usable (one line)
    drivers: dict[str, str] = field(default_factory=dict)  # engine -> Tcl package version

    @property
    def hint(self) -> str:
        return INSTALL_HINT

    def describe(self) -> str:
        if self.usable:
            drivers = ", ".join(f"{k} ({v})" for k, v in sorted(self.drivers.items()))
            return f"HammerDB {self.version} at {self.root} [{self.found_by}]: drivers {drivers}"
        where = f" at {self.root}" if self.root else ""
        return f"HammerDB not usable{where}: {self.problem}; {INSTALL_HINT}"

    def driver_for(self, engine: str) -> str:
        """The Tcl package version of ``engine``'s driver, or a one-line problem."""
        if engine not in self.drivers:
            package = DRIVER_PACKAGES.get(engine, engine)
            raise HammerDBMissing(
                f"HammerDB at {self.root} cannot load the Tcl package {package} for {engine}; "
                f"{INSTALL_HINT}"
            )
        return self.drivers[engine]


class HammerDBMissing(DriversError):
    """No usable HammerDB (its message is one line with the install hint)."""


def locate(
    explicit: str | Path | None = None, environ: dict[str, str] | None = None
) -> HammerDBInstall:
    """The HammerDB install named by the user, without running it."""
    env = os.environ if environ is None else environ
    if explicit:
        return _from_dir(Path(explicit), "--hammerdb")
    if env.get(ENV_VAR):
        return _from_dir(Path(env[ENV_VAR]), f"${ENV_VAR}")
    on_path = shutil.which(CLI_NAME, path=env.get("PATH"))
    if on_path:
        return _from_dir(Path(on_path).resolve().parent, "PATH")
    return HammerDBInstall(
        None, "", problem=f"no --hammerdb DIR, no ${ENV_VAR}, no {CLI_NAME} on PATH"
    )


def _from_dir(path: Path, found_by: str) -> HammerDBInstall:
    root = path.expanduser().resolve()
    if root.is_file() and root.name == CLI_NAME:
        root = root.parent
    install = HammerDBInstall(root, found_by)
    cli = root / CLI_NAME
    if not root.is_dir():
        install.problem = f"{root} is not a directory"
        return install
    if not cli.is_file():
        install.problem = f"{root} has no {CLI_NAME}"
        return install
    bundled = sorted(root.glob("bin/tclsh*"))
    if bundled:  # a release bundle: hammerdbcli starts its own Tcl from ./bin
        install.command = ["./" + CLI_NAME]
        return install
    tclsh = next((t for t in map(shutil.which, _SYSTEM_TCLSH) if t), None)
    if tclsh is None:
        install.problem = f"{root} is a source tree (no bin/tclsh) and no tclsh is installed"
        return install
    install.command = [tclsh, "./" + CLI_NAME]
    return install


_PROBE = r"""
foreach {engine package} {%s} {
    if {[catch {package require $package} version]} {
        puts "DBBENCH-PROBE driver $engine missing [string map {\n { }} $version]"
    } else {
        puts "DBBENCH-PROBE driver $engine $version"
    }
}
puts "DBBENCH-PROBE version $hdb_version"
"""


_PROBED: dict[tuple[str, ...], tuple[str, dict[str, str], str, bool]] = {}


def probe(install: HammerDBInstall, timeout: float = PROBE_TIMEOUT) -> HammerDBInstall:
    """Start ``hammerdbcli auto`` once with a probe script: version and loadable drivers
    (once per install and ``TCLLIBPATH`` in a process: starting HammerDB takes seconds)."""
    if install.root is None or not install.command:
        return install
    key = (str(install.root), *install.command, os.environ.get("TCLLIBPATH", ""))
    if key in _PROBED:
        install.version, drivers, install.problem, install.usable = _PROBED[key]
        install.drivers = dict(drivers)
        return install
    _probe(install, timeout)
    if install.usable:  # a failure may be transient (a timeout): probe again next time
        _PROBED[key] = (install.version, dict(install.drivers), install.problem, True)
    return install


def _probe(install: HammerDBInstall, timeout: float) -> HammerDBInstall:
    assert install.root is not None
    pairs = " ".join(f"{k} {v}" for k, v in DRIVER_PACKAGES.items())
    with tempfile.TemporaryDirectory(prefix="dbbench-hdb-probe-") as tmp:
        script = Path(tmp) / "probe.tcl"
        script.write_text(_PROBE % pairs, encoding="utf-8")
        try:
            done = subprocess.run(
                [*install.command, "auto", str(script)],
                cwd=install.root,
                env={**os.environ, "TMP": tmp},
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired:
            install.problem = f"hammerdbcli did not answer within {timeout:.0f} s"
            return install
        except OSError as exc:
            install.problem = f"cannot start hammerdbcli: {exc.strerror or exc}"
            return install
    out = done.stdout + done.stderr
    for line in out.splitlines():
        m = re.match(r"DBBENCH-PROBE (\w+) (\S+)(?: (.*))?$", line.strip())
        if not m:
            continue
        kind, name, rest = m.group(1), m.group(2), m.group(3) or ""
        if kind == "version":
            install.version = name
        elif kind == "driver" and not rest.startswith("missing"):
            install.drivers[name] = rest or "?"
    if not install.version:
        last = _last_error(out) or f"exit code {done.returncode}"
        install.problem = f"hammerdbcli failed to start: {last}"
        return install
    install.usable = True
    return install


def _last_error(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if re.search(r"error|can't find package|couldn't|not found", line, re.I):
            return line[:200]
    return lines[-1][:200] if lines else ""


def find_hammerdb(explicit: str | Path | None = None) -> HammerDBInstall:
    """Locate and probe; never raises (see :attr:`HammerDBInstall.problem`)."""
    return probe(locate(explicit))
