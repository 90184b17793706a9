"""``envcheck check`` minus its command line: files in, rendered report and exit code out.

Shared by the click command (``envcheck.commands.check``) and the click-free
start of ``envcheck check [PATH...]`` in ``envcheck._entry`` (the pre-commit
hook's call), so both print the same report and return the same code.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

if TYPE_CHECKING:
    from collections.abc import Sequence

    from envcheck.check.model import Problem
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
    from envcheck.model._frozen import replace

    empty: list[Path] = []
    project = read_projects(project_groups(paths, cwd, empty), cwd)
    if empty:
        project = replace(project, problems=(*project.problems, *_nothing_found(empty, cwd)))
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


def project_groups(
    paths: Sequence[str], cwd: Path, empty: Optional[list[Path]] = None
) -> list[list[str | Path]]:
    """The dependency files to read, one list per project, in a stable order.

    Each directory searched (``cwd`` when no path is given) that holds no
    dependency file at any depth is appended to ``empty``.
    """
    from envcheck.check.discover import discover, discover_projects, project_dir_of

    groups: dict[Path, list[str | Path]] = {}
    searched = [cwd] if not paths else []
    for given in paths:
        path = Path(given)
        if not path.is_absolute():
            path = cwd / path
        if path.is_dir():
            searched.append(path)
            continue
        directory = project_dir_of(path)
        files: list[str | Path] = list(discover(directory))
        # A file check would not find by itself (an include, a differently named
        # file) is still checked: it was asked for.
        if path.resolve() not in {Path(f).resolve() for f in files}:
            files.append(path)
        groups.setdefault(directory, []).extend(files)
    for path in searched:
        found_here = discover_projects(path)
        if not found_here and empty is not None:
            empty.append(path)
        for directory, found in found_here:
            groups.setdefault(directory, []).extend(found)
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


def _nothing_found(directories: Sequence[Path], cwd: Path) -> list[Problem]:
    """One EC204 warning per searched directory that holds no dependency file."""
    from envcheck.check.discover import display
    from envcheck.check.model import NO_DEPENDENCY_FILES, WARNING, Location, Problem

    return [
        Problem(
            Location(display(d, cwd) or ".", None),
            NO_DEPENDENCY_FILES,
            "no dependency files found (requirements*.txt, *.in, environment*.yml, conda.yml,"
            " pyproject.toml, pixi.toml, lockfiles); nothing was checked",
            WARNING,
        )
        for d in directories
    ]
