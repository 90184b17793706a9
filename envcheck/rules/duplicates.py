"""Two distributions of one import package installed side by side.

tensorflow / tensorflow-gpu / tensorflow-cpu, paddlepaddle / paddlepaddle-gpu and the CuPy
wheels (cupy, cupy-cudaXXX) each install the same package directory: whichever pip
installed last overwrote the other's files, so the build that imports is a mix, often the
CPU one. (onnxruntime beside onnxruntime-gpu, the same case, is judged by the CPU-only
rule, whose providers the user sees.) The groups are
``names.SHARED_MODULE`` with their sources; the fix is the resolver's plan for the
framework's build with every other distribution of the group removed first.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Optional

from envcheck import names
from envcheck.model.finding import Category, Finding, Severity

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Framework, Snapshot

TWO_DISTRIBUTIONS = "two-distributions-one-package"


def _groups(snapshot: Snapshot) -> list[tuple[str, tuple[str, ...]]]:
    cupy = tuple(
        sorted(p for p in snapshot.packages if p == "cupy" or names.cupy_wheel_cuda_major(p))
    )
    # onnxruntime beside onnxruntime-gpu is the CPU-only rule's: its CPU providers are
    # what the user sees, and its fix removes both (rules/cpu_build.py).
    return [*((m, d) for m, d in names.SHARED_MODULE.items() if m != "onnxruntime"), ("cupy", cupy)]


def check_shared_package(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    for module, dists in _groups(snapshot):
        have = [d for d in dists if snapshot.packages.get(d)]
        if len(have) < 2:
            continue
        fw = next((f for f in snapshot.frameworks if f.name == module), None)
        listed = ", ".join(f"{d} {snapshot.packages[d]}" for d in have)
        yield Finding(
            TWO_DISTRIBUTIONS,
            Category.MIXED_WHEELS,
            Severity.ERROR,
            f"{' and '.join(have)} are installed together: they overwrite the same "
            f"'{module}' package",
            evidence=(
                f"installed: {listed}",
                (
                    "each distribution installs the same import package; the files of the one "
                    "pip installed last replaced the other's, so the build that imports is a mix"
                ),
            ),
            fix=_fix(fw, have, snapshot, matrix),
            sources=(names.SHARED_MODULE_SOURCES[module],),
            framework=module,
        )


def _fix(fw: Optional[Framework], have: list[str], snapshot: Snapshot, matrix: Matrix) -> str:
    """Remove every distribution of the group, then reinstall the one the framework was
    detected as (its installed release, which exists on its index): the other's files
    went with the uninstall."""
    from envcheck.resolve.shell import join_argv
    from envcheck.rules._facts import target_of

    os_name = target_of(snapshot, matrix).os
    removal = join_argv(["pip", "uninstall", "-y", *have], os_name)
    keep = fw.package if fw is not None and fw.package in have else None
    version = snapshot.packages.get(keep) if keep else None
    index = _index_of(fw, keep, version, matrix) if fw is not None and keep and version else None
    if keep and version and index is not None:
        argv = ["pip", "install", f"{keep}=={version}"]
        if index:
            argv += ["--index-url", index]
        again = join_argv(argv, os_name)
        return f"Keep one of them:\n  {removal}\n  {again}"
    return f"Keep one of them: `{removal}`, then install the one this machine needs."


def _index_of(fw: Framework, package: str, version: str, matrix: Matrix) -> Optional[str]:
    """The index the matrix says serves ``package`` ``version`` ("" for PyPI); None when
    the matrix has no such build, or several indexes and no recorded variant to choose."""
    release = version.split("+")[0]
    builds = [
        b
        for b in matrix.builds.get(fw.name or "", ())
        if (b.package or fw.name) == package and release in b.versions
    ]
    if fw.variant:
        builds = [b for b in builds if b.variant == fw.variant] or builds
    indexes = {b.index_url or "" for b in builds}
    return indexes.pop() if len(indexes) == 1 else None
