"""`envcheck install`: plan, confirm, record a restore point, install, re-check."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, Optional

import click

from envcheck.cli_options import json_option
from envcheck.commands._common import Obj
from envcheck.errors import EnvcheckError, ExitCode

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from envcheck.model.snapshot import Snapshot
    from envcheck.resolve.plan import Plan

INSTALL_TIMEOUT_S = 3600.0
"""pip downloads GPU wheels of several GB; an hour covers slow links."""
FREEZE_TIMEOUT_S = 120.0


def run_streamed(argv: Sequence[str], timeout: float) -> int:
    """Run ``argv`` (no shell), copying its output to stderr line by line.

    Returns the exit status; raises EnvcheckError when it cannot start or runs
    past ``timeout`` (the process is killed).
    """
    import subprocess
    import threading

    try:
        proc = subprocess.Popen(  # noqa: S603 - argv list, no shell
            list(argv),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
    except OSError as exc:
        raise EnvcheckError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        proc.kill()

    timer = threading.Timer(timeout, kill)
    timer.start()
    with proc:
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                click.echo(line, nl=False, err=True)
            code = proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
    if timed_out.is_set():
        raise EnvcheckError(f"{argv[0]} ran longer than {int(timeout)} s and was stopped")
    return code


def record_freeze(python: str, directory: Path) -> Path:
    """Write ``pip freeze`` of ``python``'s environment to a new file; return it."""
    import subprocess
    import time

    try:
        done = subprocess.run(  # noqa: S603 - argv list, no shell
            [python, "-m", "pip", "freeze", "--all"],
            capture_output=True,
            text=True,
            timeout=FREEZE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EnvcheckError(f"cannot record the installed packages: {exc}") from None
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["pip freeze failed"])[-1]
        raise EnvcheckError(f"cannot record the installed packages: {tail}")
    directory.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = directory / f"freeze-{stamp}.txt"
    n = 1
    while path.exists():
        n += 1
        path = directory / f"freeze-{stamp}-{n}.txt"
    path.write_text(done.stdout, encoding="utf-8")
    return path


def restore_command(python: str, freeze: Path) -> str:
    import shlex

    argv = [python, "-m", "pip", "install", "--no-deps", "--force-reinstall", "-r", str(freeze)]
    return " ".join(shlex.quote(a) for a in argv)


def verify_install(plan: Plan, snapshot: Snapshot) -> tuple[bool, tuple[str, ...]]:
    """Compare what detection now sees with the plan; (all good, one line per pick)."""
    from envcheck.resolve.plan import COMPANIONS

    found = {f.name: f for f in snapshot.frameworks if f.name}
    lines = []
    ok = True
    for pick in plan.picks:
        if pick.framework in COMPANIONS:
            continue
        fw = found.get(pick.framework)
        if fw is None:
            ok = False
            lines.append(f"{pick.package}: not found after installing")
            continue
        version = (fw.version or "?").split("+")[0]
        if pick.version is not None and version != pick.version.split("+")[0]:
            ok = False
            lines.append(f"{pick.package}: {fw.version} installed, {pick.version} planned")
            continue
        if pick.cuda is not None and fw.cpu_only:
            ok = False
            lines.append(f"{pick.package} {fw.version}: a CPU-only build, CUDA planned")
            continue
        cuda = f", CUDA {fw.cuda_version}" if fw.cuda_version else ""
        lines.append(f"{pick.package} {fw.version}{cuda}: as planned")
    return ok, tuple(lines)


