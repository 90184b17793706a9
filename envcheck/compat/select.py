"""The one selector: which matrix builds a request can mean.

A request is what a user or a file wrote: a distribution name, a specifier, extras,
a local version label (``+cu118``) and the index it is installed from. ``select``
answers it with (build, release) pairs; ``plan``, ``matrix why``, ``check`` and the
doctor all ask it, so a name, an extra or a patch release means the same everywhere.

A final release the matrix proves never existed (``absent_release``: torch 2.5.7,
newer than every 2.5 release while 2.6.0 is listed) selects nothing anywhere, so no
command plans an install that cannot succeed. A patch release the matrix cannot rule
out (the next patch of the newest minor, torch 2.15.1 beside 2.15.0) is judged by
the builds of its minor release only where a ``[[patch_rule]]`` row says patch
releases of that framework are built as their minor release is; the selection says
so (``inferred``) and the judge cites the rule. Without a rule it selects nothing:
the release is unknown.

Pure: a function of (request, matrix).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Optional

from envcheck import names
from envcheck.model._frozen import record

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import Build, PatchRule


class Intent(str, enum.Enum):
    """What the request is for: the one thing consumers may differ in."""

    PIN = "pin"
    """A pin in a file or an installed build: the distribution named, and without an
    extra the rows without one (``tensorflow==2.15`` is not ``tensorflow[and-cuda]``)."""
    ASK = "ask"
    """``matrix why``: every build the name may mean, each shown as an option."""
    CHOOSE = "choose"
    """``plan``: a framework's main name (``tensorflow``) may be answered with another
    of its distributions (``tensorflow-gpu`` for 1.x)."""


@record
class Request:
    framework: str
    name: Optional[str]
    """The distribution (or conda package) name as written, compared in PEP 503 form;
    None: any distribution of the framework."""
    specifier: str = ""
    """A PEP 440 specifier; a local label in it (``==2.3.0+cu118``) is read as ``local``."""
    extras: tuple[str, ...] = ()
    local: Optional[str] = None
    """The variant a local version label names (``cu118``)."""
    intent: Intent = Intent.PIN
    index_url: Optional[str] = None
    """The index the request is installed from; None: unknown or plain PyPI."""


@record
class Inference:
    """A release the matrix does not list, judged by another's builds under a rule."""

    version: str
    """The release asked for (``2.10.1``)."""
    by: str
    """The listed release whose builds stand for it (``2.10.0``)."""
    rule: PatchRule

    def message(self, framework: str) -> str:
        return (
            f"{framework} {self.version} is not in the matrix: judged by the builds of "
            f"{self.by}, its minor release (patch releases of {framework} "
            f"{self.rule.versions} are built as their minor release is)"
        )


@record
class Selection:
    pairs: tuple[tuple[Build, str], ...]
    """(build, release) pairs, in matrix order."""
    inferred: Optional[Inference] = None
    releases_matched: bool = False
    """Some release matched the specifier before the variant was narrowed (a release
    the matrix knows, without that variant or extra)."""

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v for _, v in self.pairs))


_LOCAL = re.compile(r"\+([A-Za-z0-9.]+)")
_EXACT = re.compile(r"^\s*===?\s*([0-9][0-9A-Za-z.!_-]*)\s*$")


def split_local(specifier: str) -> tuple[str, Optional[str]]:
    """``==2.3.0+cu118`` -> (``==2.3.0``, ``cu118``): the release and the variant."""
    m = _LOCAL.search(specifier)
    local = m.group(1).lower() if m else None
    return _LOCAL.sub("", specifier), local


def _extra(text: Optional[str]) -> str:
    return names.canonical(text) if text else ""


