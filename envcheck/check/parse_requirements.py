"""Parse pip requirement files: text in, pins with line numbers out (no I/O).

Follows pip's file format: ``#`` comments (at the line start or after
whitespace), backslash continuations, global options (``-r``, ``-c``,
``--index-url``, ``--extra-index-url``, ``-f``...), per-requirement options
(``--hash``), environment markers and direct URLs. A line pip would reject is a
problem at that line, never an exception.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from envcheck.check.model import (
    ERROR,
    INVALID_REQUIREMENT,
    UNKNOWN_OPTION,
    WARNING,
    Include,
    IndexRef,
    Location,
    ParsedFile,
    Pin,
    Problem,
)

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

# A ``#`` at the line start or after whitespace starts a comment. One character of
# look-behind, never ``\s+``: every pattern here runs in linear time on hostile lines.
_COMMENT = re.compile(r"(?:^|(?<=\s))#")
_LOCAL = re.compile(r"^(?:===?)\s*[^+]*\+([A-Za-z0-9.]+)$")

# Options taking a value; the value decides what we record.
_INCLUDE_OPTS = {"-r": False, "--requirement": False, "-c": True, "--constraint": True}
_INDEX_OPTS = {
    "-i": "index-url",
    "--index-url": "index-url",
    "--extra-index-url": "extra-index-url",
    "-f": "find-links",
    "--find-links": "find-links",
}
_VALUE_OPTS = {
    "--trusted-host",
    "--only-binary",
    "--no-binary",
    "--use-feature",
    "--config-settings",
    "--global-option",
    "--install-option",
    "--hash",
}
_FLAG_OPTS = {"--no-index", "--pre", "--prefer-binary", "--require-hashes", "--no-deps"}
_EDITABLE = {"-e", "--editable"}


def normalise_name(name: str) -> str:
    """PEP 503 normalised project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _strip_comment(line: str) -> str:
    m = _COMMENT.search(line)
    return (line if m is None else line[: m.start()]).strip()


def _squash(text: str) -> str:
    """Runs of whitespace as one space (linear; keeps the patterns below linear too)."""
    return " ".join(text.split())


def logical_lines(text: str) -> list[tuple[int, str]]:
    """Join backslash continuations and drop comments: (first line number, text)."""
    out: list[tuple[int, str]] = []
    buffer: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        if not buffer:
            start = number
        line = raw.rstrip()
        if line.endswith("\\"):
            buffer.append(line[:-1])
            continue
        buffer.append(line)
        joined = _strip_comment(" ".join(buffer))
        buffer = []
        if joined:
            out.append((start, joined))
    if buffer:
        joined = _strip_comment(" ".join(buffer))
        if joined:
            out.append((start, joined))
    return out


def _split_option(line: str) -> tuple[str, Optional[str]]:
    """``--index-url=URL`` / ``--index-url URL`` / ``-rfile`` → (option, value)."""
    if line.startswith("--"):
        head, _, rest = line.partition("=") if "=" in line.split()[0] else (line, "", "")
        if rest:
            return head.strip(), rest.strip()
        parts = line.split(None, 1)
        return parts[0], (parts[1].strip() if len(parts) > 1 else None)
    opt = line[:2]
    rest = line[2:].strip()
    if rest.startswith("="):
        rest = rest[1:].strip()
    return opt, (rest or None)


