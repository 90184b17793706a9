"""CUDA runtime and cuDNN libraries: missing, wrong major, or shadowed on the path.

How the dynamic loader picks a library matters here: LD_LIBRARY_PATH is searched
before a library's DT_RUNPATH, so an older libcudnn/libcublas of the same soname
on LD_LIBRARY_PATH wins over the copy a pip wheel brings
(https://man7.org/linux/man-pages/man8/ld.so.8.html).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Optional

from envcheck import names
from envcheck.model.finding import Category, Finding, Severity
from envcheck.model.snapshot import FROM_MESSAGE, LIB_NOT_LOADABLE, Library
from envcheck.model.versions import CudaVersion, parse_cuda_version, release_numbers
from envcheck.rules._facts import framework_cuda, fw_label, matched_build
from envcheck.rules._fix import libraries_fix, reinstall_fix

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Framework, Snapshot

CUDNN_MISSING = "cudnn-missing"
CUDNN_MAJOR_MISMATCH = "cudnn-major-mismatch"
CUDNN_SHADOWED = "cudnn-shadowed"
CUDNN_OLDER = "cudnn-older-than-build"
CUDNN_NOT_LOADABLE = "cudnn-not-loadable"
CUDNN_SEVERAL = "cudnn-several-copies"
CUDA_RUNTIME_MISSING = "cuda-runtime-missing"
CUDA_RUNTIME_NOT_LOADABLE = "cuda-runtime-not-loadable"
LD_PATH_OLDER_CUDA = "ld-library-path-older-cuda"

# Frameworks that load cuDNN/CUDA from the system (or from nvidia-* wheels when
# installed with their CUDA extra) rather than always bundling them.
_SYSTEM_LIB_USERS = ("tensorflow", "onnxruntime", "paddle", "jax", "cupy")
# Frameworks that refuse to start with a cuDNN older (same major) than their build's.
_CUDNN_MINOR_CHECKED = ("tensorflow", "jax")


def _major(version: Optional[str]) -> Optional[int]:
    if not version:
        return None
    m = re.match(r"\s*(\d+)", version)
    return int(m.group(1)) if m else None


def _needed_cudnn(fw: Framework, snapshot: Snapshot, matrix: Matrix) -> Optional[str]:
    if fw.cudnn_version:
        return fw.cudnn_version
    build = matched_build(fw, snapshot, matrix)
    return build.cudnn if build is not None else None


# pip wheels that carry a library (nvidia-cudnn-cu12 9.1.0.70 is cuDNN 9.1).
_WHEEL_OF = {"cudnn": "nvidia-cudnn-cu", "cudart": "nvidia-cuda-runtime-cu"}

# CUDA libraries whose soname carries the CUDA version itself (libcudart.so.11.0,
# libcublasLt.so.12, cudart64_110.dll): record name -> (library as NVIDIA names it,
# pip wheel prefix). The others number majors of their own (libcufft.so.10 is CUDA 11's).
CUDA_VERSIONED_LIBS = {
    "cudart": ("cudart", "nvidia-cuda-runtime-cu"),
    "cublas": ("cublas", "nvidia-cublas-cu"),
    "cublaslt": ("cublasLt", "nvidia-cublas-cu"),
    "nvrtc": ("nvrtc", "nvidia-cuda-nvrtc-cu"),
}


def _libs(snapshot: Snapshot, name: str) -> list[Library]:
    found = [
        lib
        for lib in snapshot.libraries
        if lib.name == name and lib.version and lib.source != LIB_NOT_LOADABLE
    ]
    prefix = _WHEEL_OF.get(name)
    if prefix is None:
        return found
    seen = {lib.path for lib in found}
    for package, version in snapshot.packages.items():
        if not package.startswith(prefix) or not version:
            continue
        # A detected library already names the wheel's files; otherwise the wheel
        # itself is the evidence (a hand-written or pasted snapshot).
        if not any(p and package.replace("-", "_") in p.replace("-", "_") for p in seen):
            found.append(Library(name=name, version=version, path=package, source="pip"))
    return found


def _libraries_observed(snapshot: Snapshot) -> bool:
    """Whether detection looked for libraries: else their absence is unknown."""
    return snapshot.observed("libraries")


def _bundles(fw: Framework, snapshot: Snapshot, matrix: Matrix) -> bool:
    build = matched_build(fw, snapshot, matrix)
    if fw.name == "torch":
        # pip and conda builds of PyTorch always bring their own CUDA libraries.
        return True
    return bool(build is not None and build.bundles_cuda and build.extra is None)


def check_cudnn(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    cudnns = _libs(snapshot, "cudnn")
    unloadable = {
        _major(lib.version)
        for lib in snapshot.libraries
        if lib.name == "cudnn" and lib.source == LIB_NOT_LOADABLE
    }
    judged: set[int] = set()
    for fw in snapshot.frameworks:
        if fw.cpu_only or fw.name not in (*_SYSTEM_LIB_USERS, "torch"):
            continue
        need = _needed_cudnn(fw, snapshot, matrix)
        need_major = _major(need)
        if need is None or need_major is None:
            continue
        if need_major in unloadable:
            judged.add(need_major)
            yield _cudnn_not_loaded(need_major, cudnns, fw, snapshot, matrix)
            continue
        same = [lib for lib in cudnns if _major(lib.version) == need_major]
        if fw.name != "torch" and not same and not _bundles(fw, snapshot, matrix):
            others = sorted({lib.version or "" for lib in cudnns})
            if others:
                yield Finding(
                    CUDNN_MAJOR_MISMATCH,
                    Category.CUDNN_MISMATCH,
                    Severity.ERROR,
                    f"{fw_label(fw)} needs cuDNN {need_major}.x but only cuDNN "
                    f"{', '.join(others)} is installed",
                    framework=fw.name,
                    evidence=(
                        f"{fw.name} was built with cuDNN {need}",
                        *(f"cudnn {lib.version} at {lib.path} ({lib.source})" for lib in cudnns),
                    ),
                    fix=_cudnn_fix(fw, need, snapshot, matrix),
                )
            elif _libraries_observed(snapshot):
                yield Finding(
                    CUDNN_MISSING,
                    Category.CUDA_RUNTIME_MISSING,
                    Severity.ERROR,
                    f"{fw_label(fw)} needs cuDNN {need_major}.x but no cuDNN was found",
                    framework=fw.name,
                    evidence=(f"{fw.name} was built with cuDNN {need}", "libraries: no cudnn"),
                    fix=_cudnn_fix(fw, need, snapshot, matrix),
                )
            continue
        yield from _older_cudnn(fw, need, cudnns, snapshot, matrix)
    for major in sorted(m for m in unloadable if m is not None and m not in judged):
        yield _cudnn_not_loaded(major, cudnns, None, snapshot, matrix)


def _cudnn_not_loaded(
    major: int,
    cudnns: list[Library],
    fw: Optional[Framework],
    snapshot: Snapshot,
    matrix: Matrix,
) -> Finding:
    """A process could not open a cuDNN of ``major`` (a fact from its own message):
    for that run it is absent, whatever the libraries probe found. What is installed
    says why: that major elsewhere (not on the loader path), only other majors, none."""
    who = fw_label(fw) if fw is not None else "the process"
    seen = f"libcudnn.so.{major} could not be opened (from the message)"
    same = [lib for lib in cudnns if _major(lib.version) == major]
    others = sorted({lib.version or "" for lib in cudnns if _major(lib.version) != major})
    listed = tuple(f"cudnn {lib.version} at {lib.path} ({lib.source})" for lib in cudnns)
    fix = (
        _cudnn_fix(fw, _needed_cudnn(fw, snapshot, matrix) or str(major), snapshot, matrix)
        if fw is not None
        else f"Install cuDNN {major}.x for the CUDA major of the program that loads it, and "
        "make sure its directory is on the loader path."
    )
    if same:
        where = next((lib.path for lib in same if lib.path), None)
        at = f" at {where}" if where else ""
        return Finding(
            CUDNN_NOT_LOADABLE,
            Category.LIB_PATH_CONFLICT,
            Severity.ERROR,
            f"cuDNN {same[0].version} is installed{at}, but {who} could not load it: its "
            "directory is not on the loader path of that process",
            framework=fw.name if fw else None,
            evidence=(seen, *listed),
            fix=f"Add {_dirname(where)} to LD_LIBRARY_PATH (or register it with ldconfig) "
            "in the environment that runs the program.",
        )
    if others:
        return Finding(
            CUDNN_MAJOR_MISMATCH,
            Category.CUDNN_MISMATCH,
            Severity.ERROR,
            f"{who} needs cuDNN {major}.x but only cuDNN {', '.join(others)} is installed",
            framework=fw.name if fw else None,
            evidence=(seen, *listed),
            fix=fix,
        )
    return Finding(
        CUDNN_MISSING,
        Category.CUDA_RUNTIME_MISSING,
        Severity.ERROR,
        f"{who} needs cuDNN {major}.x but none could be loaded",
        framework=fw.name if fw else None,
        evidence=(seen, "libraries: no cudnn" if _libraries_observed(snapshot) else seen),
        fix=fix,
    )


def _older(lib: Library, need: str) -> bool:
    """``lib`` is of ``need``'s major but an older minor (8.0.5 against 8.1)."""
    have, want = release_numbers(lib.version), release_numbers(need)
    return len(want) >= 2 and len(have) >= 2 and have[0] == want[0] and have[:2] < want[:2]


