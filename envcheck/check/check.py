"""``check_pins``: which pinned combinations cannot work (pure: pins + target + matrix).

A pin selects a set of candidate framework builds (release range × variant,
narrowed by the index it is installed from). A problem is reported only when
*no* candidate can work, so a loose range never gives a false error; a version
the matrix does not know gives a warning, never a silent pass.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Optional

from envcheck.check.model import (
    CONDA_CUDA_CONTRADICTION,
    CUDA_MAJOR_CONFLICT,
    CUDNN_MAJOR_CONFLICT,
    FRAMEWORK_NOT_IN_MATRIX,
    INDEX_LACKS_VERSION,
    INVALID_VALUE,
    KERAS_TENSORFLOW_CONFLICT,
    NO_SUCH_RELEASE,
    PYTHON_OUT_OF_RANGE,
    TARGET_UNSERVED,
    UNKNOWN_VERSION,
    UNREADABLE,
    WARNING,
    CheckReport,
    DeclaredTarget,
    Environment,
    Location,
    Pin,
    Problem,
    Project,
)
from envcheck.compat import judge as J
from envcheck.compat.candidate import from_build
from envcheck.compat.target import Target, check_driver_branch, resolve_gpu
from envcheck.model._frozen import record, replace
from envcheck.model.versions import release_key, release_minor, release_numbers

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
_CUPY = re.compile(r"^cupy-cuda(\d+)(x?)$")
_NVIDIA = re.compile(r"^nvidia-([a-z0-9-]+?)-cu(\d+)$")
_CUDA_EXTRA = re.compile(r"^cuda(\d+)")
_PYTHONS = ("2.7", *(f"3.{i}" for i in range(21)))


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


def check_pins(
    project: Project,
    target: Target,
    matrix: Matrix,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
) -> CheckReport:
    """Every problem of every environment of the project, sorted and de-duplicated.

    ``select``/``ignore`` (codes or prefixes, from the command line) and each
    project's own ``select``/``ignore`` and ``# envcheck: ignore[...]`` comments
    decide which are reported; unreadable input (EC001) always is.
    """
    problems: list[Problem] = list(project.problems)
    for env in project.environments:
        problems.extend(check_environment(env, target, matrix))
    unique = sorted(dict.fromkeys(problems), key=Problem.sort_key)
    suppressed: dict[Location, list[tuple[str, ...]]] = {}
    for s in project.suppressions:
        suppressed.setdefault(s.location, []).append(s.codes)
    shown = [p for p in unique if _reported(p, project, suppressed, select, ignore)]
    return CheckReport(project.files, tuple(shown), matrix.version)


def _specificity(code: str, patterns: Iterable[str]) -> int:
    """Length of the longest pattern matching ``code`` (``ALL``: 0); -1 when none does."""
    best = -1
    for pattern in patterns:
        if pattern == "ALL":
            best = max(best, 0)
        elif code.startswith(pattern):
            best = max(best, len(pattern))
    return best


def _reported(
    problem: Problem,
    project: Project,
    suppressed: Mapping[Location, list[tuple[str, ...]]],
    select: Sequence[str],
    ignore: Sequence[str],
) -> bool:
    from envcheck.check.model import UNREADABLE_INPUT

    if problem.code == UNREADABLE_INPUT:
        return True
    for codes in suppressed.get(problem.location, ()):
        if not codes or any(problem.code.startswith(c) for c in codes):
            return False
    own = next((sel for sel in project.selections if problem.location.path in sel.files), None)
    chosen = select or (own.select if own is not None and own.select else ("ALL",))
    ignored = (*(own.ignore if own is not None else ()), *ignore)
    return _specificity(problem.code, chosen) > _specificity(problem.code, ignored)


def check_environment(env: Environment, target: Target, matrix: Matrix) -> list[Problem]:
    """Problems of one set of pins installed together."""
    problems: list[Problem] = []
    components: list[Component] = []
    # Pins written the same way select the same builds: work each out once (a
    # 20 000-line file of a few distinct pins stays linear).
    seen: dict[tuple[object, ...], tuple[Optional[Component], list[Problem]]] = {}
    for pin in env.pins:
        if pin.constraint:
            continue
        key = (pin.name, pin.specifier, pin.text, pin.source, pin.extras, pin.local, pin.index_url)
        if key in seen:
            cached, found = seen[key]
            problems.extend(replace(p, location=pin.location) for p in found)
            comp = None if cached is None else replace(cached, pin=pin)
        else:
            found = []
            comp = _component(pin, env, target, matrix, found)
            seen[key] = (comp, found)
            problems.extend(found)
        if comp is not None:
            components.append(comp)
    distinct = _representatives(components)
    problems.extend(_major_conflicts(components))
    platforms = _platforms(env, target, matrix)
    problems.extend(_conda_cuda(env, distinct, platforms, matrix))
    problems.extend(_conda_pairings(env, platforms, matrix))
    problems.extend(_python_bounds(env, distinct))
    problems.extend(_keras_tensorflow(env, matrix))
    problems.extend(_targets(env, target, components, matrix))
    return problems


def _keras_tensorflow(env: Environment, matrix: Matrix) -> list[Problem]:
    """A keras pin that no TensorFlow release a tensorflow pin allows can go with
    (``compat.keras``): reported at the keras pin, once per distinct pair of pins."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from envcheck import names
    from envcheck.compat.keras import keras_with_tensorflow

    def allowed(pin: Pin, known: Iterable[str]) -> list[str]:
        try:
            spec = SpecifierSet(_spec(pin))
        except InvalidSpecifier:
            return []
        return [v for v in dict.fromkeys(known) if spec.contains(v, prereleases=True)]

    def pins_of(framework: str) -> list[Pin]:
        return [
            p
            for p in env.pins
            if not p.constraint
            and names.framework_of(p.name, conda=p.source == "conda", aliases=False) == framework
        ]

    keras, tfs = pins_of("keras"), pins_of("tensorflow")
    if not keras or not tfs:
        return []
    keras_known = [v for row in matrix.keras_releases for v in row.versions]
    tf_known = [v for b in matrix.builds.get("tensorflow", ()) for v in b.versions]
    problems: list[Problem] = []
    seen: set[tuple[str, str, str, str]] = set()
    for k in keras:
        for t in tfs:
            key = (k.name, k.specifier, t.name, t.specifier)
            if key in seen:
                continue
            seen.add(key)
            kv, tv = allowed(k, keras_known), allowed(t, tf_known)
            if not kv or not tv:  # a version the matrix lacks: not judged
                continue
            if any(keras_with_tensorflow(a, b, matrix) is None for a in kv for b in tv):
                continue
            # Every pair conflicts; say why for the newest of each, what pip tries first.
            newest = keras_with_tensorflow(
                max(kv, key=release_key), max(tv, key=release_key), matrix
            )
            assert newest is not None
            problems.append(
                Problem(
                    k.location,
                    KERAS_TENSORFLOW_CONFLICT,
                    f"{k.text} cannot be installed with {t.text} ({t.location}): {newest[0]}",
                )
            )
    return problems


