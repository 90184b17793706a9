"""Exit codes and the small error hierarchy every command shares."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Optional, Union


@enum.unique
class ExitCode(enum.IntEnum):
    """Process exit status of every envcheck command (documented in the README)."""

    OK = 0
    """Nothing wrong was found."""
    PROBLEMS = 1
    """Findings of error severity, check problems, or an unsatisfiable plan."""
    ERROR = 2
    """Usage error, unreadable input, or an internal failure."""
    INTERRUPTED = 130
    """Interrupted with Ctrl-C."""


MAX_QUOTED = 200
"""Most characters of user text a one-line message quotes (issue 26 item 8)."""


def clip(text: object, limit: int = MAX_QUOTED) -> str:
    """``text`` as a message quotes it: at most ``limit`` characters, the cut said."""
    shown = str(text)
    if len(shown) <= limit:
        return shown
    return f"{shown[:limit]}... ({len(shown) - limit} more characters)"


def clip_repr(text: object, limit: int = MAX_QUOTED) -> str:
    """``repr`` of :func:`clip` (a quoted value in a message)."""
    return repr(clip(text, limit)) if len(str(text)) > limit else repr(text)


class EnvcheckError(Exception):
    """An error the user can act on; printed as one line, exit code 2."""


class InputError(EnvcheckError):
    """A file or value given to envcheck is unreadable or malformed.

    Renders as ``path:line: message`` (``path: message`` when the line is unknown).
    """

    def __init__(self, path: Optional[Union[str, Path]], line: Optional[int], message: str) -> None:
        self.path = None if path is None else clip(path, 4 * MAX_QUOTED)
        self.line = line
        self.message = clip(message, 3 * MAX_QUOTED)
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"
