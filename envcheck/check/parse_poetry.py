"""Poetry's ``[tool.poetry]`` tables: dependencies, groups, extras, sources and its
version constraints translated to PEP 440."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from envcheck.check.model import (
    IndexRef,
    Location,
    ParsedFile,
    Pin,
    Problem,
    PythonBound,
)
from envcheck.check.parse_requirements import normalise_name, parse_requirement_text
from envcheck.check.toml_lines import (
    Lines,
    str_list,
    table_of,
)
from envcheck.errors import InputError
from envcheck.model._frozen import record


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
    lines: Lines,
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


def poetry_tables(doc: Mapping[str, Any], path: str, lines: Lines) -> _Poetry:
    """``[tool.poetry]``: dependencies, groups (and dev-dependencies) and sources."""
    poetry = table_of(doc, "tool.poetry", path, lines)
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
        table_of(doc, "tool.poetry.dependencies", path, lines),
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
        wanted = str_list(
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
            table_of(doc, dotted, path, lines), path, lines, start, named, {}
        )
        for pkg, where in bound.items():
            sources.setdefault(pkg, where)
        extras.append((f"group {name}", parsed))
    return _Poetry(base, tuple(extras), tuple(indexes), sources, python, tuple(problems))
