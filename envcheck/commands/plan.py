"""`envcheck plan`: pin framework builds that run together on a machine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import click

from envcheck.cli_options import (
    json_option,
    snapshot_option,
    target_options,
    target_python_option,
)
from envcheck.commands._common import Obj, load_or_detect, target_python
from envcheck.errors import EnvcheckError, ExitCode

if TYPE_CHECKING:
    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix
    from envcheck.resolve.plan_model import Plan

FORMATS = ("pip", "conda", "yml", "requirements", "uv", "poetry", "pixi", "json")


def build_target(
    obj: Obj,
    matrix: Matrix,
    *,
    snapshot_file: Optional[str],
    driver: Optional[str],
    gpus: tuple[str, ...],
    os_name: Optional[str],
    arch: Optional[str],
    python_version: Optional[str],
) -> Target:
    """The machine to plan for: flags alone describe a new machine; otherwise a
    snapshot file or this machine, with any --python-version applied on top."""
    from envcheck.compat.target import target_from_flags, target_from_snapshot

    base = None
    if snapshot_file is not None or not (driver or gpus or os_name or arch):
        base = target_from_snapshot(load_or_detect(obj, snapshot_file, None), matrix)
    try:
        return target_from_flags(
            matrix,
            driver=driver,
            gpus=gpus,
            os_name=os_name,
            arch=arch,
            python=python_version,
            base=base,
        )
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def make_plan(
    requirements: tuple[str, ...], target: Target, matrix: Matrix, allow_cpu: bool = False
) -> Plan:
    from envcheck.resolve.plan import plan
    from envcheck.resolve.plan_model import PlanInputError

    try:
        return plan(requirements, target, matrix, allow_cpu=allow_cpu)
    except PlanInputError as exc:
        raise EnvcheckError(str(exc)) from None


def render_plan(plan: Plan, fmt: str, explain: bool) -> str:
    """The plan in one output format; ``explain`` prepends the decisions as comments."""
    from envcheck.resolve.emit import EMITTERS

    text = EMITTERS[fmt](plan)
    if explain and fmt != "json":
        from envcheck.resolve.emit import format_warnings

        text = explain_text(plan, format_warnings(plan, fmt)) + text
    return text


def explain_text(plan: Plan, warnings: Optional[tuple[str, ...]] = None) -> str:
    """The decisions, their sources and the warnings (``warnings``: as an output
    format words them, see ``emit.format_warnings``; default the plan's)."""
    lines = []
    for d in plan.decisions:
        lines.append(f"# {d.subject}: {d.text}")
        lines.extend(f"#   source: {s}" for s in d.sources)
    for w in plan.warnings if warnings is None else warnings:
        lines.append(f"# warning: {w}")
    return "\n".join(lines) + "\n" if lines else ""


def report_unsatisfiable(plan: Plan, explain: bool) -> int:
    assert plan.unsatisfiable is not None
    if explain:
        click.echo(explain_text(plan), err=True, nl=False)
    u = plan.unsatisfiable
    click.echo(f"envcheck: cannot plan {u.framework} ({u.constraint}): {u}", err=True)
    for s in u.sources:
        click.echo(f"  source: {s}", err=True)
    return ExitCode.PROBLEMS


@click.command()
@click.argument("requirements", nargs=-1, required=True)
@target_python_option
@snapshot_option
@target_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="pip",
    show_default=True,
    help="Output: pip commands, conda commands, environment.yml, requirements.txt, "
    "pyproject.toml for uv or poetry, pixi.toml, or JSON.",
)
@json_option
@click.option("--explain", is_flag=True, help="Print the decisions and the matrix sources.")
@click.option("--allow-cpu", is_flag=True, help="Accept CPU-only builds when no GPU build runs.")
@click.pass_obj
def plan(
    obj: Obj,
    requirements: tuple[str, ...],
    python_path: Optional[str],
    snapshot_file: Optional[str],
    driver: Optional[str],
    gpus: tuple[str, ...],
    os_name: Optional[str],
    arch: Optional[str],
    python_version: Optional[str],
    fmt: str,
    as_json: bool,
    explain: bool,
    allow_cpu: bool,
) -> int:
    """Pin the newest framework builds that run together on a machine.

    REQUIREMENT is a framework with an optional specifier: torch, 'torch>=2.4',
    torchvision, 'tensorflow==2.15.*', jax, cupy, onnxruntime-gpu,
    paddlepaddle-gpu, keras. Exit 1 when nothing satisfies the request.
    """
    if as_json:
        fmt = "json"
    from envcheck.matrix import load_matrix

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
    result = make_plan(requirements, target, matrix, allow_cpu)
    if fmt == "json":
        from envcheck.resolve.emit import emit_json

        click.echo(emit_json(result), nl=False)
        if result.unsatisfiable is not None:
            click.echo(f"envcheck: cannot plan: {result.unsatisfiable}", err=True)
            return ExitCode.PROBLEMS
        return ExitCode.OK
    if result.unsatisfiable is not None:
        return report_unsatisfiable(result, explain)
    click.echo(render_plan(result, fmt, explain), nl=False)
    if not explain:
        from envcheck.resolve.emit import format_warnings

        for warning in format_warnings(result, fmt):
            click.echo(f"warning: {warning}", err=True)
    return ExitCode.OK
