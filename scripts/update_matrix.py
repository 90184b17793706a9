# /// script
# requires-python = ">=3.9"
# dependencies = [
#   "requests>=2.28",
#   "click>=8.1",
#   "rich>=13.0",
#   "packaging>=23.0",
#   "tomli>=1.1; python_version < '3.11'",
# ]
# ///
"""Check the matrix against the CUDA/cuDNN wheels pinned by framework releases on PyPI.

For every framework build that brings NVIDIA's pip wheels (``bundles_cuda =
true``: torch's default PyPI wheels, ``tensorflow[and-cuda]``, ``jax[cudaNN]``),
read the release's ``Requires-Dist`` from the PyPI JSON API
(``https://pypi.org/pypi/<name>/<version>/json``) and compare:

* ``nvidia-cuda-runtime[-cuNN]`` or ``cuda-toolkit`` → the build's ``cuda`` (MAJOR.MINOR);
* ``nvidia-cudnn-cuNN`` → the build's ``cudnn`` (MAJOR.MINOR).

Where the per-release JSON page is missing, the ``METADATA`` of one Linux wheel
of the release is read instead: through the simple API (PEP 691) and the
wheel's PEP 658 metadata file, or by HTTP range requests on the wheel's zip
directory (a few kilobytes, never the whole wheel).

Three more reports (``--check``), read the same way and never written back:

* ``keras``: every TensorFlow release's ``keras`` requirement (its Requires-Dist
  without an extra) against keras.toml's ``[[tensorflow_pin]]`` rows;
* ``jax-plugins``: ``jax[cudaNN]`` of each jax release in the matrix must require
  a ``jax-cudaNN-plugin`` its own version satisfies;
* ``torch-releases``: final torch releases on PyPI that torch.toml does not name.

Drift is printed as a report and as a unified diff of the proposed TOML edits;
files are written only with ``--write``. Review the diff (and the ``source`` of
the rows) before committing: a pin is a fact about the wheel metadata, and the
row's source may need updating too.

    uv run scripts/update_matrix.py [--framework torch] [--version 2.5.1] [--write]
"""

from __future__ import annotations

import difflib
import email.parser
import io
import re
import sys
import tarfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import click

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from envcheck.matrix import Matrix, load_matrix_from  # noqa: E402 - after sys.path
from envcheck.matrix.rows import Build  # noqa: E402
from envcheck.model.versions import release_key  # noqa: E402

PYPI = "https://pypi.org/pypi"
SIMPLE = "https://pypi.org/simple"
TIMEOUT = (10.0, 30.0)
FRAMEWORKS = ("torch", "tensorflow", "jax")
_PIN_RE = re.compile(
    r"^(?P<name>nvidia-cuda-runtime(?:-cu\d+)?|nvidia-cudnn-cu\d+|cuda-toolkit)\s*"
    r"(?:\[[^\]]*\])?\s*(?P<spec>[^;]*)(?:;\s*(?P<marker>.*))?$"
)
_SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
_BLOCK = 64 * 1024
_MAX_FETCH = 8 * 1024 * 1024
"""Most bytes one wheel's metadata may cost; a zip directory bigger than this is refused."""
_VERSION_RE = re.compile(r"(==|>=|~=|===)\s*(\d+)\.(\d+)")


_SIMPLE_PAGES: dict[str, list[Any]] = {}
"""PEP 691 file lists already read in this run, by index URL."""

_CHECKED: list[bool] = []
"""One entry per release looked up: found on the index or not (for the summary)."""


@dataclass(frozen=True)
class Pins:
    """MAJOR.MINOR of the CUDA runtime and cuDNN wheels a release requires."""

    cuda: Optional[str]
    cudnn: Optional[str]


@dataclass(frozen=True)
class Drift:
    framework: str
    build: Build
    version: str
    field: str
    matrix: Optional[str]
    upstream: str
    url: str


