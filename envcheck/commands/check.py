"""`envcheck check`: report pinned GPU dependency combinations that cannot work."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from envcheck.cli_options import json_option, target_options
from envcheck.commands._common import Obj
from envcheck.errors import ExitCode


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
    directory with requirements*.txt, environment*.yml, pyproject.toml, pixi.toml
    or lockfiles) and checks each. A directory PATH is searched the same way; a
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
    from envcheck.check.check import check_pins
    from envcheck.check.discover import read_projects
    from envcheck.check.render import render
    from envcheck.compat.target import Target, target_from_flags
    from envcheck.matrix import load_matrix

    cwd = Path.cwd()
    project = read_projects(_project_groups(paths, cwd), cwd)
    # The compiled matrix cache makes the whole matrix cheap (~8 ms) to load.
    matrix = load_matrix()
    target = Target()
    if driver or gpus or os_name or arch or python_version:
        try:
            target = target_from_flags(
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
    report = check_pins(project, target, matrix, selected, ignored)
    click.echo(render(report, fmt), nl=False)
    if report.unreadable:
        return ExitCode.ERROR
    if report.errors:
        return ExitCode.PROBLEMS
    return ExitCode.OK


def _project_groups(paths: tuple[str, ...], cwd: Path) -> list[list[str | Path]]:
    """The dependency files to read, one list per project, in a stable order."""
    from envcheck.check.discover import discover, discover_projects, project_dir_of

    groups: dict[Path, list[str | Path]] = {}
    if not paths:
        for directory, found in discover_projects(cwd):
            groups.setdefault(directory, []).extend(found)
    for given in paths:
        path = Path(given)
        if not path.is_absolute():
            path = cwd / path
        if path.is_dir():
            for directory, found in discover_projects(path):
                groups.setdefault(directory, []).extend(found)
            continue
        directory = project_dir_of(path)
        files: list[str | Path] = list(discover(directory))
        # A file check would not find by itself (an include, a differently named
        # file) is still checked: it was asked for.
        if path.resolve() not in {Path(f).resolve() for f in files}:
            files.append(path)
        groups.setdefault(directory, []).extend(files)
    out: list[list[str | Path]] = []
    for directory in sorted(groups):
        seen: set[Path] = set()
        unique: list[str | Path] = []
        for f in groups[directory]:
            key = Path(f).resolve()
            if key not in seen:
                seen.add(key)
                unique.append(f)
        out.append(unique)
    return out


def _codes(values: tuple[str, ...], what: str) -> tuple[str, ...]:
    from envcheck.check.parse_pyproject import parse_codes

    return tuple(c for value in values for c in parse_codes(value, what))