def _signature(comp: Component) -> tuple[object, ...]:
    return (
        comp.pin.name,
        tuple(sorted({o.cuda_major for o in comp.options}, key=lambda v: -1 if v is None else v)),
        tuple(sorted({o.cudnn_major for o in comp.options}, key=lambda v: -1 if v is None else v)),
        tuple(sorted({(o.version, id(o.build)) for o in comp.options})),
    )


def _representatives(components: Sequence[Component]) -> list[Component]:
    """The first component (in file order) of each distinct pin: what pairwise checks compare."""
    ordered = sorted(components, key=lambda c: (c.pin.location.path, c.pin.location.line or 0))
    return list({_signature(c): c for c in reversed(ordered)}.values())[::-1]


# -- from a pin to its candidate builds -------------------------------------------


def framework_of(pin: Pin) -> Optional[str]:
    """The framework whose builds judge ``pin``; None for keras, whose pins are judged
    against the tensorflow pins (``_keras_tensorflow``)."""
    from envcheck import names

    framework = names.framework_of(pin.name, conda=pin.source == "conda", aliases=False)
    return None if framework == "keras" else framework


def _norm_url(url: Optional[str]) -> str:
    return (url or "").strip().rstrip("/").lower()


def _spec(pin: Pin) -> str:
    # ``==2.1.0+cu118``: match the release, the local label picks the variant.
    return re.sub(r"\+[A-Za-z0-9.]+", "", pin.specifier)


def _major(text: Optional[str]) -> Optional[int]:
    m = re.match(r"\D*(\d+)", text or "")
    return int(m.group(1)) if m else None


