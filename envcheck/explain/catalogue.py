"""Load the error-signature catalogue (``signatures/*.toml``) into frozen rows.

The catalogue is data beside ``matrices/`` (format: ``signatures/README.md``):
``index.toml`` lists the row files in matching order and holds the named regex
fragments (``[fragments]``) that rows use as ``{name}``; each row file holds
``[[signature]]`` rows; ``facts.toml`` holds the ``[[fact]]`` rows, the patterns
that read facts from the rest of a message (``fact_pattern``). Every problem raises
``InputError`` naming the file and the line of the offending row (or key), through
the matrix loader's ``RowReader``.

The table is read once per process (``load_catalogue``) and, after a successful
load, kept as a ``marshal``-ed copy of the validated rows (both kinds) in the user cache
directory (beside the compiled matrix), keyed by the files' names, sizes, mtimes
and CRCs and by this module's own: a warm start skips the TOML parser. Any
problem with that copy means "no cache"; ``ENVCHECK_NO_CACHE=1`` turns it off.
"""

from __future__ import annotations

import functools
import re
import sys
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

from envcheck.errors import InputError
from envcheck.explain.signatures import ALL_FRAMEWORKS, ANALYSES, NONE, Fact, Signature
from envcheck.model.finding import Category, Severity

if TYPE_CHECKING:
    from envcheck.matrix.load import RowReader

SCHEMA_VERSION = 1
INDEX = "index.toml"
COVERAGE = "coverage.toml"
FACTS = "facts.toml"
NOT_ROWS = (INDEX, COVERAGE, FACTS)
"""TOML files in the directory that hold no signature rows (the coverage data is the
coverage script's, not the loader's; the fact rows are read on their own)."""
TABLE = "signature"
FACT_TABLE = "fact"


class Catalogue(NamedTuple):
    """Everything the directory holds for the explainer, validated."""

    signatures: tuple[Signature, ...]
    facts: tuple[Fact, ...]


# Compiled on first use by ``re`` itself: only a parse (a cold cache) needs them.
_ID = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
_FRAGMENT_NAME = r"^[a-z][a-z0-9_]*$"
_FRAGMENT_REF = r"(?<!\\)\{([A-Za-z_][A-Za-z0-9_]*)\}"
"""``{name}`` in a regex; ``\\{`` stays a literal brace and a quantifier
(``{1,40}``) is digits, so neither is a reference."""
_EMITTED_BY = r"^[A-Za-z0-9][\w.-]*/[\w.-]+:[^\s@:]+@[0-9a-f]{40}$"
_FILE_NAME = r"^[\w.-]+\.toml$"


def bundled_dir() -> Path:
    """The catalogue shipped with envcheck (wheel) or the source checkout's ``signatures/``."""
    packaged = Path(__file__).resolve().parents[1] / "_signatures"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "signatures"


# -- reading and validating ------------------------------------------------------


def _key_line(text: str, key: str, after: int = 1) -> Optional[int]:
    """The line of ``key = ...`` at or after line ``after`` (None when absent)."""
    pattern = re.compile(r"^[ \t]*" + re.escape(key) + r"[ \t]*=", re.MULTILINE)
    lines = text.split("\n")
    for number in range(after, len(lines) + 1):
        if pattern.match(lines[number - 1]):
            return number
    return None


def _header_line(text: str, table: str) -> Optional[int]:
    """The line of the ``[table]`` header (None when absent)."""
    pattern = re.compile(r"^[ \t]*\[[ \t]*" + re.escape(table) + r"[ \t]*\]", re.MULTILINE)
    m = pattern.search(text)
    return None if m is None else text.count("\n", 0, m.start()) + 1


def _read(path: Path) -> tuple[str, dict[str, Any]]:
    from envcheck.inputs import LIMITS, read_text
    from envcheck.matrix.load import check_header, parse_toml

    text = read_text(path, "signature file", LIMITS["matrix"])
    doc = parse_toml(text, str(path))
    check_header(doc, str(path), what="signature catalogue")
    return text, doc


