"""Probe: the target Python interpreter, its installed distributions and conda records.

The running interpreter is inspected in-process. ``--python PATH`` (or a fake
root in tests) runs that interpreter once with ``_pyinfo.py``, a standard-library
script, so envcheck need not be installed in every environment. Distributions
are read from ``*.dist-info``/``*.egg-info`` directory names (never by importing
them, never with ``pip list``); conda packages from ``conda-meta/*.json`` names.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Optional

from envcheck.detect.context import Context
from envcheck.detect.system import CommandResult, System, output_tail
from envcheck.detect.toolkits import parse_conda_meta_filename
from envcheck.model.snapshot import PythonInfo

PROBE = "python"
PYINFO_SCRIPT = Path(__file__).with_name("_pyinfo.py")
PYINFO_TIMEOUT = 15.0
_DIST_RE = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._]*?)-(?P<version>[0-9][^-]*?)(?:-py\d[^-]*)?\.(?:dist|egg)-info$"
)


def normalise_name(name: str) -> str:
    """PEP 503 normalisation: ``Nvidia_CuDNN.cu12`` → ``nvidia-cudnn-cu12``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_dist_dirname(name: str) -> Optional[tuple[str, str]]:
    """``torch-2.5.1+cu124.dist-info`` → ``("torch", "2.5.1+cu124")``; None if no version."""
    m = _DIST_RE.match(name)
    if not m:
        return None
    return normalise_name(m.group("name")), m.group("version")


def parse_metadata_headers(text: str) -> Optional[tuple[str, str]]:
    """Name and Version from METADATA / PKG-INFO headers; None when absent."""
    name = version = None
    for line in text.splitlines():
        if not line.strip():
            break  # the body starts after the first blank line
        if line.startswith("Name:"):
            name = line[5:].strip()
        elif line.startswith("Version:"):
            version = line[8:].strip()
    if name and version:
        return normalise_name(name), version
    return None


