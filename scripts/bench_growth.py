#!/usr/bin/env python3
"""How every text reader's time grows with its input, 10 KB to 10 MB (issue 26).

Runs each reader (explain, collect_env, requirements.txt, environment.yml,
pyproject.toml, pixi.toml, snapshot JSON, fleet JSON lines) on a realistic input
scaled up and on adversarial shapes, at 10 KB, 100 KB, 1 MB and 10 MB side by
side in one run, and prints each time and the growth per decade (linear is
about 10x; the issue's bar is within a factor 1.5 of linear, i.e. at most 15x).
A reader built on a parser it does not own (json, tomllib, libyaml) is printed
under that parser alone on the same inputs: on a 10 MB object json.loads itself
grows faster than linear (memory, not an algorithm), so such a decade is judged
against the parser's own growth with a little slack.

The adversarial shapes of explain are read from the signature table
(tests/fuzz/shapes.py): every keyword and partial match of every signature,
repeated on one line and on lines as long as explain matches. All of them are
timed at 100 KB; the slowest are then run at every size.

Usage: python scripts/bench_growth.py [--max-size 10M] [--worst N] [--only TEXT]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envcheck.check.parse_environment import parse_environment  # noqa: E402
from envcheck.check.parse_pixi import parse_pixi  # noqa: E402
from envcheck.check.parse_pyproject import parse_pyproject  # noqa: E402
from envcheck.check.parse_requirements import parse_requirements  # noqa: E402
from envcheck.collect_env import parse_collect_env  # noqa: E402
from envcheck.explain import explain  # noqa: E402
from envcheck.explain.core import MAX_LINE_CHARS  # noqa: E402
from envcheck.fleet.records import read_json_lines  # noqa: E402
from envcheck.snapshot_io import parse_snapshot_text  # noqa: E402
from tests.fuzz.shapes import repeated, signature_keywords  # noqa: E402

SIZES = (10_000, 100_000, 1_000_000, 10_000_000)
BAR = 15.0
"""Growth per decade allowed (1.5 x linear)."""
REFERENCE_SLACK = 1.2
"""A reader built on a parser it does not own may grow this much more than the
parser alone on the same input (its own work per entry on top)."""
JUDGED_FROM = 100_000
"""Decades starting below this size are printed but not judged (fixed costs)."""
FIXTURES = ROOT / "tests" / "fixtures"

Reader = Callable[[str], object]


def _fill(unit: str, size: int, head: str = "", tail: str = "") -> str:
    """``head``, then ``unit`` repeated, then ``tail``: ``size`` characters in all."""
    room = max(size - len(head) - len(tail), len(unit))
    return head + (unit * (room // len(unit) + 1))[:room] + tail


def _lines_of(word: str, size: int) -> str:
    """``word`` repeated on lines as long as explain matches, to ``size``; each line
    starts with its number, so no two are alike (explain matches a repeated line once)."""
    line = repeated(word, MAX_LINE_CHARS - 10, " ")
    count = size // (len(line) + 9) + 1
    return "".join(f"{i:08d} {line}\n" for i in range(count))[:size]


def _log() -> str:
    corpus = (FIXTURES / "corpus" / "errors" / "torch.toml").read_text(encoding="utf-8")
    body = "\n".join(line for line in corpus.splitlines() if not line.startswith(("[", "#")))
    return "2026-01-01 12:00:00 INFO step=1 loss=0.25 lr=3e-4 gpu=0 mem=10.2GiB\n" * 50 + body


def _collect_env() -> tuple[str, str]:
    text = (FIXTURES / "collect_env" / "device-h100-torch-2.11-cu130.txt").read_text("utf-8")
    head, sep, rest = text.partition("Versions of relevant libraries:\n")
    return head + sep, rest


def _snapshot(size: int) -> str:
    base = json.loads((FIXTURES / "snapshots" / "what-if-rtx5090-torch-cu126.json").read_text())
    unit = len('"pkg-000000": "1.0.0", ')
    base["packages"] = {f"pkg-{i:06d}": "1.0.0" for i in range(max(size // unit, 1))}
    return json.dumps(base)


def _fleet(size: int) -> str:
    snap = json.loads((FIXTURES / "snapshots" / "minimal-driver-only.json").read_text())
    out = []
    total = 0
    i = 0
    while total < size:
        line = json.dumps({"schema": "envcheck.fleet/1", "node": f"n{i}", "snapshot": snap})
        out.append(line)
        total += len(line) + 1
        i += 1
    return "\n".join(out) + "\n"


def _pins(fmt: str, size: int) -> str:
    lines = []
    total = 0
    i = 0
    while total < size:
        lines.append(fmt.format(i=i))
        total += len(lines[-1]) + 1
        i += 1
    return "\n".join(lines)


def _readers() -> list[tuple[str, Reader, Callable[[int], str], Optional[Reader]]]:
    log = _log()
    ce_head, ce_rest = _collect_env()
    return [
        ("explain: realistic log", lambda t: explain(t), lambda n: _fill(log, n), None),
        (
            "explain: one long line of 'NCCL error '",
            explain,
            lambda n: _fill("NCCL error ", n),
            None,
        ),
        ("explain: one long line of 'libcudart'", explain, lambda n: _fill("libcudart", n), None),
        (
            "collect_env: realistic, pip lines",
            lambda t: parse_collect_env(t),
            lambda n: ce_head + _pins("[pip3] pkg{i}==1.0.{i}", n) + "\n" + ce_rest,
            None,
        ),
        (
            "collect_env: one long line",
            lambda t: parse_collect_env(t),
            lambda n: ce_head + _fill("PyTorch version: ", n) + "\n" + ce_rest,
            None,
        ),
        (
            "requirements: pins",
            lambda t: parse_requirements(t, "r"),
            lambda n: _pins("pkg{i}>=1.{i},<2 ; python_version >= '3.9'", n),
            None,
        ),
        (
            "requirements: one -r value",
            lambda t: parse_requirements(t, "r"),
            lambda n: _fill("a", n, "-r "),
            None,
        ),
        (
            "requirements: -r of ${HOME}",
            lambda t: parse_requirements(t, "r"),
            lambda n: _fill("${HOME}", n, "-r "),
            None,
        ),
        (
            "environment.yml: dependencies",
            lambda t: parse_environment(t, "environment.yml"),
            lambda n: "name: x\ndependencies:\n" + _pins("  - pkg{i}=1.{i}", n) + "\n",
            _yaml_compose,
        ),
        (
            "pyproject.toml: dependencies",
            lambda t: parse_pyproject(t, "pyproject.toml"),
            lambda n: (
                '[project]\nname = "x"\nversion = "1"\ndependencies = [\n'
                + _pins('  "pkg{i}>=1.{i}",', n)
                + "\n]\n"
            ),
            _toml_loads,
        ),
        (
            "pixi.toml: pypi-dependencies",
            lambda t: parse_pixi(t, "pixi.toml"),
            lambda n: (
                '[workspace]\nname = "x"\nchannels = []\nplatforms = ["linux-64"]\n'
                "[pypi-dependencies]\n" + _pins('pkg{i} = ">=1.{i}"', n) + "\n"
            ),
            _toml_loads,
        ),
        ("snapshot JSON: packages", lambda t: parse_snapshot_text(t), _snapshot, _json_loads),
        (
            "fleet JSON lines",
            lambda t: list(read_json_lines(t.splitlines(), "f.jsonl")),
            _fleet,
            _json_lines,
        ),
    ]


def _yaml_compose(text: str) -> object:
    """yaml.compose alone (libyaml)"""
    import yaml

    return yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _toml_loads(text: str) -> object:
    """tomllib.loads alone"""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib.loads(text)


def _json_lines(text: str) -> object:
    """json.loads alone, per line"""
    return [json.loads(line) for line in text.splitlines()]


def _json_loads(text: str) -> object:
    """json.loads alone"""
    return json.loads(text)


def _time(reader: Reader, text: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        with contextlib.suppress(Exception):  # a refusal (InputError) is an answer too
            reader(text)
        best = min(best, time.perf_counter() - start)
    return best


def _row(
    name: str,
    reader: Reader,
    make: Callable[[int], str],
    sizes: tuple[int, ...],
    reference: Optional[list[float]] = None,
) -> tuple[bool, list[float]]:
    """Time one reader at every size and print its row; ``reference`` is the growth
    of the parser it is built on (json, tomllib, libyaml), measured on the same
    inputs: a decade over the bar is judged against that parser's own growth, since
    envcheck cannot be more linear than the parser it calls."""
    times = []
    for size in sizes:
        text = make(size)
        times.append(_time(reader, text, 3 if size <= 1_000_000 else 1))
    growth = [b / a if a > 0 else 0.0 for a, b in zip(times, times[1:])]
    # From 10 KB, and below a few milliseconds, fixed costs (the first line, the
    # matrix-free set-up, the timer on a shared machine) dominate: judged from 100 KB.
    allowed = [BAR] * len(growth)
    if reference is not None:
        allowed = [max(BAR, r * REFERENCE_SLACK) for r in reference]
    judged = [
        (g, bar)
        for g, bar, a, n in zip(growth, allowed, times, sizes)
        if a >= 0.005 and n >= JUDGED_FROM
    ]
    ok = all(g <= bar for g, bar in judged)
    cells = " ".join(f"{t * 1000:>10.1f}" for t in times)
    ratios = " ".join(f"{g:>6.1f}x" for g in growth)
    verdict = "(parser)" if name.startswith("  reference") else ("ok" if ok else "OVER")
    print(f"{name[:52]:<52} {cells}   {ratios}  {verdict}")
    return ok, growth


def _size(text: str) -> int:
    units = {"K": 1_000, "M": 1_000_000}
    text = text.upper().rstrip("B")
    return int(float(text[:-1]) * units[text[-1]]) if text[-1] in units else int(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-size", default="10M", help="largest input (default 10M)")
    parser.add_argument("--worst", type=int, default=8, help="explain keyword shapes to scale")
    parser.add_argument(
        "--only", default="", help="run only the readers whose name contains this text"
    )
    args = parser.parse_args()
    sizes = tuple(s for s in SIZES if s <= _size(args.max_size))
    head = " ".join(f"{s // 1000:>8} KB" for s in sizes)
    print(f"{'reader / shape (ms)':<52} {head}   growth per decade (bar {BAR:g}x)")
    ok = True
    for name, reader, make, parser_alone in _readers():
        if args.only.lower() not in name.lower():
            continue
        reference = None
        if parser_alone is not None:
            # The parser alone first, on the same inputs: its growth is the floor.
            _ok, reference = _row(f"  reference: {parser_alone.__doc__}", parser_alone, make, sizes)
        row_ok, _growth = _row(name, reader, make, sizes, reference)
        ok &= row_ok
    if args.only:
        print("\nall within the bar" if ok else "\nSOME READER GROWS FASTER THAN THE BAR")
        return 0 if ok else 1

    # Every keyword of every signature at 100 KB, then the slowest at every size.
    words = sorted({w for ws in signature_keywords().values() for w in ws})
    shapes: list[tuple[float, str, Callable[[int], str]]] = []
    for word in words:
        for label, make in (
            ("one line", lambda n, w=word: repeated(w, n)),
            ("long lines", lambda n, w=word: _lines_of(w, n)),
        ):
            shapes.append((_time(explain, make(100_000), 1), f"{word!r} {label}", make))
    shapes.sort(key=lambda s: s[0], reverse=True)
    print(f"\nexplain: {len(shapes)} keyword shapes timed at 100 KB; the {args.worst} slowest:")
    for _t, label, make in shapes[: args.worst]:
        ok &= _row(f"explain: {label}", explain, make, sizes)[0]
    print("\nall within the bar" if ok else "\nSOME READER GROWS FASTER THAN THE BAR")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