def _exact_major(spec: str) -> Optional[int]:
    """The major of an exact or prefix pin (``==9.1.0.70``, ``==8.*``, ``~=9.1``)."""
    m = re.search(r"(?:===?|~=)\s*(\d+)", spec)
    return int(m.group(1)) if m else None


def _component(
    pin: Pin, env: Environment, target: Target, matrix: Matrix, problems: list[Problem]
) -> Optional[Component]:
    framework = framework_of(pin)
    cupy = _CUPY.match(pin.name) if pin.source == "pip" else None
    nvidia = _NVIDIA.match(pin.name) if pin.source == "pip" else None
    if nvidia is not None:
        cudnn = _exact_major(pin.specifier) if nvidia.group(1) == "cudnn" else None
        return Component(pin, None, (Option("", None, _major(nvidia.group(2)), cudnn),))
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
            digits = cupy.group(1)
            major = int(digits) if cupy.group(2) else int(digits[:-1] or digits)
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
                f"{pin.text}: {framework} {_span(gone)} is gone from the index that served it;"
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
            v, b, b.cuda.major if b.cuda is not None else None, _major(b.cudnn) if b.cudnn else None
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

    m = _EXACT_RELEASE.match(_spec(pin).strip()) if pin.source == "pip" else None
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
        _spec(pin),
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
                    f"{label}: no {pin.local} build of {_span(versions)} was published"
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
                    f"{label}: {bound_url} (from {where}) has no {_span(versions)};"
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
                f" {_span(versions)}; pip falls back to the PyPI build",
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
        f"{pin.text}: the matrix does not list which variants {framework} {_span(versions)}"
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


def _span(versions: Sequence[str]) -> str:
    if not versions:
        return "it"
    if len(versions) == 1:
        return versions[0]
    return f"any of {versions[0]} to {versions[-1]}"


def _variants(pairs: Iterable[tuple[str, Build]]) -> str:
    return ", ".join(dict.fromkeys(b.variant for _, b in pairs))


# -- the checks ----------------------------------------------------------------------


def _majors(values: Iterable[Optional[int]]) -> str:
    known = sorted({v for v in values if v is not None})
    return " or ".join(str(v) for v in known)


def _describe(comp: Component) -> str:
    return f"{comp.pin.text} ({comp.pin.location})"


def _major_conflicts(components: Sequence[Component]) -> list[Problem]:
    """Each pin against the earlier pins of other packages it cannot share a process with.

    Compared with the first pin of each distinct kind only (not every earlier
    line), so the work and the output stay linear in the number of lines.
    """
    problems: list[Problem] = []
    ordered = sorted(components, key=lambda c: (c.pin.location.path, c.pin.location.line or 0))
    earlier: dict[tuple[object, ...], Component] = {}
    for b in ordered:
        for a in list(earlier.values()):
            if a.pin.name == b.pin.name:
                continue
            for code, what, attr in (
                (CUDA_MAJOR_CONFLICT, "CUDA", "cuda_major"),
                (CUDNN_MAJOR_CONFLICT, "cuDNN", "cudnn_major"),
            ):
                av = [getattr(o, attr) for o in a.options]
                bv = [getattr(o, attr) for o in b.options]
                if any(x is None for x in av) or any(y is None for y in bv):
                    continue
                if set(av) & set(bv):
                    continue
                problems.append(
                    Problem(
                        b.pin.location,
                        code,
                        f"{b.pin.text} needs {what} {_majors(bv)}, but {_describe(a)}"
                        f" needs {what} {_majors(av)}; one environment cannot load both",
                    )
                )
        earlier.setdefault(_signature(b), b)
    return problems


def _cuda_version(pin: Pin) -> Optional[tuple[int, ...]]:
    """(major, minor) or (major,) of the CUDA version a conda CUDA pin fixes, if it fixes one."""
    m = re.match(r"^===?\s*(\d+)(?:\.(\d+))?", pin.specifier)
    if m is None:
        return None
    return (int(m.group(1)),) if m.group(2) is None else (int(m.group(1)), int(m.group(2)))