def _older_cudnn(
    fw: Framework, need: str, cudnns: list[Library], snapshot: Snapshot, matrix: Matrix
) -> Iterator[Finding]:
    """A cuDNN of the build's major but an older minor is what gets loaded.

    cuDNN keeps its API within a major, but a build needs at least the minor it was
    compiled with; TensorFlow and JAX (XLA) check it at start-up and refuse to run
    ("Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0").
    Which copy is loaded: the one a process was seen loading (source ``message``),
    else the first on LD_LIBRARY_PATH (searched before the wheel's RUNPATH), else,
    for a framework that does not bring its own, any installed copy when all are
    older.
    """
    newer = [
        lib
        for lib in cudnns
        if lib.source != FROM_MESSAGE
        and _major(lib.version) == _major(need)
        and len(release_numbers(lib.version)) >= 2
        and not _older(lib, need)
    ]
    loaded = next((lib for lib in cudnns if lib.source == FROM_MESSAGE), None)
    if loaded is not None and _older(loaded, need):
        yield _cudnn_older_finding(fw, need, loaded, "the process loaded", newer, snapshot, matrix)
        return
    first_on_path = next((lib for lib in cudnns if lib.source == "LD_LIBRARY_PATH"), None)
    if first_on_path is not None and _older(first_on_path, need):
        yield Finding(
            CUDNN_SHADOWED,
            Category.LIB_PATH_CONFLICT,
            Severity.ERROR,
            f"An older cuDNN {first_on_path.version} on LD_LIBRARY_PATH shadows the "
            f"cuDNN {need} that {fw_label(fw)} needs",
            framework=fw.name,
            evidence=(
                f"LD_LIBRARY_PATH: {first_on_path.path}",
                f"{fw.name} needs cuDNN {need}",
            ),
            fix=(
                f"Remove {_dirname(first_on_path.path)} from LD_LIBRARY_PATH (the "
                "framework finds its own cuDNN), or upgrade that cuDNN."
            ),
        )
        return
    same = [lib for lib in cudnns if _major(lib.version) == _major(need)]
    if fw.name == "torch" or _bundles(fw, snapshot, matrix) or not same:
        return
    if not newer and all(_older(lib, need) for lib in same):
        yield _cudnn_older_finding(
            fw, need, same[0], "the only installed cuDNN is", [], snapshot, matrix
        )
        return
    older = [lib for lib in same if _older(lib, need)]
    if older and newer and first_on_path is None:
        # Copies of one soname (libcudnn.so.8): which is loaded is the loader's order
        # (ldconfig's cache, RUNPATHs), which no probe records.
        yield Finding(
            CUDNN_SEVERAL,
            Category.CUDNN_MISMATCH,
            Severity.WARNING,
            f"{fw_label(fw)} needs cuDNN {need}, but an older cuDNN {older[0].version} is "
            f"installed beside cuDNN {newer[0].version}: whichever comes first on the loader "
            "path is the one that gets loaded",
            framework=fw.name,
            evidence=(
                f"{fw.package or fw.name} was built with cuDNN {need}",
                *(f"cudnn {lib.version} at {lib.path} ({lib.source})" for lib in same),
            ),
            fix=f"Remove the older cuDNN ({older[0].path or older[0].version}) from the loader "
            f"path, or uninstall it, so the cuDNN {newer[0].version} is loaded.",
        )


