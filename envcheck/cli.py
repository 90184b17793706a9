"""The command line: parse options, build inputs, call one function, render.

This module and ``cli_options`` are the only importers of click. Heavy modules
(rich, the matrix, detection) are imported inside the commands.

Exit codes (``envcheck.errors.ExitCode``):
  0  OK: nothing wrong found
  1  PROBLEMS: error findings (warnings too with --strict), check problems,
     an unsatisfiable plan
  2  ERROR: usage error, unreadable input, internal failure
  130 INTERRUPTED: Ctrl-C
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Optional

import click

from envcheck import __version__
from envcheck.cli_options import json_option, python_option, redact_option
from envcheck.errors import EnvcheckError, ExitCode, InputError

if TYPE_CHECKING:
    from envcheck.model.snapshot import Snapshot

EXIT_CODES_HELP = """\b
Exit codes:
  0    nothing wrong found
  1    problems found (doctor errors, check problems, unsatisfiable plan)
  2    usage error, unreadable input or internal failure
  130  interrupted
"""


class Obj:
    """Options of the top-level group, passed to every command."""

    def __init__(self, color: Optional[bool], debug: bool) -> None:
        self.color = color
        self.debug = debug


@click.group(
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=EXIT_CODES_HELP,
)
@click.version_option(__version__, "-V", "--version", prog_name="envcheck")
@click.option(
    "--color/--no-color",
    default=None,
    help="Force colour on or off (default: auto; NO_COLOR is honoured).",
)
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
@click.pass_context
def cli(ctx: click.Context, color: Optional[bool], debug: bool) -> None:
    """Diagnose and fix the GPU software stack of this machine."""
    ctx.obj = Obj(color=color, debug=debug)


def _progress(obj: Obj, message: str) -> Any:
    """A status spinner on stderr when it is a terminal; a no-op otherwise."""
    from envcheck.render.console import make_console

    console = make_console(obj.color, stderr=True)
    if not console.is_terminal:
        import contextlib

        return contextlib.nullcontext()
    return console.status(message)


def _detect(obj: Obj, python: Optional[str]) -> Snapshot:
    from envcheck.detect import detect
    from envcheck.detect.system import real_system

    with _progress(obj, "Detecting the GPU stack..."):
        return detect(real_system(python_executable=python))


def _write_output(text: str, output: Optional[str], force: bool = True) -> None:
    if output is None or output == "-":
        click.echo(text, nl=False)
        return
    from pathlib import Path

    path = Path(output)
    if path.exists() and not force:
        raise InputError(output, None, "exists; pass --force to overwrite it")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(output, None, exc.strerror or str(exc)) from None


@cli.command()
@json_option
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    help="Write the snapshot JSON to FILE (implies --json for the file).",
)
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@python_option
@redact_option
@click.pass_obj
def detect(
    obj: Obj,
    as_json: bool,
    output: Optional[str],
    force: bool,
    python: Optional[str],
    redact: bool,
) -> int:
    """Read the installed GPU stack into a snapshot (tables, or JSON)."""
    from envcheck.snapshot_io import redact_snapshot, snapshot_to_text

    snapshot = _detect(obj, python)
    if redact:
        snapshot = redact_snapshot(snapshot)
    if output is not None:
        _write_output(snapshot_to_text(snapshot), output, force=force)
        if not as_json:
            click.echo(f"snapshot written to {output}", err=True)
            return ExitCode.OK
    if as_json:
        click.echo(snapshot_to_text(snapshot), nl=False)
        return ExitCode.OK
    from envcheck.render.console import make_console
    from envcheck.render.text import render_snapshot

    render_snapshot(snapshot, make_console(obj.color))
    return ExitCode.OK


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the CLI and return its exit code; errors become one line on stderr."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or os.environ.get("ENVCHECK_DEBUG", "") not in ("", "0")
    try:
        rv = cli.main(args=args, prog_name="envcheck", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("envcheck: interrupted", err=True)
        return ExitCode.INTERRUPTED
    except KeyboardInterrupt:
        click.echo("envcheck: interrupted", err=True)
        return ExitCode.INTERRUPTED
    except click.ClickException as exc:
        exc.show()
        return ExitCode.ERROR
    except BrokenPipeError:
        # `envcheck ... | head`: the reader went away; not an error of ours.
        sys.stderr.close()
        return ExitCode.OK
    except EnvcheckError as exc:
        if debug:
            raise
        click.echo(f"envcheck: error: {exc}", err=True)
        return ExitCode.ERROR
    except Exception as exc:
        if debug:
            raise
        click.echo(
            f"envcheck: internal error: {type(exc).__name__}: {exc}"
            " (run with --debug for the traceback)",
            err=True,
        )
        return ExitCode.ERROR
    if isinstance(rv, int):
        return int(rv)
    return ExitCode.OK
