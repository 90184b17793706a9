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
from typing import Optional

import click

from envcheck import __version__
from envcheck.commands._common import Obj
from envcheck.errors import EnvcheckError, ExitCode

EXIT_CODES_HELP = """\b
Exit codes:
  0    nothing wrong found
  1    problems found (doctor errors, check problems, unsatisfiable plan)
  2    usage error, unreadable input or internal failure
  130  interrupted
"""


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


def _register() -> None:
    from envcheck.commands import check, detect, doctor, explain
    from envcheck.commands import env as env_command
    from envcheck.commands import install as install_command
    from envcheck.commands import matrix as matrix_command
    from envcheck.commands import plan as plan_command

    cli.add_command(check.check)
    cli.add_command(detect.detect)
    cli.add_command(doctor.doctor)
    cli.add_command(explain.explain)
    cli.add_command(plan_command.plan)
    cli.add_command(env_command.env)
    cli.add_command(install_command.install)
    cli.add_command(matrix_command.matrix)


_register()


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
