"""`envcheck check`: report pinned GPU dependency combinations that cannot work."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import click

from envcheck.cli_options import json_option, target_options
from envcheck.commands._common import Obj
from envcheck.errors import ExitCode

if TYPE_CHECKING:
    from envcheck.matrix import Matrix


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(dir_okay=True))
@json_option
@click.option(
    "--output-format",
    "output_format",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default=None,
    help="text (default), json (same as --json), github (Actions annotations) or sarif.",
)
@click.option(
    "--select",
    "select",
    metavar="CODES",
    multiple=True,
    help="Report only these codes or prefixes (EC103, EC1, ALL); repeat or comma-separate.",
)
@click.option(
    "--ignore",
    "ignore",
    metavar="CODES",
    multiple=True,
    help="Do not report these codes or prefixes; added to [tool.envcheck] ignore.",
)
@click.option(
    "--explain",
    "explain_code",
    metavar="CODE",
    default=None,
    help="Print what a code (EC103) means and how to silence it, then exit.",
)
@target_options
@click.pass_obj
def check(
    obj: Obj,
    paths: tuple[str, ...],
    as_json: bool,
    output_format: Optional[str],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    explain_code: Optional[str],
    driver: Optional[str],
    gpus: tuple[str, ...],
    os_name: Optional[str],
    arch: Optional[str],
    python_version: Optional[str],
) -> int:
    """Check dependency files for GPU pins that cannot work together.

    With no PATH, finds every project in the current directory tree (each
    directory with *requirements*.txt or .in, requirements/, environment*.yml,
    conda.yml, pyproject.toml, pixi.toml or lockfiles) and checks each, naming
    the files it read; finding none is an EC204 warning. A directory PATH is searched the same way; a
    file PATH checks the whole project that file belongs to (pre-commit passes
    the changed files). Never modifies files;
    works offline with the bundled matrix. [tool.envcheck] in pyproject.toml
    declares the machines the project must serve (min-driver, gpus, platforms,
    python); --driver/--gpu/--os/--arch/--python-version override it.

    Silence a line with a `# envcheck: ignore[EC201]` comment (bare `# envcheck:
    ignore` silences every code there); choose codes with --select/--ignore or
    `select`/`ignore` in [tool.envcheck].

    Exit status: 0 clean (warnings allowed), 1 problems, 2 unreadable input.
    """
    from envcheck.check.render import explain

    if explain_code is not None:
        try:
            click.echo(explain(explain_code), nl=False)
        except KeyError:
            raise click.UsageError(f"unknown code {explain_code[:20]!r}") from None
        return ExitCode.OK
    if as_json and output_format not in (None, "json"):
        raise click.UsageError(f"--json conflicts with --output-format {output_format}")
    fmt = "json" if as_json else (output_format or "text")
    try:
        selected = _codes(select, "--select")
        ignored = _codes(ignore, "--ignore")
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    from envcheck.check.run import run_check
    from envcheck.compat.target import Target, target_from_flags

    def target_of(matrix: Matrix) -> Target:
        if not (driver or gpus or os_name or arch or python_version):
            return Target()
        try:
            return target_from_flags(
                matrix,
                driver=driver,
                gpus=gpus,
                os_name=os_name,
                arch=arch,
                python=python_version,
                base=Target(),
            )
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None

    text, code = run_check(paths, Path.cwd(), fmt, selected, ignored, target_of)
    click.echo(text, nl=False)
    return code


def _codes(values: tuple[str, ...], what: str) -> tuple[str, ...]:
    from envcheck.check.parse_pyproject import parse_codes

    return tuple(c for value in values for c in parse_codes(value, what))
