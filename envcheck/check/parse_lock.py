"""Parse lockfiles: ``uv.lock``, ``poetry.lock``, ``pixi.lock``, conda-lock (no I/O).

A lockfile holds what will really be installed: exact versions and the index
or channel each package comes from. Each locked environment (a pixi
environment on one platform, a conda-lock platform, the whole uv/poetry lock)
becomes one ``ParsedFile`` of exact pins, each pointing at the line that names
the package, so the usual checks judge them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional
from urllib.parse import unquote

from envcheck.check.model import Location, ParsedFile, Pin, Problem, PythonBound
from envcheck.check.parse_requirements import normalise_name, parse_requirement_text
from envcheck.errors import InputError

_PACKAGE_HEADER = re.compile(r"^\s*\[\[\s*package\s*\]\]\s*$")
_NAME_LINE = re.compile(r"^\s*name\s*=")
_PYPI_HOSTS = ("files.pythonhosted.org", "pypi.org")
_CONDA_FILE = re.compile(r"^(?P<name>.+)-(?P<version>[^-]+)-(?P<build>[^-]+)\.(?:conda|tar\.bz2)$")


def parse_lock(text: str, path: str, kind: str) -> list[tuple[str, ParsedFile]]:
    """(environment name, pins) for each environment the lockfile locks."""
    if kind in ("uv-lock", "poetry-lock"):
        return [(path, _toml_lock(text, path, kind))]
    if kind == "pixi-lock":
        return _pixi_lock(text, path)
    if kind == "conda-lock":
        return _conda_lock(text, path)
    raise ValueError(f"not a lockfile kind: {kind}")


# -- uv.lock and poetry.lock (TOML, one [[package]] table per locked package) ------


def _package_lines(text: str) -> list[int]:
    """1-based line of the ``name =`` of each ``[[package]]``, in order (one pass)."""
    out: list[int] = []
    waiting = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _PACKAGE_HEADER.match(line):
            out.append(number)
            waiting = True
        elif waiting and _NAME_LINE.match(line):
            out[-1] = number
            waiting = False
        elif line.lstrip().startswith("["):
            waiting = False
    return out


def _toml_lock(text: str, path: str, kind: str) -> ParsedFile:
    from envcheck.matrix.load import parse_toml

    doc = parse_toml(text, path)
    packages = doc.get("package", [])
    if not isinstance(packages, list):
        raise InputError(path, None, "package must be an array of tables")
    lines = _package_lines(text)
    pins: list[Pin] = []
    problems: list[Problem] = []
    for i, package in enumerate(packages):
        line = lines[i] if i < len(lines) and len(lines) == len(packages) else None
        if not isinstance(package, Mapping):
            raise InputError(path, line, "each [[package]] must be a table")
        name, version = package.get("name"), package.get("version")
        if not isinstance(name, str) or not isinstance(version, str):
            continue  # the project itself (uv: virtual/editable) has no version to judge
        index = _lock_index(package.get("source"), kind)
        if index is False:
            continue  # git, path or direct URL: not from an index
        loc = Location(path, line)
        pin, problem = parse_requirement_text(f"{name}=={version}", loc)
        if problem is not None:
            problems.append(problem)
        if pin is None:
            continue
        if isinstance(index, str):
            pin = _bound(pin, index, loc)
        pins.append(pin)
    return ParsedFile(path, pins=tuple(pins), problems=tuple(problems))


def _lock_index(source: Any, kind: str) -> Any:
    """The index URL a locked package comes from; None: PyPI; False: not an index."""
    if source is None:
        return None
    if not isinstance(source, Mapping):
        return False
    if kind == "uv-lock":
        registry = source.get("registry")
        if isinstance(registry, str):
            return None if _is_pypi(registry) else registry
        return False
    # poetry.lock: [package.source] type = "legacy" | "git" | "directory" | "file" | "url"
    if source.get("type") == "legacy" and isinstance(source.get("url"), str):
        return None if _is_pypi(source["url"]) else source["url"]
    return False


def _is_pypi(url: str) -> bool:
    return any(host in url for host in _PYPI_HOSTS)


def _bound(pin: Pin, index: str, loc: Location) -> Pin:
    from dataclasses import replace

    return replace(pin, index_url=index.rstrip("/"), index_location=loc)


# -- pixi.lock and conda-lock (YAML) ----------------------------------------------


def _compose(text: str, path: str) -> Any:
    """The YAML node tree (with line marks), through the environment parser's loader."""
    from envcheck.check.parse_environment import compose_yaml

    return compose_yaml(text, path)


def _plain(node: Any, path: str, depth: int = 0) -> Any:
    """A YAML node as Python values; mappings keep their nodes' lines under ``__line__``."""
    import yaml

    if depth > 64:
        raise InputError(path, _line(node), "lockfile nested too deeply")
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {"__line__": _line(node)}
        for key, value in node.value:
            out[str(getattr(key, "value", ""))] = _plain(value, path, depth + 1)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_plain(item, path, depth + 1) for item in node.value]
    return getattr(node, "value", None)