def parse_pins(requires_dist: Iterable[str], extra: Optional[str]) -> Pins:
    """Read the nvidia-* pins from Requires-Dist lines (pure).

    Lines under another extra are ignored; lines under ``extra`` (or no extra)
    count. The lowest version named by ``==``/``>=``/``~=`` gives MAJOR.MINOR.
    """
    found: dict[str, str] = {}
    for line in requires_dist:
        m = _PIN_RE.match(line.strip())
        if not m:
            continue
        marker = m.group("marker") or ""
        extra_m = re.search(r"extra\s*==\s*[\"']([^\"']+)[\"']", marker)
        if extra_m and _norm(extra_m.group(1)) != _norm(extra or ""):
            continue
        v = _VERSION_RE.search(m.group("spec"))
        if not v:
            continue
        kind = "cudnn" if "cudnn" in m.group("name") else "cuda"
        found.setdefault(kind, f"{v.group(2)}.{v.group(3)}")
    return Pins(found.get("cuda"), found.get("cudnn"))


def _norm(extra: str) -> str:
    return re.sub(r"[-_.]+", "-", extra).lower()


def dist_for(framework: str, build: Build) -> Optional[tuple[str, Optional[str]]]:
    """(PyPI distribution holding the pins, extra) for a build; None when not on PyPI."""
    if not build.bundles_cuda or build.cuda is None:
        return None
    if framework == "torch":
        # Only the variant PyPI serves (also mirrored on the PyTorch index) carries
        # the pins in the metadata PyPI shows.
        return ("torch", None) if build.pypi_default else None
    if framework == "tensorflow":
        return ("tensorflow", build.extra) if build.extra else None
    if framework == "jax" and build.extra:
        plugin = re.fullmatch(r"cuda(\d+)", build.extra)
        if plugin:  # jax[cuda12]: the pins live in the plugin's with-cuda extra
            return (f"jax-cuda{plugin.group(1)}-plugin", "with-cuda")
        if build.extra.endswith("_pip"):  # jax[cuda12_pip] (find-links era): jax's own extra
            return ("jax", build.extra)
    return None


def fetch_requires(
    session: Any, base: str, name: str, version: str, simple: Optional[str] = None
) -> Optional[list[str]]:
    """Requires-Dist of one release: the JSON API, else one wheel's METADATA, else
    the sdist's PKG-INFO or requires.txt."""
    url = f"{base.rstrip('/')}/{name}/{version}/json"
    response = session.get(url, timeout=TIMEOUT)
    if response.status_code == 404:
        return wheel_requires(session, simple, name, version) if simple else None
    response.raise_for_status()
    info = response.json().get("info") or {}
    return list(info.get("requires_dist") or [])


def pick_wheel(files: Iterable[Mapping[str, Any]], name: str, version: str) -> Optional[Any]:
    """The release's Linux x86_64 wheel (else any wheel) from a PEP 691 file list (pure)."""
    prefix = f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}-"
    wheels = [
        f
        for f in files
        if str(f.get("filename", "")).lower().startswith(prefix)
        and str(f.get("filename")).endswith(".whl")
        and not f.get("yanked")
    ]
    linux = [f for f in wheels if "linux" in f["filename"] and "x86_64" in f["filename"]]
    found = linux or wheels
    return found[0] if found else None


def pick_sdist(files: Iterable[Mapping[str, Any]], name: str, version: str) -> Optional[Any]:
    """The release's .tar.gz sdist from a PEP 691 file list (pure)."""
    wanted = f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}.tar.gz"
    for f in files:
        filename = str(f.get("filename", ""))
        if re.sub(r"[-_.]+(?=.*-)", "_", filename.lower()) == wanted and not f.get("yanked"):
            return f
    return None


