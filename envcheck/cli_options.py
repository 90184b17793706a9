"""Option decorators shared by several commands (defined once, used everywhere)."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")(f)


def python_option(f: F) -> F:
    return click.option(
        "--python",
        "python",
        metavar="PATH",
        type=click.Path(dir_okay=False),
        help="Inspect the environment of this interpreter instead of the current one.",
    )(f)


_VERSION_ONLY = r"^\d{1,2}\.\d{1,3}(\.\d{1,4})?$"


def _interpreter_path(_ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
    """``--python`` is an interpreter path everywhere; a bare version gets the option
    that takes one (``--python-version``), not a guess."""
    import re
    from pathlib import Path

    if value and re.match(_VERSION_ONLY, value) and not Path(value).exists():
        raise click.BadParameter(
            f"{value!r} is a version, not an interpreter: use --python-version {value} "
            "(or give the interpreter's path, e.g. --python /usr/bin/python3.11)"
        )
    return value


def target_python_option(f: F) -> F:
    """``--python PATH`` for the commands that plan for a target: the Python version
    is read from that interpreter (``--python-version X.Y`` gives one directly)."""
    return click.option(
        "--python",
        "python_path",
        metavar="PATH",
        callback=_interpreter_path,
        help="Plan for this interpreter's Python version (use --python-version X.Y to "
        "give a version).",
    )(f)


def snapshot_option(f: F) -> F:
    return click.option(
        "--snapshot",
        "snapshot_file",
        metavar="FILE",
        type=click.Path(dir_okay=False, allow_dash=True),
        help="Use a snapshot JSON file (e.g. from another machine) instead of detecting.",
    )(f)


def redact_option(f: F) -> F:
    return click.option(
        "--redact",
        is_flag=True,
        help="Hide secrets (env values of *_TOKEN, *_KEY, ...), host names, home "
        "directories and user names, also in data from other machines.",
    )(f)


def target_options(f: F) -> F:
    """--driver/--gpu/--os/--arch/--python-version: describe the machine to plan for.

    Without any of them the target is this machine (or ``--snapshot``); with any of
    them, the flags describe a machine about to be set up (see
    ``envcheck.compat.target.target_from_flags``).
    """
    from envcheck.compat.target import ARCHES, OS_NAMES

    options = [
        click.option(
            "--driver", metavar="VERSION", help="NVIDIA driver version, e.g. 535.104.05 or 535."
        ),
        click.option(
            "--gpu",
            "gpus",
            metavar="NAME|sm_XY",
            multiple=True,
            help="GPU model or compute capability (repeatable), e.g. 'RTX 4090' or sm_89.",
        ),
        click.option("--os", "os_name", type=click.Choice(OS_NAMES), help="Operating system."),
        click.option("--arch", type=click.Choice(ARCHES), help="CPU architecture."),
        click.option("--python-version", metavar="X.Y", help="Python version, e.g. 3.12."),
    ]
    for option in reversed(options):
        f = option(f)
    return f
