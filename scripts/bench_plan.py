#!/usr/bin/env python3
"""Time ``envcheck plan`` over the whole matrix; budget 50 ms after start-up.

Start-up (interpreter, imports, loading and validating the matrix TOML) is
measured apart; the budget applies to what follows it. Numbers are medians of N runs:

* matrix load: ``load_matrix_from()`` of the active matrix directory, uncached;
* in process (gated by the budget): ``plan()`` for every framework the matrix has (plus torchvision and
  torchaudio) on a target described by flags, with the matrix already loaded,
  against a no-op call;
* as a command: ``envcheck plan ... --format json`` against ``python -c pass`` (the
  interpreter's own start-up), run interleaved so machine noise hits both alike.
  "After start-up" is the difference of the two medians.

Usage: python scripts/bench_plan.py [--runs N] [--python PATH] [--budget-ms MS]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

TARGET = ("--driver", "580.65.06", "--gpu", "sm_120", "--os", "linux", "--python-version", "3.12")


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def requests_for_whole_matrix() -> tuple[str, ...]:
    from envcheck.matrix import load_matrix

    matrix = load_matrix()
    names = ("torch", "tensorflow", "jax", "cupy", "onnxruntime", "paddle")
    out = [n for n in names if matrix.framework_builds(n)] or ["torch"]
    if "torch" in out:
        out += ["torchvision", "torchaudio"]
    if matrix.keras_releases:
        out.append("keras")
    return tuple(out)


def matrix_load(runs: int) -> float:
    from envcheck.matrix import active_matrix_dir, load_matrix_from

    directory = active_matrix_dir()
    return median_ms(lambda: load_matrix_from(directory), runs)


def in_process(runs: int) -> tuple[float, float, tuple[str, ...]]:
    from envcheck.compat.target import Target
    from envcheck.matrix import load_matrix
    from envcheck.model.versions import parse_compute_capability, parse_driver_version
    from envcheck.resolve.plan import plan

    matrix = load_matrix()
    cc = parse_compute_capability("12.0")
    target = Target(
        os="linux",
        arch="x86_64",
        driver=parse_driver_version("580.65.06"),
        gpus=(cc,) if cc else (),
        python="3.12",
    )
    requests = requests_for_whole_matrix()
    # Frameworks that do not share a CUDA major still exercise the whole search.
    work = median_ms(lambda: plan(requests, target, matrix), runs)
    noop = median_ms(lambda: None, runs)
    return work, noop, requests


def as_command(python: str, runs: int, requests: tuple[str, ...]) -> tuple[float, float]:
    plan_argv = [python, "-m", "envcheck", "plan", *requests, *TARGET, "--format", "json"]
    base_argv = [python, "-c", "pass"]
    plan_t: list[float] = []
    base_t: list[float] = []
    for _ in range(runs):
        for argv, into in ((base_argv, base_t), (plan_argv, plan_t)):
            # A blocking wait (no timeout): run(timeout=...) polls with growing sleeps.
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            into.append((time.perf_counter() - start) * 1000)
    return statistics.median(plan_t), statistics.median(base_t)


def main() -> int:
    # Time this checkout's envcheck, not whichever one the interpreter has installed.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--budget-ms", type=float, default=50.0)
    args = parser.parse_args()

    work, noop, requests = in_process(args.runs)
    load = matrix_load(max(3, args.runs // 4))
    print(f"requests: {' '.join(requests)}")
    print(f"start-up: matrix load {load:.1f} ms")
    print(
        f"plan() in process: {work:.2f} ms median, no-op {noop:.4f} ms, "
        f"ratio {work / noop if noop else float('inf'):.0f}x over {args.runs} runs "
        f"(budget {args.budget_ms:.0f} ms)"
    )
    cmd, base = as_command(args.python, args.runs, requests)
    ratio = cmd / base if base else float("inf")
    print(
        f"envcheck plan as a command: {cmd:.1f} ms vs python -c pass {base:.1f} ms "
        f"(ratio {ratio:.2f}x; includes imports and the matrix load)"
    )
    return 0 if work <= args.budget_ms else 1


if __name__ == "__main__":
    sys.exit(main())