def parse_requirement_text(
    text: str, location: Location, source: str = "pip", constraint: bool = False
) -> tuple[Optional[Pin], Optional[Problem]]:
    """One requirement string (``tensorflow[and-cuda]==2.16.1; python_version>'3.8'``)."""
    # Per-requirement options (--hash=...) follow the requirement.
    req_text = re.split(r"\s--?[A-Za-z]", " " + _squash(text), maxsplit=1)[0].strip()
    if not req_text:
        return None, None
    if _is_path_or_url(req_text):
        return None, None
    simple = _parse_simple(req_text)
    if simple is not None:
        name, extras, specifier = simple
    else:
        # Markers, URLs, odd spacing: the full PEP 508 parser (slower to import).
        from packaging.requirements import InvalidRequirement, Requirement

        try:
            req = Requirement(req_text)
        except InvalidRequirement as exc:
            first = str(exc).splitlines()[0] if str(exc) else "invalid requirement"
            return None, Problem(location, INVALID_REQUIREMENT, f"not a valid requirement: {first}")
        if req.url:
            return None, None
        name, extras, specifier = req.name, tuple(req.extras), req.specifier
    local = None
    for item in specifier:
        m = _LOCAL.match(str(item))
        if m:
            local = m.group(1).lower()
    pin = Pin(
        name=normalise_name(name),
        specifier=str(specifier),
        location=location,
        text=req_text,
        source=source,
        extras=tuple(sorted(e.lower() for e in extras)),
        local=local,
        constraint=constraint,
    )
    return pin, None


# ``name``, ``name[extra,...]``, ``name==1.0,<2``: most lines of most files. Anything
# else goes through packaging's full parser, which validates markers and URLs too.
_SIMPLE = re.compile(
    r"^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*"
    r"(?:\[\s*([A-Za-z0-9._-]+(?:\s*,\s*[A-Za-z0-9._-]+)*)?\s*\])?\s*"
    r"((?:===|[<>=!~]=|[<>])\s*[A-Za-z0-9.*+!_-]+"
    r"(?:\s*,\s*(?:===|[<>=!~]=|[<>])\s*[A-Za-z0-9.*+!_-]+)*)?$"
)


def _parse_simple(text: str) -> Optional[tuple[str, tuple[str, ...], SpecifierSet]]:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    m = _SIMPLE.match(text)
    if m is None:
        return None
    try:
        specifier = SpecifierSet(m.group(3) or "")
    except InvalidSpecifier:
        return None  # the full parser words the error
    extras = tuple(e.strip() for e in (m.group(2) or "").split(",") if e.strip())
    return m.group(1), extras, specifier


def _is_path_or_url(text: str) -> bool:
    head = text.split(";")[0].strip()
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", head) or head.startswith("file:"):
        return True
    if head in (".", "..") or head.startswith(("./", "../", "/", "~")):
        return True
    return head.endswith((".whl", ".tar.gz", ".zip")) and " " not in head


def parse_line(line: str, loc: Location, constraint: bool = False) -> ParsedFile:
    """One logical line of a requirements file (also an item of a conda ``pip:`` list)."""
    if line.startswith("-"):
        opt, value = _split_option(line)
        if opt in _INCLUDE_OPTS:
            if not value:
                return _problem(loc, INVALID_REQUIREMENT, f"{opt} needs a file name")
            return ParsedFile(
                loc.path, includes=(Include(_unquote(value), _INCLUDE_OPTS[opt], loc),)
            )
        if opt in _INDEX_OPTS:
            if not value:
                return _problem(loc, INVALID_REQUIREMENT, f"{opt} needs a URL")
            return ParsedFile(loc.path, indexes=(IndexRef(_unquote(value), _INDEX_OPTS[opt], loc),))
        if opt in _EDITABLE:
            return _local_project(value or "", loc) or ParsedFile(loc.path)
        if opt in _VALUE_OPTS or opt in _FLAG_OPTS:
            return ParsedFile(loc.path)
        return _problem(loc, UNKNOWN_OPTION, f"unknown pip option {opt!r}", WARNING)
    project = _local_project(line, loc)
    if project is not None:
        return project
    pin, problem = parse_requirement_text(line, loc, constraint=constraint)
    return ParsedFile(
        loc.path,
        pins=() if pin is None else (pin,),
        problems=() if problem is None else (problem,),
    )


_LOCAL_PROJECT = re.compile(r"^(\.{1,2}(?:/[^\s\[;]*)?)\s*(?:\[([^\]]*)\])?\s*(?:;.*)?$")


