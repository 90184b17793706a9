"""``envcheck matrix update``: download, verify and atomically install a matrix bundle.

Bundle format (``envcheck.matrix-bundle/1``): a manifest JSON at the URL given
(``https://``, ``http://`` or ``file://``; no bundle is published yet, so there
is no default) and the domain TOML files next to it, one per domain::

    {
      "schema": "envcheck.matrix-bundle/1",
      "schema_version": 1,              # matrix schema_version of the TOML files
      "data_version": "2026-11-22",
      "files": {"cuda_driver.toml": {"sha256": "<64 hex>", "size": 22942}, ...}
    }

File URLs are resolved relative to the manifest URL. Individual files (rather
than one tar.gz) keep verification per file, need no archive extraction (no
path-traversal risk) and let a maintainer publish the ``matrices/`` directory
as it is (``make_manifest`` writes the manifest).

Safety: every request has connect/read timeouts and the whole download one
deadline (a server dripping bytes is cut off); every download has a size limit;
the manifest goes through the input gate (nesting depth, long integers, text
encoding) and so do the domain files when the bundle is validated;
file names must be known domain files and every domain must be present; each
file's size and sha256 must match the manifest; the bundle is then loaded and
validated from a temporary directory with the normal loader; data older than the
matrix in use needs ``allow_downgrade``; leftovers of a killed update (whose
process is gone) are removed by the next run.
Only then is it installed: the files sit in a fresh directory next to the
target and a ``current`` symlink is swapped with ``os.replace`` (atomic on
POSIX); where symlinks are unavailable (Windows without the privilege) two
renames are used. Any failure leaves the working matrix untouched.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from envcheck.errors import EnvcheckError, InputError, clip
from envcheck.matrix.load import DOMAINS, SCHEMA_VERSION

BUNDLE_SCHEMA = "envcheck.matrix-bundle/1"
DEFAULT_URL: Optional[str] = None
"""Where the project publishes its matrix bundle: nowhere yet, so ``--url`` is needed."""
NO_DEFAULT_URL = (
    "no matrix bundle is published for envcheck yet; pass --url with the manifest.json "
    "of a bundle (https://... or file:///path/manifest.json), or --bundled to use the "
    "matrix shipped with envcheck"
)

TIMEOUT = (10.0, 30.0)
"""Connect and read timeouts (seconds) of every request."""
DEADLINE = 300.0
"""Seconds the whole download (manifest and every file) may take."""
MAX_MANIFEST_BYTES = 256 * 1024
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_TOTAL_BYTES = 32 * 1024 * 1024
_CHUNK = 64 * 1024
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

Progress = Callable[[str, int, Optional[int]], None]
"""progress(file name, bytes so far, total or None)."""


class UpdateError(EnvcheckError):
    """The update failed; the installed matrix is unchanged."""


@dataclass(frozen=True)
class BundleFile:
    name: str
    sha256: str
    size: Optional[int]


@dataclass(frozen=True)
class Manifest:
    data_version: str
    schema_version: int
    files: tuple[BundleFile, ...]


@dataclass(frozen=True)
class UpdateResult:
    directory: Path
    data_version: str
    previous: Optional[str]
    files: tuple[str, ...]


def parse_manifest(data: Any, url: str) -> Manifest:
    """Validate a manifest document; raises UpdateError naming what is wrong."""
    if not isinstance(data, dict):
        raise UpdateError(f"{url}: manifest is not a JSON object")
    if data.get("schema") != BUNDLE_SCHEMA:
        raise UpdateError(f"{url}: not an envcheck matrix manifest (schema {data.get('schema')!r})")
    schema_version = data.get("schema_version")
    if not isinstance(schema_version, int) or isinstance(schema_version, bool):
        raise UpdateError(f"{url}: schema_version must be an integer")
    if schema_version > SCHEMA_VERSION:
        raise UpdateError(
            f"{url}: the matrix has schema_version {schema_version}, newer than this "
            f"envcheck reads ({SCHEMA_VERSION}); upgrade envcheck"
        )
    data_version = data.get("data_version")
    if not isinstance(data_version, str) or not _DATE_RE.match(data_version):
        raise UpdateError(f"{url}: data_version must be a date YYYY-MM-DD")
    files = data.get("files")
    if not isinstance(files, dict) or not files:
        raise UpdateError(f"{url}: 'files' must be a non-empty object")
    known = {f"{d}.toml" for d in DOMAINS}
    out = []
    for name, entry in sorted(files.items()):
        if name not in known:
            raise UpdateError(
                f"{url}: unexpected file {name!r} (known: {', '.join(sorted(known))})"
            )
        if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
            raise UpdateError(f"{url}: files.{name} needs a sha256")
        sha = entry["sha256"].lower()
        if not _SHA_RE.match(sha):
            raise UpdateError(f"{url}: files.{name}.sha256 is not 64 hex digits")
        size = entry.get("size")
        if size is not None and (
            not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= MAX_FILE_BYTES
        ):
            raise UpdateError(f"{url}: files.{name}.size must be 0..{MAX_FILE_BYTES}")
        out.append(BundleFile(name, sha, size))
    missing = sorted(known - set(files))
    if missing:
        raise UpdateError(
            f"{url}: the bundle lacks {', '.join(missing)} (a bundle must hold every domain)"
        )
    return Manifest(data_version, schema_version, tuple(out))


MANIFEST_DEPTH = 8
"""Deepest nesting a manifest may have (a real one nests 3 deep)."""


def parse_manifest_bytes(raw: bytes, url: str) -> Any:
    """The manifest's JSON through the input gate (encoding, nesting depth, long
    integers; the size was bounded by the download); one plain line on error."""
    from envcheck.inputs import decode_text, parse_json

    try:
        return parse_json(decode_text(raw, url, "manifest"), url, max_depth=MANIFEST_DEPTH)
    except InputError as exc:
        message = exc.message
        message = message.removeprefix("invalid JSON: ")
        where = f"line {exc.line}: " if exc.line else ""
        raise UpdateError(f"{url}: manifest is not valid JSON ({where}{message})") from None


def make_manifest(directory: Path, data_version: str) -> dict[str, Any]:
    """The manifest of a matrix directory (for maintainers publishing a bundle)."""
    files = {}
    for domain in DOMAINS:
        path = directory / f"{domain}.toml"
        if path.is_file():
            data = path.read_bytes()
            files[path.name] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    return {
        "schema": BUNDLE_SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "data_version": data_version,
        "files": files,
    }


def _download(
    session: Any,
    url: str,
    limit: int,
    progress: Optional[Progress],
    name: str,
    deadline: Optional[float] = None,
) -> bytes:
    """GET ``url`` into memory, refusing more than ``limit`` bytes or a late finish."""
    import http.client
    import time

    import requests
    import urllib3

    deadline = time.monotonic() + DEADLINE if deadline is None else deadline
    if url.startswith("file:"):
        return _read_file_url(url, limit)
    try:
        with session.get(url, timeout=TIMEOUT, stream=True) as response:
            if response.status_code != 200:
                raise UpdateError(
                    f"{url}: HTTP {response.status_code} {response.reason or ''}".rstrip()
                )
            length = response.headers.get("Content-Length")
            total: Optional[int] = int(length) if length and length.isdigit() else None
            if total is not None and total > limit:
                raise UpdateError(f"{url}: {total} bytes is over the {limit}-byte limit")
            chunks = []
            got = 0
            for chunk in _chunks(response):
                got += len(chunk)
                if got > limit:
                    raise UpdateError(f"{url}: more than the {limit}-byte limit; refused")
                chunks.append(chunk)
                if progress is not None:
                    progress(name, got, total)
                if time.monotonic() > deadline:
                    raise UpdateError(
                        f"{url}: the download did not finish within {DEADLINE:g}s; cut off"
                    )
            if total is not None and got != total:
                raise UpdateError(f"{url}: truncated download ({got} of {total} bytes)")
            return b"".join(chunks)
    except requests.Timeout:
        raise UpdateError(f"{url}: timed out") from None
    except requests.ConnectionError as exc:
        raise UpdateError(f"{url}: cannot connect ({_reason(exc)})") from None
    except requests.RequestException as exc:
        raise UpdateError(f"{url}: {_reason(exc)}") from None
    except (OSError, http.client.HTTPException, urllib3.exceptions.HTTPError) as exc:
        # The body is read from urllib3 directly (read1, for the deadline), so a
        # server closing mid-body raises urllib3's ProtocolError, not requests'.
        raise UpdateError(f"{url}: the download broke off ({_reason(exc)})") from None


def _chunks(response: Any) -> Iterator[bytes]:
    """The body as it arrives: each read returns what one socket read gave, so a
    server dripping bytes cannot hold a read open past the deadline check."""
    raw = response.raw
    read1 = getattr(raw, "read1", None)
    if read1 is None:  # urllib3 < 2: small reads keep the deadline check frequent
        yield from response.iter_content(1024)
        return
    while True:
        chunk = read1(_CHUNK, decode_content=True)
        if not chunk:
            return
        yield chunk


def _read_file_url(url: str, limit: int) -> bytes:
    """A ``file:`` URL (a bundle on disk or a mounted share), within ``limit``."""
    from urllib.parse import unquote, urlparse

    path = Path(unquote(urlparse(url).path))
    try:
        if not path.is_file():
            raise UpdateError(f"{url}: no such file")
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise UpdateError(f"{url}: cannot read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > limit:
        raise UpdateError(f"{url}: more than the {limit}-byte limit; refused")
    return data


def _reason(exc: BaseException) -> str:
    """The innermost plain reason of a requests/urllib3 error, without object reprs."""
    seen = exc
    while True:
        inner = getattr(seen, "reason", None) or seen.__cause__ or seen.__context__
        if not isinstance(inner, BaseException) or inner is seen:
            break
        seen = inner
    text = _first_line(seen)
    # urllib3 prefixes messages with "<object at 0x...>: "; keep only the message.
    text = re.sub(r"^<[^>]*>:\s*", "", text)
    text = re.sub(r"\(Caused by .*$", "", text).strip()
    return text or type(exc).__name__


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def fetch_bundle(
    url: str, dest: Path, progress: Optional[Progress] = None, session: Any = None
) -> Manifest:
    """Download the manifest at ``url`` and its files into ``dest``, verified."""
    import time
    from urllib.parse import urljoin, urlparse

    import requests

    if urlparse(url).scheme not in ("https", "http", "file"):
        raise UpdateError(f"{url}: only http(s) and file URLs are supported")
    deadline = time.monotonic() + DEADLINE
    own = session is None
    session = requests.Session() if own else session
    try:
        raw = _download(session, url, MAX_MANIFEST_BYTES, None, "manifest.json", deadline)
        manifest = parse_manifest(parse_manifest_bytes(raw, url), url)
        total = 0
        for entry in manifest.files:
            file_url = urljoin(url, entry.name)
            body = _download(session, file_url, MAX_FILE_BYTES, progress, entry.name, deadline)
            total += len(body)
            if total > MAX_TOTAL_BYTES:
                raise UpdateError(f"{url}: bundle is over the {MAX_TOTAL_BYTES}-byte limit")
            if entry.size is not None and len(body) != entry.size:
                raise UpdateError(
                    f"{file_url}: {len(body)} bytes, the manifest says {entry.size} (truncated?)"
                )
            digest = hashlib.sha256(body).hexdigest()
            if digest != entry.sha256:
                raise UpdateError(
                    f"{file_url}: sha256 {digest} does not match the manifest ({entry.sha256})"
                )
            (dest / entry.name).write_bytes(body)
        (dest / "manifest.json").write_bytes(raw)
        return manifest
    finally:
        if own:
            session.close()


def validate_bundle(directory: Path) -> str:
    """Load ``directory`` with the normal loader; returns its data version."""
    from envcheck.matrix import load_matrix_from

    try:
        return load_matrix_from(directory).data_version
    except InputError as exc:
        # Name the file as published, not the temporary path.
        name = Path(exc.path).name if exc.path else "bundle"
        where = f"{name}:{exc.line}" if exc.line else name
        raise UpdateError(f"downloaded matrix is invalid: {where}: {exc.message}") from None


_LEFTOVER_RE = re.compile(r"^\.(?:incoming-(\d+)-.*|.+\.(\d+)\.link|.+\.(?:old|removed)-(\d+))$")
STALE_SECONDS = 3600.0
"""A leftover whose owner cannot be told is removed once it is this old."""


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists but not ours (EPERM), or no such call (Windows)
        return True
    return True


def clean_leftovers(parent: Path) -> list[str]:
    """Remove what a killed update left next to the matrix: staging directories,
    temporary links and set-aside old bundles whose process is gone. Returns the
    names removed."""
    import time

    removed: list[str] = []
    try:
        items = list(parent.iterdir())
    except OSError:
        return removed
    now = time.time()
    for item in items:
        if not item.name.startswith("."):
            continue
        match = _LEFTOVER_RE.match(item.name)
        if match is not None:
            pid = int(next(g for g in match.groups() if g is not None))
            if _alive(pid):
                continue
        elif item.name.startswith(".incoming-"):
            try:
                if now - item.lstat().st_mtime < STALE_SECONDS:
                    continue
            except OSError:
                continue
        else:
            continue
        if item.is_dir() and not item.is_symlink():
            shutil.rmtree(item, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                item.unlink()
        removed.append(item.name)
    return removed


@contextlib.contextmanager
def _staging(parent: Path) -> Iterator[Path]:
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".incoming-{os.getpid()}-", dir=parent))
    try:
        yield staging
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def install(staged: Path, target: Path, data_version: str) -> Path:
    """Move a validated directory into place and point ``target`` at it atomically."""
    parent = target.parent
    final = Path(tempfile.mkdtemp(prefix=f"{data_version}-", dir=parent))
    for item in staged.iterdir():
        item.replace(final / item.name)
    link = parent / f".{target.name}.{os.getpid()}.link"
    try:
        with contextlib.suppress(FileNotFoundError):
            link.unlink()
        link.symlink_to(final.name, target_is_directory=True)
        old = target.resolve() if target.is_symlink() else None
        if target.exists() and not target.is_symlink():
            # A plain directory from an earlier non-symlink install: move it aside first.
            aside = parent / f".{target.name}.old-{os.getpid()}"
            target.replace(aside)
            old = aside
        link.replace(target)
    except OSError:
        with contextlib.suppress(OSError):
            link.unlink()
        # No symlinks (Windows without the privilege): two renames, not atomic.
        old = None
        if target.exists() or target.is_symlink():
            old = parent / f".{target.name}.old-{os.getpid()}"
            target.replace(old)
        final.replace(target)
        final = target
    if old is not None and old != final and old.parent == parent:
        shutil.rmtree(old, ignore_errors=True)
    _prune(parent, keep={final.name, target.name})
    return final


def _prune(parent: Path, keep: set[str]) -> None:
    """Remove leftovers of earlier installs (never the live one)."""
    for item in parent.iterdir():
        if item.name in keep or item.name.startswith(".incoming-"):
            continue
        if item.is_dir() and not item.is_symlink() and re.match(r"^\d{4}-\d{2}-\d{2}-", item.name):
            shutil.rmtree(item, ignore_errors=True)


def installed_version(target: Path) -> Optional[str]:
    """The data version of the installed update at ``target``; None without one."""
    from envcheck.inputs import read_json

    with contextlib.suppress(InputError, AttributeError):
        doc = read_json(target / "manifest.json", "manifest", MAX_MANIFEST_BYTES)
        version = doc.get("data_version")
        return version if isinstance(version, str) else None
    return None


def update_matrix(
    url: str,
    target: Path,
    progress: Optional[Progress] = None,
    session: Any = None,
    allow_downgrade: bool = False,
    floor: Optional[str] = None,
) -> UpdateResult:
    """Fetch, verify, validate and install the bundle at ``url`` as ``target``.

    A bundle older than the installed update (or than ``floor``, the shipped
    matrix's data version, when no update is installed) is refused unless
    ``allow_downgrade``.
    """
    try:
        return _update_matrix(url, target, progress, session, allow_downgrade, floor)
    except OSError as exc:
        # A cache folder envcheck cannot write (read-only home, another user's):
        # one line; the installed matrix is left as it was.
        where = exc.filename if isinstance(exc.filename, str) else target.parent
        raise UpdateError(
            f"{clip(where)}: cannot write the matrix cache ({exc.strerror or type(exc).__name__})"
        ) from None


def _update_matrix(
    url: str,
    target: Path,
    progress: Optional[Progress],
    session: Any,
    allow_downgrade: bool,
    floor: Optional[str],
) -> UpdateResult:
    clean_leftovers(target.parent)
    previous = installed_version(target)
    current = previous or floor
    with _staging(target.parent) as staging:
        manifest = fetch_bundle(url, staging, progress, session)
        data_version = validate_bundle(staging)
        if current is not None and manifest.data_version < current and not allow_downgrade:
            where = "the installed update" if previous else "the matrix shipped with envcheck"
            raise UpdateError(
                f"{url}: matrix data {manifest.data_version} is older than {current} "
                f"({where}); pass --allow-downgrade to install it anyway"
            )
        final = install(staging, target, manifest.data_version)
    return UpdateResult(final, data_version, previous, tuple(f.name for f in manifest.files))


def remove_update(target: Path) -> bool:
    """Go back to the shipped matrix: remove an installed update. True if one was removed."""
    clean_leftovers(target.parent)
    if not (target.exists() or target.is_symlink()):
        return False
    parent = target.parent
    aside = parent / f".{target.name}.removed-{os.getpid()}"
    real = target.resolve() if target.is_symlink() else None
    target.replace(aside)  # one rename: loaders now see no update
    if aside.is_symlink():
        aside.unlink()
        if real is not None and real.parent == parent:
            shutil.rmtree(real, ignore_errors=True)
    else:
        shutil.rmtree(aside, ignore_errors=True)
    return True


def env_hint(env: Mapping[str, str]) -> Optional[str]:
    """A note when ENVCHECK_MATRIX overrides what an update would change."""
    from envcheck.matrix import ENV_MATRIX

    value = env.get(ENV_MATRIX, "").strip()
    if value:
        return f"note: {ENV_MATRIX}={value} is set and takes precedence over the installed update"
    return None
