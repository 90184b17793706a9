"""Cross-row invariants of the matrix, checked after loading."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envcheck.errors import InputError

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import ArchFloor, Origin


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
    for shared in matrix.shared_gpu_names:
        unique(("gpu", shared.name.lower()), shared.origin, f"GPU name {shared.name}")
    _check_shared_names(matrix)
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
    check_cross_file(matrix)


def check_cross_file(matrix: Matrix) -> None:
    """Facts that span files agree, so an installed update is held to them too.

    Each check runs only when the files it joins are loaded (a partial matrix
    directory still loads). The first failure raises, naming the offending row.
    """
    _check_architectures(matrix)
    _check_driver_facts(matrix)
    _check_framework_references(matrix)
    _check_pairings(matrix)


def _check_architectures(matrix: Matrix) -> None:
    by_name = {a.name.lower(): a for a in matrix.architectures}
    if not by_name:
        return
    for g in matrix.gpus:
        arch = by_name.get(g.architecture.lower())
        if arch is not None and g.compute_capability not in arch.compute_capabilities:
            _fail(
                g.origin,
                f"GPU {g.name}: compute capability {g.compute_capability} is not one of "
                f"the {arch.name} architecture's ({', '.join(map(str, arch.compute_capabilities))})",
            )
    for r in matrix.retired_archs:
        if r.architecture.lower() not in by_name:
            _fail(r.origin, f"retired architecture {r.architecture!r} is not in gpus.toml")
    # One fact, two files: gpus.toml last_driver_branch and driver_branches.toml [[retired]].
    retired = {r.architecture.lower(): r for r in matrix.retired_archs}
    for a in matrix.architectures:
        row = retired.get(a.name.lower())
        if a.last_driver_branch is None:
            if row is not None:
                _fail(
                    row.origin,
                    f"{a.name} retired after branch {row.last_branch} here, but gpus.toml "
                    f"gives it no last_driver_branch (line {a.origin.line})",
                )
            continue
        if not a.last_driver_branch.isdigit():
            _fail(
                a.origin,
                f"architecture {a.name}: last_driver_branch must be a branch number like "
                f"'470', got {a.last_driver_branch!r}",
            )
        if not matrix.retired_archs:
            continue  # driver_branches.toml not loaded (or has no [[retired]] rows)
        if row is None:
            _fail(
                a.origin,
                f"architecture {a.name}: last_driver_branch {a.last_driver_branch} has no "
                "[[retired]] row in driver_branches.toml",
            )
        elif int(a.last_driver_branch) != row.last_branch:
            _fail(
                a.origin,
                f"architecture {a.name}: last_driver_branch {a.last_driver_branch} disagrees "
                f"with driver_branches.toml [[retired]] last_branch {row.last_branch} "
                f"(line {row.origin.line})",
            )


def _check_driver_facts(matrix: Matrix) -> None:
    for branch in matrix.driver_branches:
        row = matrix.cuda_release(branch.max_cuda)
        if row is None or row.linux_min_driver is None:
            continue
        if row.linux_min_driver.branch > branch.branch:
            _fail(
                branch.origin,
                f"driver branch {branch.branch}: max_cuda {branch.max_cuda} needs driver "
                f"{row.linux_min_driver.raw} (cuda_driver.toml line {row.origin.line})",
            )


def _check_framework_references(matrix: Matrix) -> None:
    known_cuda = {r.cuda for r in matrix.cuda_releases}
    majors = {m.cuda_major for m in matrix.minor_compat}
    known_cc = {cc for a in matrix.architectures for cc in a.compute_capabilities}
    # Targets nvcc accepted in some release count too (Thor was sm_101 before CUDA 13).
    known_cc |= {cc for t in matrix.toolkit_archs for cc in t.compute_capabilities}
    cudnn: set[tuple[str, int]] = set()
    for c in matrix.cudnn_releases:
        major, minor = [*c.version.split("."), "0"][:2]
        cudnn |= {(f"{major}.{minor}", c.cuda_major), (major, c.cuda_major)}
    for framework, builds in matrix.builds.items():
        for b in builds:
            what = f"{framework} {b.versions[0]} {b.variant}"
            cuda = b.cuda
            loaded = bool(known_cuda or majors)
            if loaded and cuda is not None and cuda not in known_cuda and cuda.major not in majors:
                _fail(
                    b.origin,
                    f"{what}: CUDA {cuda} has no cuda_driver.toml release row and no "
                    f"minor_compat row for CUDA {cuda.major}",
                )
            if known_cc:
                for cc in (*(b.archs or ()), *(b.ptx or ())):
                    if cc not in known_cc:
                        _fail(b.origin, f"{what}: {cc} is not a known compute capability")
            if cudnn and cuda is not None and b.cudnn is not None:
                head = b.cudnn.split(".")[0]
                key = ".".join(b.cudnn.split(".")[:2])
                # cuDNN 5.1 and 6 (TensorFlow 1.0-1.4) predate the cuDNN table.
                if head.isdigit() and int(head) >= 7 and (key, cuda.major) not in cudnn:
                    _fail(
                        b.origin,
                        f"{what}: cuDNN {b.cudnn} has no cudnn.toml row for CUDA {cuda.major}",
                    )


def _check_floor(matrix: Matrix, floor: ArchFloor) -> None:
    """An arch floor covers builds that exist, and no build with a known list has
    code below it."""
    from packaging.specifiers import SpecifierSet

    spec = SpecifierSet(floor.versions)
    covered = [
        b
        for b in matrix.builds.get(floor.framework, ())
        if any(spec.contains(v, prereleases=True) for v in b.versions)
    ]
    if not covered:
        _fail(floor.origin, f"arch_floor {floor.versions}: no {floor.framework} build")
    for b in covered:
        code = (*(b.archs or ()), *(b.ptx or ()))
        low = min(code, default=None)
        if low is not None and low < floor.compute_capability:
            _fail(
                b.origin,
                f"{floor.framework} {b.versions[0]} {b.variant}: code for {low.sm}, below "
                f"the arch_floor {floor.compute_capability} of {floor.framework} "
                f"{floor.versions} (line {floor.origin.line})",
            )


def _check_covers(matrix: Matrix, framework: str, versions: str, origin: Origin, what: str) -> None:
    """A ``[[loader]]`` or ``[[route]]`` row names releases the framework's builds have."""
    from packaging.specifiers import SpecifierSet

    spec = SpecifierSet(versions)
    builds = matrix.builds.get(framework, ())
    if builds and not any(spec.contains(v, prereleases=True) for b in builds for v in b.versions):
        _fail(origin, f"{what} {versions}: no {framework} build")


