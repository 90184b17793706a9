"""The console-script entry point: the cheapest possible start.

``envcheck --version`` is answered here before click (or anything else, not
even ``typing``) is imported; a plain ``detect --json`` or ``doctor --json`` (no
terminal to show a spinner on) and ``check`` given only paths (the pre-commit
hook) run without click; Ctrl-C or a closed pipe while the CLI is still
being imported end the process with the documented exit code instead of a
traceback, and output streams never fail on a character they cannot encode.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Callable, Optional

INTERRUPTED = 130

_script = False
"""True when ``run()`` called ``main()``: the process ends when it returns."""
_fast_path = False
"""True once a click-free JSON path ran (nothing is left to finalise after it)."""


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) == 1 and args[0] in ("--version", "-V"):
        from envcheck import __version__

        sys.stdout.write(f"envcheck, version {__version__}\n")
        sys.stdout.flush()
        return 0
    _tolerate_encoding()
    try:
        if args == ["detect", "--json"] and not _isatty(sys.stderr):
            code = _without_gc(_detect_json)
        elif args == ["doctor", "--json"] and not _isatty(sys.stderr):
            code = _without_gc(_doctor_json)
        elif args[:1] == ["check"] and not any(a.startswith("-") for a in args[1:]):
            code = _without_gc(lambda: _check(args[1:]))
        else:
            from envcheck.cli import main as cli_main

            code = cli_main(args)
        sys.stdout.flush()
    except KeyboardInterrupt:
        # Ctrl-C before the CLI could install its own handling (during imports).
        sys.stderr.write("envcheck: interrupted\n")
        return INTERRUPTED
    except BrokenPipeError:
        # `envcheck doctor | head -1`: the reader left; that is not our error.
        _silence_stdout()
        return 0
    if getattr(sys.stdout, "closed", False) is False and _stdout_broken():
        _silence_stdout()
    return code


def _detect_json() -> int:
    """``envcheck detect --json`` with no other option and no terminal for a
    progress spinner: the CLI's code path minus click's import (a third of
    this command's start-up). Same detection, same JSON; detection records
    its problems in the snapshot and never raises."""
    from envcheck.detect import detect
    from envcheck.snapshot_io import snapshot_to_text

    try:
        text = snapshot_to_text(detect())
    except Exception as exc:
        if _debug():
            raise
        return _failed(exc)
    return _write(text, 0)


def _doctor_json() -> int:
    """``envcheck doctor --json`` with no other option and no terminal: what
    ``envcheck.commands.doctor`` does for these arguments, minus click (about
    40 % of this command's time). Same report, same exit code (1 on errors)."""
    import json
    from pathlib import Path

    from envcheck.detect import detect
    from envcheck.doctor import diagnose, ignore_findings
    from envcheck.doctor_config import read_doctor_ignores
    from envcheck.matrix import load_matrix

    try:
        ignore = read_doctor_ignores(Path.cwd())
        snapshot = detect()
        report = ignore_findings(diagnose(snapshot, load_matrix()), ignore)
        text = json.dumps(report.to_json(), indent=2)
    except Exception as exc:
        if _debug():
            raise
        return _failed(exc)
    return _write(text + "\n", 1 if report.failed() else 0)


def _check(paths: list[str]) -> int:
    """``envcheck check [PATH...]`` with no option (how pre-commit runs the hook):
    what ``envcheck.commands.check`` does for these arguments, minus click. Same
    report, same exit code."""
    from pathlib import Path

    from envcheck.check.run import run_check
    from envcheck.compat.target import Target

    try:
        text, code = run_check(paths, Path.cwd(), "text", (), (), lambda matrix: Target())
    except Exception as exc:
        if _debug():
            raise
        return _failed(exc)
    return _write(text, code)


def _write(text: str, code: int) -> int:
    """Print ``text`` and return ``code``; a full disk or other write error is
    the CLI's one-line internal error (a closed pipe is left to ``main``)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        if _debug():
            raise
        return _failed(exc)
    return code


def _without_gc(command: Callable[[], int]) -> int:
    """Run ``command`` with the cyclic garbage collector off. These commands
    import ~60 modules, print and end within a fraction of a second: the
    collector's ~20 passes over the new objects cost ~10 % of that and find next
    to nothing to free. Called in process (tests), the collector is turned back
    on afterwards; as the ``envcheck`` script it stays off until the exit."""
    import gc

    global _fast_path
    _fast_path = True
    collecting = gc.isenabled()
    gc.disable()
    try:
        return command()
    finally:
        if collecting and not _script:
            gc.enable()


def _debug() -> bool:
    import os

    return os.environ.get("ENVCHECK_DEBUG", "") not in ("", "0")


def _failed(exc: Exception) -> int:
    """The one line and exit code 2 of the CLI's handler (``envcheck.cli.main``)."""
    from envcheck.errors import EnvcheckError

    if isinstance(exc, EnvcheckError):
        sys.stderr.write(f"envcheck: error: {exc}\n")
    else:
        sys.stderr.write(
            f"envcheck: internal error: {type(exc).__name__}: {exc}"
            " (run with --debug for the traceback)\n"
        )
    return 2


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


def _tolerate_encoding() -> None:
    """Never crash on a character the output encoding lacks (PYTHONIOENCODING=ascii,
    a legacy Windows console): such characters print as "?"."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if getattr(stream, "errors", "strict") == "strict":
                stream.reconfigure(errors="replace")  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            pass


def _stdout_broken() -> bool:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return True
    except (OSError, ValueError):
        return False
    return False


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail
    again on the closed pipe (and print "Exception ignored ...")."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def run() -> None:
    """``python -m envcheck`` and the ``envcheck`` script."""
    global _script
    _script = True
    code = main()
    if _fast_path:
        # detect/doctor --json and check have written everything and hold nothing that
        # needs finalising (no atexit handler, no open file, no child left):
        # skip the interpreter's teardown of ~60 modules (~10 % of the run).
        import contextlib
        import os

        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)
    raise SystemExit(code)