def _index(directory: Path) -> tuple[list[Path], dict[str, str], Path, str]:
    """The row files in order, the fragments, and the index's path and text."""
    from envcheck.matrix.load import _unknown_tables

    path = directory / INDEX
    text, doc = _read(path)
    file = str(path)
    _unknown_tables(doc, file, text, ("files", "fragments"))
    files_line = _key_line(text, "files")
    names = doc.get("files")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise InputError(file, files_line, f"'files' must be a list of file names, got {names!r}")
    paths = []
    for name in names:
        if not re.match(_FILE_NAME, name) or name in NOT_ROWS:
            raise InputError(file, files_line, f"'files': {name!r} is not a row file name")
        if names.count(name) > 1:
            raise InputError(file, files_line, f"'files': {name!r} is listed twice")
        if not (directory / name).is_file():
            raise InputError(file, files_line, f"'files': {name!r} does not exist")
        paths.append(directory / name)
    unlisted = sorted(
        p.name for p in directory.glob("*.toml") if p.name not in names and p.name not in NOT_ROWS
    )
    if unlisted:
        raise InputError(file, files_line, f"'files' does not list {unlisted[0]!r}")
    fragments = doc.get("fragments", {})
    start = _header_line(text, "fragments") or 1
    if not isinstance(fragments, dict):
        raise InputError(file, start, "'fragments' must be a table ([fragments])")
    for name, value in fragments.items():
        line = _key_line(text, name, start)
        if not re.match(_FRAGMENT_NAME, name):
            raise InputError(file, line, f"fragment name {name!r} must be lower_snake_case")
        if not isinstance(value, str) or not value:
            raise InputError(file, line, f"fragment '{name}' must be a non-empty string")
        if re.search(_FRAGMENT_REF, value):
            raise InputError(file, line, f"fragment '{name}' refers to another fragment")
    return paths, fragments, path, text


class _Seen:
    """What the rows read so far tell the later checks."""

    def __init__(self) -> None:
        self.where: dict[str, tuple[str, int]] = {}
        self.facts: dict[str, tuple[str, int]] = {}
        self.refs: list[tuple[str, int, int, str, tuple[str, ...]]] = []
        self.fragments_used: set[str] = set()


def _id(r: RowReader, where: dict[str, tuple[str, int]]) -> str:
    """The row's ``id``: lower-case words, not one that ``where`` already holds."""
    sid: str = r.string("id")
    if not re.match(_ID, sid):
        r.fail("id", f"must be lower-case words joined by '-', got {sid!r}")
    if sid in where:
        first, line = where[sid]
        r.fail("id", f"{sid!r} is already the id of the row at {first}:{line}")
    where[sid] = (r.file, r.line)
    return sid