def requires_txt(text: str) -> list[str]:
    """Requires-Dist strings from an egg-info ``requires.txt`` (pure): the lines
    under ``[extra]`` or ``[extra:marker]`` belong to that extra."""
    out: list[str] = []
    conditions: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            extra, _, marker = line[1:-1].partition(":")
            conditions = [f'extra == "{extra}"'] if extra else []
            conditions += [f"({marker})"] if marker else []
            continue
        out.append(line + ("; " + " and ".join(conditions) if conditions else ""))
    return out


def sdist_requires(session: Any, sdist: Mapping[str, Any]) -> Optional[list[str]]:
    """Requires-Dist of an sdist-only release: its PKG-INFO, else its egg-info
    ``requires.txt`` (older setuptools left them out of PKG-INFO)."""
    size = int(sdist.get("size") or 0)
    if size > _MAX_FETCH:
        raise OSError(f"{sdist['url']}: sdist of {size} bytes is over {_MAX_FETCH}")
    response = session.get(sdist["url"], timeout=TIMEOUT)
    response.raise_for_status()
    if len(response.content) > _MAX_FETCH:
        raise OSError(f"{sdist['url']}: more than {_MAX_FETCH} bytes")
    with tarfile.open(fileobj=io.BytesIO(response.content), mode="r:gz") as archive:
        members = {m.name: m for m in archive.getmembers() if m.isfile()}

        def text(path: str) -> str:
            handle = archive.extractfile(members[path])
            return "" if handle is None else handle.read().decode("utf-8", "replace")

        pkg_info = [n for n in members if re.fullmatch(r"[^/]+/PKG-INFO", n)]
        found = metadata_requires(text(pkg_info[0])) if pkg_info else []
        if found:
            return found
        egg = [n for n in members if re.fullmatch(r"[^/]+/[^/]+\.egg-info/requires\.txt", n)]
        if egg:
            return requires_txt(text(egg[0]))
        return found if pkg_info else None


def metadata_requires(text: str) -> list[str]:
    """Requires-Dist lines of a METADATA file (pure)."""
    return list(
        email.parser.Parser().parsestr(text, headersonly=True).get_all("Requires-Dist") or []
    )


class RangeFile(io.RawIOBase):
    """A read-only, seekable view of a remote file, fetched in blocks by HTTP range."""

    def __init__(self, session: Any, url: str, size: int) -> None:
        self.session, self.url, self.size = session, url, size
        self.pos = 0
        self.blocks: dict[int, bytes] = {}
        self.fetched = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self.pos, 2: self.size}[whence]
        self.pos = max(0, base + offset)
        return self.pos

    def _block(self, index: int) -> bytes:
        if index not in self.blocks:
            start = index * _BLOCK
            end = min(self.size, start + _BLOCK) - 1
            self.fetched += end - start + 1
            if self.fetched > _MAX_FETCH:
                raise OSError(f"{self.url}: more than {_MAX_FETCH} bytes needed for metadata")
            headers = {"Range": f"bytes={start}-{end}"}
            response = self.session.get(self.url, headers=headers, timeout=TIMEOUT)
            if response.status_code != 206:
                raise OSError(f"{self.url}: range request answered {response.status_code}")
            self.blocks[index] = response.content
        return self.blocks[index]

    def read(self, n: int = -1) -> bytes:
        end = self.size if n is None or n < 0 else min(self.size, self.pos + n)
        out = bytearray()
        while self.pos < end:
            block = self._block(self.pos // _BLOCK)
            offset = self.pos % _BLOCK
            chunk = block[offset : offset + end - self.pos]
            if not chunk:
                break
            out += chunk
            self.pos += len(chunk)
        return bytes(out)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def wheel_requires(session: Any, simple: str, name: str, version: str) -> Optional[list[str]]:
    """Requires-Dist read from one wheel of the release, else from its sdist; None
    when it has neither."""
    index = f"{simple.rstrip('/')}/{name}/"
    if index not in _SIMPLE_PAGES:
        response = session.get(index, headers={"Accept": _SIMPLE_JSON}, timeout=TIMEOUT)
        if response.status_code == 404:
            return None
        response.raise_for_status()
        _SIMPLE_PAGES[index] = response.json().get("files") or []
    wheel = pick_wheel(_SIMPLE_PAGES[index], name, version)
    if wheel is None:
        sdist = pick_sdist(_SIMPLE_PAGES[index], name, version)
        return None if sdist is None else sdist_requires(session, sdist)
    if wheel.get("core-metadata") or wheel.get("data-dist-info-metadata"):
        meta = session.get(wheel["url"] + ".metadata", timeout=TIMEOUT)
        if meta.status_code == 200:
            return metadata_requires(meta.content.decode("utf-8", "replace"))
    size = int(wheel.get("size") or 0)
    with zipfile.ZipFile(RangeFile(session, wheel["url"], size)) as archive:
        names = [n for n in archive.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
        if not names:
            return None
        return metadata_requires(archive.read(names[0]).decode("utf-8", "replace"))


CHECKS = ("pins", "keras", "jax-plugins", "torch-releases")
_REQ_NAME_RE = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?P<rest>.*)$"
)


