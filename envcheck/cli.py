"""The command line: parse options, build inputs, call one function, render.

The command modules live in ``envcheck/commands/`` (one per command, as hatch
does) and load lazily; heavy modules (rich, the matrix, detection) are imported
inside the commands.

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


# Commands load on first use, so `envcheck --version` and each command import
# only what they need (click's documented lazy-group pattern).
COMMANDS = {
    "detect": "envcheck.commands.detect:detect",
    "doctor": "envcheck.commands.doctor:doctor",
    "explain": "envcheck.commands.explain:explain",
    "plan": "envcheck.commands.plan:plan",
    "env": "envcheck.commands.env:env",
    "install": "envcheck.commands.install:install",
    "check": "envcheck.commands.check:check",
    "matrix": "envcheck.commands.matrix:matrix",
    "fleet": "envcheck.commands.fleet:fleet",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        import importlib

        module, attr = target.split(":")
        command: click.Command = getattr(importlib.import_module(module), attr)
        return command


@click.group(
    cls=LazyGroup,
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
    except SystemExit:
        # click turns EPIPE into sys.exit(1) after wrapping the streams, even
        # outside standalone mode: a closed pipe is not a failure of ours.
        if type(sys.stdout).__name__ == "_PacifyFlushWrapper":
            return ExitCode.OK
        raise
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
