#!/usr/bin/env python3
"""Print the coverage table of the signature catalogue (signatures/README.md).

For each source file that rows name in ``emitted_by`` (grouped by repository and
path): how many rows cite it, and, where ``signatures/coverage.toml`` lists the
file's messages, how many messages it prints and how many of them the catalogue
matches (each listed example line run through ``match_signatures``). A last line
counts the rows that cite only a report (a ``source``, no ``emitted_by``).

Usage: python scripts/signature_coverage.py [--write] [--dir DIR]
``--write`` replaces the table between the README's coverage markers instead
of printing it. tests/explain/test_catalogue.py checks the README is current.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envcheck.errors import InputError  # noqa: E402
from envcheck.explain.catalogue import COVERAGE, read_catalogue  # noqa: E402
from envcheck.explain.core import match_signatures  # noqa: E402
from envcheck.explain.signatures import Signature  # noqa: E402
from envcheck.matrix.load import RowReader, _rows, _unknown_tables, check_header  # noqa: E402

START = "<!-- coverage table: scripts/signature_coverage.py --write -->"
END = "<!-- end of coverage table -->"


@dataclass(frozen=True)
class Counted:
    file: str
    """``owner/repo:path``."""
    commit: str
    messages: tuple[str, ...]
    note: str


def read_coverage(directory: Path, cited: dict[str, set[str]]) -> dict[str, Counted]:
    """``coverage.toml``, validated: every file must be one that rows cite."""
    from envcheck.inputs import LIMITS, read_text
    from envcheck.matrix.load import parse_toml

    path = directory / COVERAGE
    if not path.is_file():
        return {}
    file = str(path)
    text = read_text(path, "coverage file", LIMITS["matrix"])
    doc = parse_toml(text, file)
    check_header(doc, file, what="signature coverage")
    _unknown_tables(doc, file, text, ("file",))

    def row(r: RowReader) -> Counted:
        r.used.discard("verified")
        name = r.string("file")
        if name not in cited:
            r.fail("file", f"{name!r} is named by no row's emitted_by")
        commit = r.string("commit")
        if commit not in cited[name]:
            r.fail("commit", f"rows cite {name} at {', '.join(sorted(cited[name]))}, not {commit}")
        messages = r.strings("messages", required=True)
        if not messages:
            r.fail("messages", "must list at least one message")
        return Counted(name, commit, messages, r.string("note"))

    out: dict[str, Counted] = {}
    for counted in _rows(file, text, doc, "file", row):
        if counted.file in out:
            raise InputError(file, None, f"{counted.file} is listed twice")
        out[counted.file] = counted
    return out


def table(directory: Path) -> str:
    """The markdown table, from the catalogue in ``directory``."""
    rows: tuple[Signature, ...] = read_catalogue(directory)
    cited: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    for sig in rows:
        if sig.emitted_by:
            name, commit = sig.emitted_by.rsplit("@", 1)
            cited.setdefault(name, set()).add(commit)
            counts[name] = counts.get(name, 0) + 1
    counted = read_coverage(directory, cited)
    lines = [
        "| Source file (repository: path) | Commit | Rows citing it | Messages in file | Covered |",
        "|---|---|---:|---:|---:|",
    ]
    total_messages = total_covered = 0
    for name in sorted(cited, key=lambda n: (n.split(":", 1)[0].lower(), n)):
        repo, path = name.split(":", 1)
        commits = ", ".join(f"`{c[:7]}`" for c in sorted(cited[name]))
        c = counted.get(name)
        if c is None:
            messages = covered = "unknown"
        else:
            hit = sum(1 for m in c.messages if match_signatures(m, rows)[0])
            total_messages += len(c.messages)
            total_covered += hit
            messages, covered = str(len(c.messages)), str(hit)
        lines.append(f"| {repo}: `{path}` | {commits} | {counts[name]} | {messages} | {covered} |")
    report_only = sum(1 for s in rows if not s.emitted_by)
    lines.append(f"| rows citing only a report (`source`, no `emitted_by`) | | {report_only} | | |")
    lines.append(
        f"| **all rows** ({len(cited)} files) | | {len(rows)} | "
        f"{total_messages} counted | {total_covered} |"
    )
    return "\n".join(lines) + "\n"


def replace_table(readme: str, new: str) -> str:
    head, sep, rest = readme.partition(START)
    _old, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"the README has no {START!r} ... {END!r} markers")
    return f"{head}{START}\n{new}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dir", type=Path, default=ROOT / "signatures", help="catalogue directory")
    parser.add_argument("--write", action="store_true", help="update the README's table")
    args = parser.parse_args(argv)
    text = table(args.dir)
    if args.write:
        readme = args.dir / "README.md"
        readme.write_text(replace_table(readme.read_text(encoding="utf-8"), text), encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
