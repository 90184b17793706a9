"""Reading and writing snapshot files, and redacting them for sharing."""

from __future__ import annotations

import getpass
import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

from envcheck.errors import InputError
from envcheck.model._fields import SchemaError
from envcheck.model.snapshot import Snapshot

MAX_SNAPSHOT_BYTES = 16 * 1024 * 1024


def read_text_file(path: str, what: str = "file", limit: int = MAX_SNAPSHOT_BYTES) -> str:
    """Read a UTF-8 text file (``-`` is stdin); every failure is an InputError."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with Path(path).open("rb") as fh:
                data = fh.read(limit + 1)
    except FileNotFoundError:
        raise InputError(path, None, f"{what} not found") from None
    except IsADirectoryError:
        raise InputError(path, None, f"{what} is a directory") from None
    except PermissionError:
        raise InputError(path, None, "permission denied") from None
    except OSError as exc:
        raise InputError(path, None, exc.strerror or str(exc)) from None
    if len(data) > limit:
        raise InputError(path, None, f"{what} is larger than {limit // 1024 // 1024} MiB")
    if b"\x00" in data:
        raise InputError(path, None, f"{what} is binary, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(path, line, "not valid UTF-8 text") from None


def parse_snapshot_text(text: str, path: str = "<snapshot>") -> Snapshot:
    """Parse snapshot JSON text; errors name the file, line or JSON path."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(path, None, "invalid JSON: nested too deeply") from None
    try:
        return Snapshot.from_json(data)
    except SchemaError as exc:
        raise InputError(path, None, exc.message) from None


def read_snapshot(path: str) -> Snapshot:
    """Load a snapshot file (``-`` for stdin)."""
    return parse_snapshot_text(read_text_file(path, "snapshot file"), path)


def snapshot_to_text(snapshot: Snapshot) -> str:
    return json.dumps(snapshot.to_json(), indent=2) + "\n"


def _replace_strings(value: Any, pairs: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for old, new in pairs:
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [_replace_strings(v, pairs) for v in value]
    if isinstance(value, dict):
        return {k: _replace_strings(v, pairs) for k, v in value.items()}
    return value


def redact_snapshot(
    snapshot: Snapshot, home: Optional[str] = None, user: Optional[str] = None
) -> Snapshot:
    """Replace the home directory with ``~`` and the user name with ``<user>``."""
    if home is None:
        home = os.path.expanduser("~")  # noqa: PTH111 - a string is wanted
    if user is None:
        try:
            user = getpass.getuser()
        except Exception:  # noqa: BLE001 - no user name is fine
            user = None
    pairs: list[tuple[str, str]] = []
    if home and home not in ("/", "~"):
        pairs.append((home.rstrip("/\\"), "~"))
    # A short user name like "a" would mangle every string; only redact real names.
    if user and len(user) >= 3 and user not in ("root", "user"):
        pairs.append((user, "<user>"))
    if not pairs:
        return snapshot
    return Snapshot.from_json(_replace_strings(snapshot.to_json(), pairs))
