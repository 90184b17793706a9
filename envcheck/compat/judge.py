"""The one compatibility judgement: does this build run on this target, and why.

``judge(candidate, target, matrix)`` returns a ``Verdict``: ``runs``, ``fails``
or ``unknown`` with typed reasons (a stable code, a level, the doctor category,
a message and the matrix sources). ``judge_set`` judges what an under-specified
build may be (a version with no build facts stands for every build pip could
have installed). ``rank_key`` is the one ordering of candidates. The resolver,
the doctor, ``matrix why``, ``check``, ``explain`` and ``fleet`` consume these
verdicts and only format them.

Facts of the target that are unknown (``None``) are not checked; a fact of the
candidate that is unknown where the target's is known (the architecture list,
the driver a CUDA release needs) makes the verdict ``unknown`` unless the matrix
bounds it (what the build's CUDA toolkit can emit, what sibling variants of the
same release were compiled for).

Pure: a function of (candidate, target, matrix).
"""

from __future__ import annotations

import enum
import functools
from typing import TYPE_CHECKING, Any, Optional

from envcheck.compat.candidate import Candidate, sibling_builds
from envcheck.compat.driver import driver_supports, max_cuda_for_driver
from envcheck.model._frozen import record
from envcheck.model.finding import Category
from envcheck.model.versions import release_key

if TYPE_CHECKING:
    from collections.abc import Callable

    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix
    from envcheck.model.versions import ComputeCapability, CudaVersion, DriverVersion

# Reason codes: stable identifiers shared by every consumer.
PLATFORM = "platform"
PYTHON = "python"
DRIVER = "driver"
DRIVER_MINOR_COMPAT = "driver_minor_compat"
DRIVER_UNKNOWN = "driver_unknown"
GPU_DROPPED = "gpu_dropped_by_driver"
GPU_ARCH = "gpu_arch"
GPU_ARCH_PTX = "gpu_arch_ptx"
GPU_ARCH_UNKNOWN = "gpu_arch_unknown"
CPU_ONLY = "cpu_only"
ROCM = "rocm"
NO_GPU = "no_gpu"
WITHDRAWN = "withdrawn"
UNVERIFIED = "unverified"
BUILD_UNKNOWN = "build_unknown"
INFERRED_RELEASE = "inferred_release"


class Level(str, enum.Enum):
    """How a reason weighs: ``error`` blocks, ``unknown`` leaves the verdict open."""

    OK = "ok"
    INFO = "info"
    WARNING = "warning"
    UNKNOWN = "unknown"
    ERROR = "error"


class Status(str, enum.Enum):
    RUNS = "runs"
    FAILS = "fails"
    UNKNOWN = "unknown"


class Code(enum.IntEnum):
    """How the build reaches the target's GPUs; higher is better."""

    NONE = 0
    """No GPU code (CPU build, or no GPU to run on)."""
    UNKNOWN = 1
    PTX = 2
    NATIVE = 3


@record
class Reason:
    code: str
    level: Level
    category: Category
    message: str
    sources: tuple[str, ...] = ()
    inferred: bool = False
    """Derived from the matrix rather than read for this exact build."""
    subject: Optional[str] = None
    """What the reason is about beyond the build: the GPU (``RTX 5090 (sm_120)``), or
    the driver version a fix needs."""

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "level": self.level.value,
            "category": self.category.value,
            "message": self.message,
            "sources": list(self.sources),
            "inferred": self.inferred,
        }


@record
class Verdict:
    candidate: Candidate
    status: Status
    reasons: tuple[Reason, ...]
    code: Code = Code.NONE

    @property
    def runs(self) -> bool:
        return self.status is Status.RUNS

    @property
    def errors(self) -> tuple[Reason, ...]:
        return tuple(r for r in self.reasons if r.level is Level.ERROR)

    def of(self, *codes: str) -> tuple[Reason, ...]:
        return tuple(r for r in self.reasons if r.code in codes)

    def to_json(self) -> dict[str, Any]:
        c = self.candidate
        return {
            "framework": c.framework,
            "version": c.version,
            "package": c.package,
            "variant": c.variant,
            "status": self.status.value,
            "code": self.code.name.lower(),
            "reasons": [r.to_json() for r in self.reasons],
        }


