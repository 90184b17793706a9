"""`envcheck matrix show|why|export|update`: read, query, export and refresh the matrix."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

import click

from envcheck.cli_options import json_option, target_options, target_python_option
from envcheck.commands._common import Obj, target_python, write_output
from envcheck.errors import ExitCode

if TYPE_CHECKING:
    from envcheck.matrix import Matrix

DOMAIN_NAMES = (
    "cuda_driver",
    "cuda_arch",
    "gpus",
    "cudnn",
    "driver_branches",
    "torch",
    "tensorflow",
    "jax",
    "cupy",
    "onnxruntime",
    "paddle",
    "keras",
    "conda",
)

# Columns shown per table (all fields are in --json); "versions"-like keys filter --version.
_COLUMNS: Mapping[str, tuple[str, ...]] = {
    "cuda_driver.release": ("version", "label", "linux_min_driver", "windows_min_driver"),
    "cuda_driver.minor_compat": ("cuda_major", "linux_min_driver", "windows_min_driver"),
    "cuda_driver.forward_compat": ("cuda_major", "gpus"),
    "cuda_arch.toolkit": ("cuda", "compute_capabilities", "deprecated"),
    "gpus.architecture": (
        "name",
        "compute_capabilities",
        "tensor_cores",
        "bf16",
        "fp8",
        "last_driver_branch",
    ),
    "gpus.gpu": ("name", "compute_capability", "architecture", "segment", "aliases"),
    "cudnn.release": ("version", "cuda_major", "cuda_min", "cuda_max", "os"),
    "driver_branches.branch": ("branch", "max_cuda"),
    "driver_branches.retired": ("architecture", "last_branch"),
    "build": (
        "versions",
        "variant",
        "package",
        "cuda",
        "cudnn",
        "python",
        "platforms",
        "archs",
        "index_url",
    ),
    "torch.companion": ("version", "torchvision", "torchaudio"),
    "keras.release": ("versions", "tensorflow", "backends", "python"),
    "keras.tensorflow_pin": ("tensorflow", "keras"),
    "conda.package": ("channel", "name", "versions", "platforms", "python", "cuda", "cudnn"),
    "conda.absent": ("channel", "name", "pip", "platforms"),
}
_VERSION_KEYS = ("versions", "version", "cuda", "branch", "compute_capability", "cuda_major")


def _load(bundled: bool) -> Matrix:
    from envcheck.matrix import load_matrix

    return load_matrix(bundled=bundled)


def _bundled_option(f: Any) -> Any:
    return click.option(
        "--bundled",
        is_flag=True,
        help="Use the matrix shipped with envcheck, ignoring an installed update "
        "(also: ENVCHECK_MATRIX=bundled).",
    )(f)


@click.group()
def matrix() -> None:
    """Show, query, export and update the compatibility matrix."""


# -- show ----------------------------------------------------------------------


def _matches(row: Mapping[str, Any], version: str) -> bool:
    from envcheck.model.versions import release_matches

    for key in _VERSION_KEYS:
        if key not in row or row[key] is None:
            continue
        values = row[key] if isinstance(row[key], list) else [row[key]]
        return any(release_matches(version, str(v)) for v in values)
    return True


_PLATFORM_SHORT = {
    "linux-x86_64": "linux",
    "linux-aarch64": "linux-arm64",
    "linux-ppc64le": "linux-ppc64le",
    "windows-x86_64": "windows",
    "macos-arm64": "macos-arm64",
    "macos-x86_64": "macos-x86",
}


def _cell(value: Any, column: str = "") -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        if column == "platforms":
            return " ".join(_PLATFORM_SHORT.get(str(v), str(v)) for v in value)
        if column == "python" and len(value) > 2:
            return f"{value[0]}-{value[-1]}"
        return " ".join(str(v) for v in value)
    return str(value)


def _row_cell(row: Mapping[str, Any], column: str) -> str:
    if column == "package" and row.get("extra"):
        # markup is off, so the brackets of an extra print as they are
        return f"{row['package']}[{row['extra']}]"
    return _cell(row.get(column), column)


def select_rows(
    matrix: Matrix, domains: tuple[str, ...], version: Optional[str]
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """The rows of ``domains`` (filtered by ``--version``) as export JSON."""
    from envcheck.matrix.export import domain_json

    out = {}
    for domain in domains:
        tables = domain_json(matrix, domain)
        if version is not None:
            tables = {t: [r for r in rows if _matches(r, version)] for t, rows in tables.items()}
        out[domain] = tables
    return out


def render_tables(selected: Mapping[str, Mapping[str, list[dict[str, Any]]]], obj: Obj) -> None:
    from rich import box
    from rich.table import Table

    from envcheck.render.console import make_console

    console = make_console(obj.color)
    for domain, tables in selected.items():
        for table_name, rows in tables.items():
            title = f"{domain} [[{table_name}]]"
            if not rows:
                console.print(f"{title}: no rows")
                console.print()
                continue
            columns = _COLUMNS.get(f"{domain}.{table_name}") or _COLUMNS.get(table_name, ())
            if not columns:
                columns = tuple(k for k in rows[0] if k not in ("source", "verified", "note"))
            sources: dict[str, int] = {}
            table = Table(
                title=f"{title} ({len(rows)} row{'' if len(rows) == 1 else 's'})",
                title_justify="left",
                box=box.SIMPLE_HEAD,
                pad_edge=False,
            )
            for c in columns:
                table.add_column(c, overflow="fold")
            table.add_column("verified", no_wrap=True)
            table.add_column("src", justify="right")
            for row in rows:
                n = sources.setdefault(row["source"], len(sources) + 1)
                table.add_row(
                    *(_row_cell(row, c) for c in columns),
                    ("yes" if row["verified"] else "UNVERIFIED")
                    + ("\nWITHDRAWN" if row.get("withdrawn") else ""),
                    str(n),
                )
            console.print(table)
            for url, n in sources.items():
                console.print(f"  [{n}] {url}")
            console.print()


@matrix.command()
@click.argument("domain", required=False)
@click.option("--version", "version", metavar="V", help="Only rows of this version (prefix: 2.5).")
@json_option
@_bundled_option
@click.pass_obj
def show(
    obj: Obj, domain: Optional[str], version: Optional[str], as_json: bool, bundled: bool
) -> int:
    """Show the matrix as tables (one DOMAIN, or all). Unverified rows are marked.

    DOMAIN: cuda_driver, cuda_arch, gpus, cudnn, driver_branches, torch,
    tensorflow, jax, cupy, onnxruntime, paddle, keras or conda.
    """
    if domain is not None and domain not in DOMAIN_NAMES:
        raise click.UsageError(
            f"unknown domain {domain!r}; choose one of: {', '.join(DOMAIN_NAMES)}"
        )
    m = _load(bundled)
    domains = (domain,) if domain else DOMAIN_NAMES
    selected = select_rows(m, domains, version)
    if as_json:
        doc = {
            "schema": "envcheck.matrix-show/1",
            "matrix": m.version,
            "data_version": m.data_version,
            "location": m.location,
            "domains": selected,
        }
        click.echo(json.dumps(doc, indent=2))
        return ExitCode.OK
    click.echo(f"matrix {m.version} from {m.location}")
    click.echo()
    render_tables(selected, obj)
    return ExitCode.OK


# -- why -----------------------------------------------------------------------


@matrix.command()
@click.argument("specs", nargs=-1, required=True, metavar="SPEC...")
@target_options
@target_python_option
@click.option(
    "--variant",
    metavar="TAG",
    help="Only this build variant (cu124, cpu, rocm6.2) for specs without +TAG.",
)
@json_option
@_bundled_option
@click.pass_obj
def why(
    obj: Obj,
    specs: tuple[str, ...],
    variant: Optional[str],
    driver: Optional[str],
    gpus: tuple[str, ...],
    os_name: Optional[str],
    arch: Optional[str],
    python_version: Optional[str],
    python_path: Optional[str],
    as_json: bool,
    bundled: bool,
) -> int:
    """Say whether SPECs work together on a machine, and every reason, with sources.

    \b
    SPEC: torch==2.5.1+cu124, tensorflow==2.15, jax[cuda12]==0.4.30,
          tensorflow-gpu==1.14, cudnn==8.9, cuda==12.4 (several at once are
          checked against each other).
    Facts not given (driver, GPU, OS, Python) are not checked.
    Exit status 1 when the combination does not work.
    """
    from envcheck.compat.target import Target, target_from_flags
    from envcheck.errors import MAX_QUOTED, clip_repr
    from envcheck.render.why import render_why
    from envcheck.why import explain_specs

    for spec in specs:
        if len(spec) > MAX_QUOTED:
            # A release's version is short; a long one would be echoed on every line.
            raise click.UsageError(
                f"SPEC {clip_repr(spec, 60)} is {len(spec)} characters long (at most {MAX_QUOTED})"
            )
    m = _load(bundled)
    try:
        target = target_from_flags(
            m,
            driver=driver,
            gpus=gpus,
            os_name=os_name,
            arch=arch,
            python=target_python(python_path, python_version),
            base=Target(),
        )
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    result = explain_specs(specs, target, m, variant=variant)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(render_why(result), nl=False)
    return ExitCode.OK if result.works else ExitCode.PROBLEMS


# -- export --------------------------------------------------------------------


@matrix.command()
@json_option
@click.option("-o", "--output", metavar="FILE", help="Write to FILE instead of stdout.")
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@_bundled_option
def export(as_json: bool, output: Optional[str], force: bool, bundled: bool) -> int:
    """Export the whole matrix as one JSON document (schema envcheck.matrix/1).

    The schema ships as envcheck/schemas/matrix-1.schema.json
    (envcheck.schemas.get_schema("matrix-1")). JSON is the only format;
    --json is accepted for symmetry with the other commands.
    """
    from envcheck.matrix.export import matrix_json

    if output not in (None, "-"):
        from envcheck.outfile import check_destination

        check_destination(output, force)  # before the work, not after
    text = json.dumps(matrix_json(_load(bundled)), indent=2) + "\n"
    write_output(text, output, force=force)
    if output not in (None, "-"):
        click.echo(f"matrix written to {output}", err=True)
    return ExitCode.OK


# -- update --------------------------------------------------------------------


@matrix.command()
@click.option("--url", metavar="URL", help="Manifest URL of the bundle (default: the project's).")
@click.option(
    "--bundled", is_flag=True, help="Remove an installed update: use the shipped matrix again."
)
@click.option(
    "--allow-downgrade",
    is_flag=True,
    help="Install the bundle even when its data is older than the matrix in use.",
)
@json_option
@click.pass_obj
def update(
    obj: Obj, url: Optional[str], bundled: bool, allow_downgrade: bool, as_json: bool
) -> int:
    """Download a newer matrix, verify it (sha256, validation) and install it atomically.

    A failed, corrupt or invalid download never replaces the working matrix.
    """
    import os

    from envcheck.matrix import clear_cache, load_matrix, user_matrix_dir
    from envcheck.matrix.update import (
        DEFAULT_URL,
        NO_DEFAULT_URL,
        UpdateError,
        env_hint,
        remove_update,
        update_matrix,
    )

    target = user_matrix_dir()
    hint = env_hint(os.environ)
    if bundled:
        if url is not None:
            raise click.UsageError("--bundled and --url cannot be used together")
        removed = remove_update(target)
        clear_cache()
        if as_json:
            click.echo(json.dumps({"action": "bundled", "removed": removed}, indent=2))
        else:
            click.echo(
                "removed the installed update; using the shipped matrix"
                if removed
                else "no update installed; using the shipped matrix"
            )
        return ExitCode.OK
    source = url or DEFAULT_URL
    if source is None:
        raise UpdateError(NO_DEFAULT_URL)
    try:
        floor: Optional[str] = load_matrix(bundled=True).data_version
    except Exception:  # noqa: BLE001 - a broken shipped matrix is no reason to refuse a fix
        floor = None
    with _progress(obj) as progress:
        result = update_matrix(
            source, target, progress, allow_downgrade=allow_downgrade, floor=floor
        )
    clear_cache()
    if as_json:
        doc = {
            "action": "updated",
            "url": source,
            "data_version": result.data_version,
            "previous": result.previous,
            "directory": str(target),
            "files": list(result.files),
        }
        click.echo(json.dumps(doc, indent=2))
    else:
        was = f" (was {result.previous})" if result.previous else ""
        click.echo(f"installed matrix data {result.data_version}{was} into {target}")
    if hint:
        click.echo(hint, err=True)
    return ExitCode.OK


class _ProgressBar:
    """Rich progress on stderr when it is a terminal; nothing otherwise."""

    def __init__(self, obj: Obj) -> None:
        from envcheck.render.console import make_console

        self.console = make_console(obj.color, stderr=True)
        self.progress: Any = None
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> Any:
        if not self.console.is_terminal:
            return None
        from rich.progress import DownloadColumn, Progress, TextColumn

        self.progress = Progress(
            TextColumn("{task.description}"), DownloadColumn(), console=self.console
        )
        self.progress.__enter__()
        return self.advance

    def advance(self, name: str, done: int, total: Optional[int]) -> None:
        if name not in self.tasks:
            self.tasks[name] = self.progress.add_task(name, total=total)
        self.progress.update(self.tasks[name], completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(None, None, None)


def _progress(obj: Obj) -> _ProgressBar:
    return _ProgressBar(obj)
