#!/usr/bin/env python3
"""Side-by-side wall-time benchmark of envcheck's start-up paths.

Runs every command N times in one session (interleaved, so machine noise hits
all of them alike) and prints the median and the ratio to a reference:

* ``python -c pass``: the interpreter's own start-up, the floor;
* ``envcheck --version`` (budget 100 ms), ``envcheck detect --json``
  (budget: 6x ``python -c pass``) and ``envcheck doctor --json``;
* ``python -m torch.utils.collect_env`` when torch is importable: the doctor
  must take at most 0.05x its time.

With ``--all`` it then runs ``bench_plan.py`` (``plan()`` over every framework,
in process; budget 50 ms) and ``bench_matrix.py`` (cold and cached matrix load;
budgets 0.5 s and 20 ms) under the same interpreter, so one run prints every
speed figure the issues name.

Usage: python scripts/bench.py [--runs N] [--python PATH] [--all]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

# Byte-compiled modules are what users run (pip compiles them at install time);
# with PYTHONDONTWRITEBYTECODE set every run would re-compile envcheck from source.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

DETECT_BUDGET = 6.0
"""``detect --json`` at most this many times ``python -c pass`` (issue 16)."""
DOCTOR_BUDGET = 0.05
"""``doctor --json`` at most this fraction of ``torch.utils.collect_env``."""


def wall(argv: list[str]) -> float:
    """Seconds from start to exit of ``argv``.

    A blocking wait: ``subprocess.run(..., timeout=...)`` polls the child with
    sleeps that double up to 50 ms, which rounded every figure up to the next
    step of 16, 32, 64, 114, 164, ... ms (how an earlier version measured).
    """
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    guard = threading.Timer(300, proc.kill)  # a hung command must not hang the bench
    guard.start()
    try:
        proc.wait()
        return time.perf_counter() - start
    finally:
        guard.cancel()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument(
        "--all", action="store_true", help="also run bench_plan.py and bench_matrix.py"
    )
    args = parser.parse_args()
    py = args.python
    commands: dict[str, list[str]] = {
        "python -c pass": [py, "-c", "pass"],
        "envcheck --version": [py, "-m", "envcheck", "--version"],
        "envcheck detect --json": [py, "-m", "envcheck", "detect", "--json"],
        "envcheck doctor --json": [py, "-m", "envcheck", "doctor", "--json"],
    }
    for name, argv in commands.items():
        # One checked run each, which also warms the page cache. A command that fails
        # at once ("No module named click") would be timed as fast. Python exits 1 on
        # a traceback too; only the doctor may exit 1 (errors found).
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=300)
        if done.returncode != 0 and not ("doctor" in name and done.returncode == 1):
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"bench.py: {' '.join(argv[1:])} failed under {py}: {last}")
            return 2
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)"
    has_torch = subprocess.run([py, "-c", probe], check=False, timeout=60).returncode == 0
    if has_torch:
        commands["torch.utils.collect_env"] = [py, "-m", "torch.utils.collect_env"]
        wall(commands["torch.utils.collect_env"])  # warm the page cache once
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv in commands.items():
            times[name].append(wall(argv))
    med = {name: statistics.median(ts) for name, ts in times.items()}
    base = med["python -c pass"]
    print(f"{'command':<28} {'median ms':>10} {'x python':>9}")
    for name, value in med.items():
        print(f"{name:<28} {value * 1000:>10.1f} {value / base:>9.2f}")
    print()
    print(f"envcheck --version:     {med['envcheck --version'] * 1000:.0f} ms (budget 100 ms)")
    ratio = med["envcheck detect --json"] / base
    verdict = "ok" if ratio <= DETECT_BUDGET else "OVER"
    print(f"detect / python -c pass: {ratio:.2f}x (budget {DETECT_BUDGET:g}x) {verdict}")
    if has_torch:
        ratio = med["envcheck doctor --json"] / med["torch.utils.collect_env"]
        verdict = "ok" if ratio <= DOCTOR_BUDGET else "OVER"
        print(f"doctor / collect_env:    {ratio:.3f}x (budget {DOCTOR_BUDGET:g}x) {verdict}")
    else:
        print("doctor / collect_env:    torch not installed here; install it to compare")
    if not args.all:
        return 0
    from pathlib import Path

    here = Path(__file__).resolve().parent
    # This checkout's envcheck, whatever the interpreter has installed.
    env = dict(ENV, PYTHONPATH=str(here.parent))
    failed = 0
    for script in ("bench_plan.py", "bench_matrix.py"):
        print(f"\n== {script}", flush=True)
        argv = [py, str(here / script), "--runs", str(max(args.runs, 11))]
        if script == "bench_plan.py":
            argv += ["--python", py]
        ran = subprocess.run(argv, check=False, env=env, cwd=here.parent, timeout=1800)
        failed |= ran.returncode
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
