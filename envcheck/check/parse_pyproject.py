"""Parse pyproject.toml: text in, pins with line numbers out (no I/O).

Reads ``[project]`` (dependencies, optional-dependencies, requires-python),
PEP 735 ``[dependency-groups]`` (with ``include-group``), ``[tool.uv]``
indexes and sources, ``[tool.poetry]`` (``parse_poetry``), ``[tool.pixi.*]``
(read like a pixi.toml, ``parse_pixi``) and ``[tool.envcheck]`` (the declared
target). Conda match specs
are read by rattler (``parse_environment``). TOML has no
node positions in the standard library, so a line is found by locating the
requirement string in the text after its table header.
"""

from __future__ import annotations

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
    Problem,
    PythonBound,
)
from envcheck.check.parse_pixi import pixi_tables
from envcheck.check.parse_poetry import poetry_tables
from envcheck.check.parse_requirements import merge, normalise_name
from envcheck.check.toml_lines import (
    Lines,
    ParsedPyproject,
    read_toml,
    requirements_of,
    str_list,
    table_of,
)
from envcheck.errors import InputError

ENVCHECK_KEYS = ("min-driver", "gpus", "platforms", "python", "select", "ignore", "doctor")
"""``doctor`` is the doctor's own table (``envcheck.doctor_config``), not check's."""
TARGET_KEYS = ("min-driver", "gpus", "platforms", "python")
PLATFORMS = ("linux", "linux-aarch64", "windows", "wsl", "macos")


def parse_pyproject(text: str, path: str) -> ParsedPyproject:
    """Parse pyproject.toml text. Raises InputError (path:line) for invalid TOML."""
    doc = read_toml(text, path)
    lines = Lines(text)
    project = table_of(doc, "project", path, lines)
    start = lines.header("project")
    deps = project.get("dependencies", [])
    base = requirements_of(
        str_list(deps, path, lines.key("dependencies", start), "dependencies"), path, lines, start
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
        parsed = requirements_of(
            str_list(items, path, line, f"optional-dependencies.{name}"),
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
    if "poetry" in table_of(doc, "tool", path, lines):
        poetry = poetry_tables(doc, path, lines)
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
    if "pixi" in table_of(doc, "tool", path, lines):
        # pixi's pyproject mode: [tool.pixi.*] read as a pixi.toml would be, with
        # [project] in the default feature and extras/groups as features.
        bound = {n: _bind(p, indexes, sources, ()) for n, p in pixi_features.items()}
        pixi = pixi_tables(doc, lines, path, "tool.pixi.", base, bound)
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
    groups: Mapping[str, Any], path: str, lines: Lines, start: int
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
        own[name] = requirements_of(strings, path, lines, (line or 1) - 1)
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
    doc: Mapping[str, Any], path: str, lines: Lines
) -> tuple[tuple[IndexRef, ...], dict[str, tuple[str, Location]], list[Problem]]:
    """``[tool.uv]``: indexes every package may come from, and per-package sources."""
    uv = table_of(doc, "tool.uv", path, lines)
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
    doc: Mapping[str, Any], path: str, lines: Lines
) -> tuple[Optional[DeclaredTarget], list[Problem]]:
    table = table_of(doc, "tool.envcheck", path, lines)
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
    gpus = str_list(gpus, path, lines.key("gpus", start), "gpus")
    platforms = table.get("platforms", [])
    if isinstance(platforms, str):
        platforms = [platforms]
    platforms = str_list(platforms, path, lines.key("platforms", start), "platforms")
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
    doc: Mapping[str, Any], path: str, lines: Lines
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    table = table_of(doc, "tool.envcheck", path, lines)
    start = lines.header("tool.envcheck")
    out = []
    for key in ("select", "ignore"):
        try:
            out.append(parse_codes(table.get(key, []), f"[tool.envcheck] {key}"))
        except ValueError as exc:
            raise InputError(path, lines.key(key, start), str(exc)) from None
    return out[0], out[1]