@record
class SetVerdict:
    """The verdict over every build an installed framework may be."""

    status: Status
    verdicts: tuple[Verdict, ...]

    @property
    def running(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.runs)

    @property
    def failing(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.status is Status.FAILS)


# -- facts of the target alone -------------------------------------------------


def gpu_driver_reasons(target: Target, matrix: Matrix) -> tuple[Reason, ...]:
    """A GPU whose architecture the target's driver branch no longer supports."""
    if target.driver is None:
        return ()
    out = []
    branch = matrix.branch_of(target.driver)
    for cc, name in _named_gpus(target):
        retired = matrix.dropped_by(target.driver, cc)
        if retired is None:
            continue
        arch = retired.architecture
        out.append(
            Reason(
                GPU_DROPPED,
                Level.ERROR,
                Category.GPU_ARCH_UNSUPPORTED,
                f"{name} ({arch}) is not supported by driver {target.driver.raw} "
                f"(branch {branch}): install a driver from the {retired.last_branch} "
                f"branch, the last for {arch}",
                (retired.origin.cite(),),
            )
        )
    return tuple(out)


def _named_gpus(target: Target) -> list[tuple[ComputeCapability, str]]:
    names = list(target.gpu_names)
    out = []
    for i, cc in enumerate(target.gpus):
        name = names[i] if i < len(names) and len(names) == len(target.gpus) else cc.sm
        out.append((cc, name if cc.sm in name else f"{name} ({cc.sm})"))
    return out


# -- the judgement -------------------------------------------------------------


def python_reason(
    label: str, supported: tuple[str, ...], python: str, sources: tuple[str, ...]
) -> Reason:
    """Whether ``python`` is among the Pythons ``label`` lists as supported."""
    if python in supported:
        return Reason(PYTHON, Level.OK, Category.OTHER, f"supports Python {python}", sources)
    return Reason(
        PYTHON,
        Level.ERROR,
        Category.PYTHON_UNSUPPORTED,
        f"{label} supports Python {', '.join(supported)}, not {python}",
        sources,
    )