def _conda_cuda_pins(env: Environment, pins: Sequence[Pin]) -> list[Problem]:
    """Conda pins that each fix the environment's CUDA version, to different versions.

    ``pytorch-cuda=11.8`` requires the CUDA 11.8 libraries (``cuda-libraries
    >=11.8,<12.0`` in its recipe); ``cudatoolkit=11.3`` is the whole CUDA 11.3
    runtime: one environment gets one set of ``libcudart.so.11.0`` and friends.
    """
    problems: list[Problem] = []
    fixed = [(p, v) for p in pins if (v := _cuda_version(p)) is not None]
    earlier: dict[tuple[str, tuple[int, ...]], tuple[Pin, tuple[int, ...]]] = {}
    for pin, version in fixed:
        for other, other_version in list(earlier.values()):
            n = min(len(version), len(other_version))
            if version[:n] == other_version[:n]:
                continue
            problems.append(
                Problem(
                    pin.location,
                    CONDA_CUDA_CONTRADICTION,
                    f"{pin.text} gives CUDA {'.'.join(map(str, version))}, but {other.text}"
                    f" ({other.location}) gives CUDA {'.'.join(map(str, other_version))};"
                    " one environment has one CUDA runtime",
                )
            )
        earlier.setdefault((pin.name, version), (pin, version))
    for system in env.system_cuda:
        major = _major(system.version)
        if major is None:
            continue
        for pin, version in fixed:
            if version[0] > major:
                problems.append(
                    Problem(
                        pin.location,
                        CONDA_CUDA_CONTRADICTION,
                        f"{pin.text} gives CUDA {'.'.join(map(str, version))}, but"
                        f" [system-requirements] cuda = {system.version!r} ({system.location})"
                        f" declares a driver for CUDA {system.version}; CUDA {version[0]} needs"
                        f" a CUDA {version[0]} driver",
                    )
                )
            elif version[0] < major:
                # Runs (a newer driver runs an older CUDA), but the two disagree about
                # the machines: pixi refuses those with a CUDA {version[0]} driver, where
                # this environment would run; usually one of the two was not bumped.
                problems.append(
                    Problem(
                        pin.location,
                        CONDA_CUDA_CONTRADICTION,
                        f"{pin.text} gives CUDA {'.'.join(map(str, version))}, but"
                        f" [system-requirements] cuda = {system.version!r} ({system.location})"
                        f" declares CUDA {major} machines; pixi will refuse machines with a"
                        f" CUDA {version[0]} driver, where this environment runs. Pin CUDA"
                        f" {major} or lower the requirement",
                        WARNING,
                    )
                )
    return problems


def _conda_cuda(
    env: Environment,
    components: Sequence[Component],
    platforms: Optional[frozenset[str]],
    matrix: Matrix,
) -> list[Problem]:
    pins = [p for p in env.pins if p.source == "conda" and p.name in CONDA_CUDA_PINS]
    problems = _conda_cuda_pins(env, pins)
    for pin in pins:
        major = _major(re.sub(r"^[^\d]*", "", pin.specifier)) if pin.specifier else None
        if major is None:
            continue
        for comp in components:
            if comp.framework is None and not comp.pin.name.startswith("cupy"):
                continue
            if comp.pin.source == "conda" and _channel_cudas(comp.pin, pin, platforms, matrix):
                continue  # the channel's own builds judge it (_conda_pairings), not pip's
            if comp.pin.source == "pip" and all(
                o.build is not None and o.build.bundles_cuda for o in comp.options
            ):
                continue  # pip wheels that bring their own CUDA runtime
            majors = [o.cuda_major for o in comp.options]
            if any(m is None or m == major for m in majors):
                continue
            problems.append(
                Problem(
                    pin.location,
                    CONDA_CUDA_CONTRADICTION,
                    f"{pin.text} gives CUDA {major}, but {_describe(comp)} is built for"
                    f" CUDA {_majors(majors)}",
                )
            )
    return problems


def _platforms(env: Environment, target: Target, matrix: Matrix) -> Optional[frozenset[str]]:
    """The platforms (``windows-x86_64``) the environment must install on; None: any."""
    targets, _ = declared_targets(env.declared, target, matrix)
    known = frozenset(t.platform for t in targets if t.platform is not None)
    return known or None


