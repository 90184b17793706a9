"""The one place rich consoles are made.

Markup and highlighting are off: package extras such as ``tensorflow[and-cuda]``
look like markup tags to rich and would silently vanish from a pip command, and
the highlighter splits ``535.104.05`` into separately coloured numbers.
rich itself turns colour off when ``NO_COLOR`` is set, ``TERM=dumb``, or the
stream is not a terminal.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Optional

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
    console = Console(
        width=width,
        file=stream,
        markup=False,
        highlight=False,
        emoji=False,
        force_terminal=True if color else None,
        no_color=True if color is False else None,
        soft_wrap=False,
    )
    # rich answers a closed pipe with SystemExit(1); the CLI treats it as the
    # reader leaving (`envcheck matrix show | head`), which is no failure.
    console.on_broken_pipe = _broken_pipe  # type: ignore[method-assign]
    return console


def _broken_pipe() -> None:
    raise BrokenPipeError(32, "Broken pipe")


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


def output_console(color: Optional[bool] = None) -> Any:
    """The console for a command's results on stdout.

    A terminal (or ``--color``/``FORCE_COLOR``) gets a rich Console; a pipe, a
    file or a CI log gets a ``PlainConsole``: the same content as aligned plain
    text, without importing rich at all.
    """
    import os

    if color or (color is None and os.environ.get("FORCE_COLOR")) or _isatty(sys.stdout):
        return make_console(color)
    from envcheck.render.blocks import PlainConsole

    return PlainConsole(sys.stdout)
