"""Metadata-only stub wheels and local package indexes, for proving that emitted
plans resolve with the real installers (pip, uv) without any network.

A stub wheel is a valid ``py3-none-any`` wheel that holds only its ``.dist-info``
(METADATA with the given ``Requires-Dist``/``Provides-Extra``, WHEEL, RECORD).
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_record_line(path: str, data: bytes) -> str:
    """One RECORD row: path, urlsafe-base64 sha256 without padding, size."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def write_stub_wheel(
    directory: Path,
    name: str,
    version: str,
    requires: Iterable[str] = (),
    extras: Mapping[str, Sequence[str]] | None = None,
    requires_python: str | None = None,
) -> Path:
    """Write ``name-version-py3-none-any.whl`` into ``directory``; return its path.

    ``extras`` maps an extra to the requirements it adds (``extra == "..."`` markers
    are added here).
    """
    directory.mkdir(parents=True, exist_ok=True)
    stem = f"{re.sub(r'[-.]+', '_', name)}-{version}"
    info = f"{stem}.dist-info"
    meta = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if requires_python:
        meta.append(f"Requires-Python: {requires_python}")
    meta += [f"Requires-Dist: {r}" for r in requires]
    for extra, reqs in (extras or {}).items():
        meta.append(f"Provides-Extra: {extra}")
        for r in reqs:
            marker = f'extra == "{extra}"'
            if ";" in r:
                head, tail = r.split(";", 1)
                meta.append(f"Requires-Dist: {head.strip()} ; ({tail.strip()}) and {marker}")
            else:
                meta.append(f"Requires-Dist: {r} ; {marker}")
    files = {
        f"{info}/METADATA": ("\n".join(meta) + "\n").encode(),
        f"{info}/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: envcheck-tests\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n"
        ),
    }
    record = [wheel_record_line(p, d) for p, d in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = directory / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for arcname, data in files.items():
            zf.writestr(arcname, data)
    return path


def write_simple_index(root: Path, wheels: Iterable[Path]) -> str:
    """A PEP 503 index under ``root`` holding ``wheels`` (copied); returns its file URL."""
    import shutil

    by_name: dict[str, list[Path]] = {}
    for wheel in wheels:
        name = normalize(wheel.name.split("-", 1)[0])
        by_name.setdefault(name, []).append(wheel)
    root.mkdir(parents=True, exist_ok=True)
    links = []
    for name, found in sorted(by_name.items()):
        page = root / name
        page.mkdir(exist_ok=True)
        anchors = []
        for wheel in found:
            shutil.copy(wheel, page / wheel.name)
            anchors.append(f'<a href="{wheel.name}">{wheel.name}</a><br/>')
        (page / "index.html").write_text(
            "<!DOCTYPE html><html><body>\n" + "\n".join(anchors) + "\n</body></html>\n",
            encoding="utf-8",
        )
        links.append(f'<a href="{name}/">{name}</a><br/>')
    (root / "index.html").write_text(
        "<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n",
        encoding="utf-8",
    )
    return root.resolve().as_uri()
