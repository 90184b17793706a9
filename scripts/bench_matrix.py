"""Matrix load time: cold parse + validate vs the compiled cache.

Each measurement runs in a fresh interpreter (``python -c``), timing only
``load_matrix()`` after ``import envcheck.matrix`` — what a command pays on top
of its imports. The budget (issue 4) is 20 ms for the cached load.

    python scripts/bench_matrix.py [--runs 15] [--matrix DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import time, sys
from pathlib import Path
from envcheck.matrix import load_matrix, active_matrix_dir
directory = active_matrix_dir()
t = time.perf_counter()
m = load_matrix(directory)
print((time.perf_counter() - t) * 1000.0)
"""

BUDGET_MS = 20.0


def run_child(env: dict[str, str]) -> float:
    out = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[1],
    )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--matrix", help="matrix directory (default: the active one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache_home:
        env = dict(os.environ, XDG_CACHE_HOME=cache_home)
        env.pop("ENVCHECK_NO_CACHE", None)
        if args.matrix:
            env["ENVCHECK_MATRIX"] = args.matrix
        cold_env = dict(env, ENVCHECK_NO_CACHE="1")
        cold = [run_child(cold_env) for _ in range(args.runs)]
        run_child(env)  # writes the compiled cache
        warm = [run_child(env) for _ in range(args.runs)]
    c, w = statistics.median(cold), statistics.median(warm)
    print(f"cold parse + validate : median {c:7.2f} ms  (min {min(cold):.2f}, max {max(cold):.2f})")
    print(f"compiled cache        : median {w:7.2f} ms  (min {min(warm):.2f}, max {max(warm):.2f})")
    print(f"ratio cold/cached     : {c / w:.1f}x")
    verdict = "within" if w <= BUDGET_MS else "OVER"
    print(f"budget {BUDGET_MS:.0f} ms          : {verdict}")
    return 0 if w <= BUDGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
