"""Find a project's dependency files and read them into a Project (the I/O side).

Everything here that is not a directory listing or a file read is done by the
pure ``parse_*`` modules. A file that cannot be read becomes an ``EC001``
problem naming it; ``-r``/``-c`` loops and missing includes point at the line
that includes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional, Union

from envcheck.check.model import (
    INCLUDE_LOOP,
    MISSING_INCLUDE,
    UNREADABLE,
    UNREADABLE_INPUT,
    Environment,
    Location,
    ParsedFile,
    Problem,
    Project,
)
from envcheck.errors import InputError
from envcheck.inputs import check_digits, path_exists
from envcheck.textfile import read_text_file

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Dependency files are small; anything larger is not one (or is hostile)."""


def discover(root: Path) -> list[Path]:
    """Dependency files of the project in ``root``, in a stable order."""
    found: list[Path] = []
    try:
        names = sorted(p.name for p in root.iterdir())
    except OSError:
        return []
    for name in names:
        lower = name.lower()
        if lower.startswith("requirements") and lower.endswith(".txt"):
            found.append(root / name)
    sub = root / "requirements"
    if sub.is_dir():
        found.extend(sorted(p for p in sub.iterdir() if p.name.lower().endswith(".txt")))
    for name in ("environment.yml", "environment.yaml", "pyproject.toml", "pixi.toml"):
        if name in names:
            found.append(root / name)
    return [p for p in found if p.is_file()]


def kind_of(path: Path) -> str:
    """``requirements``, ``environment``, ``pyproject`` or ``pixi`` (by file name)."""
    name = path.name.lower()
    if name == "pixi.toml":
        return "pixi"
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


@dataclass
class _Reader:
    cwd: Path
    files: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    cache: dict[Path, Optional[ParsedFile]] = field(default_factory=dict)
    loops: set[frozenset[Path]] = field(default_factory=set)

    def text(self, path: Path) -> Optional[str]:
        shown = display(path, self.cwd)
        if shown not in self.files:
            self.files.append(shown)
        try:
            text = read_text_file(path, "dependency file", MAX_FILE_BYTES).replace("\r\n", "\n")
            check_digits(text, shown)  # a 5000-digit version: int() would raise ValueError
            return text
        except InputError as exc:
            self.problems.append(_unreadable(shown, exc))
            return None

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
        """``parsed`` plus everything it includes with ``-r``/``-c``, recursively."""
        from envcheck.check.parse_requirements import merge

        parts = [parsed]
        included: list[Path] = []
        for inc in parsed.includes:
            name = _expand_env(inc.target)
            target = (base / name) if not Path(name).is_absolute() else Path(name)
            if inc.project:
                parts.append(self.project_include(target, inc.extras))
                continue
            resolved = target.resolve()
            if resolved in stack:
                cycle = frozenset(stack[stack.index(resolved) :])
                if cycle not in self.loops:  # the same loop seen from another file
                    self.loops.add(cycle)
                    chain = " -> ".join(display(p, self.cwd) for p in (*stack, resolved))
                    self._once(
                        Problem(inc.location, INCLUDE_LOOP, f"include loop: {chain}", UNREADABLE)
                    )
                continue
            if not path_exists(target) or target.is_dir():  # a FIFO/device: EC001 below
                self._once(
                    Problem(
                        inc.location,
                        MISSING_INCLUDE,
                        f"included file {inc.target} not found ({display(target, self.cwd)})",
                        UNREADABLE,
                    )
                )
                continue
            included.append(resolved)
            child = self.requirements(target, inc.constraint)
            if child is None:
                continue
            if inc.constraint:
                child = replace(child, pins=tuple(replace(p, constraint=True) for p in child.pins))
            sub, more = self.closure(child, target.parent, (*stack, resolved))
            parts.append(sub)
            included.extend(more)
        merged = merge(parsed.path, parts)
        return replace(merged, includes=()), included

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
        **kwargs,  # type: ignore[arg-type]
    )


def read_project(paths: list[Union[str, Path]], cwd: Path) -> Project:
    """Read dependency files (and what they include) into environments."""
    reader = _Reader(cwd)
    envs: list[Environment] = []
    req_roots: list[tuple[Path, ParsedFile, list[Path]]] = []
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
            else:
                from envcheck.check.parse_pyproject import parse_pixi, parse_pyproject

                doc = (
                    parse_pyproject(text, shown) if kind == "pyproject" else parse_pixi(text, shown)
                )
                reader.problems.extend(doc.problems)
                reader.problems.extend(doc.base.problems)
                envs.append(_env(shown, doc.base, declared=doc.declared))
                for extra, part in doc.extras:
                    reader.problems.extend(part.problems)
                    envs.append(
                        Environment(
                            name=f"{shown} {extra}",
                            pins=doc.base.pins + part.pins,
                            indexes=doc.base.indexes,
                            python=doc.base.python,
                            declared=doc.declared,
                        )
                    )
        except InputError as exc:
            reader.problems.append(_unreadable(shown, exc))
    # A requirements file included by another one is not an environment of its own.
    included_by_others = {p for _, _, inc in req_roots for p in inc}
    for resolved, merged, _ in req_roots:
        if resolved not in included_by_others:
            envs.append(_env(merged.path, merged))
    return Project(
        files=tuple(reader.files),
        environments=tuple(envs),
        problems=tuple(dict.fromkeys(reader.problems)),
    )
