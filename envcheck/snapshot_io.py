"""Reading and writing snapshot files, and redacting them for sharing."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from envcheck.errors import InputError
from envcheck.inputs import LIMITS, parse_json
from envcheck.model._fields import SchemaError
from envcheck.model.snapshot import Snapshot
from envcheck.textfile import read_text_file

if TYPE_CHECKING:
    from envcheck.redact import Policy


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


def redact_snapshot(
    snapshot: Snapshot,
    home: Optional[str] = None,
    user: Optional[str] = None,
    policy: Optional[Policy] = None,
) -> Snapshot:
    """The snapshot with the ``--redact`` policy applied (see envcheck.redact):
    secrets in env values, host names, home directories and user names, whether
    the snapshot comes from this machine or another one."""
    from envcheck.redact import local_policy, redact_snapshot_json

    if policy is None:
        policy = local_policy(home=home, user=user)
    return Snapshot.from_json(redact_snapshot_json(snapshot.to_json(), policy))