@dataclass(frozen=True)
class Finding:
    """One difference found by the keras / jax-plugins / torch-releases reports."""

    check: str
    subject: str
    matrix: Optional[str]
    upstream: Optional[str]
    where: str
    url: str


def requirement(requires_dist: Iterable[str], name: str, extra: Optional[str]) -> Optional[str]:
    """The specifier ``name`` is required with, under ``extra`` (None: outside any
    extra); "" when it is required without a version; None when not required (pure)."""
    wanted = _norm(name)
    for line in requires_dist:
        spec_part, _, marker = line.partition(";")
        m = _REQ_NAME_RE.match(spec_part)
        if not m or _norm(m.group("name")) != wanted:
            continue
        extra_m = re.search(r"extra\s*==\s*[\"']([^\"']+)[\"']", marker)
        line_extra = _norm(extra_m.group(1)) if extra_m else None
        if line_extra != (None if extra is None else _norm(extra)):
            continue
        return m.group("rest").strip().strip("()").replace(" ", "")
    return None


def same_specifier(a: str, b: str) -> bool:
    """Two PEP 440 specifiers are the same set of clauses (order and spaces aside)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(a) == SpecifierSet(b)
    except InvalidSpecifier:
        return a.replace(" ", "") == b.replace(" ", "")


def keras_drift(
    matrix: Matrix, requires: Mapping[str, Optional[list[str]]], url: str
) -> list[Finding]:
    """TF releases whose Requires-Dist ``keras`` differs from keras.toml (pure).

    ``requires`` maps each TF version to its Requires-Dist (None: not readable;
    such releases are skipped, the caller logs them)."""
    pins = {v: p for p in matrix.keras_pins for v in p.tensorflow}
    out: list[Finding] = []
    for version, lines in sorted(requires.items(), key=lambda kv: release_key(kv[0])):
        if lines is None:
            continue
        upstream = requirement(lines, "keras", None)
        pin = pins.get(version)
        have = None if pin is None else pin.keras
        where = "keras.toml" if pin is None else f"{Path(pin.origin.file).name}:{pin.origin.line}"
        if upstream is None and have is None:
            continue
        if upstream is not None and have is not None and same_specifier(upstream, have):
            continue
        out.append(
            Finding(
                "keras",
                f"tensorflow {version}",
                have,
                upstream,
                where,
                f"{url}/tensorflow/{version}/",
            )
        )
    return out


def jax_plugin_drift(
    matrix: Matrix, requires: Mapping[str, Optional[list[str]]], url: str
) -> list[Finding]:
    """jax releases whose ``jax[cudaNN]`` does not require a plugin of the same
    release (pure). ``requires`` maps jax versions to Requires-Dist."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    out: list[Finding] = []
    for build in matrix.framework_builds("jax"):
        plugin = re.fullmatch(r"cuda(\d+)", build.extra or "")
        if plugin is None:
            continue
        name = f"jax-cuda{plugin.group(1)}-plugin"
        for version in build.versions:
            lines = requires.get(version)
            if lines is None:
                continue
            spec = requirement(lines, name, build.extra)
            where = f"{Path(build.origin.file).name}:{build.origin.line}"
            page = f"{url}/jax/{version}/"
            if spec is None:
                out.append(
                    Finding(
                        "jax-plugins",
                        f"jax[{build.extra}] {version}",
                        f"{name}=={version}",
                        None,
                        where,
                        page,
                    )
                )
                continue
            try:
                ok = SpecifierSet(spec).contains(version, prereleases=True)
            except InvalidSpecifier:
                ok = False
            if not ok:
                out.append(
                    Finding(
                        "jax-plugins",
                        f"jax[{build.extra}] {version}",
                        f"{name}=={version}",
                        f"{name}{spec}",
                        where,
                        page,
                    )
                )
    return out