def _cudnn_older_finding(
    fw: Framework,
    need: str,
    lib: Library,
    how: str,
    newer: list[Library],
    snapshot: Snapshot,
    matrix: Matrix,
) -> Finding:
    # TensorFlow and JAX refuse an older minor; other frameworks may run until a
    # call needs a newer cuDNN function.
    severity = Severity.ERROR if fw.name in _CUDNN_MINOR_CHECKED else Severity.WARNING
    where = f" at {lib.path}" if lib.path else ""
    src = "from the message" if lib.source == FROM_MESSAGE else (lib.source or "found")
    who = fw.package or fw.name
    evidence = [f"{who} was built with cuDNN {need}", f"cudnn {lib.version}{where} ({src})"]
    evidence.extend(f"cudnn {n.version} at {n.path} ({n.source})" for n in newer)
    if newer:
        on_path = [
            x for x in snapshot.libraries if x.source == "LD_LIBRARY_PATH" and _older(x, need)
        ]
        drop = (
            f"Remove {_dirname(on_path[0].path)} from LD_LIBRARY_PATH"
            if on_path
            else "Remove the older cuDNN from the loader path (LD_LIBRARY_PATH, conda env)"
        )
        fix = f"{drop} so the cuDNN {newer[0].version} at {newer[0].path} is loaded."
    else:
        fix = "Upgrade cuDNN: " + _cudnn_fix(fw, need, snapshot, matrix)
    return Finding(
        CUDNN_OLDER,
        Category.CUDNN_MISMATCH,
        severity,
        f"{fw_label(fw)} was built with cuDNN {need}, but {how} the older cuDNN {lib.version}",
        framework=fw.name,
        evidence=tuple(evidence),
        fix=fix,
    )


