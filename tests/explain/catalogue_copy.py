"""Helpers for tests that break a copy of the signature catalogue (signatures/): edit
one row of a table (``[[signature]]`` or ``[[fact]]``) and find the lines the loader
must name."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).parents[2]


def copy_catalogue(tmp_path: Path) -> Path:
    dest = tmp_path / "signatures"
    shutil.copytree(ROOT / "signatures", dest)
    return dest


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def edit_in_row(path: Path, rid: str, old: str, new: str, table: str) -> None:
    """Replace ``old`` (once) inside the ``[[table]]`` row ``rid`` only."""
    text = path.read_text(encoding="utf-8")
    start = text.index(f'id = "{rid}"\n')
    end = text.find(f"[[{table}]]", start)
    end = len(text) if end < 0 else end
    row = text[start:end]
    assert row.count(old) == 1, old
    path.write_text(text[:start] + row.replace(old, new) + text[end:], encoding="utf-8")


def header_line(path: Path, rid: str, table: str) -> int:
    """The line of the ``[[table]]`` header of the row ``rid``."""
    lines = path.read_text(encoding="utf-8").split("\n")
    at = lines.index(f'id = "{rid}"')
    return max(i for i in range(at) if lines[i] == f"[[{table}]]") + 1


def line_of(path: Path, needle: str) -> int:
    lines = path.read_text(encoding="utf-8").split("\n")
    (number,) = [i + 1 for i, line in enumerate(lines) if needle in line]
    return number
