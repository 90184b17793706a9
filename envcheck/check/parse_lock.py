"""Parse lockfiles: ``uv.lock``, ``poetry.lock``, ``pixi.lock``, conda-lock (no I/O).

A lockfile holds what will really be installed: exact versions and the index
or channel each package comes from. Each locked environment (a pixi
environment on one platform, a conda-lock platform, the whole uv/poetry lock)
becomes one ``ParsedFile`` of exact pins, each pointing at the line that names
the package, so the usual checks judge them. pixi.lock and conda-lock files are
read by rattler (the library pixi is built on); uv.lock and poetry.lock as TOML.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Optional

from envcheck.check.model import Location, ParsedFile, Pin, Problem, PythonBound
from envcheck.check.parse_requirements import normalise_name, parse_requirement_text
from envcheck.errors import InputError

_PACKAGE_HEADER = re.compile(r"^\s*\[\[\s*package\s*\]\]\s*$")
_NAME_LINE = re.compile(r"^\s*name\s*=")
_PYPI_HOSTS = ("files.pythonhosted.org", "pypi.org")


def parse_lock(text: str, path: str, kind: str) -> list[tuple[str, ParsedFile]]:
    """(environment name, pins) for each environment the lockfile locks."""
    if kind in ("uv-lock", "poetry-lock"):
        return [(path, _toml_lock(text, path, kind))]
    if kind in ("pixi-lock", "conda-lock"):
        return _rattler_lock(text, path, kind)
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
    from envcheck.model._frozen import replace

    return replace(pin, index_url=index.rstrip("/"), index_location=loc)


# -- pixi.lock and conda-lock (YAML, read by rattler) -------------------------------

_SECTION = re.compile(r"^(?:packages|package):\s*$")
_ITEM = re.compile(r"^(\s*)- ")
_FIELD = re.compile(r"^(\s*)(?:- )?(conda|pypi|url|platform):\s*['\"]?([^'\"\s]+)")
_AT_LINE = re.compile(r"\bat line (\d+)")


def _entry_lines(text: str) -> dict[tuple[str, str], int]:
    """(url, platform) → 1-based line of the package entry that names it.

    rattler keeps no positions, so the entries of the top-level ``packages:``
    (pixi.lock) or ``package:`` (conda-lock) list are found by their lines:
    one pass, no parsing beyond the keys that identify an entry.
    """
    out: dict[tuple[str, str], int] = {}
    inside = False
    indent: Optional[int] = None
    start = 0
    url = platform = ""

    def flush() -> None:
        if url:
            out.setdefault((url, platform), start)
            out.setdefault((url, ""), start)

    for number, line in enumerate(text.splitlines(), start=1):
        if _SECTION.match(line):
            flush()
            inside, indent, url, platform = True, None, "", ""
            continue
        if not inside:
            continue
        if line and not line[0].isspace() and not line.startswith("-"):
            flush()
            inside, url, platform = False, "", ""
            continue
        item = _ITEM.match(line)
        if item is not None and (indent is None or len(item.group(1)) == indent):
            flush()
            indent, start, url, platform = len(item.group(1)), number, "", ""
        field = _FIELD.match(line)
        if field is not None and indent is not None:
            own = item is not None and len(item.group(1)) == indent
            if own or len(field.group(1)) == indent + 2:
                if field.group(2) == "platform":
                    platform = field.group(3)
                else:
                    url = field.group(3)
    flush()
    return out


def _rattler_lock(text: str, path: str, kind: str) -> list[tuple[str, ParsedFile]]:
    """pixi.lock (any version rattler reads) and conda-lock files, through rattler.

    The input gate runs first (size was capped when the text was read; here the
    YAML depth, alias and node bounds), then rattler parses the same text.
    """
    import tempfile
    from pathlib import Path

    from envcheck.inputs import check_yaml_events

    check_yaml_events(text, path)
    from rattler import LockFile
    from rattler.exceptions import ParseCondaLockError

    with tempfile.TemporaryDirectory(prefix="envcheck-lock-") as tmp:
        copy = Path(tmp) / "lock.yml"
        copy.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            lock = LockFile.from_path(copy)
        except (ParseCondaLockError, ValueError, OSError) as exc:
            raise _lock_error(path, exc) from None
    lines = _entry_lines(text)
    out: list[tuple[str, ParsedFile]] = []
    for env_name, env in lock.environments():
        for platform, packages in env.packages_by_platform().items():
            plat = str(getattr(platform, "name", platform))
            items = [_locked(pkg, plat, lines, path) for pkg in packages]
            items.sort(key=lambda item: item[3])
            name = f"{path} {env_name} {plat}" if kind == "pixi-lock" else f"{path} {plat}"
            out.append((name, _as_file(path, [item[:3] for item in items])))
    return sorted(out, key=lambda pair: pair[0])


def _lock_error(path: str, exc: Exception) -> InputError:
    lines = str(exc).strip().splitlines()
    why = lines[0] if lines else "malformed"
    at = _AT_LINE.search(why)
    return InputError(path, int(at.group(1)) if at else None, f"invalid lockfile: {why}")


def _locked(
    package: Any, platform: str, lines: dict[tuple[str, str], int], path: str
) -> tuple[Optional[Pin], Optional[Problem], tuple[PythonBound, ...], int]:
    """One rattler locked package as a pin (and the file line, to keep file order)."""
    url = str(package.location)
    line = lines.get((url, platform), lines.get((url, "")))
    from rattler import PypiLockedPackage

    manager = "pypi" if isinstance(package, PypiLockedPackage) else "conda"
    pin, problem, python = _locked_pin(
        manager, str(package.name), str(package.version), url, Location(path, line)
    )
    return pin, problem, python, line or 0


def _wheel_index(url: str) -> Optional[str]:
    """The index a wheel URL was served from: its directory, unless it is PyPI's."""
    if _is_pypi(url) or "/" not in url:
        return None
    return url.rsplit("/", 1)[0]


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
