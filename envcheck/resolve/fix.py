"""Fixes are plans: what to run so that a broken build is replaced by one that works.

A finding carries the judge's cause; the fix is the resolver's plan for the same
target with the broken build replaced, emitted as commands in the target's shell
(``envcheck.resolve.shell``). Nothing here writes a package name or a version of
its own: they come from the plan's picks and the matrix rows it cites.

- ``replace_build``: a build that cannot run (CPU-only, driver too old, no kernels
  for the GPU) is swapped for the plan's pick; installed packages whose local
  version (``+cpu``) would satisfy the new pins are uninstalled first, because pip
  keeps an installed ``torchvision 0.28.0+cpu`` for ``torchvision==0.28.0``.
- ``supply_libraries``: a framework that loads CUDA/cuDNN from the system lacks
  them: the same release with its CUDA extra, NVIDIA's pip wheels where its loader
  searches them, a conda environment that brings the toolkit, or NVIDIA's
  installers, in that order of what exists for the target.
- ``reinstall``: a build that brings its CUDA libraries as pip dependencies lost
  them (``libcudart.so.12`` missing under ``import torch``): reinstall it with them.

Pure: a function of the request, the target and the matrix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Optional

from envcheck.resolve.shell import join_argv

if TYPE_CHECKING:
    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix
    from envcheck.resolve.plan_model import Pick, Plan

NVIDIA_CUDA_ARCHIVE = "https://developer.nvidia.com/cuda-toolkit-archive"
NVIDIA_CUDNN_ARCHIVE = "https://developer.nvidia.com/rdp/cudnn-archive"


def _canon(name: str) -> str:
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


def _split_local(version: str) -> tuple[str, Optional[str]]:
    public, _, local = version.partition("+")
    return public, (local or None)


_PLANS: dict[tuple[tuple[str, ...], Target, int], tuple[Matrix, Optional[Plan]]] = {}
_PLANS_KEPT = 64
"""Plans kept per process: one report asks for the same fix for several findings (a
log with many matches planned the same framework a dozen times)."""


def _try_plan(requests: Sequence[str], target: Target, matrix: Matrix) -> Optional[Plan]:
    """The resolver's plan for ``requests`` on ``target`` (None when it has none). Plans
    are pure functions of their arguments, so one already made is reused (the matrix is
    keyed by identity, and kept with the plan so its id cannot be reused meanwhile: a
    matrix is not changed once loaded)."""
    from envcheck.resolve.plan import plan

    try:
        key = (tuple(requests), target, id(matrix))
        hash(key)
    except TypeError:
        key = None
    kept = _PLANS.get(key) if key is not None else None
    if kept is not None and kept[0] is matrix:
        return kept[1]
    try:
        result = plan(list(requests), target, matrix)
    except Exception:  # noqa: BLE001 - a fix suggestion must never break a report
        result = None
    found = result if result is not None and result.ok else None
    if key is not None:
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.clear()
        _PLANS[key] = (matrix, found)
    return found


def _pip_argvs(result: Plan) -> list[list[str]]:
    """``pip install`` argv lists of a plan (one per index), as ``emit_pip`` prints them."""
    from envcheck.resolve.emit import pip_argvs

    return [argv[2:] for argv in pip_argvs(result, "python")]


def _expected_local(pick: Pick, result: Plan) -> Optional[str]:
    """The local version label pip installs for ``pick`` (``cu126`` from the PyTorch
    index, none from PyPI's default variant)."""
    from envcheck.resolve.emit import _uses_index

    return pick.variant if _uses_index(pick, result) else None


def shadowing(result: Plan, installed: Mapping[str, Optional[str]]) -> list[str]:
    """Installed packages of the plan's picks that pip would keep although they are
    another build: the same public version as the pin (or any, for an unpinned
    pick) with another local label. pip compares only public versions against
    ``==X`` (PEP 440: a local label matches a pin without one), so ``0.28.0+cpu``
    satisfies ``torchvision==0.28.0`` and stays."""
    have = {_canon(k): v for k, v in installed.items() if v}
    out = []
    for pick in result.picks:
        version = have.get(_canon(pick.package))
        if version is None:
            continue
        public, local = _split_local(version)
        if pick.version is not None and public != pick.version:
            continue  # another release: pip replaces it
        if local != _expected_local(pick, result):
            out.append(pick.package)
    return out


def _commands(
    result: Plan, installed: Mapping[str, Optional[str]], remove: Sequence[str] = ()
) -> list[str]:
    """The plan's pip commands, after one ``pip uninstall`` of ``remove`` and of the
    installed packages that would shadow its pins (``shadowing``)."""
    os_name = result.target.os
    out = []
    gone = list(dict.fromkeys([*remove, *shadowing(result, installed)]))
    gone += _sharing_files(result, installed, gone)
    if gone:
        out.append(join_argv(["pip", "uninstall", "-y", *gone], os_name))
    out += [join_argv(argv, os_name) for argv in _pip_argvs(result)]
    return out


def _sharing_files(
    result: Plan, installed: Mapping[str, Optional[str]], gone: Sequence[str]
) -> list[str]:
    """Picked distributions that are installed and share their import package with one
    being uninstalled (onnxruntime beside onnxruntime-gpu): uninstalling the other
    removes files this one needs, so it is uninstalled too and installed afresh."""
    from envcheck import names

    leaving = {_canon(g) for g in gone}
    have = {_canon(k) for k in installed}
    shared = {
        _canon(d)
        for group in names.SHARED_MODULE.values()
        if leaving & {_canon(x) for x in group}
        for d in group
    }
    return [
        p.package
        for p in result.picks
        if _canon(p.package) in shared & have and _canon(p.package) not in leaving
    ]


def replace_build(
    framework: str,
    target: Target,
    matrix: Matrix,
    installed: Optional[Mapping[str, Optional[str]]] = None,
    version: Optional[str] = None,
    replacing: Optional[str] = None,
) -> Optional[list[str]]:
    """Commands that replace an installed ``framework`` (and its installed companions)
    by the plan's build for ``target``: of the user's release ``version`` where one
    runs, else the newest; None when the matrix has none. ``replacing`` is the
    installed package of the broken build: uninstalled first when the plan installs
    another package in its place (``tensorflow-cpu``, CPU ``onnxruntime``)."""
    from envcheck import names

    installed = dict(installed or {})
    if replacing and version and _canon(replacing) not in {_canon(k) for k in installed}:
        installed[replacing] = version  # the broken build itself (a hand-written snapshot)
    package = names.GPU_PACKAGE.get(framework, framework)
    have = {_canon(k) for k in installed}
    companions = [c for c in names.COMPANIONS.get(framework, ()) if _canon(c) in have]
    tries = [[package, *companions]]
    if version:
        tries.insert(0, [f"{package}=={_split_local(version)[0]}", *companions])
    for requests in tries:
        result = _try_plan(requests, target, matrix)
        if result is not None:
            # The broken build goes first: pip keeps an installed copy whose version
            # satisfies the new pin, whatever build it is.
            return _commands(result, installed, (replacing,) if replacing else ())
    return None


def install_commands(
    requests: Sequence[str],
    target: Target,
    matrix: Matrix,
    *,
    env_kind: Optional[str] = None,
    installed: Optional[Mapping[str, Optional[str]]] = None,
    replacing: Optional[str] = None,
) -> Optional[list[str]]:
    """The plan for ``requests`` on ``target`` as commands: conda where a pick's wheel
    lacks the CUDA libraries it loads (the toolkit and cuDNN come with it), else pip.
    None when nothing satisfies the request."""
    result = _try_plan(requests, target, matrix)
    if result is None:
        return None
    lacking = any(p.bundles_cuda is False and p.cuda is not None for p in result.picks)
    if lacking:
        conda = _conda_commands(result, env_kind)
        if conda:
            # A new conda environment leaves this one alone; into the active conda
            # environment, the broken build goes first.
            gone = [replacing] if replacing and env_kind == "conda" else []
            pre = [join_argv(["pip", "uninstall", "-y", *gone], target.os)] if gone else []
            return pre + conda
    return _commands(result, installed or {}, (replacing,) if replacing else ())


def route_commands(
    framework: str, version: Optional[str], target: Target, matrix: Matrix, installed_package: str
) -> Optional[list[str]]:
    """The matrix's route for a release its own builds cannot run on the target's GPUs
    (``[[route]]``: NVIDIA's nvidia-tensorflow for TensorFlow 1.15 on Ampere and
    newer), as commands; None when no route row applies."""
    from envcheck.compat.libraries import build_route

    for cc in target.gpus:
        row = build_route(framework, version, cc, matrix)
        if row is None or (target.platform and target.platform not in row.platforms):
            continue
        os_name = target.os
        lead = []
        if row.python and target.python and target.python not in row.python:
            lead = [f"in a Python {' or '.join(row.python)} environment ({row.package}'s wheels):"]
        return [
            *lead,
            join_argv(["pip", "uninstall", "-y", installed_package], os_name),
            join_argv(["pip", "install", row.package, "--extra-index-url", row.index_url], os_name),
        ]
    return None


def reinstall(
    framework: str,
    version: str,
    target: Target,
    matrix: Matrix,
    installed: Optional[Mapping[str, Optional[str]]] = None,
) -> Optional[list[str]]:
    """Reinstall the plan's build of ``framework`` ``version`` with its dependencies
    (the nvidia-* wheels that bring its CUDA libraries): ``pip install
    --force-reinstall``. None when the matrix has no build of it for the target."""
    from envcheck import names

    package = names.GPU_PACKAGE.get(framework, framework)
    result = _try_plan([f"{package}=={_split_local(version)[0]}"], target, matrix)
    if result is None:
        return None
    out = []
    for argv in _pip_argvs(result):
        out.append(join_argv([*argv[:2], "--force-reinstall", *argv[2:]], target.os))
    return out


# -- CUDA libraries a framework loads from the system ------------------------------


def _known_wheel(
    matrix: Matrix,
    stem: str,
    cuda_major: int,
    major: Optional[int],
    minimum: Optional[str] = None,
) -> Optional[str]:
    """A version of NVIDIA's ``{stem}{cuda_major}`` wheel that a framework's wheel
    METADATA pins (``nvidia_pin`` rows: versions that exist on PyPI), of library major
    ``major`` and at least ``minimum`` where given; the newest such. None when no row
    pins one."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import InvalidVersion, Version

    want = f"{stem}{cuda_major}"
    best: Optional[Version] = None
    for row in matrix.nvidia_pins:
        for text in row.requires:
            try:
                req = Requirement(text)
            except InvalidRequirement:
                continue
            if _canon(req.name) != want:
                continue
            for spec in req.specifier:
                if spec.operator != "==":
                    continue
                try:
                    v = Version(spec.version)
                except InvalidVersion:
                    continue
                if major is not None and v.major != major:
                    continue
                if minimum is not None and v.release[:2] < _release(minimum)[:2]:
                    continue
                if best is None or v > best:
                    best = v
    return None if best is None else str(best)


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split(".") if p.isdigit())


def _wheels(
    matrix: Matrix,
    target: Target,
    cuda_major: Optional[int],
    cudnn: Optional[str],
    cudnn_only: bool,
) -> list[str]:
    """NVIDIA's pip wheels for the CUDA runtime, cuBLAS and cuDNN of ``cuda_major``
    (cuDNN of ``cudnn_major``), at versions the matrix's ``nvidia_pin`` rows know;
    empty when one of them is unknown. Those rows describe linux-x86_64 wheels."""
    if cuda_major is None or target.platform != "linux-x86_64":
        return []
    out = []
    if not cudnn_only:
        for stem in ("nvidia-cuda-runtime-cu", "nvidia-cublas-cu"):
            known = _known_wheel(matrix, stem, cuda_major, None)
            if known is None:
                return []
            out.append(f"{stem}{cuda_major}=={known}")
    cudnn_major = _release(cudnn)[0] if cudnn and _release(cudnn) else None
    if cudnn_major is not None:
        known = _known_wheel(matrix, "nvidia-cudnn-cu", cuda_major, cudnn_major, cudnn)
        if known is None:
            return []
        out.append(f"nvidia-cudnn-cu{cuda_major}=={known}")
    return out


def _extra_requests(framework: str, version: str, target: Target, matrix: Matrix) -> list[str]:
    """``tensorflow[and-cuda]==2.15.0``: the same release with a CUDA extra whose
    build brings its libraries, where the matrix has one for the target's platform."""
    out = []
    for build in matrix.builds.get(framework, ()):
        if not build.extra or not build.bundles_cuda or version not in build.versions:
            continue
        if target.platform and build.platforms and target.platform not in build.platforms:
            continue
        out.append(f"{build.package}[{build.extra}]=={version}")
    return list(dict.fromkeys(out))


def supply_libraries(
    framework: str,
    package: str,
    version: Optional[str],
    cuda_major: Optional[int],
    cudnn: Optional[str],
    target: Target,
    matrix: Matrix,
    *,
    env_kind: Optional[str] = None,
    installed: Optional[Mapping[str, Optional[str]]] = None,
    cudnn_only: bool = False,
) -> list[str]:
    """Commands (or, as the last way, one instruction) that give ``package``
    ``version`` the CUDA runtime and cuDNN its build loads from the system.

    In order of what exists for the target: the same release with its CUDA extra
    (pip brings the libraries where the framework finds them); NVIDIA's pip
    wheels, where the release's loader searches their directories (never for a
    ``[[loader]] search = "path"`` row: TensorFlow <= 2.10 on Windows) and the
    matrix knows a version of them for this CUDA major; a conda environment with
    the toolkit and cuDNN the plan names; NVIDIA's installers.
    """
    from envcheck.compat.libraries import library_loader

    installed = installed or {}
    os_name = target.os
    public = _split_local(version)[0] if version else None
    loader = library_loader(framework, public, target.platform, matrix)
    if public and loader is None:
        for request in _extra_requests(framework, public, target, matrix):
            result = _try_plan([request], target, matrix)
            if result is not None:
                return _commands(result, installed)
        wheels = _wheels(matrix, target, cuda_major, cudnn, cudnn_only)
        if wheels:
            return [
                join_argv(["pip", "install", *wheels], os_name),
                (
                    "then put the lib directories of those wheels (site-packages/nvidia/*/lib) "
                    "on LD_LIBRARY_PATH: this release loads CUDA from the loader path, not "
                    "from its own wheel's RUNPATH"
                ),
            ]
    out: list[str] = []
    result = _try_plan([f"{package}=={public}"] if public else [package], target, matrix)
    if result is not None:
        out += _conda_commands(result, env_kind)
    why = ""
    if loader is not None:
        why = (
            f" ({package} {public} on {target.platform} loads them from PATH only, so pip's "
            "nvidia-* wheels are never found)"
        )
    cuda = next((str(p.cuda) for p in (result.picks if result else ()) if p.cuda), None)
    need = next((p.cudnn for p in (result.picks if result else ()) if p.cudnn), None) or cudnn
    path = "PATH" if target.os == "windows" else "LD_LIBRARY_PATH"
    what = f"CUDA {cuda}" if cuda else "the CUDA toolkit"
    if need and not (cudnn_only and cuda is None):
        what += f" and cuDNN {need}"
    elif cudnn_only and need:
        what = f"cuDNN {need}"
    lead = "or install " if out else "Install "
    out.append(
        f"{lead}{what} with NVIDIA's installers ({NVIDIA_CUDA_ARCHIVE}, {NVIDIA_CUDNN_ARCHIVE}) "
        f"and put their library directories on {path}{why}"
    )
    return out


def _conda_commands(result: Plan, env_kind: Optional[str]) -> list[str]:
    """The conda commands that bring the toolkit and cuDNN the plan's picks need:
    into the active environment when it is conda's, else a new one from the plan."""
    from envcheck.resolve.emit import _conda_layout, emit_conda

    channel, _specs, _pip, _notes, toolkit = _conda_layout(result)
    brings = [s for pick in result.picks for s in toolkit.get(id(pick), ())]
    if not brings:
        return []
    os_name = result.target.os
    if env_kind == "conda":
        argv = ["conda", "install", "-c", channel, "--override-channels", *dict.fromkeys(brings)]
        return [join_argv(argv, os_name)]
    return [ln for ln in emit_conda(result).splitlines() if ln and not ln.startswith("#")]
