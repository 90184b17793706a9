"""`envcheck env`: write a conda environment.yml for a machine."""

from __future__ import annotations

from typing import Optional

import click

from envcheck.cli_options import (
    json_option,
    snapshot_option,
    target_options,
    target_python_option,
)
from envcheck.commands._common import Obj, target_python
from envcheck.errors import ExitCode

DEFAULT_REQUIREMENTS = ("torch",)
_NAME_RE = r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}"


def _check_name(value: str) -> str:
    """conda refuses '/', ':', '#' and spaces in names; YAML needs no newlines.
    Accept the plain characters only, so the name cannot change the file."""
    import re

    if not re.fullmatch(_NAME_RE, value):
        raise click.BadParameter(
            f"{value!r} is not an environment name (letters, digits, '.', '_', '-', '+')"
        )
    return value


@click.command()
@click.argument("requirements", nargs=-1)
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    default="environment.yml",
    show_default=True,
    help="Where to write the file ('-' for stdout).",
)
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@click.option(
    "--name",
    default="gpu",
    show_default=True,
    callback=lambda _ctx, _param, value: _check_name(value),
    help="Environment name (letters, digits, '.', '_', '-', '+').",
)
@snapshot_option
@target_options
@target_python_option
@click.option("--explain", is_flag=True, help="Print the decisions and the matrix sources.")
@json_option
@click.pass_obj
def env(
    obj: Obj,
    requirements: tuple[str, ...],
    output: str,
    force: bool,
    name: str,
    snapshot_file: Optional[str],
    driver: Optional[str],
    gpus: tuple[str, ...],
    os_name: Optional[str],
    arch: Optional[str],
    python_version: Optional[str],
    python_path: Optional[str],
    explain: bool,
    as_json: bool,
) -> int:
    """Write a conda environment.yml for a machine; REQUIREMENTs default to torch.

    The channel is the one that ships the picks for the target (conda-forge, or
    defaults for TensorFlow 1.x GPU builds); what no channel ships comes from pip.

    Never overwrites an existing file without --force.
    """
    if output != "-":
        from envcheck.outfile import check_destination

        check_destination(output, force)  # before planning, not after
    from envcheck.commands.plan import build_target, explain_text, make_plan, report_unsatisfiable
    from envcheck.matrix import load_matrix
    from envcheck.resolve.emit import emit_environment_yml

    matrix = load_matrix()
    target = build_target(
        obj,
        matrix,
        snapshot_file=snapshot_file,
        driver=driver,
        gpus=gpus,
        os_name=os_name,
        arch=arch,
        python_version=target_python(python_path, python_version),
    )
    result = make_plan(requirements or DEFAULT_REQUIREMENTS, target, matrix)
    if result.unsatisfiable is not None:
        return report_unsatisfiable(result, explain)
    from envcheck.resolve.conda import CondaFacts
    from envcheck.resolve.emit import format_warnings

    facts = CondaFacts.of(matrix)
    warnings = format_warnings(result, "yml", facts)
    if explain:
        click.echo(explain_text(result, warnings), err=True, nl=False)
    else:
        for warning in warnings:
            click.echo(f"warning: {warning}", err=True)

    text = emit_environment_yml(result, name=name, facts=facts)
    if output == "-":
        if as_json:
            # --json wins: the file's text goes inside the JSON document, not beside it.
            import json

            from envcheck.resolve.emit import emit_json

            doc = {"written": None, "content": text, "plan": json.loads(emit_json(result))}
            click.echo(json.dumps(doc, indent=2))
            return ExitCode.OK
        click.echo(text, nl=False)
        return ExitCode.OK
    from envcheck.outfile import write_text_atomic

    write_text_atomic(output, text, force=force)
    if as_json:
        import json

        from envcheck.resolve.emit import emit_json

        plan_json = json.loads(emit_json(result))
        click.echo(json.dumps({"written": output, "plan": plan_json}, indent=2))
    else:
        click.echo(f"wrote {output}; create it with: conda env create -f {output}", err=True)
    return ExitCode.OK
