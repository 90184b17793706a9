"""Wheels for different CUDA majors mixed in one environment."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from envcheck import names
from envcheck.model.finding import Category, Finding, Severity
from envcheck.rules._facts import framework_cuda

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

MIXED_CUDA_WHEELS = "mixed-cuda-wheels"
FRAMEWORK_CUDA_MAJORS = "frameworks-cuda-majors-differ"
CONDA_CUDATOOLKIT_AND_PIP = "conda-cudatoolkit-beside-pip-cuda"


def _wheel_majors(packages: Iterable[str]) -> dict[int, list[str]]:

    out: dict[int, list[str]] = {}
    for name in packages:
        nvidia = names.nvidia_wheel(name)
        if nvidia is not None:
            out.setdefault(nvidia[1], []).append(name)
        major = names.cupy_wheel_cuda_major(name)
        if major is not None:
            out.setdefault(major, []).append(name)
    return out


def check_mixed_wheels(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    majors = _wheel_majors(snapshot.packages)
    for fw in snapshot.frameworks:
        cuda = framework_cuda(fw)
        if cuda is not None and not fw.cpu_only and fw.name in ("torch", "jax", "paddle"):
            majors.setdefault(cuda.major, []).append(f"{fw.name} {fw.version} (CUDA {cuda})")
    if len(majors) > 1:
        yield Finding(
            MIXED_CUDA_WHEELS,
            Category.MIXED_WHEELS,
            Severity.ERROR,
            "Packages built for different CUDA majors ("
            + ", ".join(str(m) for m in sorted(majors))
            + ") are installed in one environment",
            evidence=tuple(
                f"CUDA {m}: {', '.join(sorted(set(names)))}" for m, names in sorted(majors.items())
            ),
            fix="Keep one CUDA major per environment: uninstall the packages of the "
            "other major (pip uninstall ...) and reinstall with matching CUDA builds "
            "(envcheck plan <frameworks>).",
        )
    conda_tk = snapshot.conda_packages.get("cudatoolkit") or "(version unknown)"
    pip_cuda = sorted(n for n in snapshot.packages if names.nvidia_wheel(n) is not None)
    if "cudatoolkit" in snapshot.conda_packages and pip_cuda:
        yield Finding(
            CONDA_CUDATOOLKIT_AND_PIP,
            Category.MIXED_WHEELS,
            Severity.WARNING,
            f"conda cudatoolkit {conda_tk} sits beside pip CUDA wheels that bring their "
            "own libraries",
            evidence=(f"conda: cudatoolkit {conda_tk}", f"pip: {', '.join(pip_cuda[:5])}"),
            fix="Use one source of CUDA libraries: either conda packages only, or pip "
            "wheels only (conda remove cudatoolkit).",
        )
