#!/usr/bin/env python3
"""Score `envcheck explain` and `doctor --from-collect-env` on the failure corpus.

The corpus (tests/fixtures/corpus, see its README) holds error texts and pasted
collect_env reports from public threads whose root cause was established. For
each case this prints HIT or MISS and the categories found, then the hit rates.

A case is a HIT when the first cause envcheck names has the expected category:
explain's primary (first) finding, or the doctor's first finding of its most
severe grade (its first error; its first warning when it has no error).
``--any`` gives the older, lenient measure (the category anywhere among the
errors and warnings), which flatters a tool that names many causes. Error texts go
through ``envcheck.explain.explain`` with the matrix but no snapshot, as
``explain --no-detect`` does;
collect_env reports are parsed and diagnosed exactly as ``envcheck doctor
--from-collect-env FILE`` does (the report text is also explained, since
collect_env prints CUDA's warnings above the report).

Usage: python scripts/corpus_score.py [--min RATE] [--quiet] [--any] [--corpus DIR]
Exit 0 always, unless --min is given and the overall hit rate is below it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
_GRADES = ("error", "warning")


def _toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    doc: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    return doc


def first_cause(findings: tuple[Any, ...]) -> Any:
    """The first finding of the most severe grade present; None without findings."""
    if not findings:
        return None
    best = min(f.severity.rank for f in findings)
    return next(f for f in findings if f.severity.rank == best)


def _hit(findings: tuple[Any, ...], category: str, lenient: bool = False) -> bool:
    if not lenient:
        first = first_cause(findings)
        return first is not None and first.category.value == category
    if findings and findings[0].category.value == category:
        return True
    return any(f.category.value == category and f.severity.value in _GRADES for f in findings)


def _shown(findings: tuple[Any, ...]) -> str:
    return ",".join(f"{f.category.value}:{f.id}" for f in findings[:4]) or "-"


def score_errors(corpus: Path, quiet: bool, lenient: bool = False) -> tuple[int, int]:
    from envcheck.explain import explain
    from envcheck.matrix import load_matrix

    matrix = load_matrix()
    hits = total = 0
    for path in sorted((corpus / "errors").glob("*.toml")):
        for case in _toml(path).get("case", []):
            report = explain(case["text"], None, matrix)
            ok = _hit(report.findings, case["category"], lenient)
            hits += ok
            total += 1
            if not quiet or not ok:
                mark = "HIT " if ok else "MISS"
                print(
                    f"{mark} {path.stem}/{case['id']} want={case['category']} got={_shown(report.findings)}"
                )
    return hits, total


def score_collect_env(corpus: Path, quiet: bool, lenient: bool = False) -> tuple[int, int]:
    from envcheck.collect_env import parse_collect_env
    from envcheck.doctor import diagnose
    from envcheck.errors import InputError
    from envcheck.explain import explain_findings
    from envcheck.matrix import load_matrix

    matrix = load_matrix()
    folder = corpus / "collect_env"
    hits = total = 0
    if not (folder / "cases.toml").is_file():  # a set of error texts only
        return hits, total
    for case in _toml(folder / "cases.toml").get("case", []):
        path = folder / case["file"]
        text = path.read_text(encoding="utf-8")
        total += 1
        try:
            snapshot = parse_collect_env(text, str(path))
        except InputError as exc:
            print(f"MISS collect_env/{case['file']} want={case['category']} got=unparsed ({exc})")
            continue
        extra = explain_findings(text, snapshot, matrix)
        findings = diagnose(snapshot, matrix, extra=extra).findings
        ok = _hit(findings, case["category"], lenient)
        hits += ok
        if not quiet or not ok:
            mark = "HIT " if ok else "MISS"
            print(
                f"{mark} collect_env/{case['file']} want={case['category']} got={_shown(findings)}"
            )
    return hits, total


def _rate(hits: int, total: int) -> float:
    return hits / total if total else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min", type=float, default=None, metavar="RATE")
    parser.add_argument("--quiet", action="store_true", help="Print misses only.")
    parser.add_argument(
        "--any", action="store_true", help="Lenient: the category among any errors/warnings."
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))

    e_hits, e_total = score_errors(args.corpus, args.quiet, args.any)
    c_hits, c_total = score_collect_env(args.corpus, args.quiet, args.any)
    hits, total = e_hits + c_hits, e_total + c_total
    print(f"errors:      {e_hits}/{e_total} = {_rate(e_hits, e_total):.1%}")
    print(f"collect_env: {c_hits}/{c_total} = {_rate(c_hits, c_total):.1%}")
    print(f"overall:     {hits}/{total} = {_rate(hits, total):.1%}")
    if args.min is not None and _rate(hits, total) < args.min:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