def judge(candidate: Candidate, target: Target, matrix: Matrix) -> Verdict:
    """Whether ``candidate`` runs on ``target``, with every reason (see module doc)."""
    if target.gpu_choices:
        return _judge_chips(candidate, target, matrix)
    c = candidate
    reasons: list[Reason] = []
    src = c.sources
    if c.inference is not None:
        rule = c.inference.rule
        reasons.append(
            Reason(
                INFERRED_RELEASE,
                Level.INFO,
                Category.OTHER,
                c.inference.message(c.package),
                (rule.origin.cite(),),
                inferred=True,
            )
        )
    platform = target.platform
    if platform is not None and c.platforms:
        if platform in c.platforms:
            reasons.append(Reason(PLATFORM, Level.OK, Category.OTHER, f"built for {platform}", src))
        else:
            where = "native Windows" if target.os == "windows" else platform
            reasons.append(
                Reason(
                    PLATFORM,
                    Level.ERROR,
                    Category.PLATFORM_UNSUPPORTED,
                    f"{c.label} has no build for {where}",
                    src,
                )
            )
    if target.python is not None and c.python:
        reasons.append(python_reason(c.label, c.python, target.python, src))
    if c.build is not None and c.build.withdrawn and not c.build.platforms and not c.build.python:
        # A release that never had a wheel for any platform or Python (an sdist stub
        # that refuses to install): nothing of it can be installed, now or before.
        reasons.append(
            Reason(
                WITHDRAWN,
                Level.ERROR,
                Category.OTHER,
                f"{c.label} is not a build: the release has no wheel for any platform "
                "(a placeholder package that refuses to install)",
                src,
            )
        )
    elif c.build is not None and c.build.withdrawn:
        reasons.append(
            Reason(
                WITHDRAWN,
                Level.WARNING,
                Category.OTHER,
                "its files are no longer on the index that served them: an installed copy "
                "works as judged here, but pip cannot install it now",
                src,
            )
        )
    code = Code.NONE
    if c.cpu_only is None and c.cuda is None and not c.rocm:
        reasons.append(
            Reason(
                BUILD_UNKNOWN,
                Level.UNKNOWN if target.nvidia else Level.INFO,
                Category.OTHER,
                f"whether {c.label} is a CUDA or a CPU build is not known",
                src,
            )
        )
    elif c.rocm:
        if target.nvidia or target.gpus or target.driver is not None:
            reasons.append(
                Reason(
                    ROCM,
                    Level.ERROR,
                    Category.CPU_ONLY_BUILD,
                    f"{c.label} is a ROCm (AMD) build; it cannot use NVIDIA GPUs",
                    src,
                )
            )
    elif c.cpu_only:
        if target.nvidia or target.gpus or target.driver is not None:
            reasons.append(
                Reason(
                    CPU_ONLY,
                    Level.ERROR,
                    Category.CPU_ONLY_BUILD,
                    f"{c.label} is a CPU-only build: it cannot use the NVIDIA GPU",
                    src,
                )
            )
    else:
        code = _cuda_reasons(c, target, matrix, reasons)
    if c.build is not None and not c.build.origin.verified:
        note = c.build.origin.note
        reasons.append(
            Reason(
                UNVERIFIED,
                Level.INFO,
                Category.OTHER,
                "this matrix row is unverified" + (f": {note}" if note else ""),
                src,
            )
        )
    levels = {r.level for r in reasons}
    if Level.ERROR in levels:
        status = Status.FAILS
    elif Level.UNKNOWN in levels:
        status = Status.UNKNOWN
    else:
        status = Status.RUNS
    return Verdict(c, status, tuple(reasons), code)


def _judge_chips(candidate: Candidate, target: Target, matrix: Matrix) -> Verdict:
    """A target with GPUs known by a name several chips share (``gpu_choices``):
    the build is judged for every chip each may be. The same answer for all is
    that answer; otherwise ``unknown``, saying which chip decides and how to tell."""
    import itertools
    from dataclasses import replace

    from envcheck.compat.target import HOW_TO_TELL_CC

    names = (
        target.gpu_names
        if len(target.gpu_names) == len(target.gpus)
        else tuple(cc.sm for cc in target.gpus)
    )
    picks = [[(choice, chip, cc) for chip, cc in choice.chips] for choice in target.gpu_choices]
    judged = []
    for combo in itertools.islice(itertools.product(*picks), 64):
        concrete = replace(
            target,
            gpus=target.gpus + tuple(cc for _, _, cc in combo),
            gpu_names=names + tuple(choice.label(chip, cc) for choice, chip, cc in combo),
            gpu_choices=(),
        )
        judged.append((combo, judge(candidate, concrete, matrix)))
    verdicts = [v for _, v in judged]
    code = min(v.code for v in verdicts)
    shared = tuple(r for r in verdicts[0].reasons if all(r in v.reasons for v in verdicts[1:]))
    described = "; ".join(choice.describe() for choice in target.gpu_choices)
    if len({v.status for v in verdicts}) == 1:
        every = tuple(dict.fromkeys(r for v in verdicts for r in v.reasons))
        same = Reason(
            GPU_ARCH,
            Level.INFO,
            Category.OTHER,
            f"{described}: the same answer for every chip the name may be",
            tuple(c.source for c in target.gpu_choices if c.source),
            inferred=True,
        )
        return Verdict(candidate, verdicts[0].status, (*every, same), code)
    reasons = list(shared)
    running = [combo for combo, v in judged if v.runs]
    for combo, v in judged:
        if v.runs:
            continue
        board = ", ".join(choice.label(chip, cc) for choice, chip, cc in combo)
        for r in v.reasons:
            if r.level in (Level.ERROR, Level.UNKNOWN) and r not in shared:
                reasons.append(
                    replace(r, level=Level.UNKNOWN, message=f"if it is {board}: {r.message}")
                )
    runs_on = sorted({f"{chip} {cc.sm}" for combo in running for _, chip, cc in combo})
    reasons.append(
        Reason(
            GPU_ARCH_UNKNOWN,
            Level.UNKNOWN,
            Category.GPU_ARCH_UNSUPPORTED,
            f"{described}: {candidate.label} runs only on "
            f"{' or '.join(runs_on) if runs_on else 'some of these chips'}; {HOW_TO_TELL_CC}",
            tuple(c.source for c in target.gpu_choices if c.source),
            inferred=True,
        )
    )
    return Verdict(candidate, Status.UNKNOWN, tuple(reasons), code)