def parse_pyinfo(text: str) -> dict[str, Any]:
    """The JSON ``_pyinfo.py`` printed (last JSON line); ValueError when absent."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            data = json.loads(line)
            if isinstance(data, dict) and isinstance(data.get("version"), str):
                return data
            break
    raise ValueError("the interpreter printed no facts")


def read_distributions(
    system: System, site_dirs: list[str]
) -> tuple[dict[str, str], dict[str, str]]:
    """Installed distributions: (name → version, name → dist-info path)."""
    packages: dict[str, str] = {}
    locations: dict[str, str] = {}
    for site in site_dirs:
        base = system.path(site)
        try:
            entries = sorted(os.listdir(base))  # noqa: PTH208 - names only, no Path per entry
        except OSError:
            continue
        for entry in entries:
            if not entry.endswith((".dist-info", ".egg-info")):
                continue
            parsed = parse_dist_dirname(entry)
            if parsed is None:
                parsed = _from_metadata(base / entry)
            if parsed is None:
                continue
            name, version = parsed
            if name not in packages:  # the first site dir wins, as on sys.path
                packages[name] = version
                sep = "\\" if "\\" in site else "/"
                locations[name] = site.rstrip("/\\") + sep + entry
    return packages, locations


def _from_metadata(path: Path) -> Optional[tuple[str, str]]:
    for meta in ("METADATA", "PKG-INFO"):
        try:
            with (path / meta).open("r", encoding="utf-8", errors="replace") as fh:
                return parse_metadata_headers(fh.read(16 * 1024))
        except OSError:
            continue
    if path.is_file():  # old setuptools: a single PKG-INFO file named *.egg-info
        try:
            return parse_metadata_headers(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            return None
    return None


def read_conda_meta(system: System, prefix: str) -> Optional[dict[str, str]]:
    """conda package name → version from ``<prefix>/conda-meta``; None if not conda."""
    meta = system.path(prefix) / "conda-meta"
    try:
        names = sorted(os.listdir(meta))  # noqa: PTH208 - names only, no Path per entry
    except OSError:
        return None
    out: dict[str, str] = {}
    for name in names:
        parsed = parse_conda_meta_filename(name)
        if parsed is not None:
            out[parsed[0]] = parsed[1]
    return out


TOO_OLD_PREFIX = "envcheck needs the target Python to be 3.6 or newer; "
_TOO_OLD_RE = re.compile(r" is (\d+\.\d+\.\d+)$")


def too_old_message(exe: str, version: str) -> str:
    """The one line for an interpreter older than 3.6; ``_pyinfo.py`` and
    ``_smoke.py`` print the same words when Python 2 or 3.0-3.5 runs them."""
    return f"{TOO_OLD_PREFIX}{exe} is {version}"


def _facts(system: System, ctx: Context) -> Optional[dict[str, Any]]:
    if system.python_executable is None and system.root == Path("/"):
        from envcheck.detect import _pyinfo

        facts: dict[str, Any] = _pyinfo.collect()  # type: ignore[no-untyped-call]
        return facts
    exe = system.python_executable or "python3"
    result = system.run((exe, "-I", str(PYINFO_SCRIPT)), PYINFO_TIMEOUT)
    if not result.ok:
        if "Unknown option: -I" in result.stderr + result.stdout:
            _python2(system, ctx, exe)
        else:
            _failed(ctx, exe, result)
        return None
    try:
        return parse_pyinfo(result.stdout)
    except ValueError as exc:
        ctx.error(PROBE, f"{exe}: {exc}", detail=output_tail(result.stderr))
        return None


def _failed(ctx: Context, exe: str, result: CommandResult) -> None:
    """A ``_pyinfo.py`` run that failed: its refusal of an old Python as it is,
    any other failure with the end of its stderr (where a traceback names the
    cause; its first line says nothing)."""
    if result.returncode is None:  # did not start or timed out
        ctx.error(PROBE, result.describe_failure(exe))
        return
    tail = output_tail(result.stderr or result.stdout)
    last = tail.splitlines()[-1] if tail else ""
    if last.startswith(TOO_OLD_PREFIX):
        m = _TOO_OLD_RE.search(last)
        if m is not None:
            ctx.python = PythonInfo(version=m.group(1), executable=exe)
        ctx.error(PROBE, last[:300])
        return
    message = f"{exe} exited with status {result.returncode}"
    if last:
        message += f": {last[:200]}"
    ctx.error(PROBE, message, detail=tail if tail != last else None)


# Runs under Python 2 and 3 alike: no -I (Python 2 lacks it), -E and -s instead.
_OLD_PYTHON_PROBE = (
    "import sys, platform; "
    "sys.stdout.write('%d.%d.%d %s' % (tuple(sys.version_info[:3]) "
    "+ (platform.python_implementation(),)))"
)
_OLD_VERSION_RE = re.compile(r"^(\d+\.\d+\.\d+) (\w+)$")


def _python2(system: System, ctx: Context, exe: str) -> None:
    """An interpreter without ``-I``: Python 2 (TF 1.x environments). Its version
    is recorded and the environment is said to be unsupported, in one line."""
    result = system.run((exe, "-E", "-s", "-c", _OLD_PYTHON_PROBE), PYINFO_TIMEOUT)
    m = _OLD_VERSION_RE.match(result.stdout.strip()) if result.ok else None
    if m is None:
        ctx.error(PROBE, f"{TOO_OLD_PREFIX}{exe} rejects -I (Python 2?)")
        return
    version, implementation = m.groups()
    ctx.python = PythonInfo(version=version, implementation=implementation, executable=exe)
    ctx.error(PROBE, too_old_message(exe, version))


def probe_python(system: System, ctx: Context) -> None:
    facts = _facts(system, ctx)
    if facts is None:
        return
    prefix = str(facts.get("prefix") or "") or None
    base = str(facts.get("base_prefix") or "") or None
    conda = read_conda_meta(system, prefix) if prefix else None
    if conda is not None:
        kind = "conda"
    elif prefix and (prefix != base or system.path(prefix).joinpath("pyvenv.cfg").is_file()):
        kind = "venv"
    else:
        kind = "system"
    conda_env = None
    if kind == "conda" and prefix:
        named = facts.get("conda_default_env") or system.env.get("CONDA_DEFAULT_ENV")
        leaf = re.split(r"[\\/]", prefix.rstrip("/\\"))[-1]
        if named and named in (leaf, prefix):
            conda_env = leaf if named == prefix else named
        elif system.path(prefix).joinpath("condabin").is_dir():
            conda_env = "base"
        else:
            conda_env = leaf
    ctx.python = PythonInfo(
        version=str(facts["version"]),
        implementation=str(facts.get("implementation") or "") or None,
        executable=str(facts.get("executable") or "") or None,
        prefix=prefix,
        env_kind=kind,
        conda_env=conda_env,
    )
    site_dirs = [str(d) for d in facts.get("site_dirs") or [] if isinstance(d, str)]
    ctx.site_dirs = site_dirs
    if kind == "conda":
        ctx.conda_prefix = prefix
        ctx.conda_packages = conda or {}
    ctx.packages, ctx.dist_locations = read_distributions(system, site_dirs)
