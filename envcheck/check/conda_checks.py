"""check's conda judgements: a conda CUDA pin (cudatoolkit, pytorch-cuda, cuda-version)
against the CUDA its framework pins need, and a channel's CUDA builds against the
framework release pinned beside them (``conda.toml`` rows)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional

from envcheck.check.model import (
    CONDA_CUDA_CONTRADICTION,
    WARNING,
    Environment,
    Pin,
    Problem,
)
from envcheck.compat.target import Target
from envcheck.model.versions import release_key, release_numbers

if TYPE_CHECKING:
    from envcheck.matrix import Matrix


from envcheck.check.components import (
    CONDA_CHANNEL_OF_CUDA_PIN,
    CONDA_CUDA_PINS,
    Component,
    describe,
    major_of,
    majors_text,
    span_of,
)
from envcheck.check.targets import declared_targets


def _cuda_version(pin: Pin) -> Optional[tuple[int, ...]]:
    """(major, minor) or (major,) of the CUDA version a conda CUDA pin fixes, if it fixes one."""
    m = re.match(r"^===?\s*(\d+)(?:\.(\d+))?", pin.specifier)
    if m is None:
        return None
    return (int(m.group(1)),) if m.group(2) is None else (int(m.group(1)), int(m.group(2)))


def conda_cuda_pin_problems(env: Environment, pins: Sequence[Pin]) -> list[Problem]:
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
        major = major_of(system.version)
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


def conda_cuda(
    env: Environment,
    components: Sequence[Component],
    platforms: Optional[frozenset[str]],
    matrix: Matrix,
) -> list[Problem]:
    pins = [p for p in env.pins if p.source == "conda" and p.name in CONDA_CUDA_PINS]
    problems = conda_cuda_pin_problems(env, pins)
    for pin in pins:
        major = major_of(re.sub(r"^[^\d]*", "", pin.specifier)) if pin.specifier else None
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
                    f"{pin.text} gives CUDA {major}, but {describe(comp)} is built for"
                    f" CUDA {majors_text(majors)}",
                )
            )
    return problems


def env_platforms(env: Environment, target: Target, matrix: Matrix) -> Optional[frozenset[str]]:
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


def conda_pairing_problems(
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
                    f"{cuda_pin.text}: the {channel} channel built {pin.name} {span_of(releases)}"
                    f" only for {cuda_pin.name} {', '.join(cudas)}{where}; {pin.text}"
                    f" ({pin.location}) has no build for it",
                )
            )
    return problems
