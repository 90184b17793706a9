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


class EnvcheckError(Exception):
    """An error the user can act on; printed as one line, exit code 2."""


class InputError(EnvcheckError):
    """A file or value given to envcheck is unreadable or malformed.

    Renders as ``path:line: message`` (``path: message`` when the line is unknown).
    """

    def __init__(self, path: Optional[Union[str, Path]], line: Optional[int], message: str) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"
