"""Parse conda ``environment.yml``: text in, pins with line numbers out (no I/O).

Line numbers come from the YAML node tree (``yaml.compose``), so every pin,
including the nested ``pip:`` list, points at its own line. PyYAML is imported
here only, when an environment file is actually read.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from envcheck.check.model import (
    INVALID_REQUIREMENT,
    UNKNOWN_KEY,
    WARNING,
    Location,
    ParsedFile,
    Pin,
    Problem,
    PythonBound,
)
from envcheck.check.parse_requirements import merge, normalise_name, parse_line
from envcheck.errors import InputError

_KNOWN_KEYS = ("name", "channels", "dependencies", "prefix", "variables", "platforms", "category")
_MATCH_SPEC = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.\-]*)\s*(.*)$")


def conda_spec_to_pep440(spec: str) -> Optional[str]:
    """Translate the version part of a conda match spec to a PEP 440 specifier.

    ``=2.1`` → ``==2.1.*``; ``2.1.*`` → ``==2.1.*``; ``==2.1.0`` → ``==2.1.0``;
    ``>=1.0,<2`` unchanged; a build string (``=2.1.0=py310_0``) is dropped.
    Returns None for what PEP 440 cannot say (``|`` alternatives, brackets).
    """
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    text = spec.strip()
    if not text:
        return ""
    if "|" in text or "[" in text:
        return None
    if text[0].isdigit():
        # ``2.1.*``, ``2.1.0``, ``2.1.0 py310_0``: a bare version (then a build string).
        version = re.split(r"[\s=]", text, maxsplit=1)[0]
        out = _prefix(version) if version.endswith("*") else f"=={version}"
    else:
        parts = []
        for part in text.split(","):
            m = re.match(r"^(==|>=|<=|!=|~=|>|<|=)\s*([^\s=]+)", part.strip())
            if m is None:
                return None
            op, version = m.groups()
            parts.append(_prefix(version) if op == "=" else op + version)
        out = ",".join(parts)
    try:
        SpecifierSet(out)
    except InvalidSpecifier:
        return None
    return out


def _prefix(version: str) -> str:
    base = version.rstrip("*").rstrip(".")
    return f"=={base}.*" if base else ""


def parse_conda_spec(text: str, loc: Location) -> tuple[Optional[Pin], Optional[Problem]]:
    """``conda-forge::pytorch=2.1`` → Pin(name="pytorch", specifier="==2.1.*")."""
    spec = text.strip()
    if "::" in spec:
        spec = spec.split("::", 1)[1]
    m = _MATCH_SPEC.match(spec)
    if m is None:
        return None, Problem(loc, INVALID_REQUIREMENT, f"not a conda package spec: {text!r}")
    name, rest = m.group(1), m.group(2)
    pep = conda_spec_to_pep440(rest)
    if pep is None:
        return Pin(normalise_name(name), "", loc, text, source="conda"), Problem(
            loc,
            INVALID_REQUIREMENT,
            f"cannot read the version in {text!r}; not checked",
            WARNING,
        )
    return Pin(normalise_name(name), pep, loc, text, source="conda"), None


def compose_yaml(text: str, path: str) -> Any:
    """The YAML node tree of ``text`` (line marks kept), through the input gate:
    bounded depth, aliases and digits; InputError (path:line) if invalid."""
    from envcheck.inputs import compose_yaml as gated

    return gated(text, path)


def parse_environment(text: str, path: str) -> ParsedFile:
    """Parse environment.yml text. Raises InputError (path:line) for invalid YAML."""
    import yaml

    root = compose_yaml(text, path)
    if root is None:
        return ParsedFile(path)
    if not isinstance(root, yaml.MappingNode):
        raise InputError(path, _line(root), "an environment file must be a mapping")
    parts: list[ParsedFile] = []
    for key_node, value_node in root.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        loc = Location(path, _line(key_node))
        if key not in _KNOWN_KEYS:
            parts.append(
                ParsedFile(
                    path,
                    problems=(Problem(loc, UNKNOWN_KEY, f"unknown key {key!r}", WARNING),),
                )
            )
            continue
        if key != "dependencies":
            continue
        if not isinstance(value_node, yaml.SequenceNode):
            if isinstance(value_node, yaml.ScalarNode) and value_node.value in ("", "~", "null"):
                continue
            raise InputError(path, _line(value_node), "dependencies must be a list")
        for item in value_node.value:
            parts.append(_dependency(item, path, yaml))
    return merge(path, parts)


def _dependency(item: Any, path: str, yaml: Any) -> ParsedFile:
    loc = Location(path, _line(item))
    if isinstance(item, yaml.ScalarNode):
        pin, problem = parse_conda_spec(str(item.value), loc)
        pins = () if pin is None else (pin,)
        python: tuple[PythonBound, ...] = ()
        if pin is not None and pin.name == "python" and pin.specifier:
            python = (PythonBound(pin.specifier, pin.text, loc),)
        return ParsedFile(
            path, pins=pins, python=python, problems=() if problem is None else (problem,)
        )
    if isinstance(item, yaml.MappingNode):
        parts: list[ParsedFile] = []
        for key_node, value_node in item.value:
            if getattr(key_node, "value", None) != "pip":
                continue
            if isinstance(value_node, yaml.ScalarNode) and value_node.value in ("", "~", "null"):
                continue
            if not isinstance(value_node, yaml.SequenceNode):
                raise InputError(path, _line(value_node), "pip: must be a list")
            for sub in value_node.value:
                if not isinstance(sub, yaml.ScalarNode):
                    raise InputError(path, _line(sub), "pip: entries must be strings")
                parts.append(parse_line(str(sub.value).strip(), Location(path, _line(sub))))
        return merge(path, parts)
    raise InputError(path, _line(item), "a dependency must be a string or a pip: list")


def _line(node: Any) -> Optional[int]:
    mark = getattr(node, "start_mark", None)
    return None if mark is None else int(mark.line) + 1
