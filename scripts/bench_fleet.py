#!/usr/bin/env python3
"""Benchmark `envcheck fleet report` on generated fleets (issue 15: 10 000
snapshots in under 5 s and 500 MiB on the 2-core CI machine).

Each measurement runs in a fresh interpreter that calls the CLI in-process
(``envcheck.cli.main``) and reports its wall time and peak RSS
(``resource.getrusage``); the ratio is to one ``doctor --snapshot`` measured the
same way. Fleets of several sizes show that memory follows the number of
distinct stacks, not of nodes.

    python scripts/bench_fleet.py [--nodes 10000] [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # noqa: PTH100, PTH120
sys.path.insert(0, ROOT)

LIMIT_S = 5.0
LIMIT_MIB = 500.0


def child(argv: list[str]) -> None:
    """Run one envcheck command in-process; print seconds and peak RSS as JSON."""
    import contextlib
    import io
    import resource

    start = time.perf_counter()
    from envcheck.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"code": code, "seconds": seconds, "peak_mib": peak}))


def measure(argv: list[str]) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def generate(path: str, nodes: int) -> dict[int, str]:
    from tests.fleet import fleetgen as G

    # Planted drifts: a few of each kind, spread over the fleet.
    drifts = {}
    for k, kind in enumerate(G.DRIFTS):
        for j in range(5):
            drifts[(k * 997 + j * 1931 + 13) % nodes] = kind
    with open(path, "w", encoding="utf-8") as fh:  # noqa: PTH123
        fh.writelines(G.fleet_lines(nodes, drifts))
    return drifts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=10000)
    ap.add_argument("--check", action="store_true", help="Exit 1 if a limit is missed.")
    ap.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.child)
        return 0

    from tests.fleet import fleetgen as G

    with tempfile.TemporaryDirectory() as tmp:
        snap = os.path.join(tmp, "one.json")  # noqa: PTH118
        with open(snap, "w", encoding="utf-8") as fh:  # noqa: PTH123
            json.dump(G.snapshot(), fh)
        doctor = measure(["doctor", "--snapshot", snap, "--json"])
        print(
            f"doctor --snapshot (1 node): {doctor['seconds']:.2f} s, peak {doctor['peak_mib']:.0f} MiB"
        )
        results = {}
        for n in sorted({max(1, args.nodes // 10), args.nodes}):
            path = os.path.join(tmp, f"fleet-{n}.jsonl")  # noqa: PTH118
            drifts = generate(path, n)
            size = os.path.getsize(path) / 1024 / 1024  # noqa: PTH202
            r = measure(["fleet", "report", path, "--json"])
            results[n] = r
            print(
                f"fleet report ({n} nodes, {len(drifts)} planted drifts, {size:.0f} MiB of JSON lines): "
                f"{r['seconds']:.2f} s, peak {r['peak_mib']:.0f} MiB, exit {int(r['code'])}; "
                f"ratio to one doctor: {r['seconds'] / doctor['seconds']:.1f}x"
            )
    big = results[args.nodes]
    ok = big["seconds"] < LIMIT_S and big["peak_mib"] < LIMIT_MIB
    print(
        f"limits ({LIMIT_S:g} s, {LIMIT_MIB:g} MiB) at {args.nodes} nodes: "
        + ("met" if ok else "MISSED")
        + f" (cpus: {os.cpu_count()})"
    )
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