def _cuda_reasons(c: Candidate, target: Target, matrix: Matrix, reasons: list[Reason]) -> Code:
    """Driver and GPU-architecture reasons of a CUDA build; returns how it reaches the GPUs."""
    if target.nvidia is False:
        reasons.append(
            Reason(
                NO_GPU,
                Level.WARNING,
                Category.NO_GPU,
                f"{c.label} is a CUDA build but the target has no NVIDIA GPU: it runs on the "
                "CPU only, and a CPU build is much smaller",
                c.sources,
            )
        )
        return Code.NONE
    if c.cuda is not None and target.driver is not None:
        _driver_reasons(c, target, matrix, reasons)
    elif c.cuda is not None and target.driver_cuda is not None:
        _driver_cuda_reasons(c, target.driver_cuda, target, matrix, reasons)
    named, dropped = _target_facts(target, matrix)
    reasons.extend(dropped)
    code = Code.NATIVE if target.gpus else Code.UNKNOWN
    for cc, name in named:
        code = min(code, _arch_reason(c, cc, name, matrix, reasons))
    _ptx_beyond_driver(c, reasons)
    return code


def _ptx_beyond_driver(c: Candidate, reasons: list[Reason]) -> None:
    """A GPU reached only through PTX, on a driver that runs the build's CUDA only
    through minor-version compatibility: the PTX was written by that newer toolkit,
    and a driver JIT-compiles only PTX of the CUDA releases it supports natively. The
    two conditions together fail (CUDA_ERROR_UNSUPPORTED_PTX_VERSION); each alone
    does not. Source: the minor-version compatibility row's "not covered" caveat
    (cuda_driver.toml, NVIDIA's CUDA Compatibility guide)."""
    compat = next((r for r in reasons if r.code == DRIVER_MINOR_COMPAT), None)
    if compat is None:
        return
    for i, r in enumerate(reasons):
        if r.code != GPU_ARCH_PTX or r.level is Level.ERROR:
            continue
        reasons[i] = Reason(
            GPU_ARCH_PTX,
            Level.ERROR,
            Category.GPU_ARCH_UNSUPPORTED,
            f"{r.message.split(' (built for')[0]}, and that PTX comes from CUDA {c.cuda}, "
            "newer than the driver runs natively: the driver cannot JIT-compile it "
            "(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)"
            + (f"; a driver >= {compat.subject} runs it" if compat.subject else ""),
            tuple(dict.fromkeys((*r.sources, *compat.sources))),
            r.inferred,
            compat.subject,
        )


def _target_facts(
    target: Target, matrix: Matrix
) -> tuple[tuple[tuple[ComputeCapability, str], ...], tuple[Reason, ...]]:
    """The target's GPUs with their labels, and the GPUs its driver dropped.

    Facts of the target alone, while a plan judges every build against it: derived
    once per target and matrix.
    """
    key = ("target_facts", target.driver, target.gpus, target.gpu_names)
    known: tuple[tuple[tuple[ComputeCapability, str], ...], tuple[Reason, ...]] = _remember(
        matrix, key, lambda: (tuple(_named_gpus(target)), gpu_driver_reasons(target, matrix))
    )
    return known