def torch_release_drift(
    matrix: Matrix, releases: Mapping[str, list[Any]], url: str
) -> list[Finding]:
    """Final torch releases PyPI serves (with at least one file not yanked) that
    torch.toml does not name (pure). ``releases`` is the JSON API's ``releases``."""
    from packaging.version import InvalidVersion, Version

    known = {v for b in matrix.framework_builds("torch") for v in b.versions}
    out: list[Finding] = []
    for version, files in sorted(releases.items(), key=lambda kv: release_key(kv[0])):
        try:
            parsed = Version(version)
        except InvalidVersion:
            continue
        if parsed.is_prerelease or parsed.is_devrelease or version in known:
            continue
        if not any(not f.get("yanked") for f in files or ()):
            continue
        out.append(
            Finding(
                "torch-releases",
                f"torch {version}",
                None,
                version,
                "torch.toml",
                f"{url}/torch/{version}/",
            )
        )
    return out


def _get_json(session: Any, url: str) -> Optional[Any]:
    """A JSON page, or None when the index does not answer 200."""
    response = session.get(url, timeout=TIMEOUT)
    if response.status_code != 200:
        return None
    return response.json()


def _project_url(base: str) -> str:
    return "https://pypi.org/project" if base.rstrip("/") == PYPI else base.rstrip("/")


def find_findings(
    matrix: Matrix,
    checks: Iterable[str],
    frameworks: Iterable[str],
    session: Any,
    base: str,
    simple: Optional[str],
    log: Any,
    only_version: Optional[str] = None,
) -> list[Finding]:
    """Run the keras / jax-plugins / torch-releases reports against the index."""
    checks, frameworks = set(checks), set(frameworks)
    url = _project_url(base)
    out: list[Finding] = []

    def read(name: str, versions: Iterable[str]) -> dict[str, Optional[list[str]]]:
        found: dict[str, Optional[list[str]]] = {}
        for version in sorted(set(versions)):
            if only_version and version != only_version:
                continue
            try:
                found[version] = fetch_requires(session, base, name, version, simple)
            except Exception as exc:  # noqa: BLE001 - one unreadable release is reported, not fatal
                log(f"{name} {version}: {exc}; not checked")
                found[version] = None
                continue
            if found[version] is None:
                log(f"{name} {version}: no JSON page, wheel or sdist; not checked")
        return found

    if "keras" in checks and "tensorflow" in frameworks and "keras" in matrix.file_versions:
        versions = {
            v
            for b in matrix.framework_builds("tensorflow")
            if b.package == "tensorflow"
            for v in b.versions
        } | {v for p in matrix.keras_pins for v in p.tensorflow}
        out += keras_drift(matrix, read("tensorflow", versions), url)
    if "jax-plugins" in checks and "jax" in frameworks:
        versions = {
            v
            for b in matrix.framework_builds("jax")
            if re.fullmatch(r"cuda\d+", b.extra or "")
            for v in b.versions
        }
        out += jax_plugin_drift(matrix, read("jax", versions), url)
    if "torch-releases" in checks and "torch" in frameworks and not only_version:
        page = _get_json(session, f"{base.rstrip('/')}/torch/json")
        if page is None:
            log(f"torch: no JSON page at {base.rstrip('/')}/torch/json; new releases not checked")
        else:
            out += torch_release_drift(matrix, page.get("releases") or {}, url)
    return out


