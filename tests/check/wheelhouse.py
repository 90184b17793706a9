"""A local wheelhouse repacked from the distributions installed beside the tests.

pre-commit installs a ``language: python`` hook by running ``pip install .`` in
a fresh virtualenv; pip builds the checkout with its build backend (hatchling,
in an isolated build environment) and installs the runtime dependencies. With
``PIP_NO_INDEX=1`` and ``PIP_FIND_LINKS=<wheelhouse>`` every one of those comes
from the wheels written here instead of an index: each installed distribution
of the requirement closure is zipped back into a wheel (its files as listed in
its RECORD, its original WHEEL tag), so the test needs no network and installs
exactly the versions the test environment already runs.
"""

from __future__ import annotations

import re
import sys
import zipfile
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.tags import Tag, parse_tag, sys_tags
from packaging.utils import canonicalize_name

from tests.resolve.stubwheels import wheel_record_line

# Written by the installer, not part of a wheel.
_INSTALLER_FILES = {"INSTALLER", "REQUESTED", "RECORD", "direct_url.json"}


def requirement_closure(requirements: Iterable[str]) -> list[metadata.Distribution]:
    """The installed distributions ``requirements`` need on this interpreter
    (markers evaluated here, no extras), each once, in a stable order."""
    env = default_environment()

    def needed(reqs: Iterable[str], extras: Iterable[str] = ()) -> list[Requirement]:
        out = []
        for text in reqs:
            req = Requirement(text)
            if req.marker is None or any(
                req.marker.evaluate({**env, "extra": e}) for e in ("", *extras)
            ):
                out.append(req)
        return out

    found: dict[str, metadata.Distribution] = {}
    todo = needed(requirements)
    while todo:
        req = todo.pop()
        key = canonicalize_name(req.name)
        if key in found:
            continue
        dist = metadata.distribution(req.name)
        if not req.specifier.contains(dist.version, prereleases=True):
            raise LookupError(f"installed {req.name} {dist.version} does not satisfy {req}")
        found[key] = dist
        todo += needed(dist.requires or (), req.extras)
    return [found[k] for k in sorted(found)]


def _tag(wheel_text: str) -> Tag:
    """A tag of the installed wheel that this interpreter supports (pip checks it)."""
    tags = [
        t
        for line in wheel_text.splitlines()
        if line.startswith("Tag:")
        for t in parse_tag(line[4:].strip())
    ]
    supported = set(sys_tags())
    for tag in tags:
        if tag in supported:
            return tag
    raise LookupError(f"none of the installed tags {tags} is supported by {sys.executable}")


def repack(dist: metadata.Distribution, directory: Path) -> Path:
    """Zip an installed distribution back into a wheel in ``directory``.

    Files installed outside site-packages (console scripts, ``.data`` scripts and
    headers) and byte-code caches are left out: pip writes console scripts again
    from ``entry_points.txt``, and nothing here needs the rest.
    """
    files = dist.files
    if files is None:
        raise LookupError(f"{dist.metadata['Name']} has no RECORD")
    root = Path(str(dist.locate_file("")))
    info_dirs = {f.parts[0] for f in files if f.parts and f.parts[0].endswith(".dist-info")}
    if len(info_dirs) != 1:
        raise LookupError(f"{dist.metadata['Name']}: .dist-info directories {sorted(info_dirs)}")
    (info,) = info_dirs
    wheel_text = (root / info / "WHEEL").read_text(encoding="utf-8")
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"]).lower()
    target = directory / f"{name}-{dist.version}-{_tag(wheel_text)}.whl"
    record: list[str] = []
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED) as zf:
        for f in sorted(files, key=str):
            rel = f.as_posix()
            if (
                rel.startswith("../")
                or "__pycache__" in f.parts
                or (f.parts[0] == info and f.name in _INSTALLER_FILES)
            ):
                continue
            path = root / f
            if not path.is_file():
                continue
            data = path.read_bytes()
            zf.writestr(rel, data)
            record.append(wheel_record_line(rel, data))
        record.append(f"{info}/RECORD,,")
        zf.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return target


def build_wheelhouse(requirements: Iterable[str], directory: Path) -> list[Path]:
    """Repack the installed closure of ``requirements`` into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    return [repack(dist, directory) for dist in requirement_closure(requirements)]
