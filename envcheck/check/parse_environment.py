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
_ATOM = re.compile(r"^(==|!=|>=|<=|~=|>|<|=)?\s*([^\s=<>!~,|]+)$")


def conda_version_to_pep440(version: Optional[str]) -> Optional[str]:
    """Translate the version spec rattler read from a match spec to PEP 440.

    rattler normalises what users write (``=2.1`` → ``2.1.*``, ``2.1`` →
    ``==2.1``, ``>=2.1.*`` → ``>=2.1``); this maps that form: ``2.1.*`` →
    ``==2.1.*``, ``>=1.0,<2`` unchanged, ``*`` or none → any (``""``).
    Returns None for what one PEP 440 set cannot say (``|`` alternatives).
    """
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    text = (version or "").strip()
    if text in ("", "*"):
        return ""
    if "|" in text or "(" in text:
        return None
    parts = []
    for atom in text.split(","):
        m = _ATOM.match(atom.strip())
        if m is None:
            return None
        op, value = m.group(1) or "", m.group(2)
        if value == "*":
            continue
        if op in ("", "=", "==") and value.endswith("*"):
            parts.append(_prefix(value))
        elif op in ("", "="):
            parts.append(f"=={value}")
        else:
            # An ordering against ``2.1.*`` means against 2.1 (what conda does).
            parts.append(op + (value[:-2] if value.endswith(".*") and op != "!=" else value))
    out = ",".join(p for p in parts if p)
    try:
        SpecifierSet(out)
    except InvalidSpecifier:
        return None
    return out


def _prefix(version: str) -> str:
    base = version.rstrip("*").rstrip(".")
    return f"=={base}.*" if base else ""


def _spec_error(text: str, loc: Location, exc: Exception) -> InputError:
    """rattler's refusal as envcheck's one-line EC001 (file and line kept)."""
    lines = str(exc).strip().splitlines()
    why = lines[0] if lines else "malformed"
    shown = text if len(text) <= 80 else text[:77] + "..."
    return InputError(loc.path, loc.line, f"invalid conda spec {shown!r}: {why}")


def conda_pin(
    name: str, version: Optional[str], loc: Location, text: str
) -> tuple[Pin, Optional[Problem]]:
    """A conda pin from a package name and rattler's version spec."""
    pep = conda_version_to_pep440(version)
    if pep is None:
        return Pin(normalise_name(name), "", loc, text, source="conda"), Problem(
            loc,
            INVALID_REQUIREMENT,
            f"cannot read the version in {text!r} as one PEP 440 range; not checked",
            WARNING,
        )
    return Pin(normalise_name(name), pep, loc, text, source="conda"), None


def parse_conda_spec(text: str, loc: Location) -> tuple[Pin, Optional[Problem]]:
    """``conda-forge::pytorch=2.1`` → Pin(name="pytorch", specifier="==2.1.*").

    The match spec is read by rattler (channel, bracket, build-string forms);
    one it refuses raises InputError at ``loc`` (conda refuses the file too).
    """
    from rattler import MatchSpec
    from rattler.exceptions import InvalidMatchSpecError

    try:
        spec = MatchSpec(text.strip())
    except (InvalidMatchSpecError, ValueError) as exc:
        raise _spec_error(text.strip(), loc, exc) from None
    return conda_pin(spec.name.normalized, spec.version, loc, text.strip())


def parse_nameless_spec(name: str, version: str, loc: Location) -> tuple[Pin, Optional[Problem]]:
    """A pixi dependency: ``pytorch = ">=2.1 *cuda*"`` (a spec without its name)."""
    from rattler import NamelessMatchSpec
    from rattler.exceptions import InvalidMatchSpecError

    shown = name if version in ("", "*") else f"{name} {version}"
    try:
        spec = NamelessMatchSpec(version)
    except (InvalidMatchSpecError, ValueError) as exc:
        raise _spec_error(shown, loc, exc) from None
    return conda_pin(name, spec.version, loc, shown)


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
        pins = (pin,)
        python: tuple[PythonBound, ...] = ()
        if pin.name == "python" and pin.specifier:
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
