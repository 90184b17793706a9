"""The console-script entry point: the cheapest possible start.

``envcheck --version`` is answered here before click (or anything else) is
imported, and Ctrl-C or a closed pipe while the CLI is still being imported end
the process with the documented exit code instead of a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Optional

INTERRUPTED = 130


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) == 1 and args[0] in ("--version", "-V"):
        from envcheck import __version__

        sys.stdout.write(f"envcheck, version {__version__}\n")
        sys.stdout.flush()
        return 0
    try:
        from envcheck.cli import main as cli_main

        return cli_main(args)
    except KeyboardInterrupt:
        # Ctrl-C before the CLI could install its own handling (during imports).
        sys.stderr.write("envcheck: interrupted\n")
        return INTERRUPTED


def run() -> None:
    """``python -m envcheck`` and the ``envcheck`` script."""
    raise SystemExit(main())