def _dirname(path: Optional[str]) -> str:
    if not path:
        return "that directory"
    return path.rsplit("/", 1)[0] if "/" in path else path


def _cudnn_fix(fw: Framework, need: str, snapshot: Snapshot, matrix: Matrix) -> str:
    """How ``fw`` gets a cuDNN of ``need``'s major, at least ``need``: the resolver's
    commands for this target (``envcheck.resolve.fix.supply_libraries``)."""
    return libraries_fix(fw, snapshot, matrix, cudnn=need, cudnn_only=True)


def _runtime_key(cuda: CudaVersion, matrix: Matrix) -> tuple[int, ...]:
    """What a runtime must match: the major where cuda_driver.toml has a minor-version
    compatibility row for it (CUDA 11+), else major.minor (CUDA 10.x and older name
    their runtime per minor: libcudart.so.10.0, cudart64_100.dll)."""
    if matrix.minor_compat_for(cuda.major) is not None:
        return (cuda.major,)
    return (cuda.major, cuda.minor)


def _runtime_fix(
    fw: Optional[Framework], cuda: CudaVersion, snapshot: Snapshot, matrix: Matrix
) -> str:
    """How ``fw`` gets the CUDA ``cuda`` runtime it loads: a build that brings its
    CUDA libraries as pip dependencies is reinstalled with them; one that loads
    them from the system gets them as the resolver plans for this target."""
    if fw is not None and _bundles(fw, snapshot, matrix):
        fix = reinstall_fix(fw, snapshot, matrix)
        if fix:
            return fix
    build = matched_build(fw, snapshot, matrix) if fw is not None else None
    # The matrix's build row is more precise ("7.4") than the framework's own "7".
    cudnn = build.cudnn if build is not None and build.cudnn else None
    if cudnn is None and fw is not None:
        cudnn = fw.cudnn_version
    if fw is None:
        path = "PATH" if snapshot.platform.os == "windows" else "LD_LIBRARY_PATH"
        return f"Install the CUDA {cuda} toolkit and put its libraries on {path}."
    return libraries_fix(fw, snapshot, matrix, cudnn=cudnn, cuda=cuda)


def _soname_cuda(lib: Library) -> Optional[tuple[int, Optional[int]]]:
    """(major, minor or None) of the CUDA a not-loadable library's soname asks for."""
    if (lib.name or "").lower() not in CUDA_VERSIONED_LIBS or lib.source != LIB_NOT_LOADABLE:
        return None
    digits = re.findall(r"\d+", lib.version or "")
    if not digits:
        return None
    return int(digits[0]), int(digits[1]) if len(digits) > 1 else None


def _key_matches(key: tuple[int, ...], major: int, minor: Optional[int]) -> bool:
    return key[0] == major and (len(key) == 1 or minor is None or key[1] == minor)


