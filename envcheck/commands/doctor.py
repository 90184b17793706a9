"""`envcheck doctor`: detect (or load) a snapshot, run every rule, report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import click

from envcheck.cli_options import json_option, python_option, redact_option, snapshot_option
from envcheck.commands._common import Obj, load_or_detect
from envcheck.errors import ExitCode

if TYPE_CHECKING:
    from envcheck.model.finding import Finding


def _check_ids(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    from envcheck.doctor_config import bad_finding_id

    for item in value:
        why = bad_finding_id(item)
        if why is not None:
            raise click.BadParameter(why, ctx=ctx, param=param)
    return value


@click.command()
@json_option
@click.option("--markdown", is_flag=True, help="Print a markdown report for an issue.")
@snapshot_option
@click.option(
    "--from-collect-env",
    "collect_env_file",
    metavar="FILE",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Diagnose the text printed by `python -m torch.utils.collect_env`.",
)
@python_option
@click.option(
    "--deep",
    is_flag=True,
    help="Also run GPU smoke tests in each installed framework (slow; uses the GPU).",
)
@click.option(
    "--deep-timeout",
    type=click.FloatRange(1, 3600),
    default=180.0,
    show_default=True,
    metavar="SECONDS",
    help="Time limit of each framework's smoke test.",
)
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too.")
@click.option(
    "--ignore",
    "ignore",
    metavar="ID",
    multiple=True,
    callback=_check_ids,
    help="Accept the finding with this id (repeatable): listed as ignored, not counted. "
    "Adds to [tool.envcheck.doctor] ignore in pyproject.toml.",
)
@redact_option
@click.pass_obj
def doctor(
    obj: Obj,
    as_json: bool,
    markdown: bool,
    snapshot_file: Optional[str],
    collect_env_file: Optional[str],
    python: Optional[str],
    deep: bool,
    deep_timeout: float,
    strict: bool,
    ignore: tuple[str, ...],
    redact: bool,
) -> int:
    """Diagnose the GPU stack: driver, GPUs, CUDA, cuDNN and framework builds.

    \b
    Exit codes: 0 no errors; 1 errors found (warnings too with --strict),
    ignored findings not counted; 2 usage error, unreadable input or internal
    failure.
    """
    if as_json and markdown:
        raise click.UsageError("--json and --markdown cannot be used together")
    from pathlib import Path

    from envcheck.doctor_config import merge_ignores, read_doctor_ignores

    ignore_ids = merge_ignores(read_doctor_ignores(Path.cwd()), ignore)
    if collect_env_file is not None:
        if snapshot_file is not None or python is not None:
            raise click.UsageError("--from-collect-env excludes --snapshot and --python")
        from envcheck.collect_env import parse_collect_env
        from envcheck.inputs import LIMITS
        from envcheck.textfile import read_text_file

        text = read_text_file(collect_env_file, "collect_env output", LIMITS["collect_env"])
        snapshot = parse_collect_env(text, collect_env_file)
    else:
        snapshot = load_or_detect(obj, snapshot_file, python)
    policy = None
    if redact:
        from envcheck.redact import local_policy
        from envcheck.snapshot_io import redact_snapshot

        # Users and hosts of a pasted report or a foreign snapshot are learned
        # from the data; the collect_env text is redacted before it is quoted.
        policy = local_policy()
        if collect_env_file is not None:
            policy = policy.learn([text])
            text = policy.text(text)
        snapshot = redact_snapshot(snapshot, policy=policy)
        policy = policy.learn([], snapshot.env)

    from envcheck.doctor import diagnose
    from envcheck.matrix import load_matrix

    matrix = load_matrix()
    extra: tuple[Finding, ...] = ()
    if collect_env_file is not None:
        # collect_env prints CUDA's own warnings above the report; explain them.
        from envcheck.explain import explain_findings

        extra = explain_findings(text, snapshot, matrix)
    report = diagnose(snapshot, matrix, extra=extra)
    if deep:
        if snapshot_file is not None or collect_env_file is not None:
            raise click.UsageError("--deep runs on this machine; it excludes --snapshot")
        from envcheck.commands._common import progress
        from envcheck.deep import deep_findings, run_deep

        with progress(obj, "Running GPU smoke tests...") as status:

            def tell(framework: str) -> None:
                if status is not None and hasattr(status, "update"):
                    status.update(f"Running GPU smoke test: {framework}...")

            results = run_deep(snapshot, python=python, timeout=deep_timeout, on_start=tell)
        from dataclasses import replace

        if policy is not None:
            # A child's error and stderr tail hold paths and host names like any
            # other output; redacted before they are judged, shown or serialised.
            results = tuple(
                replace(
                    r,
                    error=policy.text(r.error) if r.error else r.error,
                    output_tail=policy.text(r.output_tail),
                    checks=tuple(policy.json([dict(c) for c in r.checks])),
                )
                for r in results
            )
        report = diagnose(snapshot, matrix, extra=extra + deep_findings(results, snapshot, matrix))
        report = replace(report, deep=tuple(r.to_json() for r in results))
    from envcheck.doctor import ignore_findings

    report = ignore_findings(report, ignore_ids)

    if as_json:
        import json

        doc = report.to_json() if policy is None else policy.json(report.to_json())
        click.echo(json.dumps(doc, indent=2))
    elif markdown:
        from envcheck.render.report import render_report_markdown

        md = render_report_markdown(report, strict)
        click.echo(md if policy is None else policy.text(md), nl=False)
    else:
        from envcheck.render.console import output_console
        from envcheck.render.report import render_report_text

        render_report_text(report, output_console(obj.color), matrix, strict)
    return ExitCode.PROBLEMS if report.failed(strict) else ExitCode.OK
