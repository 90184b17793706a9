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
    from envcheck.resolve.plan_model import Plan

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


INSTALLERS = ("pip", "uv", "conda")


def uv_binary(python: str) -> str:
    """The uv next to the interpreter running envcheck or the target's, else on PATH."""
    import os
    import shutil
    from pathlib import Path

    name = "uv.exe" if os.name == "nt" else "uv"
    for folder in (Path(sys.executable).parent, Path(python).parent):
        if (folder / name).is_file():
            return str(folder / name)
    found = shutil.which("uv")
    if found is None:
        raise EnvcheckError("uv is not installed (pip install uv), or use --installer pip")
    return found


def _freeze_argv(python: str, installer: str) -> list[str]:
    if installer == "uv":
        return [uv_binary(python), "pip", "freeze", "--python", python]
    return [python, "-m", "pip", "freeze", "--all"]


def freeze_text(python: str, installer: str = "pip") -> str:
    """``pip freeze --all`` (``uv pip freeze``) of ``python``'s environment."""
    import subprocess

    try:
        done = subprocess.run(  # noqa: S603 - argv list, no shell
            _freeze_argv(python, installer),
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
    return done.stdout


def package_names(freeze: str) -> set[str]:
    """Canonical names of the packages in a freeze (``name==v``, ``name @ url``)."""
    import re

    from packaging.utils import canonicalize_name

    names: set[str] = set()
    for line in freeze.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "-")):
            continue
        m = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line)
        if m:
            names.add(canonicalize_name(m.group(0)))
    return names


def index_lines(freeze: str) -> list[str]:
    """``--extra-index-url`` lines the freeze needs: a ``torch==2.13.0+cpu`` line is only
    on the PyTorch index of that variant (the matrix's ``index_url`` for it)."""
    from envcheck import names
    from envcheck.matrix import load_matrix

    matrix = load_matrix()
    urls: dict[str, None] = {}
    for line in freeze.splitlines():
        head = line.split(";")[0].strip()
        if "==" not in head or "+" not in head:
            continue
        name, version = head.split("==", 1)
        label = version.split("+", 1)[1].strip()
        framework = names.framework_of(name.strip()) or names.companion_of(name.strip())
        if framework is None:
            continue
        for build in matrix.framework_builds(framework):
            if build.variant == label and build.index_url:
                urls[build.index_url] = None
                break
    return [f"--extra-index-url {url}" for url in urls]


def record_freeze(python: str, directory: Path, installer: str = "pip") -> Path:
    """Write the environment's packages, with the index URLs they need, to a new file."""
    import time

    text = freeze_text(python, installer)
    directory.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = directory / f"freeze-{stamp}.txt"
    n = 1
    while path.exists():
        n += 1
        path = directory / f"freeze-{stamp}-{n}.txt"
    head = [f"# envcheck restore point for {python}, {time.strftime('%Y-%m-%d %H:%M:%S')}"]
    path.write_text("\n".join(head + index_lines(text)) + "\n" + text, encoding="utf-8")
    return path


def record_added(python: str, freeze: Path, installer: str = "pip") -> Optional[Path]:
    """Write the packages present now that the restore point lacks (what the install
    added, for the restore to remove); None when there are none."""
    before = package_names(freeze.read_text(encoding="utf-8"))
    added = sorted(package_names(freeze_text(python, installer)) - before)
    if not added:
        return None
    path = freeze.with_name(freeze.name.replace("freeze-", "added-", 1))
    if path == freeze:
        path = freeze.with_name(f"added-{freeze.name}")
    path.write_text("\n".join(added) + "\n", encoding="utf-8")
    return path