def installed_cuda(snapshot: Snapshot) -> list[tuple[CudaVersion, str]]:
    """(CUDA version, what says so) of the CUDA libraries installed: toolkits, CUDA
    runtime libraries, and nvidia-*-cuNN wheels (CUDA N, minor unknown)."""
    out: list[tuple[CudaVersion, str]] = []
    for tk in snapshot.cuda_toolkits:
        v = parse_cuda_version(tk.version)
        if v is not None:
            at = f" at {tk.path}" if tk.path else ""
            out.append((v, f"CUDA toolkit {tk.version}{at}"))
    for lib in _libs(snapshot, "cudart"):
        v = parse_cuda_version(lib.version)
        if v is not None and lib.source != "pip":
            out.append((v, f"cudart {lib.version} at {lib.path} ({lib.source})"))
    for package in snapshot.packages:
        wheel = names.nvidia_wheel(package)
        if wheel is not None:
            out.append((CudaVersion(wheel[1], 0), package))
    return out


def _runtime_not_loaded(
    lib: Library,
    fw: Optional[Framework],
    cuda: CudaVersion,
    key: tuple[int, ...],
    snapshot: Snapshot,
    matrix: Matrix,
) -> Finding:
    """A process could not open a runtime library of the CUDA ``key`` (major, or major
    and minor where runtimes are per minor) that ``fw`` needs (None: unknown which
    framework, the soname says): for that run that CUDA runtime is absent. What is
    installed says why: that CUDA elsewhere (not on the loader path), only others, none."""
    shown, wheel = CUDA_VERSIONED_LIBS[(lib.name or "").lower()]
    wanted = f"{key[0]}.x" if len(key) == 1 else f"{key[0]}.{key[1]}"
    who = fw_label(fw) if fw is not None else "the process"
    seen = f"the CUDA {lib.version} {shown} library could not be opened (from the message)"
    installed = installed_cuda(snapshot)

    def carries(v: CudaVersion, what: str) -> bool:
        if what.startswith("nvidia-"):
            return what.startswith(wheel) and _key_matches(key, v.major, None)
        kind_ok = what.startswith("CUDA toolkit") or shown == "cudart"
        return kind_ok and _key_matches(key, v.major, v.minor)

    same = [what for v, what in installed if carries(v, what)]
    listed = tuple(what for _v, what in installed)
    path = "PATH" if snapshot.platform.os == "windows" else "LD_LIBRARY_PATH"
    if same:
        return Finding(
            CUDA_RUNTIME_NOT_LOADABLE,
            Category.LIB_PATH_CONFLICT,
            Severity.ERROR,
            f"The CUDA {wanted} runtime is installed ({same[0]}), but {who} could not load "
            f"its {shown} library: its directory is not on the loader path of that process",
            framework=fw.name if fw else None,
            evidence=(seen, *listed),
            fix=f"Add the directory that holds {shown} ({same[0]}) to {path} (or "
            "register it with ldconfig) in the environment that runs the program.",
        )
    if fw is not None or len(key) > 1:
        fix = _runtime_fix(fw, cuda, snapshot, matrix)
    elif snapshot.platform.os == "windows":
        # Which program loads it, and so whether its loader searches pip's wheel
        # directories, is not known (TensorFlow <= 2.10 searches PATH only).
        fix = f"Install the CUDA {key[0]} toolkit and put its bin directory on {path}."
    else:
        fix = (
            f"Install the CUDA {key[0]} toolkit and put its libraries on {path}, or the "
            f"wheel that carries {shown}: pip install {wheel}{key[0]}"
        )
    others = ", ".join(
        dict.fromkeys(
            str(v.major) if matrix.minor_compat_for(v.major) is not None else str(v)
            for v in sorted(v for v, _what in installed)
        )
    )
    if others:
        title = f"{who} needs the CUDA {wanted} runtime but only CUDA {others} is installed"
    else:
        title = f"{who} needs the CUDA {wanted} runtime but could not load its {shown} library"
    return Finding(
        CUDA_RUNTIME_MISSING,
        Category.CUDA_RUNTIME_MISSING,
        Severity.ERROR,
        title,
        framework=fw.name if fw else None,
        evidence=(seen, *listed),
        fix=fix,
    )