def _rows(matrix: Matrix, request: Request) -> tuple[Build, ...]:
    """The framework's rows the name and extras mean."""
    rows = matrix.framework_builds(request.framework)
    if request.name is not None:
        name = names.canonical(request.name)
        own = tuple(b for b in rows if names.canonical(b.package) == name)
        main = request.intent is Intent.CHOOSE and name in names.MAIN_NAMES
        if own and not main:
            rows = own
    extras = {_extra(e) for e in request.extras}
    with_extra = tuple(b for b in rows if b.extra and _extra(b.extra) in extras)
    if with_extra:
        return with_extra
    if extras and request.intent is Intent.ASK:
        return ()  # `matrix why jax[cuda99]==...`: the matrix knows no such build
    if request.intent is Intent.PIN:
        # pip ignores an extra the distribution does not define: the plain build.
        plain = tuple(b for b in rows if b.extra is None)
        return plain or rows
    return rows


def select(matrix: Matrix, request: Request) -> Selection:
    """The (build, release) pairs ``request`` can mean (see the module doc)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    specifier, label = split_local(request.specifier)
    local = (request.local or label or "").lower() or None
    try:
        spec = SpecifierSet(specifier)
    except InvalidSpecifier:
        return Selection(())
    inference = None
    pairs = _matching(_rows(matrix, request), spec)
    if not pairs:
        inference = _patch_inference(matrix, request.framework, specifier)
        if inference is not None:
            listed = set(matrix.builds_for(request.framework, inference.by))
            pairs = [(b, inference.version) for b in _rows(matrix, request) if b in listed]
    if local is not None:
        pairs = [(b, v) for b, v in pairs if b.variant.lower() == local]
    matched = (
        bool(pairs)
        or bool(
            _matching(
                _rows(matrix, Request(request.framework, request.name, intent=request.intent)), spec
            )
        )
        or inference is not None
    )
    return Selection(tuple(pairs), inference if pairs else None, matched)


def _matching(rows: tuple[Build, ...], spec: SpecifierSet) -> list[tuple[Build, str]]:
    return [(b, v) for b in rows for v in b.versions if spec.contains(v, prereleases=True)]


def _patch_inference(matrix: Matrix, framework: str, specifier: str) -> Optional[Inference]:
    """An exact pin of a final release the matrix lacks, whose minor release it lists
    and whose framework has a ``[[patch_rule]]`` for it."""
    from envcheck.model.versions import FINAL_RELEASE_RE, release_minor

    exact = _EXACT.match(specifier)
    if exact is None or not FINAL_RELEASE_RE.match(exact.group(1)):
        return None
    version = exact.group(1)
    rule = matrix.patch_rule(framework, version)
    if rule is None or absent_release(matrix.releases(framework), version) is not None:
        return None
    same = [v for v in matrix.releases(framework) if release_minor(v) == release_minor(version)]
    return Inference(version, same[-1], rule) if same else None


def absent_release(releases: Iterable[str], version: str) -> Optional[tuple[str, str]]:
    """(release below, release above) when ``releases`` (a distribution's complete
    list, as the matrix keeps it) prove the final release ``version`` never existed:
    it lies inside the listed span and is newer than every listed release of its
    minor while a later minor is listed (2.5.7 with 2.5.1 and 2.6.0), or its whole
    minor is missing between listed ones (1.14.0). None otherwise: a gap inside a
    listed minor, or anything past the newest release, is no proof."""
    from packaging.version import InvalidVersion, Version

    known: set[Version] = set()
    for v in releases:
        try:
            parsed = Version(v)
        except InvalidVersion:
            continue
        if not parsed.is_prerelease:
            known.add(Version(parsed.base_version))
    try:
        wanted = Version(version)
    except InvalidVersion:
        return None
    if wanted.is_prerelease or wanted.local or not known or wanted in known:
        return None
    if not min(known) < wanted < max(known):
        return None
    if any(v > wanted and v.release[:2] == wanted.release[:2] for v in known):
        return None  # a gap inside a listed minor: not proof
    below = max(v for v in known if v < wanted)
    above = min(v for v in known if v > wanted)
    return str(below), str(above)


def pip_served(build: Build) -> bool:
    """Served by plain ``pip install NAME==V``: the variant PyPI serves (``pypi_default``,
    recorded for linux-x86_64), or a build with no extra index or find-links page."""
    return build.pypi_default is True or (build.index_url is None and build.find_links is None)