def _line(node: Any) -> Optional[int]:
    mark = getattr(node, "start_mark", None)
    return None if mark is None else int(mark.line) + 1


def _wheel_index(url: str) -> Optional[str]:
    """The index a wheel URL was served from: its directory, unless it is PyPI's."""
    if _is_pypi(url) or "/" not in url:
        return None
    return url.rsplit("/", 1)[0]


def _conda_name_version(entry: Mapping[str, Any], url: str) -> tuple[Optional[str], Optional[str]]:
    name, version = entry.get("name"), entry.get("version")
    if isinstance(name, str) and isinstance(version, str):
        return name, version
    m = _CONDA_FILE.match(unquote(url.rsplit("/", 1)[-1]))
    return (m.group("name"), m.group("version")) if m else (None, None)


def _locked_pin(
    manager: str, name: str, version: str, url: str, loc: Location
) -> tuple[Optional[Pin], Optional[Problem], tuple[PythonBound, ...]]:
    if manager == "conda":
        pin = Pin(normalise_name(name), f"=={version}", loc, f"{name}={version}", source="conda")
        python: tuple[PythonBound, ...] = ()
        minor = re.match(r"^(\d+\.\d+)", version)
        if pin.name == "python" and minor:
            python = (PythonBound(f"=={minor.group(1)}.*", f"python={version}", loc),)
        return pin, None, python
    wheel, problem = parse_requirement_text(f"{name}=={version}", loc)
    index = _wheel_index(url)
    if wheel is not None and index is not None:
        wheel = _bound(wheel, index, loc)
    return wheel, problem, ()


def _as_file(
    path: str, items: list[tuple[Optional[Pin], Optional[Problem], tuple[PythonBound, ...]]]
) -> ParsedFile:
    return ParsedFile(
        path,
        pins=tuple(p for p, _, _ in items if p is not None),
        python=tuple(b for _, _, bounds in items for b in bounds),
        problems=tuple(q for _, q, _ in items if q is not None),
    )


def _pixi_lock(text: str, path: str) -> list[tuple[str, ParsedFile]]:
    doc = _plain(_compose(text, path), path)
    if not isinstance(doc, Mapping):
        raise InputError(path, None, "a pixi.lock must be a mapping")
    packages = doc.get("packages", [])
    if not isinstance(packages, list):
        raise InputError(path, doc.get("__line__"), "packages must be a list")
    by_url: dict[str, Any] = {}
    for entry in packages:
        if not isinstance(entry, Mapping):
            continue
        if "conda" in entry or "pypi" in entry:
            manager = "conda" if "conda" in entry else "pypi"
            url = entry.get(manager)
        else:  # lock format 4: kind + url
            manager = "conda" if entry.get("kind") == "conda" else "pypi"
            url = entry.get("url")
        if not isinstance(url, str):
            continue
        if manager == "conda":
            name, version = _conda_name_version(entry, url)
        else:
            name, version = entry.get("name"), entry.get("version")
        if not isinstance(name, str) or not isinstance(version, str):
            continue
        loc = Location(path, entry.get("__line__"))
        by_url[url] = _locked_pin(manager, name, version, url, loc)
    out: list[tuple[str, ParsedFile]] = []
    environments = doc.get("environments", {})
    if not isinstance(environments, Mapping):
        environments = {}
    for env_name, env in environments.items():
        if env_name == "__line__" or not isinstance(env, Mapping):
            continue
        platforms = env.get("packages", {})
        if not isinstance(platforms, Mapping):
            continue
        for platform, refs in platforms.items():
            if platform == "__line__" or not isinstance(refs, list):
                continue
            urls = [
                next((v for k, v in ref.items() if k in ("conda", "pypi")), None)
                for ref in refs
                if isinstance(ref, Mapping)
            ]
            items = [by_url[u] for u in urls if isinstance(u, str) and u in by_url]
            out.append((f"{path} {env_name} {platform}", _as_file(path, items)))
    if not out and by_url:
        out.append((path, _as_file(path, list(by_url.values()))))
    return out


def _conda_lock(text: str, path: str) -> list[tuple[str, ParsedFile]]:
    doc = _plain(_compose(text, path), path)
    if not isinstance(doc, Mapping):
        raise InputError(path, None, "a conda-lock file must be a mapping")
    packages = doc.get("package", [])
    if not isinstance(packages, list):
        raise InputError(path, doc.get("__line__"), "package must be a list")
    platforms: dict[str, list[Any]] = {}
    for entry in packages:
        if not isinstance(entry, Mapping):
            continue
        name, version, url = entry.get("name"), entry.get("version"), entry.get("url", "")
        if not isinstance(name, str) or not isinstance(version, str):
            continue
        manager = "conda" if entry.get("manager", "conda") == "conda" else "pip"
        loc = Location(path, entry.get("__line__"))
        item = _locked_pin(manager, name, version, url if isinstance(url, str) else "", loc)
        platforms.setdefault(str(entry.get("platform", "")), []).append(item)
    return [
        (f"{path} {platform}" if platform else path, _as_file(path, items))
        for platform, items in sorted(platforms.items())
    ]