def _remember(matrix: Matrix, key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """``make()``, kept in the matrix's memo under ``key`` (a pure answer of the
    matrix and the key's facts, which a plan asks for every candidate build)."""
    known = matrix.memo.get(key)
    if known is None:
        if len(matrix.memo) >= 65536:  # a fleet of distinct targets: stay bounded
            matrix.memo.clear()
        known = matrix.memo[key] = make()
    return known


def _driver_reasons(c: Candidate, target: Target, matrix: Matrix, reasons: list[Reason]) -> None:
    cuda = c.cuda
    assert cuda is not None
    assert target.driver is not None
    # A fact of the driver, the CUDA release and the OS alone, but for the build's
    # label in a failing message and its row where the matrix cites none: derived
    # once per matrix, since a plan asks it for every candidate build.
    key = ("driver_reasons", target.driver, cuda, target.driver_os)
    support, shared, after_label, cited = _remember(
        matrix, key, lambda: _driver_facts(cuda, target, matrix)
    )
    if shared is not None:
        reasons.append(shared)
    elif support == "no":
        reasons.append(
            Reason(
                DRIVER,
                Level.ERROR,
                Category.DRIVER_TOO_OLD,
                c.label + after_label,
                cited or c.sources,
            )
        )
    elif support is not None:
        # The matrix cites no row for this CUDA release's drivers: cite the build's.
        reasons.append(
            _driver_reason(support, cuda, target.driver, target.driver_os, matrix, c.sources)
        )
    else:
        reasons.append(
            Reason(
                DRIVER_UNKNOWN,
                Level.UNKNOWN,
                Category.DRIVER_TOO_OLD,
                f"the matrix does not know the driver needed for CUDA {cuda}",
                c.sources,
            )
        )


def _driver_facts(
    cuda: CudaVersion, target: Target, matrix: Matrix
) -> tuple[Optional[str], Optional[Reason], str, tuple[str, ...]]:
    """(support, the reason where it does not depend on the build, the failing
    message after the build's label, the rows the matrix cites for the drivers)."""
    assert target.driver is not None
    driver = target.driver
    os_name = target.driver_os
    support = driver_supports(matrix, driver, cuda, os_name)
    req = matrix.driver_requirement(cuda, os_name)
    cited = tuple(o.cite() for o in req.origins)
    if support == "no":
        need = req.floor or req.native
        top = max_cuda_for_driver(matrix, driver, os_name)
        top_text = driver_reach(top)
        after_label = (
            f" needs CUDA {cuda}, which needs driver >= {need.raw if need else '?'}"
            + (" (minor-version compatibility floor)" if req.floor else "")
            + f"; driver {driver.raw} {top_text}"
        )
        return support, None, after_label, cited
    if support is None or not cited:
        return support, None, "", cited
    return support, _driver_reason(support, cuda, driver, os_name, matrix, cited), "", cited


def driver_reach(top: Optional[CudaVersion]) -> str:
    """What a driver runs, after its version: ``supports CUDA up to 12.4``, or none
    when it is older than every CUDA release the matrix records."""
    return f"supports CUDA up to {top}" if top else "supports no CUDA release the matrix records"


def _driver_reason(
    support: str,
    cuda: CudaVersion,
    driver: DriverVersion,
    os_name: str,
    matrix: Matrix,
    sources: tuple[str, ...],
) -> Reason:
    """The reason of a driver that runs ``cuda`` (``native`` or ``minor_compat``)."""
    req = matrix.driver_requirement(cuda, os_name)
    if support == "minor_compat":
        return Reason(
            DRIVER_MINOR_COMPAT,
            Level.WARNING,
            Category.DRIVER_TOO_OLD,
            f"runs through CUDA minor-version compatibility: driver {driver.raw} >= "
            f"{req.floor.raw if req.floor else '?'}, the CUDA {cuda.major}.x floor, but "
            f"below {req.native.raw if req.native else '?'}, the native minimum for CUDA "
            f"{cuda}; not covered: " + "; ".join(req.caveats[:1]),
            sources,
            subject=req.native.raw if req.native else None,
        )
    if req.native is not None:
        text = f"driver {driver.raw} >= {req.native.raw}, the minimum for CUDA {cuda} on {os_name}"
    else:
        top = max_cuda_for_driver(matrix, driver, os_name)
        text = f"driver {driver.raw} supports CUDA up to {top}"
    return Reason(DRIVER, Level.OK, Category.OTHER, text, sources)


def _driver_cuda_reasons(
    c: Candidate, top: CudaVersion, target: Target, matrix: Matrix, reasons: list[Reason]
) -> None:
    """The driver known only by the highest CUDA it supports: a newer CUDA of the same
    major runs through minor-version compatibility (where the matrix has a floor), a
    newer major does not."""
    assert c.cuda is not None
    req = matrix.driver_requirement(c.cuda, target.driver_os)
    sources = tuple(o.cite() for o in req.origins) or c.sources
    if c.cuda <= top:
        text = f"the driver supports CUDA up to {top}, which covers CUDA {c.cuda}"
        reasons.append(Reason(DRIVER, Level.OK, Category.OTHER, text, sources))
    elif c.cuda.major == top.major and req.floor is not None:
        reasons.append(
            Reason(
                DRIVER_MINOR_COMPAT,
                Level.WARNING,
                Category.DRIVER_TOO_OLD,
                f"runs through CUDA minor-version compatibility: the driver supports CUDA "
                f"up to {top}, below CUDA {c.cuda} (native from driver "
                f"{req.native.raw if req.native else '?'}); not covered: "
                + "; ".join(req.caveats[:1]),
                sources,
                subject=req.native.raw if req.native else None,
            )
        )
    else:
        need = req.floor or req.native
        reasons.append(
            Reason(
                DRIVER,
                Level.ERROR,
                Category.DRIVER_TOO_OLD,
                f"{c.label} needs CUDA {c.cuda}, which needs driver >= "
                f"{need.raw if need else '?'}; the driver supports CUDA up to {top}",
                sources,
            )
        )


def _arch_reason(
    c: Candidate, cc: ComputeCapability, name: str, matrix: Matrix, reasons: list[Reason]
) -> Code:
    """One GPU against the build's compiled code (or its bounds when unknown)."""
    from envcheck.compat.libraries import libraries_reason

    inferred = False
    archs, ptx = c.archs, c.ptx
    where = c.archs_from
    src = c.sources
    if archs is None:
        if c.build is None:
            archs, ptx, where, src = _inferred_code(c, cc, matrix)
        else:
            # A pure function of the row, the release, the CUDA and the GPU: a plan
            # asks it for every version a row covers, so remember it per matrix.
            key = ("inferred_code", id(c.build), c.version, c.cuda, cc)
            known = matrix.memo.get(key)
            if known is None or known[0] is not c.build:  # the id of a row, not a reused id
                known = matrix.memo[key] = (c.build, _inferred_code(c, cc, matrix))
            archs, ptx, where, src = known[1]
        inferred = True
    # Its own kernels may reach the GPU only by PTX JIT, or are not known: the CUDA
    # libraries it loads (cuBLAS, cuDNN) have no JIT path and decide.
    jit_only = (
        archs is not None
        and not any(_sass_for(a, cc) for a in archs)
        and any(p <= cc for p in ptx or ())
    )
    predate = libraries_reason(c, cc, name, matrix) if archs is None or jit_only else None
    if predate is not None:
        reasons.append(predate)
        return Code.NONE
    if archs is None:
        reasons.append(
            Reason(
                GPU_ARCH_UNKNOWN,
                Level.UNKNOWN,
                Category.GPU_ARCH_UNSUPPORTED,
                f"whether {c.label} has kernels for {name} is not known (its compiled "
                "architectures are not in the matrix)",
                src,
            )
        )
        return Code.UNKNOWN
    sass = [a for a in archs if _sass_for(a, cc)]
    if sass:
        reasons.append(
            Reason(
                GPU_ARCH,
                Level.OK,
                Category.OTHER,
                f"has kernels for {name} (SASS for {max(sass).sm}" + _from(where) + ")",
                src,
                inferred,
            )
        )
        return Code.NATIVE
    jit = [p for p in ptx or () if p <= cc]
    built = _built_for(archs, ptx)
    if jit:
        reasons.append(
            Reason(
                GPU_ARCH_PTX,
                Level.WARNING,
                Category.GPU_ARCH_UNSUPPORTED,
                f"{c.label} runs on {name} only by JIT-compiling PTX for {max(jit)} "
                f"(built for {built}{_from(where)}): a slow first start, and code newer than "
                "the driver fails",
                src,
                inferred,
            )
        )
        return Code.PTX
    why = f"{where}" if inferred else f"built for {built}{_from(where)}"
    reasons.append(
        Reason(
            GPU_ARCH,
            Level.ERROR,
            Category.GPU_ARCH_UNSUPPORTED,
            f"{c.label} has no kernels for {name} ({why})",
            src,
            inferred,
            name,
        )
    )
    return Code.NONE


def _from(where: Optional[str]) -> str:
    if not where:
        return ""
    # "inferred from the release's cu124 builds" says its own "from".
    return f", {where}" if where.startswith("inferred ") else f", from {where}"


@functools.lru_cache(maxsize=1024)
def _built_for(archs: tuple[ComputeCapability, ...], ptx: Optional[tuple[Any, ...]]) -> str:
    # A failing build's message names its list; a plan fails most builds of a row.
    text = ", ".join(a.sm for a in archs) or "no SASS"
    if ptx:
        text += " + PTX " + ", ".join(str(p) for p in ptx)
    return text


def _inferred_code(
    c: Candidate, cc: ComputeCapability, matrix: Matrix
) -> tuple[Any, Any, str, tuple[str, ...]]:
    """Bounds on an unknown architecture list: (SASS, PTX, where, sources) or Nones.

    A release range's arch floor (the framework file's ``[[arch_floor]]``) rules
    out a GPU below it. The build's CUDA toolkit can only emit SASS for the capabilities its nvcc
    lists (cuda_arch.toml). The other CUDA variants of the same release are built
    from one configuration, so their lists tell what this one carries for a GPU
    the toolkit can target, and whether the release ships PTX at all.
    """
    floor = matrix.arch_floor(c.framework, c.version, c.cuda)
    if floor is not None and cc < floor.compute_capability:
        # Every build of these releases starts above the GPU: neither SASS (same
        # major, lower minor) nor PTX (lower or equal) can reach it.
        where = (
            f"{c.framework} {floor.describe()} carry no code below {floor.compute_capability.sm}"
        )
        return (), (), where, (floor.origin.cite(),)
    # Siblings share a list only within one architecture policy: the floor row that
    # governs them (a CUDA family such as torch's cu128/cu129, which dropped sm_50-60,
    # has its own), never across it.
    release = c.inference.by if c.inference else c.version
    siblings = tuple(
        b
        for b in sibling_builds(c, matrix)
        if matrix.arch_floor(c.framework, release, b.cuda) is floor
    )
    toolkit = None if c.cuda is None else matrix.toolkit_archs_for(c.cuda)
    emits = None if c.cuda is None else _emits(matrix, c.cuda, cc)
    sib_sources = tuple(dict.fromkeys(b.origin.cite() for b in siblings))
    sib_ptx = [p for b in siblings for p in b.ptx or ()]
    if emits is False and siblings and not any(p <= cc for p in sib_ptx):
        # No SASS is possible, and the release ships no PTX that could JIT here.
        where = (
            f"CUDA {c.cuda}'s nvcc cannot compile for {cc.sm}, and the release's other "
            "variants carry no PTX for it"
        )
        return (), (), where, (*(toolkit.origin.cite(),), *sib_sources) if toolkit else sib_sources
    # Only siblings whose toolkit can target the GPU say whether the release compiles
    # for it (a cu126 sibling lacks sm_120 because CUDA 12.6 cannot emit it).
    able = [b for b in siblings if b.cuda is not None and _emits(matrix, b.cuda, cc)]
    if emits and able:
        with_sass = [b for b in able if any(_sass_for(a, cc) for a in b.archs or ())]
        if len(with_sass) == len(able):
            archs = tuple(a for a in with_sass[0].archs or () if a.major == cc.major)
            variants = ", ".join(dict.fromkeys(b.variant for b in able))
            where = f"inferred from the release's {variants} builds"
            return archs, (), where, tuple(dict.fromkeys(b.origin.cite() for b in able))
    return None, None, "", c.sources


def _sass_for(arch: ComputeCapability, cc: ComputeCapability) -> bool:
    """SASS for ``arch`` runs on ``cc``: same major, lower or equal minor (CUDA C++
    Programming Guide, "Binary Compatibility")."""
    return arch.major == cc.major and arch.minor <= cc.minor


def _emits(matrix: Matrix, cuda: CudaVersion, cc: ComputeCapability) -> Optional[bool]:
    """Whether nvcc of ``cuda`` can compile SASS that runs on ``cc``; None when unknown."""
    toolkit = matrix.toolkit_archs_for(cuda)
    if toolkit is None:
        return None
    return any(_sass_for(a, cc) for a in toolkit.compute_capabilities)


# -- sets and ranking ----------------------------------------------------------


def judge_set(candidates: tuple[Candidate, ...], target: Target, matrix: Matrix) -> SetVerdict:
    """``fails`` when none runs, ``runs`` when all run, else ``unknown``."""
    verdicts = tuple(judge(c, target, matrix) for c in candidates)
    statuses = {v.status for v in verdicts}
    if not verdicts:
        status = Status.UNKNOWN
    elif statuses == {Status.FAILS}:
        status = Status.FAILS
    elif statuses == {Status.RUNS}:
        status = Status.RUNS
    else:
        status = Status.UNKNOWN
    return SetVerdict(status, verdicts)


@functools.lru_cache(maxsize=4096)
def _final(version: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return not Version(version).is_prerelease
    except InvalidVersion:
        return True


def rank_key(
    verdict: Verdict, target: Target, prefer: Optional[Candidate] = None
) -> tuple[Any, ...]:
    """The one ordering of candidates, best first under ``sorted(..., reverse=True)``.

    Builds that run before ones that cannot be judged (failing ones are not
    ranked); on a machine with no NVIDIA GPU CPU builds first, elsewhere GPU
    builds first; the user's own version and variant where it runs; then the
    newest release (a final one before a pre-release: pip skips betas without
    --pre); native code for the GPUs over PTX JIT over unknown; a
    build whose wheels bring CUDA; a driver that runs it natively rather than
    through minor-version compatibility; the variant plain pip installs; the
    newer CUDA.
    """
    c = verdict.candidate
    gpu_build = not c.cpu_only and not c.rocm
    wants_gpu = target.nvidia is not False
    own = prefer is not None and (
        release_key(prefer.version) == release_key(c.version)
        and (prefer.variant is None or prefer.variant == c.variant)
    )
    b = c.build
    return (
        verdict.status is Status.RUNS,
        gpu_build == wants_gpu,
        own,
        _final(c.version),
        release_key(c.version),
        int(verdict.code),
        bool(b is not None and b.bundles_cuda),
        not verdict.of(DRIVER_MINOR_COMPAT),
        bool(b is not None and b.pypi_default),
        c.cuda or (0, 0),
    )