def find_drift(
    matrix: Matrix,
    frameworks: Iterable[str],
    session: Any,
    base: str,
    only_version: Optional[str] = None,
    log: Any = None,
    simple: Optional[str] = None,
) -> list[Drift]:
    out: list[Drift] = []
    unread: set[tuple[str, str]] = set()
    for framework in frameworks:
        for build in matrix.framework_builds(framework):
            target = dist_for(framework, build)
            if target is None:
                continue
            name, extra = target
            for version in build.versions:
                if only_version and version != only_version:
                    continue
                requires = fetch_requires(session, base, name, version, simple)
                _CHECKED.append(requires is not None)
                url = f"{base.rstrip('/')}/{name}/{version}/json"
                if requires is None:
                    if log and (name, version) not in unread:
                        log(f"{name} {version}: no JSON page, wheel or sdist; not checked ({url})")
                    unread.add((name, version))
                    continue
                pins = parse_pins(requires, extra)
                cuda = None if build.cuda is None else str(build.cuda)
                for field, have, want in (
                    ("cuda", cuda, pins.cuda),
                    ("cudnn", _major_minor(build.cudnn), pins.cudnn),
                ):
                    if want is not None and have != want:
                        out.append(Drift(framework, build, version, field, have, want, url))
    return out


def _major_minor(text: Optional[str]) -> Optional[str]:
    if text is None:
        return None
    return ".".join(text.split(".")[:2])


def propose(drifts: Iterable[Drift]) -> dict[Path, tuple[str, str]]:
    """File → (old text, new text) with every row whose versions all agree edited."""
    by_row: dict[tuple[str, int], dict[str, set[str]]] = {}
    counts: dict[tuple[str, int], dict[str, int]] = {}
    rows: dict[tuple[str, int], Drift] = {}
    for d in drifts:
        key = (d.build.origin.file, d.build.origin.line)
        by_row.setdefault(key, {}).setdefault(d.field, set()).add(d.upstream)
        counts.setdefault(key, {}).setdefault(d.field, 0)
        counts[key][d.field] += 1
        rows[key] = d
    edits: dict[Path, tuple[str, str]] = {}
    for key, fields in sorted(by_row.items()):
        file, line = key
        build = rows[key].build
        path = Path(file)
        old, text = edits.get(path, (path.read_text(encoding="utf-8"),) * 2)
        for field, values in sorted(fields.items()):
            # Edit only when every release of the row drifted to the same value.
            if len(values) != 1 or counts[key][field] != len(build.versions):
                continue
            text = _set_field(text, line, field, next(iter(values)))
        edits[path] = (old, text)
    return {p: e for p, e in edits.items() if e[0] != e[1]}


def _set_field(text: str, header_line: int, field: str, value: str) -> str:
    lines = text.splitlines(keepends=True)
    end = len(lines)
    for i in range(header_line, len(lines)):
        if lines[i].lstrip().startswith("[["):
            end = i
            break
    pattern = re.compile(rf"^(\s*{field}\s*=\s*)\"[^\"]*\"(.*)$", re.DOTALL)
    for i in range(header_line, end):
        m = pattern.match(lines[i])
        if m:
            lines[i] = f'{m.group(1)}"{value}"{m.group(2)}'
            return "".join(lines)
    insert_at = header_line  # right after the [[build]] header
    lines.insert(insert_at, f'{field} = "{value}"\n')
    return "".join(lines)


