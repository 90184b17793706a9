"""The doctor's project configuration: ``[tool.envcheck.doctor]`` in pyproject.toml.

A CI runner accepts a known finding without hiding others::

    [tool.envcheck.doctor]
    ignore = ["container-no-gpu"]   # this job runs on CPU runners on purpose

The nearest ``pyproject.toml`` from the working directory upwards is read (as
ruff and pytest find theirs), at the CLI edge only; ``doctor --ignore ID`` adds
to the list. Ignored findings stay in the report, listed as ignored. ``check``
reads its own keys of ``[tool.envcheck]`` from the same file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Optional

from envcheck.errors import InputError

TABLE = "tool.envcheck.doctor"
KEYS = ("ignore",)
FINDING_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")
"""The form of a finding id (``doctor-1.schema.json``: ``^[a-z0-9][a-z0-9-]*$``)."""
MAX_IGNORES = 256
_SHOWN = 200
"""Characters of a user value repeated in a message."""


def bad_finding_id(value: object) -> Optional[str]:
    """Why ``value`` is not a finding id; None when it is one."""
    if not isinstance(value, str):
        return f"expected a finding id (a string), got {type(value).__name__}"
    if FINDING_ID.match(value):
        return None
    return (
        f"{_cut(value)!r} is not a finding id (lowercase letters, digits and '-', "
        "e.g. cuda-visible-devices-hides-gpus)"
    )


def find_pyproject(start: Path) -> Optional[Path]:
    """The nearest ``pyproject.toml`` in ``start`` or a parent; None when none."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        try:
            if candidate.is_file():
                return candidate
        except OSError:
            return None
    return None


def parse_doctor_ignores(text: str, path: str) -> tuple[str, ...]:
    """``ignore`` of ``[tool.envcheck.doctor]`` in a pyproject.toml's ``text``;
    () when absent. A bad value is an InputError naming ``path`` and its line."""
    if "envcheck" not in text:
        return ()  # most projects: no need to parse their pyproject.toml at all
    from envcheck.inputs import parse_toml

    doc = parse_toml(text, path)
    table: Any = doc
    for part in TABLE.split("."):
        table = table.get(part) if isinstance(table, Mapping) else None
    lines = text.splitlines()
    header = _header_line(lines)
    if table is None:
        return ()
    if not isinstance(table, Mapping):
        raise InputError(path, header, f"[{TABLE}] must be a table")
    for key in table:
        if key not in KEYS:
            raise InputError(
                path,
                _key_line(lines, header, str(key)),
                f"unknown key {_cut(str(key))!r} in [{TABLE}] (known: {', '.join(KEYS)})",
            )
    value = table.get("ignore", [])
    at = _key_line(lines, header, "ignore")
    if not isinstance(value, list):
        raise InputError(path, at, f"[{TABLE}] ignore must be a list of finding ids")
    if len(value) > MAX_IGNORES:
        raise InputError(path, at, f"[{TABLE}] ignore lists more than {MAX_IGNORES} ids")
    for item in value:
        why = bad_finding_id(item)
        if why is not None:
            raise InputError(path, _value_line(lines, at, item), f"[{TABLE}] ignore: {why}")
    return tuple(dict.fromkeys(value))


def read_doctor_ignores(start: Path) -> tuple[str, ...]:
    """The ignore list of the project around ``start`` (the working directory)."""
    path = find_pyproject(start)
    if path is None:
        return ()
    from envcheck.inputs import LIMITS
    from envcheck.textfile import read_text_file

    return parse_doctor_ignores(
        read_text_file(path, "pyproject.toml", LIMITS["dependency"]), str(path)
    )


def merge_ignores(*lists: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for ids in lists for i in ids))


def _cut(value: str) -> str:
    return value if len(value) <= _SHOWN else value[:_SHOWN] + "..."


_HEADER = re.compile(r"^\s*\[\s*tool\s*\.\s*envcheck\s*\.\s*doctor\s*\]")
_PARENT = re.compile(r"^\s*\[\s*tool\s*\.\s*envcheck\s*\]")


def _header_line(lines: list[str]) -> Optional[int]:
    """1-based line of ``[tool.envcheck.doctor]``, else of ``[tool.envcheck]``
    (where ``doctor.ignore = [...]`` may be written); None when neither."""
    for pattern in (_HEADER, _PARENT):
        for i, line in enumerate(lines):
            if pattern.match(line):
                return i + 1
    return None


_TABLE_HEADER = re.compile(r"^\s*\[\[?\s*[A-Za-z0-9_.\"' -]+\]\]?\s*(?:#.*)?$")


def _key_line(lines: list[str], header: Optional[int], key: str) -> Optional[int]:
    """1-based line where ``key`` is assigned in the table at ``header``; the
    header's line when it is not seen there."""
    pattern = re.compile(r"^\s*(?:doctor\s*\.\s*)?[\"']?" + re.escape(key) + r"[\"']?\s*=")
    first = header or 0  # 0-based index of the line after the header
    for i in range(first, len(lines)):
        if _TABLE_HEADER.match(lines[i]):
            break
        if pattern.match(lines[i]):
            return i + 1
    return header


def _value_line(lines: list[str], start: Optional[int], value: object) -> Optional[int]:
    """1-based line of a string ``value`` at or after ``start`` (multi-line arrays)."""
    if not isinstance(value, str) or start is None:
        return start
    for quoted in (f'"{value}"', f"'{value}'"):
        for i in range(start - 1, min(len(lines), start - 1 + MAX_IGNORES + 2)):
            if quoted in lines[i]:
                return i + 1
    return start
