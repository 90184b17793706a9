"""Helpers shared by the command modules (the CLI edge: detection, output)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import click

if TYPE_CHECKING:
    from envcheck.model.snapshot import Snapshot


class Obj:
    """Options of the top-level group, passed to every command."""

    def __init__(self, color: Optional[bool], debug: bool) -> None:
        self.color = color
        self.debug = debug


def progress(obj: Obj, message: str) -> Any:
    """A status spinner on stderr when it is a terminal; a no-op otherwise.

    The terminal test comes first so piped and --json runs never import rich.
    """
    import contextlib
    import sys

    try:
        interactive = sys.stderr.isatty()
    except (AttributeError, ValueError):
        interactive = False
    if not interactive and not obj.color:
        return contextlib.nullcontext()
    from envcheck.render.console import make_console

    console = make_console(obj.color, stderr=True)
    if not console.is_terminal:
        return contextlib.nullcontext()
    return console.status(message)


def detect_snapshot(obj: Obj, python: Optional[str]) -> Snapshot:
    from envcheck.detect import detect
    from envcheck.detect.system import real_system

    if python is not None:
        python = check_interpreter(python)
    with progress(obj, "Detecting the GPU stack..."):
        return detect(real_system(python_executable=python))


def check_interpreter(python: str) -> str:
    """``--python``'s value as a runnable file; one-line EnvcheckError otherwise
    (a missing interpreter is an input error, not an empty environment)."""
    import os
    import shutil
    from pathlib import Path

    from envcheck.errors import EnvcheckError

    found = python if os.sep in python or "/" in python else shutil.which(python)
    if found is None or not Path(found).is_file():
        raise EnvcheckError(f"--python {python}: no such interpreter")
    if not os.access(found, os.X_OK):
        raise EnvcheckError(f"--python {python}: not executable")
    return found


# Runs under Python 2 and 3 alike (no -I): the version of any interpreter given.
_VERSION_PROBE = "import sys; sys.stdout.write('%d.%d' % tuple(sys.version_info[:2]))"


def interpreter_version(python: str) -> str:
    """``X.Y`` of the interpreter ``--python`` names (run without a shell, bounded in
    time); a one-line EnvcheckError when it is missing or does not answer."""
    import re

    from envcheck.detect.system import run_command
    from envcheck.errors import EnvcheckError

    exe = check_interpreter(python)
    result = run_command((exe, "-E", "-s", "-c", _VERSION_PROBE), timeout=20.0)
    version = result.stdout.strip() if result.ok else ""
    if not re.match(r"^\d{1,2}\.\d{1,3}$", version):
        why = result.describe_failure(exe) if result.returncode is None else "no version printed"
        raise EnvcheckError(f"--python {python}: cannot read its Python version ({why})")
    return version


def target_python(python_path: Optional[str], python_version: Optional[str]) -> Optional[str]:
    """The Python version to plan for: ``--python-version``, else the version of the
    ``--python`` interpreter; both given must agree."""
    from envcheck.errors import EnvcheckError

    if python_path is None:
        return python_version
    found = interpreter_version(python_path)
    if python_version is not None and python_version != found:
        raise EnvcheckError(
            f"--python {python_path} is Python {found}, --python-version says {python_version}"
        )
    return found


def write_output(text: str, output: Optional[str], force: bool = False) -> None:
    """``text`` to stdout (None or ``-``) or to a file: atomically, never through
    a symlink, an existing file only with ``force``."""
    if output is None or output == "-":
        click.echo(text, nl=False)
        return
    from envcheck.outfile import write_text_atomic

    write_text_atomic(output, text, force=force)


def load_or_detect(obj: Obj, snapshot_file: Optional[str], python: Optional[str]) -> Snapshot:
    """The snapshot a command works on: a file when given, else this machine."""
    if snapshot_file is not None:
        if python is not None:
            raise click.UsageError("--snapshot and --python cannot be used together")
        from envcheck.snapshot_io import read_snapshot

        return read_snapshot(snapshot_file)
    return detect_snapshot(obj, python)
