"""Find a project's dependency files and read them into a Project (the I/O side).

Everything here that is not a directory listing or a file read is done by the
pure ``parse_*`` modules. A file that cannot be read becomes an ``EC001``
problem naming it; ``-r``/``-c`` loops and missing includes point at the line
that includes.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Optional, Union

from envcheck.check.model import (
    INCLUDE_LOOP,
    MISSING_INCLUDE,
    UNREADABLE,
    UNREADABLE_INPUT,
    DeclaredTarget,
    Environment,
    Include,
    Location,
    ParsedFile,
    Problem,
    Project,
    Selection,
    Suppression,
)
from envcheck.errors import InputError
from envcheck.inputs import check_digits, path_exists
from envcheck.model._frozen import replace
from envcheck.textfile import read_text_file

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Dependency files are small; anything larger is not one (or is hostile)."""


LOCKFILES = ("uv.lock", "poetry.lock", "pixi.lock")
REQUIREMENTS_SUFFIXES = (".txt", ".in")
"""pip requirements files, and the pip-tools ``*.in`` files they are compiled from."""
_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".pixi",
        ".eggs",
        "node_modules",
        "__pycache__",
        "site-packages",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)
MAX_DIRECTORIES = 20000
"""A repository walk stops after this many directories (a hostile tree stays bounded)."""


def is_requirements_file(name: str) -> bool:
    """pip requirements and pip-tools inputs: ``*requirements*.txt`` / ``*requirements*.in``
    in any spelling (``dev-requirements.txt``, ``requirements_gpu.txt``, ``Requirements.txt``)."""
    lower = name.lower()
    return "requirements" in lower and lower.endswith(REQUIREMENTS_SUFFIXES)


def is_environment_file(name: str) -> bool:
    """conda environment specs: ``environment*.yml|yaml`` and ``conda.yml|yaml``."""
    lower = name.lower()
    if not lower.endswith((".yml", ".yaml")) or is_conda_lock(lower):
        return False
    return lower.startswith("environment") or lower in ("conda.yml", "conda.yaml")


def is_dependency_file(name: str) -> bool:
    """Whether a file name is one ``check`` reads on its own (not only as an include)."""
    if is_requirements_file(name) or is_environment_file(name) or is_conda_lock(name):
        return True
    return name.lower() in ("pyproject.toml", "pixi.toml", *LOCKFILES)


def is_conda_lock(name: str) -> bool:
    """``conda-lock.yml`` and ``*.conda-lock.yml`` (the unified conda-lock format)."""
    return name.lower().endswith(("conda-lock.yml", "conda-lock.yaml"))


def discover(root: Path) -> list[Path]:
    """Dependency files of the project in ``root`` (this directory only), in a stable order."""
    found: list[Path] = []
    try:
        names = sorted(p.name for p in root.iterdir())
    except OSError:
        return []
    found.extend(root / name for name in names if is_requirements_file(name))
    sub = root / "requirements"
    if sub.is_dir():
        with contextlib.suppress(OSError):
            found.extend(
                sorted(p for p in sub.iterdir() if p.name.lower().endswith(REQUIREMENTS_SUFFIXES))
            )
    found.extend(root / name for name in names if is_environment_file(name))
    for name in ("pyproject.toml", "pixi.toml", *LOCKFILES):
        if name in names:
            found.append(root / name)
    found.extend(root / name for name in names if is_conda_lock(name))
    return [p for p in found if p.is_file()]


def discover_projects(root: Path) -> list[tuple[Path, list[Path]]]:
    """Every project under ``root``: each directory that holds dependency files.

    Skips hidden directories, virtual environments and caches, and does not
    follow symbolic links to directories (no cycles, no escaping the tree).
    """
    projects: list[tuple[Path, list[Path]]] = []
    pending = [root]
    seen = 0
    while pending and seen < MAX_DIRECTORIES:
        directory = pending.pop()
        seen += 1
        files = discover(directory)
        if files:
            projects.append((directory, files))
        try:
            children = sorted(
                (p for p in directory.iterdir() if p.is_dir() and not p.is_symlink()),
                key=lambda p: p.name,
                reverse=True,
            )
        except OSError:
            continue
        for child in children:
            if child.name in _SKIP_DIRS or child.name.startswith("."):
                continue
            if child.name == "requirements" and files:
                continue  # its files belong to the project above
            pending.append(child)
    return sorted(projects, key=lambda item: item[0])


def project_dir_of(path: Path) -> Path:
    """The project a dependency file belongs to: its directory (``requirements/`` goes up)."""
    parent = path.parent
    return parent.parent if parent.name == "requirements" else parent


