"""Parse pyproject.toml and pixi.toml: text in, pins with line numbers out (no I/O).

Reads ``[project]`` (dependencies, optional-dependencies, requires-python),
PEP 735 ``[dependency-groups]`` (with ``include-group``), ``[tool.uv]``
indexes and sources, ``[tool.poetry]``, ``[tool.pixi.*]`` (read like a
pixi.toml) and ``[tool.envcheck]`` (the declared target). Conda match specs
are read by rattler (``parse_environment``). TOML has no
node positions in the standard library, so a line is found by locating the
requirement string in the text after its table header.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Mapping
from typing import Any, Optional

from envcheck.check.model import (
    INCLUDE_LOOP,
    UNKNOWN_KEY,
    UNREADABLE,
    DeclaredTarget,
    IndexRef,
    Location,
    ParsedFile,
    Pin,
    Problem,
    PythonBound,
    SystemCuda,
)
from envcheck.check.parse_requirements import merge, normalise_name, parse_requirement_text
from envcheck.errors import InputError
from envcheck.model._frozen import record

ENVCHECK_KEYS = ("min-driver", "gpus", "platforms", "python", "select", "ignore", "doctor")
"""``doctor`` is the doctor's own table (``envcheck.doctor_config``), not check's."""
TARGET_KEYS = ("min-driver", "gpus", "platforms", "python")
PLATFORMS = ("linux", "linux-aarch64", "windows", "wsl", "macos")


@record
class ParsedPyproject:
    """The environments a pyproject.toml (or pixi.toml) describes."""

    path: str
    base: ParsedFile
    extras: tuple[tuple[str, ParsedFile], ...] = ()
    """Optional dependencies / groups / pixi features: each installed with the base."""
    declared: Optional[DeclaredTarget] = None
    problems: tuple[Problem, ...] = ()
    base_environment: bool = True
    """Whether ``base`` alone is an environment (pixi: only when no ``[environments]`` omit it)."""
    select: tuple[str, ...] = ()
    """``select`` of [tool.envcheck]: report only these codes (prefixes: ``EC1``)."""
    ignore: tuple[str, ...] = ()
    extras_standalone: bool = False
    """Whether each extra is a whole environment (pixi ``[environments]``), not base + extra."""


_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'([^\'\n]*)\'')
_SCANS = 64
"""Line searches by plain substring (a string written with escapes, a key inside an
inline table) per file; after that the item has no line. Each scans the file, so an
unbounded number of them would be quadratic (issue 26 item 2)."""


class _Lines:
    """Find the line of a key or string after a table header.

    Headers, keys at line starts and quoted strings are indexed once, so each look-up
    is a dictionary hit and a bisection, not a scan from the header (a 1 MB file of
    dependencies is read in linear time).
    """

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self._headers: dict[str, int] = {}
        self._keys: dict[str, list[int]] = {}
        self._strings: Optional[dict[str, list[int]]] = None
        self._scans = _SCANS
        # String operations, not regexes: a run of spaces stays linear.
        for i, line in enumerate(self.lines):
            stripped = line.lstrip()
            if stripped.startswith("["):
                body = stripped[2:] if stripped.startswith("[[") else stripped[1:]
                close = body.find("]")
                if close >= 0:
                    name = ".".join(part.strip() for part in body[:close].split("."))
                    self._headers.setdefault(name, i)
            head, eq, _value = line.partition("=")
            if eq:
                key = head.strip()
                key = key[1:] if key[:1] in ("'", '"') else key
                key = key[:-1] if key[-1:] in ("'", '"') else key
                self._keys.setdefault(key, []).append(i)

    def header(self, table: str) -> int:
        """0-based index of ``[table]`` (or ``[[table]]``); 0 when not written as a header."""
        return self._headers.get(table, 0)

    def _scan(self, needle: str, start: int) -> Optional[int]:
        """1-based line of ``needle`` at or after ``start`` (else anywhere), within the budget."""
        if self._scans <= 0:
            return None
        self._scans -= 1
        count = len(self.lines)
        for i in itertools.chain(range(start, count), range(min(start, count))):
            if needle in self.lines[i]:
                return i + 1
        return None

    def key(self, key: str, start: int) -> Optional[int]:
        found = _at_or_after(self._keys.get(key), start, wrap=False)
        return found if found is not None else self._scan(key, start)

    def string(self, value: str, start: int) -> Optional[int]:
        if self._strings is None:
            self._strings = {}
            line = 0
            counted = 0
            text = "\n".join(self.lines)
            for m in _STRING.finditer(text):
                line += text.count("\n", counted, m.start())
                counted = m.start()
                body = m.group(1) if m.group(1) is not None else m.group(2)
                self._strings.setdefault(body, []).append(line)
        found = _at_or_after(self._strings.get(value), start)
        return found if found is not None else self._scan(value, start)


def _at_or_after(indexes: Optional[list[int]], start: int, wrap: bool = True) -> Optional[int]:
    """1-based line of the first index at or after ``start``, else (``wrap``) of the first."""
    if not indexes:
        return None
    i = bisect.bisect_left(indexes, start)
    if i < len(indexes):
        return indexes[i] + 1
    return indexes[0] + 1 if wrap else None


def _toml(text: str, path: str) -> dict[str, Any]:
    from envcheck.matrix.load import parse_toml

    return parse_toml(text, path)


def _table(doc: Mapping[str, Any], dotted: str, path: str, lines: _Lines) -> dict[str, Any]:
    node: Any = doc
    for part in dotted.split("."):
        if not isinstance(node, Mapping):
            return {}
        node = node.get(part, {})
    if not isinstance(node, Mapping):
        raise InputError(path, lines.header(dotted) + 1, f"[{dotted}] must be a table")
    return dict(node)


def _str_list(value: Any, path: str, line: Optional[int], what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(path, line, f"{what} must be a list of strings")
    return list(value)


def _requirements(items: list[str], path: str, lines: _Lines, start: int) -> ParsedFile:
    pins: list[Pin] = []
    problems: list[Problem] = []
    for item in items:
        loc = Location(path, lines.string(item, start))
        pin, problem = parse_requirement_text(item, loc)
        if pin is not None:
            pins.append(pin)
        if problem is not None:
            problems.append(problem)
    return ParsedFile(path, pins=tuple(pins), problems=tuple(problems))


def parse_pyproject(text: str, path: str) -> ParsedPyproject:
    """Parse pyproject.toml text. Raises InputError (path:line) for invalid TOML."""
    doc = _toml(text, path)
    lines = _Lines(text)
    project = _table(doc, "project", path, lines)
    start = lines.header("project")
    deps = project.get("dependencies", [])
    base = _requirements(
        _str_list(deps, path, lines.key("dependencies", start), "dependencies"), path, lines, start
    )
    python: tuple[PythonBound, ...] = ()
    requires = project.get("requires-python")
    if requires is not None:
        line = lines.key("requires-python", start)
        if not isinstance(requires, str):
            raise InputError(path, line, "requires-python must be a string")
        python = (PythonBound(requires, f"requires-python {requires}", Location(path, line)),)
    problems: list[Problem] = []
    extras: list[tuple[str, ParsedFile]] = []
    pixi_features: dict[str, ParsedFile] = {}
    opt_start = lines.header("project.optional-dependencies")
    optional = project.get("optional-dependencies", {})
    if not isinstance(optional, Mapping):
        raise InputError(
            path, lines.key("optional-dependencies", start), "optional-dependencies must be a table"
        )
    for name, items in optional.items():
        line = lines.key(name, opt_start or start)
        parsed = _requirements(
            _str_list(items, path, line, f"optional-dependencies.{name}"),
            path,
            lines,
            line - 1 if line else 0,
        )
        extras.append((f"extra {name}", parsed))
        pixi_features[name] = parsed
    groups = doc.get("dependency-groups", {})
    if not isinstance(groups, Mapping):
        raise InputError(
            path, lines.header("dependency-groups") + 1, "[dependency-groups] must be a table"
        )
    group_start = lines.header("dependency-groups")
    expanded, loops = _groups(groups, path, lines, group_start)
    problems.extend(loops)
    extras += [(f"group {name}", parsed) for name, parsed in expanded.items()]
    for name, parsed in expanded.items():
        pixi_features[name] = (
            merge(path, [pixi_features[name], parsed]) if name in pixi_features else parsed
        )
    indexes, sources, uv_problems = _uv(doc, path, lines)
    problems.extend(uv_problems)
    if "poetry" in _table(doc, "tool", path, lines):
        poetry = _poetry(doc, path, lines)
        base = merge(path, [base, poetry.base])
        python = python or poetry.python
        extras += list(poetry.extras)
        indexes = indexes + poetry.indexes
        sources = {**poetry.sources, **sources}
        problems.extend(poetry.problems)
    base = _bind(base, indexes, sources, python)
    extras = [(n, _bind(p, indexes, sources, ())) for n, p in extras]
    declared, target_problems = _declared(doc, path, lines)
    problems.extend(target_problems)
    select, ignore = _selection(doc, path, lines)
    if "pixi" in _table(doc, "tool", path, lines):
        # pixi's pyproject mode: [tool.pixi.*] read as a pixi.toml would be, with
        # [project] in the default feature and extras/groups as features.
        bound = {n: _bind(p, indexes, sources, ()) for n, p in pixi_features.items()}
        pixi = _pixi(doc, lines, path, "tool.pixi.", base, bound)
        return ParsedPyproject(
            path,
            pixi.base,
            pixi.extras,
            declared,
            tuple(problems),
            base_environment=pixi.base_environment,
            select=select,
            ignore=ignore,
            extras_standalone=pixi.extras_standalone,
        )
    return ParsedPyproject(
        path, base, tuple(extras), declared, tuple(problems), select=select, ignore=ignore
    )


def _groups(
    groups: Mapping[str, Any], path: str, lines: _Lines, start: int
) -> tuple[dict[str, ParsedFile], list[Problem]]:
    """Every PEP 735 group with its ``{include-group = ...}`` entries expanded.

    Each group's own requirements are read once and what it includes is
    remembered per group (a DAG, not a tree: fan-out cannot multiply the work),
    walked with an explicit stack (a 1 500-group chain is no RecursionError).
    """
    own: dict[str, ParsedFile] = {}
    includes: dict[str, list[str]] = {}
    line_of: dict[str, Optional[int]] = {}
    for name, items in groups.items():
        line = lines.key(name, start)
        line_of[name] = line
        if not isinstance(items, list):
            raise InputError(path, line, f"dependency group {name!r} must be a list")
        strings: list[str] = []
        included: list[str] = []
        for item in items:
            if isinstance(item, str):
                strings.append(item)
            elif isinstance(item, Mapping) and isinstance(item.get("include-group"), str):
                if item["include-group"] not in groups:
                    raise InputError(
                        path,
                        line,
                        f"include-group names an unknown group {item['include-group'][:80]!r}",
                    )
                included.append(item["include-group"])
            else:
                raise InputError(
                    path,
                    line,
                    f"dependency group {name!r}: entries must be strings or"
                    " {include-group = ...}",
                )
        own[name] = _requirements(strings, path, lines, (line or 1) - 1)
        includes[name] = included
    reach: dict[str, tuple[str, ...]] = {}
    problems: list[Problem] = []
    loops: set[frozenset[str]] = set()
    for root in groups:
        if root in reach:
            continue
        frames: list[list[Any]] = [[root, 0]]
        on_stack = [root]
        while frames:
            frame = frames[-1]
            name, index = frame
            children = includes[name]
            if index < len(children):
                frame[1] = index + 1
                child = children[index]
                if child in on_stack:
                    cycle = frozenset(on_stack[on_stack.index(child) :])
                    if cycle not in loops:
                        loops.add(cycle)
                        chain = " -> ".join([*on_stack, child])
                        problems.append(
                            Problem(
                                Location(path, line_of[name]),
                                INCLUDE_LOOP,
                                f"dependency group include loop: {chain}",
                                UNREADABLE,
                            )
                        )
                elif child not in reach:
                    frames.append([child, 0])
                    on_stack.append(child)
                continue
            frames.pop()
            on_stack.pop()
            order: dict[str, None] = {}
            for child in children:
                if child in reach:
                    order.setdefault(child)
                    for grandchild in reach[child]:
                        order.setdefault(grandchild)
            order.pop(name, None)
            reach[name] = tuple(order)
    expanded = {name: merge(path, [own[name], *(own[g] for g in reach[name])]) for name in groups}
    return expanded, problems


def _uv(
    doc: Mapping[str, Any], path: str, lines: _Lines
) -> tuple[tuple[IndexRef, ...], dict[str, tuple[str, Location]], list[Problem]]:
    """``[tool.uv]``: indexes every package may come from, and per-package sources."""
    uv = _table(doc, "tool.uv", path, lines)
    start = lines.header("tool.uv")
    indexes: list[IndexRef] = []
    named: dict[str, tuple[str, Location]] = {}
    for key, kind in (("index-url", "index-url"), ("extra-index-url", "extra-index-url")):
        value = uv.get(key)
        urls = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        for url in urls:
            if isinstance(url, str):
                indexes.append(IndexRef(url, kind, Location(path, lines.string(url, start))))
    entries = uv.get("index", [])
    if not isinstance(entries, list):
        raise InputError(
            path, lines.key("index", start), "[tool.uv] index must be an array of tables"
        )
    for entry in entries:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("url"), str):
            raise InputError(
                path, lines.header("tool.uv.index") + 1, "each [[tool.uv.index]] needs a url"
            )
        url = entry["url"]
        loc = Location(path, lines.string(url, start))
        if isinstance(entry.get("name"), str):
            named[entry["name"]] = (url, loc)
        if not entry.get("explicit", False):
            kind = "index-url" if entry.get("default", False) else "extra-index-url"
            indexes.append(IndexRef(url, kind, loc))
    sources: dict[str, tuple[str, Location]] = {}
    src_table = uv.get("sources", {})
    if not isinstance(src_table, Mapping):
        raise InputError(path, lines.key("sources", start), "[tool.uv.sources] must be a table")
    src_start = lines.header("tool.uv.sources")
    for package, spec in src_table.items():
        specs = spec if isinstance(spec, list) else [spec]
        for one in specs:
            if isinstance(one, Mapping) and isinstance(one.get("index"), str):
                index_name = one["index"]
                line = lines.key(package, src_start or start)
                if index_name not in named:
                    raise InputError(
                        path, line, f"source of {package!r} names an unknown index {index_name!r}"
                    )
                # One entry per package: several marker-split sources keep the first.
                sources.setdefault(normalise_name(package), named[index_name])
    return tuple(indexes), sources, []


def _bind(
    parsed: ParsedFile,
    indexes: tuple[IndexRef, ...],
    sources: Mapping[str, tuple[str, Location]],
    python: tuple[PythonBound, ...],
) -> ParsedFile:
    from envcheck.model._frozen import replace

    pins = []
    for pin in parsed.pins:
        bound = sources.get(pin.name)
        if bound is not None:
            pin = replace(pin, index_url=bound[0], index_location=bound[1])
        pins.append(pin)
    return replace(parsed, pins=tuple(pins), indexes=indexes, python=python)


def _declared(
    doc: Mapping[str, Any], path: str, lines: _Lines
) -> tuple[Optional[DeclaredTarget], list[Problem]]:
    table = _table(doc, "tool.envcheck", path, lines)
    start = lines.header("tool.envcheck")
    problems = []
    for key in table:
        if key not in ENVCHECK_KEYS:
            problems.append(
                Problem(
                    Location(path, lines.key(key, start)),
                    UNKNOWN_KEY,
                    f"unknown key {key!r} in [tool.envcheck] (known: {', '.join(ENVCHECK_KEYS)})",
                    UNREADABLE,
                )
            )
    if not any(key in table for key in TARGET_KEYS):
        return None, problems
    min_driver = table.get("min-driver")
    if min_driver is not None and not isinstance(min_driver, (str, int)):
        raise InputError(
            path, lines.key("min-driver", start), 'min-driver must be a string like "535"'
        )
    gpus = table.get("gpus", [])
    if isinstance(gpus, str):
        gpus = [gpus]
    gpus = _str_list(gpus, path, lines.key("gpus", start), "gpus")
    platforms = table.get("platforms", [])
    if isinstance(platforms, str):
        platforms = [platforms]
    platforms = _str_list(platforms, path, lines.key("platforms", start), "platforms")
    for plat in platforms:
        if plat not in PLATFORMS:
            raise InputError(
                path,
                lines.key("platforms", start),
                f"unknown platform {plat!r} (known: {', '.join(PLATFORMS)})",
            )
    python = table.get("python")
    if python is not None and not isinstance(python, str):
        raise InputError(path, lines.key("python", start), 'python must be a string like "3.11"')
    declared = DeclaredTarget(
        Location(path, start + 1),
        min_driver=None if min_driver is None else str(min_driver),
        gpus=tuple(gpus),
        platforms=tuple(platforms),
        python=python,
    )
    return declared, problems


def _pixi_version(spec: Any, name: str, loc: Location) -> str:
    """The spec of a pixi dependency: ``"2.1.*"`` or ``{ version = "2.1.*", build = ... }``."""
    if isinstance(spec, Mapping):
        version, build = spec.get("version", ""), spec.get("build")
        if not isinstance(version, str):
            raise InputError(loc.path, loc.line, f"{name}: version must be a string")
        if build is not None and not isinstance(build, str):
            raise InputError(loc.path, loc.line, f"{name}: build must be a string")
        version = version.strip()
        if build:
            version = f"{version or '*'} {build.strip()}"
        return version
    if not isinstance(spec, str):
        raise InputError(loc.path, loc.line, f"{name}: must be a version string or a table")
    return spec.strip()


def _pypi_version(spec: Any, name: str, loc: Location) -> Optional[str]:
    """The version of a pixi PyPI dependency; None for a git/path/url one (not from an index)."""
    if isinstance(spec, Mapping):
        if any(k in spec for k in ("git", "path", "url")):
            return None
        version = spec.get("version", "")
        if not isinstance(version, str):
            raise InputError(loc.path, loc.line, f"{name}: version must be a string")
        return version.strip()
    if not isinstance(spec, str):
        raise InputError(loc.path, loc.line, f"{name}: must be a version string or a table")
    return spec.strip()


def parse_pixi(text: str, path: str) -> ParsedPyproject:
    """Parse pixi.toml: conda ``[dependencies]``, ``[pypi-dependencies]``, features."""
    return _pixi(_toml(text, path), _Lines(text), path, "", ParsedFile(path), {})


def _pixi(
    doc: Mapping[str, Any],
    lines: _Lines,
    path: str,
    prefix: str,
    project: ParsedFile,
    project_features: Mapping[str, ParsedFile],
) -> ParsedPyproject:
    """pixi's tables under ``prefix`` (``""`` in pixi.toml, ``tool.pixi.`` in pyproject.toml).

    ``project``: what pixi takes from ``[project]`` into the default feature;
    ``project_features``: optional-dependencies and dependency-groups, which
    pixi also offers as features of the same name.
    """
    from envcheck.check.parse_environment import parse_nameless_spec

    def env(feature: str) -> ParsedFile:
        table = f"{prefix}{feature}"
        parts: list[ParsedFile] = []
        start = lines.header(f"{table}dependencies")
        for name, spec in _table(doc, f"{table}dependencies", path, lines).items():
            loc = Location(path, lines.key(name, start))
            pin, problem = parse_nameless_spec(name, _pixi_version(spec, name, loc), loc)
            python: tuple[PythonBound, ...] = ()
            if pin.name == "python" and pin.specifier:
                python = (PythonBound(pin.specifier, pin.text, loc),)
            parts.append(
                ParsedFile(
                    path,
                    pins=(pin,),
                    python=python,
                    problems=() if problem is None else (problem,),
                )
            )
        pypi_start = lines.header(f"{table}pypi-dependencies")
        for name, spec in _table(doc, f"{table}pypi-dependencies", path, lines).items():
            loc = Location(path, lines.key(name, pypi_start))
            version = _pypi_version(spec, name, loc)
            if version is None:
                continue
            req = name if version in ("", "*") else f"{name}{version}"
            wheel, problem = parse_requirement_text(req, loc)
            parts.append(
                ParsedFile(
                    path,
                    pins=() if wheel is None else (wheel,),
                    problems=() if problem is None else (problem,),
                )
            )
        system = _table(doc, f"{table}system-requirements", path, lines)
        if "cuda" in system:
            cuda = system["cuda"]
            line = lines.key("cuda", lines.header(f"{table}system-requirements"))
            if not isinstance(cuda, (str, int, float)) or isinstance(cuda, bool):
                raise InputError(
                    path, line, 'system-requirements cuda must be a string like "12.0"'
                )
            parts.append(
                ParsedFile(path, system_cuda=(SystemCuda(str(cuda), Location(path, line)),))
            )
        return merge(path, parts)

    features = _table(doc, f"{prefix}feature", path, lines)
    names = list(dict.fromkeys([*features, *project_features]))

    def feature(name: str) -> ParsedFile:
        parts = [project_features[name]] if name in project_features else []
        if name in features:
            parts.append(env(f"feature.{name}."))
        return merge(path, parts)

    default = merge(path, [project, env("")])
    environments = _table(doc, f"{prefix}environments", path, lines)
    if environments:
        # Each environment: the default feature (unless left out) plus its features.
        extras = []
        env_start = lines.header(f"{prefix}environments")
        for name, spec in environments.items():
            line = lines.key(name, env_start)
            wanted = spec.get("features", []) if isinstance(spec, Mapping) else spec
            if not isinstance(wanted, list) or not all(isinstance(f, str) for f in wanted):
                raise InputError(
                    path, line, f"environment {name!r}: features must be a list of strings"
                )
            no_default = isinstance(spec, Mapping) and spec.get("no-default-feature", False)
            parts = [] if no_default else [default]
            for wanted_feature in wanted:
                if wanted_feature not in names:
                    raise InputError(
                        path,
                        line,
                        f"environment {name!r} names an unknown feature {wanted_feature!r}",
                    )
                parts.append(feature(wanted_feature))
            extras.append((f"environment {name}", merge(path, parts)))
        has_default = "default" in environments
        return ParsedPyproject(
            path, default, tuple(extras), base_environment=not has_default, extras_standalone=True
        )
    return ParsedPyproject(path, default, tuple((f"feature {n}", feature(n)) for n in names))


# -- Poetry -----------------------------------------------------------------------


@record
class _Poetry:
    base: ParsedFile
    extras: tuple[tuple[str, ParsedFile], ...]
    indexes: tuple[IndexRef, ...]
    sources: Mapping[str, tuple[str, Location]]
    python: tuple[PythonBound, ...]
    problems: tuple[Problem, ...]


def poetry_to_pep440(constraint: str) -> Optional[str]:
    """Translate a Poetry version constraint to a PEP 440 specifier set.

    ``^1.2.3`` → ``>=1.2.3,<2.0.0``; ``~1.2`` → ``>=1.2,<1.3``; ``2.1.0`` →
    ``==2.1.0``; ``2.1.*`` → ``==2.1.*``; ``*`` → any. Returns None for what
    one PEP 440 set cannot say (``||`` alternatives).
    """
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    text = constraint.strip()
    if text in ("", "*"):
        return ""
    if "||" in text or "|" in text:
        return None
    parts: list[str] = []
    for raw in re.split(r"\s*,\s*|\s+(?=[<>=!~^])", text):
        part = raw.strip()
        if not part or part == "*":
            continue
        if part[0] in "^~" and not part.startswith("~="):
            version = part[1:].strip()
            nums = version.split("+")[0].split(".")
            if not all(n.isdigit() for n in nums):
                return None
            ints = [int(n) for n in nums]
            if part[0] == "^":
                # The first non-zero component may not change.
                pos = next((i for i, n in enumerate(ints) if n != 0), len(ints) - 1)
            else:
                pos = 0 if len(ints) == 1 else 1
            upper = [*ints[:pos], ints[pos] + 1]
            parts += [f">={version}", "<" + ".".join(str(n) for n in upper)]
        elif part[0].isdigit():
            parts.append(f"=={part}")
        elif part.startswith("=") and not part.startswith("=="):
            parts.append(f"=={part[1:].strip()}")
        else:
            parts.append(part.replace(" ", ""))
    out = ",".join(parts)
    try:
        SpecifierSet(out)
    except InvalidSpecifier:
        return None
    return out


def _poetry_table(
    table: Mapping[str, Any],
    path: str,
    lines: _Lines,
    start: int,
    sources: Mapping[str, Any],
    optional: dict[str, Pin],
) -> tuple[ParsedFile, tuple[PythonBound, ...], dict[str, tuple[str, Location]]]:
    """One ``dependencies`` table: pins, the python bound, per-package sources."""
    from envcheck.check.model import INVALID_REQUIREMENT, WARNING

    pins: list[Pin] = []
    problems: list[Problem] = []
    python: list[PythonBound] = []
    bound: dict[str, tuple[str, Location]] = {}
    for name, spec in table.items():
        loc = Location(path, lines.key(name, start))
        specs = spec if isinstance(spec, list) else [spec]
        for one in specs:
            if isinstance(one, str):
                version, extras, source = one, [], None
            elif isinstance(one, Mapping):
                if any(k in one for k in ("git", "path", "url")):
                    continue  # not from an index
                version = one.get("version", "*")
                extras = one.get("extras", [])
                source = one.get("source")
            else:
                raise InputError(path, loc.line, f"{name}: must be a version string or a table")
            if not isinstance(version, str) or not isinstance(extras, list):
                raise InputError(path, loc.line, f"{name}: version must be a string")
            pep = poetry_to_pep440(version)
            if name == "python":
                if pep:
                    python.append(PythonBound(pep, f"python {version}", loc))
                continue
            if pep is None:
                problems.append(
                    Problem(
                        loc,
                        INVALID_REQUIREMENT,
                        f"cannot read the version in {name} = {version!r}; not checked",
                        WARNING,
                    )
                )
                continue
            extra_text = f"[{','.join(str(e) for e in extras)}]" if extras else ""
            pin, problem = parse_requirement_text(f"{name}{extra_text}{pep}", loc)
            if problem is not None:
                problems.append(problem)
            if pin is None:
                continue
            if isinstance(source, str):
                if source not in sources:
                    raise InputError(
                        path, loc.line, f"{name}: source {source!r} is not a [[tool.poetry.source]]"
                    )
                bound.setdefault(pin.name, sources[source])
            if isinstance(one, Mapping) and one.get("optional", False):
                optional[pin.name] = pin  # installed only with an extra that names it
            else:
                pins.append(pin)
            break  # several marker-split constraints: the first one
    return ParsedFile(path, pins=tuple(pins), problems=tuple(problems)), tuple(python), bound


def _poetry(doc: Mapping[str, Any], path: str, lines: _Lines) -> _Poetry:
    """``[tool.poetry]``: dependencies, groups (and dev-dependencies) and sources."""
    poetry = _table(doc, "tool.poetry", path, lines)
    poetry_start = lines.header("tool.poetry")
    # Sources: explicit ones serve only the packages that name them; the first
    # primary (or legacy default) one replaces PyPI, like pip's --index-url.
    named: dict[str, tuple[str, Location]] = {}
    indexes: list[IndexRef] = []
    entries = poetry.get("source", [])
    if not isinstance(entries, list):
        raise InputError(
            path,
            lines.key("source", poetry_start),
            "[[tool.poetry.source]] must be an array of tables",
        )
    source_start = lines.header("tool.poetry.source")
    for entry in entries:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            raise InputError(path, source_start + 1, "each [[tool.poetry.source]] needs a name")
        url = entry.get("url")
        if not isinstance(url, str):
            continue  # PyPI named as a source: the default index
        loc = Location(path, lines.string(url, source_start))
        named[entry["name"]] = (url, loc)
        priority = entry.get("priority", "default" if entry.get("default") else "primary")
        if entry.get("secondary"):
            priority = "supplemental"
        if priority == "explicit":
            continue
        primary = priority in ("primary", "default") and not any(
            i.kind == "index-url" for i in indexes
        )
        indexes.append(IndexRef(url, "index-url" if primary else "extra-index-url", loc))
    deps_start = lines.header("tool.poetry.dependencies")
    optional: dict[str, Pin] = {}
    base, python, sources = _poetry_table(
        _table(doc, "tool.poetry.dependencies", path, lines),
        path,
        lines,
        deps_start,
        named,
        optional,
    )
    extras: list[tuple[str, ParsedFile]] = []
    poetry_extras = poetry.get("extras", {})
    if not isinstance(poetry_extras, Mapping):
        raise InputError(
            path, lines.key("extras", poetry_start), "[tool.poetry.extras] must be a table"
        )
    for extra, names in poetry_extras.items():
        wanted = _str_list(
            names, path, lines.key(extra, lines.header("tool.poetry.extras")), f"extras.{extra}"
        )
        chosen = [optional[n] for n in map(normalise_name, wanted) if n in optional]
        extras.append((f"extra {extra}", ParsedFile(path, pins=tuple(chosen))))
    problems: list[Problem] = []
    groups = poetry.get("group", {})
    if not isinstance(groups, Mapping):
        raise InputError(
            path, lines.key("group", poetry_start), "[tool.poetry.group] must be a table"
        )
    tables = [(name, f"tool.poetry.group.{name}.dependencies") for name in groups]
    if "dev-dependencies" in poetry:
        tables.append(("dev", "tool.poetry.dev-dependencies"))
    for name, dotted in tables:
        start = lines.header(dotted)
        parsed, _, bound = _poetry_table(
            _table(doc, dotted, path, lines), path, lines, start, named, {}
        )
        for pkg, where in bound.items():
            sources.setdefault(pkg, where)
        extras.append((f"group {name}", parsed))
    return _Poetry(base, tuple(extras), tuple(indexes), sources, python, tuple(problems))


_CODE_PATTERN = re.compile(r"^(?:ALL|EC\d{0,3})$")


def parse_codes(values: Any, what: str) -> tuple[str, ...]:
    """``["EC1", "EC201"]`` or ``"EC1,EC201"`` → codes; ValueError names a bad one."""
    if isinstance(values, str):
        values = values.split(",")
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ValueError(f'{what} must be a list of codes like "EC103"')
    codes = tuple(v.strip().upper() for v in values if v.strip())
    for code in codes:
        if not _CODE_PATTERN.match(code):
            raise ValueError(f"{what}: {code[:20]!r} is not a code (EC103, a prefix EC1, or ALL)")
    return codes


def _selection(
    doc: Mapping[str, Any], path: str, lines: _Lines
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    table = _table(doc, "tool.envcheck", path, lines)
    start = lines.header("tool.envcheck")
    out = []
    for key in ("select", "ignore"):
        try:
            out.append(parse_codes(table.get(key, []), f"[tool.envcheck] {key}"))
        except ValueError as exc:
            raise InputError(path, lines.key(key, start), str(exc)) from None
    return out[0], out[1]
