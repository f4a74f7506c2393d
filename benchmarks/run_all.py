"""Run every benchmark script in this folder, one after the other, with its defaults.

One failing benchmark is reported and the others still run (as pyperformance does); the
exit code says whether any failed. Scripts are run as separate processes so that one's
memory or threads never colour another's figures. Extra arguments select scripts by name:
``python benchmarks/run_all.py gen_vs_tpchgen``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scripts(selected: list[str]) -> list[Path]:
    found = sorted(p for p in HERE.glob("*.py") if p.name != Path(__file__).name)
    found = [p for p in found if not p.name.startswith("_")]
    if selected:
        found = [p for p in found if p.stem in selected]
    return found


def main(argv: list[str]) -> int:
    failed: list[str] = []
    chosen = scripts(argv)
    if not chosen:
        print(f"no benchmark matches {argv}", file=sys.stderr)
        return 2
    for script in chosen:
        print(f"=== {script.name}", flush=True)
        start = time.perf_counter()
        code = subprocess.run([sys.executable, str(script)], cwd=HERE.parent).returncode
        took = time.perf_counter() - start
        status = "ok" if code == 0 else f"FAILED (exit {code})"
        print(f"=== {script.name}: {status} in {took:.0f} s\n", flush=True)
        if code != 0:
            failed.append(script.name)
    if failed:
        print(f"{len(failed)} of {len(chosen)} benchmarks failed: {', '.join(failed)}")
        return 1
    print(f"all {len(chosen)} benchmarks ran")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
