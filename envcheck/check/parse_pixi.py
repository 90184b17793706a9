"""pixi's manifest: pixi.toml, and ``[tool.pixi.*]`` in a pyproject.toml (conda
``[dependencies]``, ``[pypi-dependencies]``, features and environments)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from envcheck.check.model import (
    Location,
    ParsedFile,
    PythonBound,
    SystemCuda,
)
from envcheck.check.parse_requirements import merge, parse_requirement_text
from envcheck.check.toml_lines import (
    Lines,
    ParsedPyproject,
    read_toml,
    table_of,
)
from envcheck.errors import InputError


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
    return pixi_tables(read_toml(text, path), Lines(text), path, "", ParsedFile(path), {})


def pixi_tables(
    doc: Mapping[str, Any],
    lines: Lines,
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
        for name, spec in table_of(doc, f"{table}dependencies", path, lines).items():
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
        for name, spec in table_of(doc, f"{table}pypi-dependencies", path, lines).items():
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
        system = table_of(doc, f"{table}system-requirements", path, lines)
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

    features = table_of(doc, f"{prefix}feature", path, lines)
    names = list(dict.fromkeys([*features, *project_features]))

    def feature(name: str) -> ParsedFile:
        parts = [project_features[name]] if name in project_features else []
        if name in features:
            parts.append(env(f"feature.{name}."))
        return merge(path, parts)

    default = merge(path, [project, env("")])
    environments = table_of(doc, f"{prefix}environments", path, lines)
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
