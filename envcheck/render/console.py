"""The one place rich consoles are made.

Markup and highlighting are off: package extras such as ``tensorflow[and-cuda]``
look like markup tags to rich and would silently vanish from a pip command, and
the highlighter splits ``535.104.05`` into separately coloured numbers.
rich itself turns colour off when ``NO_COLOR`` is set, ``TERM=dumb``, or the
stream is not a terminal.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from rich.console import Console


def make_console(color: Optional[bool] = None, stderr: bool = False) -> Console:
    """A rich Console for stdout (results) or stderr (progress and errors).

    ``color``: True forces colour, False disables it, None decides from the
    terminal and ``NO_COLOR``.
    """
    import os

    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    width = None
    if not os.environ.get("COLUMNS") and not _isatty(stream):
        # Piped or redirected: rich would assume 80 columns and wrap every table
        # and command; a log or a pasted report reads better unwrapped.
        width = 160
    return Console(
        width=width,
        file=stream,
        markup=False,
        highlight=False,
        emoji=False,
        force_terminal=True if color else None,
        no_color=True if color is False else None,
        soft_wrap=False,
    )


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False
