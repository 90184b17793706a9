"""From a pin to the candidate builds it can mean (``pin_component``): the release
range × variant, narrowed by the index it is installed from, through the one
selector; the conda package names whose version is the environment's CUDA."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Optional

from envcheck import names
from envcheck.check.model import (
    FRAMEWORK_NOT_IN_MATRIX,
    INDEX_LACKS_VERSION,
    NO_SUCH_RELEASE,
    UNKNOWN_VERSION,
    WARNING,
    Environment,
    Pin,
    Problem,
)
from envcheck.compat.target import Target
from envcheck.model._frozen import record
from envcheck.model.versions import release_key, release_minor

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import Build

# Distribution (pip) and package (conda) names of the frameworks the matrix covers.
# conda packages whose version is the environment's CUDA version.
CONDA_CUDA_PINS = (
    "cudatoolkit",
    "cuda-version",
    "cuda-toolkit",
    "cuda-runtime",
    "cuda-cudart",
    "pytorch-cuda",
)
# The conda package through which a channel's CUDA builds fix their CUDA version
# (matrices/README.md, conda.toml): a pin of it is judged against that channel's
# [[package]] rows. conda-forge's ``cuda-version`` is left out: its rows omit the
# CUDA 11.2 variants and are unverified (see conda.toml).
CONDA_CHANNEL_OF_CUDA_PIN = {"pytorch-cuda": "pytorch", "cudatoolkit": "defaults"}
_CUDA_EXTRA = re.compile(r"^cuda(\d+)")


@record
class Option:
    """One way a pin can be satisfied."""

    version: str
    build: Optional[Build]
    cuda_major: Optional[int]
    cudnn_major: Optional[int]


@record
class Component:
    """A pin that brings CUDA or cuDNN into the environment, with its options."""

    pin: Pin
    framework: Optional[str]
    options: tuple[Option, ...]
    via: str = ""
    """How the options were chosen (``on https://…/cu118``), for messages."""


def framework_of(pin: Pin) -> Optional[str]:
    """The framework whose builds judge ``pin``; None for keras, whose pins are judged
    against the tensorflow pins (``_keras_tensorflow``)."""
    from envcheck import names

    framework = names.framework_of(pin.name, conda=pin.source == "conda", aliases=False)
    return None if framework == "keras" else framework


def _norm_url(url: Optional[str]) -> str:
    return (url or "").strip().rstrip("/").lower()


def spec_of(pin: Pin) -> str:
    # ``==2.1.0+cu118``: match the release, the local label picks the variant.
    return re.sub(r"\+[A-Za-z0-9.]+", "", pin.specifier)


def major_of(text: Optional[str]) -> Optional[int]:
    m = re.match(r"\D*(\d+)", text or "")
    return int(m.group(1)) if m else None


def _exact_major(spec: str) -> Optional[int]:
    """The major of an exact or prefix pin (``==9.1.0.70``, ``==8.*``, ``~=9.1``)."""
    m = re.search(r"(?:===?|~=)\s*(\d+)", spec)
    return int(m.group(1)) if m else None


def pin_component(
    pin: Pin, env: Environment, target: Target, matrix: Matrix, problems: list[Problem]
) -> Optional[Component]:
    framework = framework_of(pin)
    cupy = names.cupy_wheel_cuda_major(pin.name) if pin.source == "pip" else None
    nvidia = names.nvidia_wheel(pin.name) if pin.source == "pip" else None
    if nvidia is not None:
        cudnn = _exact_major(pin.specifier) if nvidia[0] == "cudnn" else None
        return Component(pin, None, (Option("", None, nvidia[1], cudnn),))
    if pin.source == "conda" and pin.name == "cudnn":
        major = _exact_major(pin.specifier)
        return None if major is None else Component(pin, None, (Option("", None, None, major),))
    if framework is None:
        return None
    builds = matrix.framework_builds(framework)
    if not builds:
        # The name alone still tells the CUDA major of some packages.
        major = None
        if cupy is not None:
            major = cupy
        for extra in pin.extras:
            m = _CUDA_EXTRA.match(extra)
            if m:
                major = int(m.group(1))
        problems.append(
            Problem(
                pin.location,
                FRAMEWORK_NOT_IN_MATRIX,
                f"the matrix has no {framework} builds; {pin.text} is not checked",
                WARNING,
            )
        )
        if major is None:
            return None
        return Component(pin, None, (Option("", None, major, None),))
    missing = _no_such_release(pin, builds)
    if missing is not None:
        problems.append(missing)
        return None
    pairs = _release_builds(pin, framework, builds, matrix)
    if not pairs:
        known = matrix.releases(framework)
        span = f" (it knows {known[0]} to {known[-1]})" if known else ""
        problems.append(
            Problem(
                pin.location,
                UNKNOWN_VERSION,
                f"{pin.text}: no {framework} release matching this is in the matrix{span}; not checked",
                WARNING,
            )
        )
        return None
    selected, via = _select_index(pin, env, pairs, builds, problems, matrix)
    if not selected:
        return None
    if all(b.withdrawn for _, b in selected):
        gone = sorted({v for v, _ in selected}, key=release_key)
        problems.append(
            Problem(
                pin.location,
                INDEX_LACKS_VERSION,
                f"{pin.text}: {framework} {span_of(gone)} is gone from the index that served it;"
                " pip cannot install it now",
            )
        )
    if target.platform is not None:
        on_platform = [
            (v, b) for v, b in selected if not b.platforms or target.platform in b.platforms
        ]
        selected = on_platform or selected
    options = tuple(
        Option(
            v,
            b,
            b.cuda.major if b.cuda is not None else None,
            major_of(b.cudnn) if b.cudnn else None,
        )
        for v, b in selected
    )
    return Component(pin, framework, options, via)


_EXACT_RELEASE = re.compile(r"^==\s*(\d+(?:\.\d+)*)$")
"""``==2.5.7``: an exact final release (no ``.*``, pre, post or dev part)."""


def _no_such_release(pin: Pin, builds: Sequence[Build]) -> Optional[Problem]:
    """EC108 for an exact pip pin of a release that does not exist (``torch==2.5.7``).

    Judged from the matrix's release lists of the pin's own distribution, and only
    where they leave no doubt: the release is newer than every release of its
    minor the matrix lists while a later minor is listed (2.5.7 after 2.5.1, with
    2.6.0 out), or its minor is missing between two listed ones (torch 1.14.0). A
    gap inside a minor (a patch release whose wheels were not read), anything
    outside the span the matrix covers, other distributions and conda pins
    (channels publish their own version sets) are not judged here.
    """
    from envcheck.check.parse_requirements import normalise_name
    from envcheck.compat.select import absent_release

    m = _EXACT_RELEASE.match(spec_of(pin).strip()) if pin.source == "pip" else None
    if m is None:
        return None
    releases = sorted(
        {v for b in builds if normalise_name(b.package) == pin.name for v in b.versions},
        key=release_key,
    )
    near = absent_release(releases, m.group(1))
    if near is None:
        return None
    first, last = _span_ends(releases)
    return Problem(
        pin.location,
        NO_SUCH_RELEASE,
        f"{pin.text}: {pin.name} {m.group(1)} does not exist (the matrix lists every {pin.name}"
        f" release from {first} to {last}); nearest releases: {near[0]}, {near[1]}",
    )


def _span_ends(releases: Sequence[str]) -> tuple[str, str]:
    """The oldest and newest final releases of a sorted list."""
    finals = [v for v in releases if re.fullmatch(r"\d+(?:\.\d+)*", v)]
    return (finals or list(releases))[0], (finals or list(releases))[-1]


def _release_builds(
    pin: Pin, framework: str, builds: Sequence[Build], matrix: Matrix
) -> list[tuple[str, Build]]:
    """(release, build) pairs of the pin's package and extras whose release matches,
    through the one selector (``compat.select``); the local label is read by
    ``_select_index``, which reports a variant the index lacks."""
    from envcheck.compat.select import Intent, Request, select

    conda = pin.source == "conda"
    request = Request(
        framework,
        None if conda else pin.name,
        spec_of(pin),
        extras=tuple(pin.extras),
        # A conda package has no extras: every row of the framework may be it.
        intent=Intent.ASK if conda else Intent.PIN,
    )
    return [(v, b) for b, v in select(matrix, request).pairs]


def _select_index(
    pin: Pin,
    env: Environment,
    pairs: list[tuple[str, Build]],
    builds: Sequence[Build],
    problems: list[Problem],
    matrix: Matrix,
) -> tuple[list[tuple[str, Build]], str]:
    """Narrow to the builds the pin's index serves; EC103 when it serves none."""
    versions = sorted({v for v, _ in pairs}, key=release_key)
    label = pin.text
    if pin.local:
        local = pin.local

        def same_variant(b: Build) -> bool:
            return b.variant.lower() == local

        chosen = [(v, b) for v, b in pairs if same_variant(b)]
        if not chosen:
            chosen = _minor_mates(versions, builds, same_variant, matrix)
        if not chosen and not _variants_known(versions, builds):
            problems.append(_variants_unknown(pin, _builds_framework(builds), versions))
        elif not chosen:
            problems.append(
                Problem(
                    pin.location,
                    INDEX_LACKS_VERSION,
                    f"{label}: no {pin.local} build of {span_of(versions)} was published"
                    f" (variants: {_variants(pairs)})",
                )
            )
        return chosen, f"+{pin.local}"
    if pin.source == "conda":
        # A conda environment that pins a CUDA package wants the CUDA builds.
        if any(p.source == "conda" and p.name in CONDA_CUDA_PINS for p in env.pins):
            cuda = [(v, b) for v, b in pairs if b.cuda is not None]
            return cuda or pairs, ""
        return pairs, ""
    known = {_norm_url(b.index_url) for b in builds if b.index_url}
    bound_url = pin.index_url
    where = pin.index_location
    if bound_url is None:
        primary = [i for i in env.indexes if i.kind == "index-url"]
        if primary:
            bound_url, where = primary[-1].url, primary[-1].location
    if bound_url is not None and _norm_url(bound_url) in known:
        url = _norm_url(bound_url)

        def on_index(b: Build) -> bool:
            return _norm_url(b.index_url) == url

        chosen = [(v, b) for v, b in pairs if on_index(b)]
        if not chosen:
            chosen = _minor_mates(versions, builds, on_index, matrix)
        if not chosen and not _variants_known(versions, builds):
            problems.append(_variants_unknown(pin, _builds_framework(builds), versions))
        elif not chosen:
            problems.append(
                Problem(
                    pin.location,
                    INDEX_LACKS_VERSION,
                    f"{label}: {bound_url} (from {where}) has no {span_of(versions)};"
                    f" it was published for {_variants(pairs)}",
                )
            )
        return chosen, f"from {bound_url}"
    pypi = _pypi(pairs)
    extra = [i for i in env.indexes if i.kind != "index-url" and _norm_url(i.url) in known]
    if not extra:
        return pypi, ""
    urls = {_norm_url(i.url) for i in extra}
    on_extra = [(v, b) for v, b in pairs if _norm_url(b.index_url) in urls]
    if not on_extra:
        problems.append(
            Problem(
                pin.location,
                INDEX_LACKS_VERSION,
                f"{label}: {extra[-1].url} (from {extra[-1].location}) never published"
                f" {span_of(versions)}; pip falls back to the PyPI build",
                WARNING,
            )
        )
    return on_extra + [p for p in pypi if p not in on_extra], ""


def _minor_mates(
    versions: Sequence[str],
    builds: Sequence[Build],
    wanted: Callable[[Build], bool],
    matrix: Matrix,
) -> list[tuple[str, Build]]:
    """Builds of the same minor release that match, for releases whose own rows lack them.

    Where the framework's ``[[patch_rule]]`` says patch releases are built as their
    minor release is (the same inference as ``compat.select``), they are published
    for the same variants; the matrix often enters only what a patch release's PyPI
    wheels show, so a variant missing there is not proof the index never published
    it. Without a rule nothing is inferred.
    """
    out = []
    for version in versions:
        if not builds or matrix.patch_rule(builds[0].framework, version) is None:
            continue
        mates = [
            b
            for b in builds
            if wanted(b) and any(release_minor(v) == release_minor(version) for v in b.versions)
        ]
        out += [(version, b) for b in mates]
    return out


def _variants_known(versions: Sequence[str], builds: Sequence[Build]) -> bool:
    """Whether the matrix lists any index variant for these releases' minor release."""
    minors = {release_minor(v) for v in versions}
    return any(b.index_url and any(release_minor(v) in minors for v in b.versions) for b in builds)


def _builds_framework(builds: Sequence[Build]) -> str:
    return builds[0].framework if builds else "the framework"


def _variants_unknown(pin: Pin, framework: str, versions: Sequence[str]) -> Problem:
    return Problem(
        pin.location,
        UNKNOWN_VERSION,
        f"{pin.text}: the matrix does not list which variants {framework} {span_of(versions)}"
        " was published for; not checked",
        WARNING,
    )


def _pypi(pairs: list[tuple[str, Build]]) -> list[tuple[str, Build]]:
    """What plain PyPI serves for each release: its default variant when known."""
    out: list[tuple[str, Build]] = []
    for version in sorted({v for v, _ in pairs}, key=release_key):
        mine = [(v, b) for v, b in pairs if v == version]
        default = [p for p in mine if p[1].pypi_default]
        plain = [p for p in mine if p[1].index_url is None]
        out.extend(default or plain or mine)
    return out


def span_of(versions: Sequence[str]) -> str:
    if not versions:
        return "it"
    if len(versions) == 1:
        return versions[0]
    return f"any of {versions[0]} to {versions[-1]}"


def _variants(pairs: Iterable[tuple[str, Build]]) -> str:
    return ", ".join(dict.fromkeys(b.variant for _, b in pairs))


def majors_text(values: Iterable[Optional[int]]) -> str:
    known = sorted({v for v in values if v is not None})
    return " or ".join(str(v) for v in known)


def describe(comp: Component) -> str:
    return f"{comp.pin.text} ({comp.pin.location})"
