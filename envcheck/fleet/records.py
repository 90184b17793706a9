"""Fleet records: one JSON line per node, and reading them back from files.

A record is ``{"schema": "envcheck.fleet/1", "node": ..., "job_id": ...,
"status": "ok" | "unreachable" | "failed", "snapshot": {...}, "error": ...,
"output": ...}``. ``node`` comes right after ``schema`` so that a line cut short
still names its node. Bare snapshots (``envcheck detect --json -o``) are read
too: a single-snapshot file is named after the file, a line of a JSON-lines file
after its file and line.

Reading never raises on a node's bad answer: a truncated line, a newer schema,
a traceback printed instead of JSON become an ``Entry`` with a problem, so one
broken node never hides the others.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Optional

from envcheck.errors import MAX_QUOTED, clip, clip_repr

FLEET_SCHEMA = "envcheck.fleet/1"
FLEET_PREFIX = "envcheck.fleet/"
FLEET_VERSION = 1
SNAPSHOT_PREFIX = "envcheck.snapshot/"

OK = "ok"
UNREACHABLE = "unreachable"
FAILED = "failed"
"""The node answered, but not with a snapshot (exit status, traceback)."""
UNREADABLE = "unreadable"
"""The answer was there but could not be read (truncated, newer schema)."""

STATUSES = (OK, UNREACHABLE, FAILED)
OUTPUT_TAIL = 2000
"""Characters of a failed node's output kept in its record."""
JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
DIR_SUFFIXES = (".json", ".jsonl", ".ndjson", ".txt", ".log", ".out")

MAX_NODE = MAX_QUOTED
"""Longest node name, job id or file stem kept (a 40 MB name is cut, not echoed)."""

_NODE_RE = re.compile(r'"node"\s*:\s*"((?:[^"\\]|\\.){1,256})"')
_JOB_RE = re.compile(r'"job_id"\s*:\s*"((?:[^"\\]|\\.){1,64})"')


@dataclass(frozen=True)
class Entry:
    """One node's answer as read, before judgement."""

    node: str
    where: str
    """``file:line`` the answer was read from."""
    status: str
    """ok, unreachable, failed or unreadable."""
    snapshot: Optional[dict[str, Any]] = None
    """The snapshot's JSON (status ok only); parsed later, once per distinct one."""
    job_id: Optional[str] = None
    error: Optional[str] = None
    created_at: Optional[str] = None


def make_record(
    node: str,
    *,
    snapshot: Optional[dict[str, Any]] = None,
    status: Optional[str] = None,
    job_id: Optional[str] = None,
    error: Optional[str] = None,
    output: Optional[str] = None,
    collector: Optional[str] = None,
) -> dict[str, Any]:
    """A fleet record (the collectors' output line), keys in the documented order."""
    rec: dict[str, Any] = {"schema": FLEET_SCHEMA, "node": node}
    if job_id is not None:
        rec["job_id"] = job_id
    rec["status"] = status or (OK if snapshot is not None else FAILED)
    if collector is not None:
        rec["collector"] = collector
    if error is not None:
        rec["error"] = error
    if output:
        rec["output"] = output[-OUTPUT_TAIL:]
    if snapshot is not None:
        rec["snapshot"] = snapshot
    return rec


def record_line(rec: dict[str, Any]) -> str:
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n"