def check_cuda_runtime(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    """A framework that loads the CUDA runtime from the system finds none it can load,
    or a process was seen failing to open a CUDA runtime library (LIB_NOT_LOADABLE
    records of cudart, cublas, cublasLt, nvrtc: the version is the soname's)."""
    runtimes = [parse_cuda_version(lib.version) for lib in _libs(snapshot, "cudart")] + [
        parse_cuda_version(t.version) for t in snapshot.cuda_toolkits
    ]
    found = [c for c in runtimes if c is not None]
    unloadable = [(lib, v) for lib in snapshot.libraries for v in [_soname_cuda(lib)] if v]
    judged: set[int] = set()
    for fw in snapshot.frameworks:
        cuda = framework_cuda(fw)
        if cuda is None or fw.cpu_only:
            continue
        key = _runtime_key(cuda, matrix)
        failed = [i for i, (_lib, v) in enumerate(unloadable) if _key_matches(key, *v)]
        if failed:
            # A process could not open a runtime library of the CUDA this build needs
            # (a fact from its own message): whatever bundles it, that run lacked it.
            judged.update(failed)
            yield _runtime_not_loaded(unloadable[failed[0]][0], fw, cuda, key, snapshot, matrix)
            continue
        if fw.name not in _SYSTEM_LIB_USERS or _bundles(fw, snapshot, matrix):
            continue
        if any(_runtime_key(c, matrix)[: len(key)] == key for c in found):
            continue
        if not found and not _libraries_observed(snapshot):
            continue  # nothing looked for the libraries: unknown, not absent
        wanted = f"{cuda.major}.x" if len(key) == 1 else str(cuda)
        yield Finding(
            CUDA_RUNTIME_MISSING,
            Category.CUDA_RUNTIME_MISSING,
            Severity.ERROR,
            f"{fw_label(fw)} needs the CUDA {wanted} runtime libraries but none were found",
            framework=fw.name,
            evidence=(
                f"{fw.name} was built with CUDA {cuda}",
                "CUDA found: " + (", ".join(sorted({str(c) for c in found})) or "none"),
            ),
            fix=_runtime_fix(fw, cuda, snapshot, matrix),
        )
    told: set[tuple[int, ...]] = set()
    for i, (lib, (major, minor)) in enumerate(unloadable):
        cuda = CudaVersion(major, minor or 0)
        per_minor = minor is not None and matrix.minor_compat_for(major) is None
        key = (major, minor or 0) if per_minor else (major,)
        if i in judged or key in told:
            continue
        told.add(key)
        yield _runtime_not_loaded(lib, None, cuda, key, snapshot, matrix)


def check_ld_library_path(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    """LD_LIBRARY_PATH puts an older CUDA toolkit first."""
    ld = snapshot.env.get("LD_LIBRARY_PATH")
    if not ld:
        return
    entries = [e for e in ld.split(":") if e]
    path_versions = []
    for entry in entries:
        m = re.search(r"cuda-?(\d+\.\d+)", entry)
        if m:
            path_versions.append((entry, parse_cuda_version(m.group(1))))
    if not path_versions:
        return
    first_entry, first = path_versions[0]
    if first is None:
        return
    newest_toolkit = max(
        (c for c in (parse_cuda_version(t.version) for t in snapshot.cuda_toolkits) if c),
        default=None,
    )
    wanted = [framework_cuda(f) for f in snapshot.frameworks if not f.cpu_only]
    wanted_same_major = [c for c in wanted if c is not None and c.major == first.major]
    newer_need = max(wanted_same_major, default=None)
    if newer_need is not None and first < newer_need:
        yield Finding(
            LD_PATH_OLDER_CUDA,
            Category.LIB_PATH_CONFLICT,
            Severity.WARNING,
            f"LD_LIBRARY_PATH puts CUDA {first} libraries ahead of the CUDA {newer_need} "
            "ones your frameworks were built with",
            evidence=(f"LD_LIBRARY_PATH[0..] = {first_entry}",),
            fix=f"Remove {first_entry} from LD_LIBRARY_PATH, or point it at CUDA "
            f"{newer_need}'s lib64.",
        )
    elif newest_toolkit is not None and first < newest_toolkit:
        yield Finding(
            LD_PATH_OLDER_CUDA,
            Category.LIB_PATH_CONFLICT,
            Severity.WARNING,
            f"LD_LIBRARY_PATH points at CUDA {first} while CUDA {newest_toolkit} is also installed",
            evidence=(
                f"LD_LIBRARY_PATH entry {first_entry}",
                *(f"toolkit {t.version} at {t.path}" for t in snapshot.cuda_toolkits),
            ),
            fix="Make sure LD_LIBRARY_PATH, PATH and CUDA_HOME name the same toolkit.",
        )
