"""``envcheck check`` minus its command line: files in, rendered report and exit code out.

Shared by the click command (``envcheck.commands.check``) and the click-free
start of ``envcheck check [PATH...]`` in ``envcheck._entry`` (the pre-commit
hook's call), so both print the same report and return the same code.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from collections.abc import Sequence

    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix


def run_check(
    paths: Sequence[str],
    cwd: Path,
    fmt: str,
    selected: tuple[str, ...],
    ignored: tuple[str, ...],
    target_of: Callable[[Matrix], Target],
) -> tuple[str, int]:
    """Read the projects of ``paths`` (all under ``cwd`` when empty), judge their
    pins for ``target_of(matrix)``; the rendering in ``fmt`` and the exit code
    (0 clean, 1 problems, 2 unreadable input)."""
    from envcheck.check.check import check_pins
    from envcheck.check.discover import read_projects
    from envcheck.check.render import render
    from envcheck.errors import ExitCode
    from envcheck.matrix import load_matrix

    project = read_projects(project_groups(paths, cwd), cwd)
    # The compiled matrix cache makes the whole matrix cheap (~8 ms) to load.
    matrix = load_matrix()
    report = check_pins(project, target_of(matrix), matrix, selected, ignored)
    if report.unreadable:
        code = ExitCode.ERROR
    elif report.errors:
        code = ExitCode.PROBLEMS
    else:
        code = ExitCode.OK
    return render(report, fmt), int(code)


def project_groups(paths: Sequence[str], cwd: Path) -> list[list[str | Path]]:
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
