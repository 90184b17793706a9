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
        help="Replace the home directory and user name with placeholders.",
    )(f)