@click.command()
@click.argument("requirements", nargs=-1, required=True)
@click.option("--yes", "-y", is_flag=True, help="Do not ask before installing.")
@click.option("--dry-run", is_flag=True, help="Show the plan and the commands; change nothing.")
@click.option(
    "--python",
    "python",
    metavar="PATH",
    type=click.Path(dir_okay=False),
    help="Install into this interpreter's environment (default: the one running envcheck).",
)
@click.option("--conda", "use_conda", is_flag=True, help="Install with conda from conda-forge.")
@json_option
@click.pass_obj
def install(
    obj: Obj,
    requirements: tuple[str, ...],
    yes: bool,
    dry_run: bool,
    python: Optional[str],
    use_conda: bool,
    as_json: bool,
) -> int:
    """Install framework builds that work on this machine, with a restore point.

    Afterwards detection and the doctor run again and report whether the GPU
    stack now works. Progress and pip's output go to stderr; --json prints one
    JSON result on stdout.
    """
    from envcheck.commands._common import detect_snapshot
    from envcheck.commands.plan import make_plan, report_unsatisfiable
    from envcheck.compat.target import target_from_snapshot
    from envcheck.matrix import load_matrix
    from envcheck.resolve import emit

    interpreter = python or sys.executable
    matrix = load_matrix()
    before = detect_snapshot(obj, python)
    target = target_from_snapshot(before, matrix)
    result = make_plan(requirements, target, matrix)
    if result.unsatisfiable is not None:
        return report_unsatisfiable(result, explain=False)
    if use_conda:
        shown = emit.emit_conda(result)
        argvs = conda_argvs(result, interpreter)
    else:
        shown = emit.emit_pip(result, pip=f"{interpreter} -m pip")
        argvs = emit.pip_argvs(result, interpreter)
    outcome: dict[str, Any] = {
        "schema": "envcheck.install/1",
        "plan": json.loads(emit.emit_json(result)),
        "commands": [list(a) for a in argvs],
        "installed": False,
    }
    click.echo(shown, nl=False, err=as_json)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    if dry_run:
        return _finish(outcome, as_json, ExitCode.OK)
    if not yes and not _stdin_is_terminal():
        # Nobody can answer the prompt (CI, `< /dev/null`, a pipe): refuse plainly.
        raise click.UsageError("stdin is not a terminal; pass --yes to install without asking")
    if not yes and not click.confirm("Install these packages?", default=False, err=True):
        click.echo("nothing changed", err=True)
        return _finish(outcome, as_json, ExitCode.OK)

    from pathlib import Path

    import platformdirs

    cache = Path(platformdirs.user_cache_dir("envcheck")) / "restore"
    freeze = record_freeze(interpreter, cache)
    click.echo(f"recorded the installed packages in {freeze}", err=True)
    click.echo(f"to restore them: {restore_command(interpreter, freeze)}", err=True)
    outcome["restore_command"] = restore_command(interpreter, freeze)

    for argv in argvs:
        click.echo(f"running: {' '.join(argv)}", err=True)
        code = run_streamed(argv, INSTALL_TIMEOUT_S)
        if code != 0:
            click.echo(
                f"envcheck: {argv[0]} failed with exit status {code}; "
                f"restore with: {restore_command(interpreter, freeze)}",
                err=True,
            )
            outcome["failed_command"] = list(argv)
            return _finish(outcome, as_json, ExitCode.PROBLEMS)
    outcome["installed"] = True

    from envcheck.doctor import diagnose
    from envcheck.model.finding import Severity

    after = detect_snapshot(obj, python)
    good, lines = verify_install(result, after)
    report = diagnose(after, matrix)
    errors = [f for f in report.findings if f.severity is Severity.ERROR]
    outcome["verified"] = lines
    outcome["doctor"] = {
        "errors": [{"id": f.id, "title": f.title, "fix": f.fix} for f in errors],
        "warnings": [f.id for f in report.findings if f.severity is Severity.WARNING],
    }
    out = sys.stderr if as_json else sys.stdout
    for line in lines:
        click.echo(line, file=out)
    for f in errors:
        click.echo(f"doctor: {f.title} [{f.id}]", file=out)
    if good and not errors:
        click.echo("GPU packages look right and the doctor found no errors.", file=out)
        return _finish(outcome, as_json, ExitCode.OK)
    click.echo("GPU acceleration does not work yet; run `envcheck doctor` for details.", file=out)
    return _finish(outcome, as_json, ExitCode.PROBLEMS)


def _finish(outcome: dict[str, Any], as_json: bool, code: int) -> int:
    if as_json:
        click.echo(json.dumps(outcome, indent=2))
    return code


def conda_argvs(plan: Plan, python: str) -> list[list[str]]:
    """``conda install`` into the active environment, then pip for the rest."""
    import os
    import shutil

    from envcheck.resolve.emit import conda_split, pip_argvs, sub_plan

    conda = os.environ.get("CONDA_EXE") or shutil.which("conda") or "conda"
    specs, pip = conda_split(plan)
    specs = [s for s in specs if not s.startswith("python=")]
    out = [[conda, "install", "--yes", "-c", "conda-forge", "--override-channels", *specs]]
    if pip:
        out += pip_argvs(sub_plan(plan, pip), python)
    return out


def _stdin_is_terminal() -> bool:
    import sys

    try:
        return bool(sys.stdin is not None and sys.stdin.isatty())
    except (AttributeError, ValueError):
        return False