def _regex(r: RowReader, fragments: Mapping[str, str], seen: _Seen, flags: int = 0) -> str:
    """The row's ``regex`` with its ``{fragment}`` references expanded; it compiles."""
    written = r.string("regex")

    def expand(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in fragments:
            r.fail("regex", f"unknown fragment {{{name}}} (index.toml [fragments])")
        seen.fragments_used.add(name)
        return fragments[name]

    regex = re.sub(_FRAGMENT_REF, expand, written)
    try:
        re.compile(regex, flags)
    except re.error as exc:
        r.fail("regex", f"does not compile: {exc}")
    return regex


def _emitted_by(r: RowReader) -> str:
    emitted_by = r.string("emitted_by", required=False)
    if emitted_by is not None and not re.match(_EMITTED_BY, emitted_by):
        r.fail("emitted_by", f"expected 'owner/repo:path@<40-hex commit>', got {emitted_by!r}")
    return emitted_by or ""


def _row(r: RowReader, fragments: Mapping[str, str], seen: _Seen) -> Signature:
    r.used.discard("verified")  # a matrix field, not a signature's
    sid = _id(r, seen.where)

    regex = _regex(r, fragments, seen)
    frameworks = r.strings("frameworks", required=True)
    for name in frameworks:
        if name not in ALL_FRAMEWORKS:
            r.fail("frameworks", f"unknown framework {name!r} (one of {', '.join(ALL_FRAMEWORKS)})")
    raw_category = r.string("category")
    try:
        category = Category(raw_category)
    except ValueError:
        r.fail("category", f"unknown category {raw_category!r}")
    raw_severity = r.string("severity", required=False)
    try:
        severity = Severity.ERROR if raw_severity is None else Severity(raw_severity)
    except ValueError:
        r.fail("severity", f"expected error, warning or info, got {raw_severity!r}")
    analysis = r.string("analysis", required=False)
    if analysis is not None and analysis not in ANALYSES:
        r.fail("analysis", f"unknown analysis {analysis!r} (one of {', '.join(ANALYSES)})")
    source: str = r.string("source")
    r.url("source")
    emitted_by = _emitted_by(r)
    r.string("note", required=False)
    supersedes = r.strings("supersedes")
    explains = r.strings("explains")
    for key, ids in (("supersedes", supersedes), ("explains", explains)):
        if sid in ids:
            r.fail(key, "names the row itself")
        seen.refs.append((r.file, r.line, r.index, key, ids))
    return Signature(
        id=sid,
        regex=regex,
        frameworks=frameworks,
        category=category,
        title=r.string("title"),
        cause=r.string("cause"),
        fix=r.string("fix"),
        source=source,
        severity=severity,
        analysis=NONE if analysis is None else analysis,
        supersedes=supersedes,
        emitted_by=emitted_by,
        explains=explains,
        reaches_gpu=bool(r.boolean("reaches_gpu")),
    )


def _fact(r: RowReader, fragments: Mapping[str, str], seen: _Seen) -> Fact:
    r.used.difference_update(("verified", "note"))  # matrix fields, not a fact's
    fid = _id(r, seen.facts)
    ignorecase = bool(r.boolean("ignorecase"))
    multiline = bool(r.boolean("multiline"))
    flags = (re.IGNORECASE if ignorecase else 0) | (re.MULTILINE if multiline else 0)
    regex = _regex(r, fragments, seen, flags)
    return Fact(
        id=fid,
        regex=regex,
        reads=r.string("reads"),
        ignorecase=ignorecase,
        multiline=multiline,
        source=r.url("source") or "",
        emitted_by=_emitted_by(r),
    )


def _table_rows(path: Path, table: str, make: Callable[[RowReader], Any]) -> list[Any]:
    """The ``[[table]]`` rows of one file, made by ``make`` (at least one; no other table)."""
    from envcheck.matrix.load import _rows, _unknown_tables

    text, doc = _read(path)
    file = str(path)
    _unknown_tables(doc, file, text, (table,))
    rows = _rows(file, text, doc, table, make)
    if not rows:
        raise InputError(file, None, f"no [[{table}]] rows")
    return list(rows)


def _read_facts(directory: Path, fragments: Mapping[str, str], seen: _Seen) -> tuple[Fact, ...]:
    return tuple(_table_rows(directory / FACTS, FACT_TABLE, lambda r: _fact(r, fragments, seen)))


def read_catalogue(directory: Path) -> tuple[Signature, ...]:
    """Parse and validate every file of ``directory`` (no cache); the signature rows
    in order."""
    return read_all(directory).signatures


def read_all(directory: Path) -> Catalogue:
    """Parse and validate every file of ``directory`` (no cache): the signature rows
    in order and the fact rows."""
    paths, fragments, index_path, index_text = _index(directory)
    seen = _Seen()
    out: list[Signature] = []
    for path in paths:
        out.extend(_table_rows(path, TABLE, lambda r: _row(r, fragments, seen)))
    facts = _read_facts(directory, fragments, seen)
    for file, line, index, key, ids in seen.refs:
        for other in ids:
            if other not in seen.where:
                raise InputError(
                    file, line, f"[[{TABLE}]] #{index + 1} field '{key}': unknown id {other!r}"
                )
    for name in fragments:
        if name not in seen.fragments_used:
            at = _key_line(index_text, name, _header_line(index_text, "fragments") or 1)
            raise InputError(str(index_path), at, f"fragment '{name}' is used by no row")
    return Catalogue(tuple(out), facts)


# -- the compiled copy -------------------------------------------------------------

CACHE_FORMAT = 2
MAGIC = "envcheck compiled signatures"


def cache_key(directory: Path) -> Optional[str]:
    """The key of ``directory``'s current catalogue; None when unreadable."""
    import envcheck
    from envcheck.explain import signatures
    from envcheck.inputs import is_regular_file
    from envcheck.model import finding

    parts = [f"format {CACHE_FORMAT}", f"envcheck {envcheck.__version__}", f"python {sys.version}"]
    try:
        parts.append(f"dir {directory.resolve()}")
        for path in sorted(directory.glob("*.toml")):
            if not is_regular_file(path):
                return None
            data = path.read_bytes()
            st = path.stat()
            parts.append(f"{path.name} {st.st_size} {st.st_mtime_ns} {zlib.crc32(data):08x}")
        for module in (sys.modules[__name__], signatures, finding):
            st = Path(str(module.__file__)).stat()
            parts.append(f"{Path(str(module.__file__)).name} {st.st_size} {st.st_mtime_ns}")
    except (OSError, TypeError, ValueError):
        return None
    return "\n".join(parts)


def cache_file(directory: Path) -> Optional[Path]:
    from envcheck.matrix.cache import cache_dir

    root = cache_dir()
    if root is None:
        return None
    try:
        name = str(directory.resolve())
    except OSError:
        return None
    return root / f"signatures-{zlib.crc32(name.encode('utf-8', 'surrogateescape')):08x}.marshal"


_FIELDS = (
    "id", "regex", "frameworks", "category", "title", "cause", "fix", "source",
    "severity", "analysis", "supersedes", "emitted_by", "explains", "reaches_gpu",
)  # fmt: skip


_FACT_FIELDS = ("id", "regex", "reads", "ignorecase", "multiline", "source", "emitted_by")


def _plain(sig: Signature) -> tuple[Any, ...]:
    return tuple(
        getattr(sig, name).value if name in ("category", "severity") else getattr(sig, name)
        for name in _FIELDS
    )


def read_cache(path: Path, key: str) -> Optional[Catalogue]:
    """The rows stored under ``key`` in ``path``; None for anything else."""
    import marshal

    from envcheck.inputs import is_regular_file

    if not is_regular_file(path):
        return None
    try:
        stored = marshal.loads(path.read_bytes())
        if not (isinstance(stored, tuple) and len(stored) == 4 and stored[:2] == (MAGIC, key)):
            return None
        out = []
        for values in stored[2]:
            row = dict(zip(_FIELDS, values))
            row["category"] = Category(row["category"])
            row["severity"] = Severity(row["severity"])
            out.append(Signature(**row))
        facts = tuple(Fact(**dict(zip(_FACT_FIELDS, values))) for values in stored[3])
    except Exception:  # noqa: BLE001 - truncated, foreign or stale: parse the files
        return None
    return Catalogue(tuple(out), facts) if out and facts else None


def write_cache(path: Path, key: str, catalogue: Catalogue) -> bool:
    """Store ``catalogue`` under ``key`` atomically; False (and no file) on failure."""
    import marshal

    from envcheck.matrix.cache import write_atomic

    signatures = tuple(_plain(s) for s in catalogue.signatures)
    facts = tuple(tuple(getattr(f, name) for name in _FACT_FIELDS) for f in catalogue.facts)
    return write_atomic(path, lambda: marshal.dumps((MAGIC, key, signatures, facts)))


def load_compiled_all(directory: Path, env: Optional[Mapping[str, str]] = None) -> Catalogue:
    """``directory``'s rows through the compiled copy (parse and validate on a miss)."""
    from envcheck.matrix.cache import cache_disabled, through_cache

    if cache_disabled(env):
        return read_all(directory)
    key = cache_key(directory)
    path = None if key is None else cache_file(directory)
    return through_cache(key, path, read_cache, write_cache, lambda: read_all(directory))


def load_compiled(
    directory: Path, env: Optional[Mapping[str, str]] = None
) -> tuple[Signature, ...]:
    """``directory``'s signature rows through the compiled copy."""
    return load_compiled_all(directory, env).signatures


@functools.lru_cache(maxsize=4)
def _load(directory: Optional[str]) -> Catalogue:
    return load_compiled_all(bundled_dir() if directory is None else Path(directory))


def load_catalogue(directory: Optional[str] = None) -> tuple[Signature, ...]:
    """The signature rows of ``directory`` (default: the bundled catalogue), once per process."""
    return _load(directory).signatures


class FactPatterns(dict[str, re.Pattern[str]]):
    """The compiled fact patterns by id; an id no row has is a clear error."""

    def __missing__(self, key: str) -> re.Pattern[str]:
        raise KeyError(f"no [[{FACT_TABLE}]] row of signatures/{FACTS} has the id {key!r}")


@functools.lru_cache(maxsize=4)
def fact_patterns(directory: Optional[str] = None) -> FactPatterns:
    """The fact patterns of ``directory`` (default: the bundled catalogue) by id, once
    per process (read with the signature rows, through the same compiled copy)."""
    return FactPatterns((f.id, f.pattern) for f in _load(directory).facts)


def fact_pattern(fid: str) -> re.Pattern[str]:
    """The compiled pattern of the bundled fact row ``fid`` (KeyError naming it when
    no row has it)."""
    return fact_patterns()[fid]