def _local_project(text: str, loc: Location) -> Optional[ParsedFile]:
    """``.``, ``./sub[gpu]``: a local project directory, an include of its pyproject."""
    text = _squash(text)
    if text[:1] in ("'", '"'):
        text = _unquote(text)
    m = _LOCAL_PROJECT.match(text)
    if m is None:
        return None
    extras = tuple(
        sorted(normalise_name(e.strip()) for e in (m.group(2) or "").split(",") if e.strip())
    )
    include = Include(m.group(1), False, loc, project=True, extras=extras)
    return ParsedFile(loc.path, includes=(include,))


def _problem(loc: Location, code: str, message: str, severity: str = ERROR) -> ParsedFile:
    return ParsedFile(loc.path, problems=(Problem(loc, code, message, severity),))


def merge(path: str, parts: list[ParsedFile]) -> ParsedFile:
    """Concatenate the facts of several fragments, in order."""
    return ParsedFile(
        path=path,
        pins=tuple(p for part in parts for p in part.pins),
        indexes=tuple(i for part in parts for i in part.indexes),
        includes=tuple(i for part in parts for i in part.includes),
        python=tuple(b for part in parts for b in part.python),
        problems=tuple(p for part in parts for p in part.problems),
        system_cuda=tuple(c for part in parts for c in part.system_cuda),
    )


def parse_requirements(text: str, path: str, constraint: bool = False) -> ParsedFile:
    """Parse a requirements file's text; ``path`` is used for locations only."""
    parts = [
        parse_line(line, Location(path, number), constraint) for number, line in logical_lines(text)
    ]
    return merge(path, parts)


def _unquote(value: str) -> str:
    """The first word of ``value`` as ``shlex.split`` (POSIX, no comments) reads it;
    ``value`` itself when a quote is left open or there is no word.

    Written out because shlex grows its token one character at a time, which is
    quadratic in the word's length (issue 26 item 6: a 1 MB ``-r`` value took 13 s).
    """
    first: Optional[str] = None
    i = 0
    while True:
        word, i = _word(value, i)
        if i < 0:
            return value  # a quote or an escape left open: shlex refuses the whole value
        if word is None:
            return value if first is None else first
        if first is None:
            first = word


_WHITESPACE = " \t\r\n"


def _word(text: str, i: int) -> tuple[Optional[str], int]:
    """The next word from ``text[i:]`` and where it ends; None at the end, and
    (None, -1) when a quote or an escape is left open."""
    n = len(text)
    while i < n and text[i] in _WHITESPACE:
        i += 1
    if i == n:
        return None, i
    out: list[str] = []
    while i < n:
        ch = text[i]
        if ch in _WHITESPACE:
            break
        if ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return None, -1
            out.append(text[i + 1 : end])
            i = end + 1
        elif ch == '"':
            i += 1
            while True:
                stop = _next_of(text, i, '"\\')
                if stop < 0:
                    return None, -1
                out.append(text[i:stop])
                if text[stop] == '"':
                    i = stop + 1
                    break
                if stop + 1 >= n:
                    return None, -1
                # Inside double quotes a backslash escapes only a quote or a backslash.
                nxt = text[stop + 1]
                out.append(nxt if nxt in '"\\' else "\\" + nxt)
                i = stop + 2
        elif ch == "\\":
            if i + 1 >= n:
                return None, -1
            out.append(text[i + 1])
            i += 2
        else:
            stop = _next_of(text, i, _WHITESPACE + "'\"\\")
            stop = n if stop < 0 else stop
            out.append(text[i:stop])
            i = stop
    return "".join(out), i


def _next_of(text: str, start: int, chars: str) -> int:
    """Index of the first of ``chars`` at or after ``start`` (-1 when none)."""
    m = _CHARS.get(chars)
    if m is None:
        m = _CHARS[chars] = re.compile("[" + re.escape(chars) + "]")
    found = m.search(text, start)
    return -1 if found is None else found.start()


_CHARS: dict[str, re.Pattern[str]] = {}