def kind_of(path: Path) -> str:
    """``requirements``, ``environment``, ``pyproject``, ``pixi`` or a lockfile kind."""
    name = path.name.lower()
    if name == "pixi.toml":
        return "pixi"
    if name in LOCKFILES:
        return name.replace(".", "-")
    if is_conda_lock(name):
        return "conda-lock"
    if name.endswith(".toml"):
        return "pyproject"
    if name.endswith((".yml", ".yaml")):
        return "environment"
    return "requirements"


def display(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


class _Reader:
    """What reading one project's files has found so far (filled in as it reads)."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.files: list[str] = []
        self.problems: list[Problem] = []
        self.cache: dict[Path, Optional[ParsedFile]] = {}
        self.loops: set[frozenset[Path]] = set()
        self.suppressions: list[Suppression] = []
        self.reach: dict[tuple[Path, bool], tuple[tuple[Path, bool], ...]] = {}
        """Every file a file includes, directly or not (memo of ``_reach``)."""
        self.own: dict[tuple[Path, bool], ParsedFile] = {}
        """A file's own facts (its local-project includes merged in, its -r/-c not)."""
        self.pending: dict[tuple[Path, bool], ParsedFile] = {}

    def text(self, path: Path) -> Optional[str]:
        shown = display(path, self.cwd)
        if shown not in self.files:
            self.files.append(shown)
        try:
            text = read_text_file(path, "dependency file", MAX_FILE_BYTES).replace("\r\n", "\n")
            check_digits(text, shown)  # a 5000-digit version: int() would raise ValueError
        except InputError as exc:
            self.problems.append(_unreadable(shown, exc))
            return None
        if "envcheck:" in text:
            self.suppressions.extend(suppressions(text, shown))
        return text

    def requirements(self, path: Path, constraint: bool = False) -> Optional[ParsedFile]:
        """One requirements file, parsed once (includes not followed)."""
        key = path.resolve()
        if key in self.cache:
            return self.cache[key]
        from envcheck.check.parse_requirements import parse_requirements

        text = self.text(path)
        parsed = (
            None if text is None else parse_requirements(text, display(path, self.cwd), constraint)
        )
        if parsed is not None:
            self.problems.extend(parsed.problems)
        self.cache[key] = parsed
        return parsed

    def closure(
        self, parsed: ParsedFile, base: Path, stack: tuple[Path, ...]
    ) -> tuple[ParsedFile, list[Path]]:
        """``parsed`` plus everything it includes with ``-r``/``-c``, each file once.

        Includes form a DAG, not a tree: what a file brings is worked out once
        per file and remembered (22 files that each include the next two do not
        give 2^22 expansions, and 200 chained files are not re-walked for each
        of them), with an explicit stack instead of recursion.
        """
        from envcheck.check.parse_requirements import merge

        root = (stack[-1], False)
        nodes = self._reach(root, parsed, base)
        parts = [self.own[root], *(self.own[n] for n in nodes)]
        merged = merge(parsed.path, parts)
        return replace(merged, includes=()), [n[0] for n in nodes]

    def _reach(
        self, root: tuple[Path, bool], parsed: ParsedFile, base: Path
    ) -> tuple[tuple[Path, bool], ...]:
        """Every file ``root`` includes, directly or not, in first-seen order (memoised)."""
        if root in self.reach:
            return self.reach[root]
        frames: list[tuple[tuple[Path, bool], list[tuple[tuple[Path, bool], Include]], int]] = []
        path_stack: list[Path] = []

        def enter(key: tuple[Path, bool], node: ParsedFile, where: Path) -> None:
            frames.append((key, self._children(key, node, where), 0))
            path_stack.append(key[0])

        enter(root, parsed, base)
        while frames:
            key, children, index = frames[-1]
            if index < len(children):
                frames[-1] = (key, children, index + 1)
                child, inc = children[index]
                if child[0] in path_stack:
                    self._loop(path_stack, child[0], inc)
                elif child not in self.reach:
                    enter(child, self.pending.pop(child), child[0].parent)
                continue
            frames.pop()
            path_stack.pop()
            order: dict[tuple[Path, bool], None] = {}
            for child, _ in children:
                if child in self.reach:
                    order.setdefault(child)
                    for grandchild in self.reach[child]:
                        order.setdefault(grandchild)
            order.pop(key, None)
            self.reach[key] = tuple(order)
        return self.reach[root]

    def _children(
        self, key: tuple[Path, bool], parsed: ParsedFile, base: Path
    ) -> list[tuple[tuple[Path, bool], Include]]:
        """The files ``parsed`` includes (read now); records its own facts in ``own``."""
        from envcheck.check.parse_requirements import merge

        parts = [replace(parsed, includes=())]
        out: list[tuple[tuple[Path, bool], Include]] = []
        for inc in parsed.includes:
            name = _expand_env(inc.target)
            try:
                target = (base / name) if not Path(name).is_absolute() else Path(name)
                if inc.project:
                    parts.append(self.project_include(target, inc.extras))
                    continue
                resolved = target.resolve()
                # A FIFO or device exists: reading it gives the input gate's EC001.
                exists = target.is_file() or (path_exists(target) and not target.is_dir())
            except (OSError, ValueError) as exc:
                reason = getattr(exc, "strerror", None) or "not a usable path"
                self._once(
                    Problem(
                        inc.location,
                        UNREADABLE_INPUT,
                        f"included file {_shown_target(inc.target)} cannot be read: {reason}",
                        UNREADABLE,
                    )
                )
                continue
            if not exists:
                # Never the expanded value: ${VAR} may hold a secret (CI logs are public).
                where = "" if "$" in inc.target else f" ({display(target, self.cwd)})"
                self._once(
                    Problem(
                        inc.location,
                        MISSING_INCLUDE,
                        f"included file {_shown_target(inc.target)} not found{where}",
                        UNREADABLE,
                    )
                )
                continue
            child_key = (resolved, inc.constraint)
            if child_key not in self.own and child_key not in self.pending:
                child = self.requirements(target, inc.constraint)
                if child is None:
                    continue
                if inc.constraint:
                    child = replace(
                        child, pins=tuple(replace(p, constraint=True) for p in child.pins)
                    )
                self.pending[child_key] = child
            out.append((child_key, inc))
        self.own[key] = merge(parsed.path, parts)
        return out

    def _loop(self, path_stack: list[Path], again: Path, inc: Include) -> None:
        cycle = frozenset(path_stack[path_stack.index(again) :])
        if cycle in self.loops:  # the same loop seen from another file
            return
        self.loops.add(cycle)
        chain = " -> ".join(display(p, self.cwd) for p in (*path_stack, again))
        self._once(Problem(inc.location, INCLUDE_LOOP, f"include loop: {chain}", UNREADABLE))

    def project_include(self, directory: Path, extras: tuple[str, ...]) -> ParsedFile:
        """The dependencies ``pip install ./dir[extras]`` brings from its pyproject.toml."""
        from envcheck.check.parse_pyproject import parse_pyproject
        from envcheck.check.parse_requirements import merge, normalise_name

        path = directory / "pyproject.toml"
        shown = display(path, self.cwd)
        if not path_exists(path) or path.is_dir():
            return ParsedFile(shown)  # setup.py projects: nothing we can read
        text = self.text(path)
        if text is None:
            return ParsedFile(shown)
        try:
            doc = parse_pyproject(text, shown)
        except InputError as exc:
            self._once(_unreadable(shown, exc))
            return ParsedFile(shown)
        parts = [doc.base]
        wanted = {f"extra {normalise_name(e)}" for e in extras}
        parts += [part for name, part in doc.extras if normalise_name(name) in wanted]
        merged = merge(shown, parts)
        # pip does not read [tool.uv.sources]: the pins come from the usual indexes.
        pins = tuple(replace(p, index_url=None, index_location=None) for p in merged.pins)
        return replace(merged, pins=pins, indexes=(), python=(), problems=())

    def _once(self, problem: Problem) -> None:
        if problem not in self.problems:
            self.problems.append(problem)


_SUPPRESS = re.compile(r"#\s*envcheck:\s*ignore\b(?:\[([A-Za-z0-9, ]{0,200})\])?")


def suppressions(text: str, shown: str) -> list[Suppression]:
    """``# envcheck: ignore[EC201,EC103]`` / ``# envcheck: ignore`` comments, by line.

    The same comment works in requirements files, TOML and YAML (all use ``#``).
    """
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        if "envcheck:" not in line:
            continue
        m = _SUPPRESS.search(line)
        if m is None:
            continue
        codes = tuple(c.strip().upper() for c in (m.group(1) or "").split(",") if c.strip())
        out.append(Suppression(Location(shown, number), codes))
    return out


def _shown_target(target: str) -> str:
    """An include target for a one-line message (a 300-character name is cut)."""
    return target if len(target) <= 80 else target[:77] + "..."


def _expand_env(text: str) -> str:
    """pip expands ``${NAME}`` (upper case, digits, underscores) in requirement files."""
    import os
    import re

    return re.sub(r"\$\{([A-Z0-9_]+)\}", lambda m: os.environ.get(m.group(1), m.group(0)), text)


def _unreadable(shown: str, exc: InputError) -> Problem:
    return Problem(Location(shown, exc.line), UNREADABLE_INPUT, exc.message, UNREADABLE)


def _env(name: str, parsed: ParsedFile, **kwargs: object) -> Environment:
    return Environment(
        name=name,
        pins=parsed.pins,
        indexes=parsed.indexes,
        python=parsed.python,
        system_cuda=parsed.system_cuda,
        **kwargs,  # type: ignore[arg-type]
    )


def read_project(paths: list[Union[str, Path]], cwd: Path) -> Project:
    """Read dependency files (and what they include) as one project."""
    return read_projects([paths], cwd)


def read_projects(groups: list[list[Union[str, Path]]], cwd: Path) -> Project:
    """Read each project's dependency files (and what they include) into environments.

    A project's ``[tool.envcheck]`` (in its pyproject.toml) applies to every
    environment of that project, not only to the pyproject's own dependencies.
    """
    reader = _Reader(cwd)
    envs: list[Environment] = []
    selections: list[Selection] = []
    for paths in groups:
        first = len(reader.files)
        group_envs, selection = _read_group(reader, paths, cwd)
        envs.extend(group_envs)
        if selection is not None:
            selections.append(replace(selection, files=tuple(reader.files[first:])))
    return Project(
        files=tuple(reader.files),
        environments=tuple(envs),
        problems=tuple(dict.fromkeys(reader.problems)),
        suppressions=tuple(reader.suppressions),
        selections=tuple(selections),
    )


def _read_group(
    reader: _Reader, paths: list[Union[str, Path]], cwd: Path
) -> tuple[list[Environment], Optional[Selection]]:
    envs: list[Environment] = []
    selection: Optional[Selection] = None
    req_roots: list[tuple[Path, ParsedFile, list[Path]]] = []
    declared: Optional[DeclaredTarget] = None
    for given in paths:
        path = Path(given)
        if not path.is_absolute():
            path = cwd / path
        kind = kind_of(path)
        shown = display(path, cwd)
        if kind == "requirements":
            parsed = reader.requirements(path)
            if parsed is None:
                continue
            merged, included = reader.closure(parsed, path.parent, (path.resolve(),))
            req_roots.append((path.resolve(), merged, included))
            continue
        text = reader.text(path)
        if text is None:
            continue
        try:
            if kind == "environment":
                from envcheck.check.parse_environment import parse_environment

                parsed = parse_environment(text, shown)
                reader.problems.extend(parsed.problems)
                merged, _ = reader.closure(parsed, path.parent, (path.resolve(),))
                envs.append(_env(shown, merged))
            elif kind in ("pyproject", "pixi"):
                from envcheck.check.parse_pixi import parse_pixi
                from envcheck.check.parse_pyproject import parse_pyproject

                doc = (
                    parse_pyproject(text, shown) if kind == "pyproject" else parse_pixi(text, shown)
                )
                if doc.declared is not None and kind == "pyproject":
                    declared = doc.declared
                if doc.select or doc.ignore:
                    selection = Selection((), doc.select, doc.ignore)
                reader.problems.extend(doc.problems)
                reader.problems.extend(doc.base.problems)
                if doc.base_environment:
                    envs.append(_env(shown, doc.base, declared=doc.declared))
                for extra, part in doc.extras:
                    reader.problems.extend(part.problems)
                    pins = part.pins if doc.extras_standalone else doc.base.pins + part.pins
                    envs.append(
                        Environment(
                            name=f"{shown} {extra}",
                            pins=pins,
                            indexes=part.indexes if doc.extras_standalone else doc.base.indexes,
                            python=part.python if doc.extras_standalone else doc.base.python,
                            declared=doc.declared,
                            system_cuda=part.system_cuda
                            if doc.extras_standalone
                            else doc.base.system_cuda + part.system_cuda,
                        )
                    )
            else:
                from envcheck.check.parse_lock import parse_lock

                for name, part in parse_lock(text, shown, kind):
                    reader.problems.extend(part.problems)
                    envs.append(_env(name, part))
        except InputError as exc:
            reader.problems.append(_unreadable(shown, exc))
    # A requirements file included by another one is not an environment of its own.
    included_by_others = {p for _, _, inc in req_roots for p in inc}
    for resolved, merged, _ in req_roots:
        if resolved not in included_by_others:
            envs.append(_env(merged.path, merged))
    if declared is not None:
        envs = [
            env if env.declared is not None else replace(env, declared=declared) for env in envs
        ]
    return envs, selection