def describe_garbage(text: str) -> str:
    """What a non-JSON answer looks like, in one line."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return "no output"
    if any(ln.startswith("Traceback (most recent call last)") for ln in lines):
        return f"printed a Python traceback instead of a snapshot: {lines[-1][:200]}"
    if lines[0].startswith("{"):
        return "output is not complete JSON (truncated?)"
    return f"printed text instead of a snapshot: {lines[-1][:200]}"


def entry_from_value(value: Any, node: str, where: str) -> Entry:
    """An Entry from one parsed JSON value: a fleet record or a bare snapshot."""
    if not isinstance(value, dict):
        return Entry(node, where, UNREADABLE, error="not a JSON object")
    schema = value.get("schema")
    if isinstance(schema, str) and schema.startswith(FLEET_PREFIX):
        return _entry_from_record(value, node, where, schema)
    if schema is None or (isinstance(schema, str) and schema.startswith(SNAPSHOT_PREFIX)):
        return _snapshot_entry(value, node, where, None)
    return Entry(
        node, where, UNREADABLE, error=f"not an envcheck snapshot (schema {clip_repr(schema, 60)})"
    )


def _entry_from_record(value: dict[str, Any], node: str, where: str, schema: str) -> Entry:
    got = value.get("node")
    if isinstance(got, str) and got.strip():
        node = clip(got.strip(), MAX_NODE)
    job = value.get("job_id")
    job_id = None if job is None else clip(job, MAX_NODE)
    version = schema[len(FLEET_PREFIX) :]
    # No int() of an unbounded digit run (Python refuses over 4 300 digits).
    if not version.isdigit() or len(version) > 6 or int(version) > FLEET_VERSION:
        return Entry(
            node,
            where,
            UNREADABLE,
            job_id=job_id,
            error=f"fleet record of a newer envcheck ({clip(schema, 60)}); upgrade envcheck",
        )
    status = value.get("status", OK)
    error = value.get("error")
    error = None if error is None else clip(error, 4 * MAX_NODE)
    if status == UNREACHABLE:
        return Entry(node, where, UNREACHABLE, job_id=job_id, error=error or "no answer")
    snapshot = value.get("snapshot")
    if status != OK or snapshot is None:
        why = error or "no snapshot"
        output = value.get("output")
        if isinstance(output, str) and output.strip():
            why = f"{why}; {describe_garbage(output)}"
        return Entry(node, where, FAILED, job_id=job_id, error=why)
    return _snapshot_entry(snapshot, node, where, job_id)


def _snapshot_entry(snapshot: Any, node: str, where: str, job_id: Optional[str]) -> Entry:
    if not isinstance(snapshot, dict):
        return Entry(node, where, UNREADABLE, job_id=job_id, error="snapshot is not a JSON object")
    created = snapshot.get("created_at")
    return Entry(
        node,
        where,
        OK,
        snapshot=snapshot,
        job_id=job_id,
        created_at=created if isinstance(created, str) else None,
    )


def _unreadable_line(text: str, node: str, where: str) -> Entry:
    m = _NODE_RE.search(text[:600])
    j = _JOB_RE.search(text[:600])
    if m:
        node = clip(_unescape(m.group(1)), MAX_NODE)
    return Entry(
        node,
        where,
        UNREADABLE,
        job_id=_unescape(j.group(1)) if j else None,
        error=describe_garbage(text),
    )


def _unescape(text: str) -> str:
    try:
        return str(json.loads(f'"{text}"'))
    except ValueError:
        return text


def _loads(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def read_json_lines(lines: Iterable[str], name: str) -> Iterator[Entry]:
    """Entries from JSON lines; a run of non-JSON lines (a traceback) is one entry."""
    garbage: list[str] = []
    span = [0, 0]  # first and last line of the current non-JSON run

    def flush() -> Iterator[Entry]:
        if garbage:
            where = f"{name}:{span[0]}" + (f"-{span[1]}" if span[1] > span[0] else "")
            yield _unreadable_line("\n".join(garbage), where, where)
            garbage.clear()

    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        where = f"{name}:{number}"
        if line.startswith("{"):
            ok, value = _loads(line)
            if ok:
                yield from flush()
                yield entry_from_value(value, where, where)
                continue
            if not garbage:
                yield _unreadable_line(line, where, where)
                continue
        if not garbage:
            span[0] = number
        span[1] = number
        garbage.append(line)
        if len(garbage) > 200:
            garbage.pop(1)  # keep the first and the last lines of a long traceback
    yield from flush()


def _is_json_lines(path: str, first: str) -> bool:
    if path.lower().endswith(JSON_LINES_SUFFIXES):
        return True
    first = first.strip()
    return first.startswith("{") and _loads(first)[0]


def read_file_entries(path: str) -> Iterator[Entry]:
    """The entries of one file: JSON lines, or a single (pretty-printed) document.

    Opened through the input gate (a FIFO or a device is refused, never read);
    a line longer than a snapshot may be is cut there and reads as unreadable.
    """
    from envcheck.inputs import LIMITS, decode_text, open_binary

    stem = clip(Path(path).stem or path, MAX_NODE)
    with open_binary(path, "fleet file") as raw:
        lines = _bounded_lines(raw, LIMITS["snapshot"])
        first = ""
        for first in lines:
            if first.strip():
                break
        raw.seek(0)
        if _is_json_lines(path, first):
            yield from read_json_lines(_bounded_lines(raw, LIMITS["snapshot"]), path)
            return
        data = raw.read(LIMITS["json"] + 1)
    if len(data) > LIMITS["json"]:
        yield Entry(stem, path, UNREADABLE, error="file is too large for one JSON document")
        return
    text = decode_text(data, path, "fleet file") if b"\x00" not in data else ""
    if not text.strip():
        return
    ok, value = _loads(text)
    if not ok:
        yield Entry(stem, path, UNREADABLE, error=describe_garbage(text))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield entry_from_value(item, f"{stem}[{i}]", f"{path}[{i}]")
    else:
        yield entry_from_value(value, stem, path)


def stdin_lines() -> Iterator[str]:
    """Standard input's lines, each cut like a file's."""
    import sys

    from envcheck.inputs import LIMITS

    return _bounded_lines(sys.stdin.buffer, LIMITS["snapshot"])


def _bounded_lines(raw: BinaryIO, limit: int) -> Iterator[str]:
    """Lines of ``raw`` as text, each cut at ``limit`` bytes (the rest of a longer
    line is skipped, not held in memory)."""
    while True:
        line = raw.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while True:
                rest = raw.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            line = line[:limit]
        yield line.decode("utf-8", errors="replace")


def input_files(path: str) -> list[str]:
    """The files a FILE|DIR argument names (a folder: its snapshot files, sorted).

    Raises InputError for a path that is missing or cannot be looked at (a name
    over the length limit)."""
    import stat

    from envcheck.errors import InputError
    from envcheck.inputs import is_regular_file, open_binary

    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise InputError(path, None, "not found") from None
    except (OSError, ValueError) as exc:
        raise InputError(
            path, None, getattr(exc, "strerror", None) or "not a usable path"
        ) from None
    if stat.S_ISDIR(mode):
        try:
            names = sorted(p.iterdir())
        except OSError as exc:
            raise InputError(path, None, exc.strerror or "cannot list the folder") from None
        return [
            str(f) for f in names if f.name.lower().endswith(DIR_SUFFIXES) and is_regular_file(f)
        ]
    open_binary(path, "fleet file").close()  # a FIFO or a device: one line, now
    return [path]
