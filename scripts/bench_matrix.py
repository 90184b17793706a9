"""Matrix load time: cold parse + validate vs the compiled cache.

Each measurement runs in a fresh interpreter (``python -c``), timing only
``load_matrix()`` after ``import envcheck.matrix`` — what a command pays on top
of its imports. The budgets (issues 4 and 13) are 0.5 s for the cold load and
20 ms for the cached load. A matrix read from the cache unpickles each field on
first use, so the cached load is shown twice: ``load_matrix()`` alone, and
``load_matrix()`` followed by reading every field (what a command that uses all
the data pays); the budget applies to the second, the larger.

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
loaded = time.perf_counter()
for name in m.__record_fields__:
    getattr(m, name)
print((loaded - t) * 1000.0, (time.perf_counter() - t) * 1000.0)
"""

BUDGET_MS = 20.0
COLD_BUDGET_MS = 500.0


def run_child(env: dict[str, str]) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[1],
    )
    load, every_field = out.stdout.strip().splitlines()[-1].split()
    return float(load), float(every_field)


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
        cold = [run_child(cold_env)[1] for _ in range(args.runs)]
        run_child(env)  # writes the compiled cache
        runs = [run_child(env) for _ in range(args.runs)]
    lazy = [r[0] for r in runs]
    warm = [r[1] for r in runs]
    c, w, z = statistics.median(cold), statistics.median(warm), statistics.median(lazy)
    print(f"cold parse + validate : median {c:7.2f} ms  (min {min(cold):.2f}, max {max(cold):.2f})")
    print(f"cached, every field   : median {w:7.2f} ms  (min {min(warm):.2f}, max {max(warm):.2f})")
    print(f"cached, load_matrix() : median {z:7.2f} ms  (min {min(lazy):.2f}, max {max(lazy):.2f})")
    print(f"ratio cold/cached     : {c / w:.1f}x")
    ok_cold, ok_warm = c <= COLD_BUDGET_MS, w <= BUDGET_MS
    print(f"cold budget {COLD_BUDGET_MS:.0f} ms   : {'within' if ok_cold else 'OVER'}")
    print(f"cached budget {BUDGET_MS:.0f} ms   : {'within' if ok_warm else 'OVER'}")
    return 0 if ok_cold and ok_warm else 1


if __name__ == "__main__":
    sys.exit(main())