def render_diff(edits: Mapping[Path, tuple[str, str]], root: Path) -> str:
    chunks: list[str] = []
    for path, (old, new) in sorted(edits.items()):
        try:
            rel = path.resolve().relative_to(root)
        except ValueError:
            rel = path
        chunks.extend(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"a/{rel}",
                f"b/{rel}",
            )
        )
    return "".join(chunks)


@click.command()
@click.option(
    "--matrix",
    "matrix_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=ROOT / "matrices",
    show_default=True,
)
@click.option("--framework", "frameworks", multiple=True, type=click.Choice(FRAMEWORKS))
@click.option("--version", "only_version", help="Check one release only.")
@click.option("--pypi-url", default=PYPI, show_default=True, help="PyPI JSON API base URL.")
@click.option(
    "--simple-url",
    default=SIMPLE,
    show_default=True,
    help="PEP 691 simple index, read when a release has no JSON page ('' turns it off).",
)
@click.option("--write", is_flag=True, help="Apply the proposed edits to the TOML files.")
@click.option(
    "--check",
    "checks",
    multiple=True,
    type=click.Choice(CHECKS),
    help="Reports to run (default: all). 'pins' is the only one --write edits.",
)
def main(
    matrix_dir: Path,
    frameworks: tuple[str, ...],
    only_version: Optional[str],
    pypi_url: str,
    simple_url: str,
    write: bool,
    checks: tuple[str, ...],
) -> None:
    """Report drift between the matrix and PyPI: nvidia-* pins, TF<->Keras pins,
    jax plugin pins and new torch releases."""
    import requests
    from rich.console import Console

    err = Console(stderr=True, markup=False, highlight=False)
    _CHECKED.clear()
    _SIMPLE_PAGES.clear()
    matrix = load_matrix_from(matrix_dir)
    wanted = checks or CHECKS
    drifts: list[Drift] = []
    with requests.Session() as session:
        if "pins" in wanted:
            drifts = find_drift(
                matrix,
                frameworks or FRAMEWORKS,
                session,
                pypi_url,
                only_version,
                err.print,
                simple_url or None,
            )
        findings = find_findings(
            matrix,
            wanted,
            frameworks or FRAMEWORKS,
            session,
            pypi_url,
            simple_url or None,
            err.print,
            only_version,
        )
    if findings:
        click.echo(f"{len(findings)} other difference(s) (report only, never written):")
        for f in findings:
            click.echo(
                f"  {f.where}: [{f.check}] {f.subject}: matrix {f.matrix or '(none)'}, "
                f"index {f.upstream or '(none)'}  [{f.url}]"
            )
        if not drifts:
            sys.exit(1)
    if "pins" not in wanted:
        if not findings:
            click.echo(f"no drift in: {', '.join(wanted)}")
        return
    if not drifts:
        checked = sum(1 for c in _CHECKED if c)
        missing = len(_CHECKED) - checked
        if checked == 0:
            click.echo(f"nothing checked: {missing} release(s) not found on the index")
            sys.exit(2)
        note = f" ({missing} release(s) not on the index)" if missing else ""
        click.echo(
            f"no drift: {checked} release(s) agree with the nvidia-* pins on the index{note}"
        )
        return
    click.echo(f"{len(drifts)} difference(s) between the matrix and the index:")
    for d in drifts:
        where = f"{Path(d.build.origin.file).name}:{d.build.origin.line}"
        click.echo(
            f"  {where}: {d.framework} {d.version} ({d.build.variant}) {d.field}: "
            f"matrix {d.matrix or '(none)'}, index {d.upstream}  [{d.url}]"
        )
    edits = propose(drifts)
    if edits:
        click.echo("")
        click.echo(render_diff(edits, ROOT), nl=False)
    if write:
        for path, (_, new) in edits.items():
            path.write_text(new, encoding="utf-8")
        click.echo(f"wrote {len(edits)} file(s)", err=True)
    elif edits:
        click.echo("(dry run: pass --write to apply)", err=True)
    sys.exit(1)


if __name__ == "__main__":
    main()
