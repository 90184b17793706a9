"""What pyproject.toml, pixi.toml and Poetry's tables share: the parsed result
(``ParsedPyproject``) and finding the line of a key or string in TOML text, which
the standard library's parser does not give (``Lines``)."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Mapping
from typing import Any, Optional

from envcheck.check.model import (
    DeclaredTarget,
    Location,
    ParsedFile,
    Pin,
    Problem,
)
from envcheck.check.parse_requirements import parse_requirement_text
from envcheck.errors import InputError
from envcheck.model._frozen import record


@record
class ParsedPyproject:
    """The environments a pyproject.toml (or pixi.toml) describes."""

    path: str
    base: ParsedFile
    extras: tuple[tuple[str, ParsedFile], ...] = ()
    """Optional dependencies / groups / pixi features: each installed with the base."""
    declared: Optional[DeclaredTarget] = None
    problems: tuple[Problem, ...] = ()
    base_environment: bool = True
    """Whether ``base`` alone is an environment (pixi: only when no ``[environments]`` omit it)."""
    select: tuple[str, ...] = ()
    """``select`` of [tool.envcheck]: report only these codes (prefixes: ``EC1``)."""
    ignore: tuple[str, ...] = ()
    extras_standalone: bool = False
    """Whether each extra is a whole environment (pixi ``[environments]``), not base + extra."""


STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'([^\'\n]*)\'')
SCANS = 64
"""Line searches by plain substring (a string written with escapes, a key inside an
inline table) per file; after that the item has no line. Each scans the file, so an
unbounded number of them would be quadratic (issue 26 item 2)."""


class Lines:
    """Find the line of a key or string after a table header.

    Headers, keys at line starts and quoted strings are indexed once, so each look-up
    is a dictionary hit and a bisection, not a scan from the header (a 1 MB file of
    dependencies is read in linear time).
    """

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self._headers: dict[str, int] = {}
        self._keys: dict[str, list[int]] = {}
        self._strings: Optional[dict[str, list[int]]] = None
        self._scans = SCANS
        # String operations, not regexes: a run of spaces stays linear.
        for i, line in enumerate(self.lines):
            stripped = line.lstrip()
            if stripped.startswith("["):
                body = stripped[2:] if stripped.startswith("[[") else stripped[1:]
                close = body.find("]")
                if close >= 0:
                    name = ".".join(part.strip() for part in body[:close].split("."))
                    self._headers.setdefault(name, i)
            head, eq, _value = line.partition("=")
            if eq:
                key = head.strip()
                key = key[1:] if key[:1] in ("'", '"') else key
                key = key[:-1] if key[-1:] in ("'", '"') else key
                self._keys.setdefault(key, []).append(i)

    def header(self, table: str) -> int:
        """0-based index of ``[table]`` (or ``[[table]]``); 0 when not written as a header."""
        return self._headers.get(table, 0)

    def _scan(self, needle: str, start: int) -> Optional[int]:
        """1-based line of ``needle`` at or after ``start`` (else anywhere), within the budget."""
        if self._scans <= 0:
            return None
        self._scans -= 1
        count = len(self.lines)
        for i in itertools.chain(range(start, count), range(min(start, count))):
            if needle in self.lines[i]:
                return i + 1
        return None

    def key(self, key: str, start: int) -> Optional[int]:
        found = at_or_after(self._keys.get(key), start, wrap=False)
        return found if found is not None else self._scan(key, start)

    def string(self, value: str, start: int) -> Optional[int]:
        if self._strings is None:
            self._strings = {}
            line = 0
            counted = 0
            text = "\n".join(self.lines)
            for m in STRING.finditer(text):
                line += text.count("\n", counted, m.start())
                counted = m.start()
                body = m.group(1) if m.group(1) is not None else m.group(2)
                self._strings.setdefault(body, []).append(line)
        found = at_or_after(self._strings.get(value), start)
        return found if found is not None else self._scan(value, start)


def at_or_after(indexes: Optional[list[int]], start: int, wrap: bool = True) -> Optional[int]:
    """1-based line of the first index at or after ``start``, else (``wrap``) of the first."""
    if not indexes:
        return None
    i = bisect.bisect_left(indexes, start)
    if i < len(indexes):
        return indexes[i] + 1
    return indexes[0] + 1 if wrap else None


def read_toml(text: str, path: str) -> dict[str, Any]:
    from envcheck.matrix.load import parse_toml

    return parse_toml(text, path)


def table_of(doc: Mapping[str, Any], dotted: str, path: str, lines: Lines) -> dict[str, Any]:
    node: Any = doc
    for part in dotted.split("."):
        if not isinstance(node, Mapping):
            return {}
        node = node.get(part, {})
    if not isinstance(node, Mapping):
        raise InputError(path, lines.header(dotted) + 1, f"[{dotted}] must be a table")
    return dict(node)


def str_list(value: Any, path: str, line: Optional[int], what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(path, line, f"{what} must be a list of strings")
    return list(value)


def requirements_of(items: list[str], path: str, lines: Lines, start: int) -> ParsedFile:
    pins: list[Pin] = []
    problems: list[Problem] = []
    for item in items:
        loc = Location(path, lines.string(item, start))
        pin, problem = parse_requirement_text(item, loc)
        if pin is not None:
            pins.append(pin)
        if problem is not None:
            problems.append(problem)
    return ParsedFile(path, pins=tuple(pins), problems=tuple(problems))
