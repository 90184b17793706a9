"""Reading and writing snapshot files, and redacting them for sharing."""

from __future__ import annotations

import getpass
import json
import os
from typing import Any, Optional

from envcheck.errors import InputError
from envcheck.inputs import LIMITS, parse_json
from envcheck.model._fields import SchemaError
from envcheck.model.snapshot import Snapshot
from envcheck.textfile import read_text_file


def parse_snapshot_text(text: str, path: str = "<snapshot>") -> Snapshot:
    """Parse snapshot JSON text; errors name the file, line or JSON path."""
    data: Any = parse_json(text, path)
    try:
        return Snapshot.from_json(data)
    except SchemaError as exc:
        raise InputError(path, None, exc.message) from None


def read_snapshot(path: str) -> Snapshot:
    """Load a snapshot file (``-`` for stdin)."""
    return parse_snapshot_text(read_text_file(path, "snapshot file", LIMITS["snapshot"]), path)


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