def restore_argvs(
    python: str, freeze: Path, added: Optional[Path] = None, installer: str = "pip"
) -> list[list[str]]:
    """Remove what the install added, then reinstall the recorded versions."""
    if installer == "uv":
        uv = uv_binary(python)
        out = [[uv, "pip", "uninstall", "--python", python, "-r", str(added)]] if added else []
        reinstall = [uv, "pip", "install", "--python", python, "--no-deps", "--reinstall"]
        return [*out, [*reinstall, "-r", str(freeze)]]
    out = [[python, "-m", "pip", "uninstall", "--yes", "-r", str(added)]] if added else []
    reinstall = [python, "-m", "pip", "install", "--no-deps", "--force-reinstall"]
    return [*out, [*reinstall, "-r", str(freeze)]]


def restore_command(
    python: str, freeze: Path, added: Optional[Path] = None, installer: str = "pip"
) -> str:
    from envcheck.resolve.shell import join_argv

    here = "windows" if sys.platform == "win32" else "linux"
    return " && ".join(
        join_argv(argv, here) for argv in restore_argvs(python, freeze, added, installer)
    )


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
@click.option(
    "--installer",
    type=click.Choice(INSTALLERS),
    default=None,
    help="pip (default), uv (uv pip install), or conda (conda-forge into the active env).",
)
@click.option("--conda", "use_conda", is_flag=True, help="Same as --installer conda.")
@json_option
@click.pass_obj
def install(
    obj: Obj,
    requirements: tuple[str, ...],
    yes: bool,
    dry_run: bool,
    python: Optional[str],
    installer: Optional[str],
    use_conda: bool,
    as_json: bool,
) -> int:
    """Install framework builds that work on this machine, with a restore point.

    Prints exactly the commands it runs (with --dry-run too). Before installing it
    records the environment's packages with the index URLs they came from; the
    restore command printed afterwards also removes what the install added.
    Afterwards detection and the doctor run again and report whether the GPU stack
    now works. Progress and the installer's output go to stderr; --json prints one
    JSON result on stdout.
    """
    from envcheck.commands._common import detect_snapshot
    from envcheck.commands.plan import make_plan, report_unsatisfiable
    from envcheck.compat.target import target_from_snapshot
    from envcheck.matrix import load_matrix
    from envcheck.resolve import emit
    from envcheck.resolve.fix import shadowing
    from envcheck.resolve.shell import join_argv

    if use_conda and installer not in (None, "conda"):
        raise click.UsageError(f"--conda contradicts --installer {installer}")
    tool = "conda" if use_conda else (installer or "pip")
    interpreter = python or sys.executable
    matrix = load_matrix()
    before = detect_snapshot(obj, python)
    target = target_from_snapshot(before, matrix)
    result = make_plan(requirements, target, matrix)
    if result.unsatisfiable is not None:
        return report_unsatisfiable(result, explain=False)
    uv_missing = False
    if tool == "conda":
        argvs = conda_argvs(result, interpreter)
    elif tool == "uv":
        try:
            uv = uv_binary(interpreter)
        except EnvcheckError:
            if not dry_run:
                raise
            uv, uv_missing = "uv", True  # a dry run shows the commands; a real run needs uv
        argvs = uv_argvs(result, interpreter, uv)
        gone = shadowing(result, before.packages)
        if gone:
            argvs.insert(0, [uv, "pip", "uninstall", "--python", interpreter, *gone])
    else:
        argvs = emit.pip_argvs(result, interpreter)
        # pip keeps an installed 0.28.0+cpu for ==0.28.0: those go first.
        gone = shadowing(result, before.packages)
        if gone:
            argvs.insert(0, [interpreter, "-m", "pip", "uninstall", "-y", *gone])
    # What is shown is what runs: the same argv lists, in order.
    shown = "\n".join(
        [f"# envcheck plan for {result.target.describe()}"]
        + [join_argv(argv, result.target.os) for argv in argvs]
    )
    outcome: dict[str, Any] = {
        "schema": "envcheck.install/1",
        "installer": tool,
        "plan": json.loads(emit.emit_json(result)),
        "commands": [list(a) for a in argvs],
        "installed": False,
    }
    click.echo(shown, err=as_json)
    for warning in emit.format_warnings(result, "conda" if tool == "conda" else "pip"):
        click.echo(f"warning: {warning}", err=True)
    if uv_missing:
        click.echo("warning: uv is not installed (pip install uv); the real run needs it", err=True)
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

    freeze_with = "uv" if tool == "uv" else "pip"
    cache = Path(platformdirs.user_cache_dir("envcheck")) / "restore"
    freeze = record_freeze(interpreter, cache, freeze_with)
    revision = conda_revision(argvs[0][0]) if tool == "conda" else None
    click.echo(f"recorded the installed packages in {freeze}", err=True)
    restore = _restore(interpreter, freeze, None, freeze_with, argvs, revision)
    click.echo(f"to restore them: {restore[0]}", err=True)
    outcome["restore_command"], outcome["restore_commands"] = restore

    failed = None
    for argv in argvs:
        click.echo(f"running: {' '.join(argv)}", err=True)
        code = run_streamed(argv, INSTALL_TIMEOUT_S)
        if code != 0:
            failed = (argv, code)
            break
    try:
        added = record_added(interpreter, freeze, freeze_with)
    except EnvcheckError as exc:
        added = None
        click.echo(f"warning: {exc}; the restore does not remove added packages", err=True)
    if added is not None:
        restore = _restore(interpreter, freeze, added, freeze_with, argvs, revision)
        outcome["restore_command"], outcome["restore_commands"] = restore
        click.echo(f"the install added the packages listed in {added}", err=True)
        click.echo(f"to restore the environment: {restore[0]}", err=True)
    if failed is not None:
        argv, code = failed
        click.echo(
            f"envcheck: {argv[0]} failed with exit status {code}; restore with: {restore[0]}",
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


def _restore(
    python: str,
    freeze: Path,
    added: Optional[Path],
    installer: str,
    argvs: Sequence[Sequence[str]],
    conda_rev: Optional[int],
) -> tuple[str, list[list[str]]]:
    """(the restore as one line of text, its argv lists)."""
    from envcheck.resolve.shell import join_argv

    here = "windows" if sys.platform == "win32" else "linux"
    out = []
    if conda_rev is not None:
        out.append([argvs[0][0], "install", "--yes", "--revision", str(conda_rev)])
    out += restore_argvs(python, freeze, added, installer)
    text = " && ".join(join_argv(argv, here) for argv in out)
    return text, out


def conda_revision(conda: str) -> Optional[int]:
    """The active environment's current conda revision (``conda list --revisions``)."""
    import re
    import subprocess

    try:
        done = subprocess.run(  # noqa: S603 - argv list, no shell
            [conda, "list", "--revisions"],
            capture_output=True,
            text=True,
            timeout=FREEZE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.findall(r"\(rev (\d+)\)", done.stdout) if done.returncode == 0 else []
    return int(found[-1]) if found else None


def uv_argvs(plan: Plan, python: str, uv: str) -> list[list[str]]:
    """``uv pip install --python PYTHON ...``: the pip commands, run by ``uv``."""
    from envcheck.resolve.emit import pip_argvs

    out = []
    for argv in pip_argvs(plan, python):
        # python -m pip install REQS... [--index-url U] [--find-links P]
        out.append([uv, "pip", "install", "--python", python, *argv[4:]])
    return out


def conda_argvs(plan: Plan, python: str) -> list[list[str]]:
    """``conda install`` into the active environment, then pip for the rest."""
    import os
    import shutil

    from envcheck.resolve.emit import conda_layout, pip_argvs, sub_plan

    conda = os.environ.get("CONDA_EXE") or shutil.which("conda") or "conda"
    channel, specs, pip, _ = conda_layout(plan)
    specs = [s for s in specs if not s.startswith("python=")]
    out = [[conda, "install", "--yes", "-c", channel, "--override-channels", *specs]]
    if pip:
        out += pip_argvs(sub_plan(plan, pip), python)
    return out


def _stdin_is_terminal() -> bool:
    import sys

    try:
        return bool(sys.stdin is not None and sys.stdin.isatty())
    except (AttributeError, ValueError):
        return False
