"""`envcheck detect`: read the installed GPU stack into a snapshot."""

from __future__ import annotations

from typing import Optional

import click

from envcheck.cli_options import json_option, python_option, redact_option
from envcheck.commands._common import Obj, detect_snapshot, write_output
from envcheck.errors import ExitCode


@click.command()
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

    if output is not None and output != "-":
        from envcheck.outfile import check_destination

        check_destination(output, force)  # before detecting, not after
    snapshot = detect_snapshot(obj, python)
    if redact:
        snapshot = redact_snapshot(snapshot)
    if output is not None:
        write_output(snapshot_to_text(snapshot), output, force=force)
        if not as_json:
            click.echo(f"snapshot written to {output}", err=True)
            return ExitCode.OK
    if as_json:
        click.echo(snapshot_to_text(snapshot), nl=False)
        return ExitCode.OK
    from envcheck.render.console import output_console
    from envcheck.render.text import render_snapshot

    render_snapshot(snapshot, output_console(obj.color))
    return ExitCode.OK