def _check_pairings(matrix: Matrix) -> None:
    torch = {v for b in matrix.builds.get("torch", ()) for v in b.versions}
    if torch:
        for comp in matrix.companions:
            if comp.version not in torch:
                _fail(comp.origin, f"companion row for torch {comp.version}: no torch build")
    for floor in matrix.arch_floors:
        _check_floor(matrix, floor)
    for loader in matrix.library_loaders:
        _check_covers(matrix, loader.framework, loader.versions, loader.origin, "loader")
    for route in matrix.build_routes:
        _check_covers(matrix, route.framework, route.versions, route.origin, "route")
    tensorflow = {v for b in matrix.builds.get("tensorflow", ()) for v in b.versions}
    if tensorflow:
        for pin in matrix.keras_pins:
            missing = [v for v in pin.tensorflow if v not in tensorflow]
            if missing:
                _fail(
                    pin.origin,
                    f"tensorflow_pin names TensorFlow {', '.join(missing)}, which "
                    "tensorflow.toml does not have",
                )


def _check_shared_names(matrix: Matrix) -> None:
    """A ``[[shared_name]]`` is no ``[[gpu]]`` row too, and each of its
    capabilities belongs to a known architecture."""
    from envcheck.matrix.gpu_names import gpu_key

    rows = {gpu_key(s): g for g in matrix.gpus for s in (g.name, *g.aliases)}
    known = {cc for a in matrix.architectures for cc in a.compute_capabilities}
    for shared in matrix.shared_gpu_names:
        for spelling in (shared.name, *shared.aliases):
            row = rows.get(gpu_key(spelling))
            if row is not None:
                _fail(
                    shared.origin,
                    f"shared name {spelling!r} is also the [[gpu]] row {row.name!r} "
                    f"(line {row.origin.line}): a name is one or the other",
                )
        for cc in shared.compute_capabilities:
            if known and cc not in known:
                _fail(shared.origin, f"shared name {shared.name}: no architecture has {cc}")
