"""Cross-row invariants of the matrix, checked after loading."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envcheck.errors import InputError

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import Origin


def _fail(origin: Origin, message: str) -> InputError:
    raise InputError(origin.file, origin.line, message)


def check_invariants(matrix: Matrix) -> None:
    """Reject duplicates and dangling references; errors name file and line."""
    seen: dict[object, Origin] = {}

    def unique(key: object, origin: Origin, what: str) -> None:
        if key in seen:
            first = seen[key]
            _fail(origin, f"duplicate {what} (first defined at line {first.line})")
        seen[key] = origin

    for r in matrix.cuda_releases:
        unique(("cuda", r.version), r.origin, f"CUDA release {r.version}")
    for m in matrix.minor_compat:
        unique(("minor", m.cuda_major), m.origin, f"minor_compat for CUDA {m.cuda_major}")
    for t in matrix.toolkit_archs:
        unique(("arch", t.cuda), t.origin, f"toolkit row for CUDA {t.cuda}")
    arch_names = set()
    for a in matrix.architectures:
        unique(("archname", a.name.lower()), a.origin, f"architecture {a.name}")
        arch_names.add(a.name.lower())
    for g in matrix.gpus:
        unique(("gpu", g.name.lower()), g.origin, f"GPU {g.name}")
        if arch_names and g.architecture.lower() not in arch_names:
            _fail(g.origin, f"GPU {g.name}: unknown architecture {g.architecture!r}")
    for c in matrix.cudnn_releases:
        unique(
            ("cudnn", c.version, c.cuda_major, c.cuda_min),
            c.origin,
            f"cuDNN {c.version} for CUDA {c.cuda_min or c.cuda_major}",
        )
    for b in matrix.driver_branches:
        unique(("branch", b.branch), b.origin, f"driver branch {b.branch}")
    for framework, builds in matrix.builds.items():
        for build in builds:
            # The extra is part of the key: `tensorflow` and `tensorflow[and-cuda]`
            # are two install routes of one release, variant and platform.
            extra = f"[{build.extra}]" if build.extra else ""
            for v in build.versions:
                for p in build.platforms or ("any",):
                    unique(
                        ("build", framework, v, build.variant, build.package, build.extra, p),
                        build.origin,
                        f"{framework} {v} {build.variant} build of {build.package}{extra} for {p}",
                    )
    for comp in matrix.companions:
        unique(
            ("companion", comp.version),
            comp.origin,
            f"companion row for torch {comp.version}",
        )
    for pkg in matrix.conda_packages:
        for v in pkg.versions:
            for p in pkg.platforms:
                for py in pkg.python or ("any",):
                    unique(
                        ("conda", pkg.channel, pkg.name, v, p, py, pkg.cuda),
                        pkg.origin,
                        f"conda {pkg.channel}::{pkg.name} {v} for {p}, Python {py}"
                        + (f", CUDA {pkg.cuda}" if pkg.cuda else ""),
                    )
    absent = {(a.channel, a.name, p) for a in matrix.conda_absent for p in a.platforms}
    for pkg in matrix.conda_packages:
        for p in pkg.platforms:
            if (pkg.channel, pkg.name, p) in absent:
                _fail(
                    pkg.origin,
                    f"conda {pkg.channel}::{pkg.name} for {p} is also listed as absent there",
                )
