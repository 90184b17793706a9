"""Quote a command for the shell of the target it will run on (pure).

Every command envcheck prints is built as an argument list and turned into text
here, once, by the target's OS: POSIX shells (``shlex.join`` rules) for Linux,
WSL and macOS; cmd.exe and PowerShell for native Windows. A POSIX single quote
means nothing to cmd.exe (``'cudnn>=7.4,<8'`` is cut at ``>`` into a redirection)
and PowerShell reads an unquoted ``,`` as an array and ``<`` as an operator, so a
Windows argument with any such character goes in double quotes, which both
shells take as one argument. Inside them a ``"`` is escaped the way the Microsoft
C runtime (and ``subprocess.list2cmdline``) reads it back.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from typing import Optional

WINDOWS = "windows"

# Characters neither cmd.exe nor PowerShell treats specially in a bare word (not "@",
# which starts a PowerShell splat).
_WINDOWS_SAFE = re.compile(r"[A-Za-z0-9_\-.=/\\:+]+")


def is_windows(os_name: Optional[str]) -> bool:
    """Whether commands for a target of this OS run in cmd.exe / PowerShell (WSL is Linux)."""
    return os_name == WINDOWS


def quote_arg(arg: str, os_name: Optional[str]) -> str:
    """One argument quoted for the target's shell (POSIX unless the OS is Windows)."""
    if not is_windows(os_name):
        return shlex.quote(arg)
    if arg and _WINDOWS_SAFE.fullmatch(arg):
        return arg
    out = []
    slashes = 0
    for ch in arg:
        if ch == "\\":
            slashes += 1
            continue
        if ch == '"':
            out.append("\\" * (2 * slashes + 1) + '"')
        else:
            out.append("\\" * slashes + ch)
        slashes = 0
    out.append("\\" * (2 * slashes))
    return '"' + "".join(out) + '"'


def join_argv(argv: Iterable[str], os_name: Optional[str]) -> str:
    """A command line for the target's shell."""
    return " ".join(quote_arg(a, os_name) for a in argv)