def _channel_cudas(
    pin: Pin, cuda_pin: Pin, platforms: Optional[frozenset[str]], matrix: Matrix
) -> Optional[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """(channel, releases, CUDA versions) of the channel builds of a conda pin, from
    conda.toml, for the channel whose CUDA ``cuda_pin`` (``pytorch-cuda``,
    ``cudatoolkit``) fixes. None unless the rows cover every release of the
    framework the pin allows on ``platforms``: a release the rows lack may have
    other builds, so nothing is judged."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from envcheck import names

    channel = CONDA_CHANNEL_OF_CUDA_PIN.get(cuda_pin.name)
    framework = names.framework_of(pin.name, conda=True, aliases=False)
    if channel is None or framework is None or not pin.specifier:
        return None
    try:
        spec = SpecifierSet(pin.specifier)
    except InvalidSpecifier:
        return None
    allowed = [v for v in matrix.releases(framework) if spec.contains(v, prereleases=True)]
    rows = [
        r
        for r in matrix.conda_packages
        if r.channel == channel
        and r.name == pin.name
        and r.cuda is not None
        and (platforms is None or platforms & set(r.platforms))
    ]
    if not allowed or any(not any(v in r.versions for r in rows) for v in allowed):
        return None
    cudas = {r.cuda for r in rows if r.cuda and any(v in r.versions for v in allowed)}
    return channel, tuple(allowed), tuple(sorted(cudas, key=release_key))


def _conda_pairings(
    env: Environment, platforms: Optional[frozenset[str]], matrix: Matrix
) -> list[Problem]:
    """A ``pytorch-cuda``/``cudatoolkit`` pin whose CUDA no channel build of a pinned
    framework release was made for (``pytorch=2.1.0`` with ``pytorch-cuda=12.4``;
    ``tensorflow-gpu=1.14.0`` with ``cudatoolkit=10.1`` on Windows): conda finds no
    build to install. Facts: conda.toml ``[[package]]`` rows."""
    problems: list[Problem] = []
    conda = [p for p in env.pins if p.source == "conda" and not p.constraint]
    for cuda_pin in (p for p in conda if p.name in CONDA_CHANNEL_OF_CUDA_PIN):
        version = _cuda_version(cuda_pin)
        if version is None:
            continue
        for pin in conda:
            if pin.name in CONDA_CUDA_PINS:
                continue
            known = _channel_cudas(pin, cuda_pin, platforms, matrix)
            if known is None:
                continue
            channel, releases, cudas = known
            if any(release_numbers(c)[: len(version)] == version for c in cudas):
                continue
            where = f" on {', '.join(sorted(platforms))}" if platforms else ""
            problems.append(
                Problem(
                    cuda_pin.location,
                    CONDA_CUDA_CONTRADICTION,
                    f"{cuda_pin.text}: the {channel} channel built {pin.name} {_span(releases)}"
                    f" only for {cuda_pin.name} {', '.join(cudas)}{where}; {pin.text}"
                    f" ({pin.location}) has no build for it",
                )
            )
    return problems


def _allowed_pythons(spec_text: str) -> list[str]:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        spec = SpecifierSet(spec_text)
    except InvalidSpecifier:
        return []
    return [
        m for m in _PYTHONS if any(spec.contains(f"{m}.{p}", prereleases=True) for p in ("0", "99"))
    ]


def _python_range(versions: Iterable[str]) -> str:
    known = sorted(set(versions), key=release_key)
    if not known:
        return "none"
    return known[0] if len(known) == 1 else f"{known[0]} to {known[-1]}"


def _allowed_range(allowed: Sequence[str]) -> str:
    if len(allowed) > 1 and allowed[-1] == _PYTHONS[-1]:
        return f"{allowed[0]} and newer"
    return _python_range(allowed)


def _python_bounds(env: Environment, components: Sequence[Component]) -> list[Problem]:
    problems: list[Problem] = []
    for bound in env.python:
        allowed = _allowed_pythons(bound.specifier)
        if not allowed:
            continue
        for comp in components:
            builds = [o.build for o in comp.options if o.build is not None]
            if not builds or any(not b.python for b in builds):
                continue
            supported = {p for b in builds for p in b.python}
            both = [p for p in allowed if p in supported]
            if not both:
                problems.append(
                    Problem(
                        bound.location,
                        PYTHON_OUT_OF_RANGE,
                        f"{bound.text} allows Python {_allowed_range(allowed)}, but"
                        f" {_describe(comp)} supports Python {_python_range(supported)}",
                    )
                )
            elif release_key(allowed[0]) < release_key(_python_range(supported).split(" ")[0]):
                problems.append(
                    Problem(
                        bound.location,
                        PYTHON_OUT_OF_RANGE,
                        f"{bound.text} allows Python {allowed[0]}, which {_describe(comp)}"
                        f" does not support (Python {_python_range(supported)})",
                    )
                )
    return problems


_PLATFORM_TARGETS = {
    "linux": ("linux", "x86_64"),
    "linux-aarch64": ("linux", "aarch64"),
    "windows": ("windows", "x86_64"),
    "wsl": ("wsl", "x86_64"),
    "macos": ("macos", "aarch64"),
}


def declared_targets(
    declared: Optional[DeclaredTarget], cli: Target, matrix: Matrix
) -> tuple[list[Target], list[Problem]]:
    """The targets to serve: one per declared platform; CLI flags override."""
    from envcheck.model.versions import parse_driver_version

    if declared is None:
        has_cli = cli.driver is not None or cli.gpus or cli.os is not None or cli.python
        return ([cli] if has_cli else []), []
    problems: list[Problem] = []
    gpus = []
    names = []
    for text in declared.gpus:
        try:
            cc, name = resolve_gpu(text, matrix)
        except ValueError as exc:
            problems.append(Problem(declared.location, INVALID_VALUE, str(exc), UNREADABLE))
            continue
        gpus.append(cc)
        names.append(name or f"sm_{cc.major}{cc.minor}")
    driver = parse_driver_version(declared.min_driver) if declared.min_driver else None
    if declared.min_driver and driver is None:
        problems.append(
            Problem(
                declared.location,
                INVALID_VALUE,
                f"min-driver {declared.min_driver!r} is not a driver version",
                UNREADABLE,
            )
        )
    elif driver is not None:
        try:
            check_driver_branch(driver, matrix)
        except ValueError as exc:
            problems.append(Problem(declared.location, INVALID_VALUE, str(exc), UNREADABLE))
            driver = None
    if cli.gpus:
        gpus, names = list(cli.gpus), list(cli.gpu_names)
    base = Target(
        driver=cli.driver or driver,
        gpus=tuple(dict.fromkeys(gpus)),
        gpu_names=tuple(dict.fromkeys(names)),
        python=cli.python or declared.python,
        os=cli.os,
        arch=cli.arch,
    )
    if cli.os is not None or not declared.platforms:
        return [base], problems
    return [
        replace(base, os=_PLATFORM_TARGETS[p][0], arch=_PLATFORM_TARGETS[p][1])
        for p in declared.platforms
    ], problems


def _targets(
    env: Environment, cli: Target, components: Sequence[Component], matrix: Matrix
) -> list[Problem]:
    targets, problems = declared_targets(env.declared, cli, matrix)
    verdicts: dict[tuple[int, int, str], J.Verdict] = {}
    where = f" (declared at {env.declared.location})" if env.declared else ""
    for target in targets:
        for comp in components:
            options = [o for o in comp.options if o.build is not None]
            if not options:
                continue
            if target.gpus and target.os != "macos":
                options = [o for o in options if o.build is not None and o.build.cuda is not None]
                if not options:
                    problems.append(
                        Problem(
                            comp.pin.location,
                            TARGET_UNSERVED,
                            f"{comp.pin.text} selects no CUDA build, but the target"
                            f" ({target.describe()}){where} has GPUs",
                        )
                    )
                    continue
            best: Optional[tuple[str, ...]] = None
            for option in options:
                assert option.build is not None
                key = (id(target), id(option.build), option.version)
                if key not in verdicts:
                    verdicts[key] = J.judge(
                        from_build(option.build, option.version), target, matrix
                    )
                verdict = verdicts[key]
                # A CPU build is judged as a pin, not as a GPU choice: TARGET_UNSERVED
                # above already said when no CUDA build is selected.
                blockers = [r for r in verdict.errors if r.code not in (J.CPU_ONLY, J.ROCM)]
                if not blockers:
                    best = None
                    break
                messages = tuple(r.message for r in blockers)
                if best is None or len(messages) < len(best):
                    best = messages
            if best:
                problems.append(
                    Problem(
                        comp.pin.location,
                        TARGET_UNSERVED,
                        f"{comp.pin.text} cannot serve {target.describe()}{where}: "
                        + "; ".join(best),
                    )
                )
    return problems
