"""Does each installed framework build run on this machine: the judge's verdicts as findings.

The judgement is ``envcheck.compat.judge``; this rule only turns its reasons into
findings with evidence and fixes. An installed framework with no build facts
stands for every build pip could have installed for its version: the finding
then says whether all of them, none or only some would run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Optional

from envcheck.compat import judge as J
from envcheck.compat.candidate import candidates_for_installed
from envcheck.model._frozen import replace
from envcheck.model.finding import Category, Finding, Severity
from envcheck.rules._facts import fw_label, target_of
from envcheck.rules._fix import install_fix, route_fix
from envcheck.rules.driver import DRIVER_DOWNLOAD

if TYPE_CHECKING:
    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Framework, Snapshot

DRIVER_TOO_OLD = "driver-too-old"
DRIVER_MINOR_COMPAT = "driver-minor-compat"
GPU_ARCH_UNSUPPORTED = "gpu-arch-unsupported"
GPU_ARCH_PTX_ONLY = "gpu-arch-ptx-only"
PYTHON_UNSUPPORTED = "python-unsupported"
BUILD_UNDECIDED = "build-undecided"

# Judge reason code → (finding id, severity when it blocks / warns). CPU-only,
# platform and retired-GPU reasons have rules of their own with richer fixes.
_FINDING = {
    J.DRIVER: DRIVER_TOO_OLD,
    J.DRIVER_MINOR_COMPAT: DRIVER_MINOR_COMPAT,
    J.GPU_ARCH: GPU_ARCH_UNSUPPORTED,
    J.GPU_ARCH_PTX: GPU_ARCH_PTX_ONLY,
    J.PYTHON: PYTHON_UNSUPPORTED,
}

_SHOWN = (J.Level.WARNING, J.Level.ERROR)

_HOW_TO_TELL = {
    "torch": 'python -c "import torch; print(torch.__version__, torch.version.cuda)"',
    "tensorflow": 'python -c "import tensorflow as tf; print(tf.sysconfig.get_build_info())"',
    "jax": 'python -c "import jax; print(jax.print_environment_info())"',
    "paddle": 'python -c "import paddle; print(paddle.version.cuda())"',
    "cupy": 'python -c "import cupy; print(cupy.cuda.runtime.runtimeGetVersion())"',
    "onnxruntime": 'python -c "import onnxruntime as o; print(o.get_available_providers())"',
}


def check_builds(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    target = target_of(snapshot, matrix)
    for fw in snapshot.frameworks:
        if fw.name in (None, "keras"):
            continue
        candidates = candidates_for_installed(fw, matrix, target.platform)
        if not candidates:
            continue
        verdict = J.judge_set(candidates, target, matrix)
        if verdict.status is J.Status.UNKNOWN and verdict.failing:
            # Some of the builds the release may be fail, others run or cannot be
            # judged: which one is installed decides, and nothing says which.
            yield _undecided(fw, verdict, snapshot)
            continue
        shown = verdict.failing or verdict.verdicts
        bare = not (
            fw.cuda_version or fw.variant or fw.cpu_only is not None or "+" in (fw.version or "")
        )
        yield from _findings(fw, shown, target, snapshot, matrix, bare)


def _findings(
    fw: Framework,
    verdicts: tuple[J.Verdict, ...],
    target: Target,
    snapshot: Snapshot,
    matrix: Matrix,
    inferred_set: bool,
) -> Iterator[Finding]:
    """One finding per reason code that every verdict in ``verdicts`` shares. Where the
    set mixes GPU builds and CPU builds (an unknown platform: torch's Linux/Windows CUDA
    wheel and its macOS CPU one), the GPU builds' shared reasons are the ones that say
    why acceleration fails; a CPU build's own reason has a rule of its own."""
    gpu = tuple(v for v in verdicts if v.candidate.cpu_only is False)
    if gpu and len(gpu) < len(verdicts):
        verdicts = gpu
    codes = [
        {r.code for r in v.reasons if r.code in _FINDING and r.level in _SHOWN} for v in verdicts
    ]
    shared = set.intersection(*codes) if codes else set()
    first = verdicts[0]
    failing = all(v.status is J.Status.FAILS for v in verdicts)
    if (
        failing
        and len(verdicts) > 1
        and not any(r.code in shared and r.level is J.Level.ERROR for r in first.reasons)
    ):
        # Every build the release may be fails, each for its own reason (CUDA 11.8's
        # libraries predate the GPU, CUDA 12.3 needs a newer driver): the first
        # build's errors are the finding, and the others' say why no variant helps.
        others = tuple(
            f"{v.candidate.label}: {v.errors[0].message}" for v in verdicts[1:] if v.errors
        )
        unrecorded = not (fw.cuda_version or fw.variant or "+" in (fw.version or ""))
        for reason in first.errors:
            if reason.code in _FINDING:
                found = _finding(fw, reason, first, target, snapshot, matrix, inferred_set)
                evidence = found.evidence
                if unrecorded:
                    said = f"{fw.name} {fw.version}: no CUDA version or variant was recorded"
                    evidence = (said, *(e for e in evidence if " was built with CUDA " not in e))
                yield replace(found, evidence=(*evidence, *others))
        return
    for reason in first.reasons:
        if reason.code not in shared or reason.level not in _SHOWN:
            continue
        shared.discard(reason.code)
        yield _finding(fw, reason, first, target, snapshot, matrix, inferred_set)


def _finding(
    fw: Framework,
    reason: J.Reason,
    verdict: J.Verdict,
    target: Target,
    snapshot: Snapshot,
    matrix: Matrix,
    inferred_set: bool,
) -> Finding:
    fid = _FINDING[reason.code]
    c = verdict.candidate
    evidence = [_build_evidence(fw, verdict, inferred_set)]
    if reason.code in (J.DRIVER, J.DRIVER_MINOR_COMPAT) and target.driver is not None:
        evidence.insert(0, f"driver.version = {target.driver.raw}")
    elif reason.code in (J.DRIVER, J.DRIVER_MINOR_COMPAT) and target.driver_cuda is not None:
        evidence.insert(0, f"driver.cuda_version = {target.driver_cuda}")
    if reason.code == J.PYTHON:
        evidence.insert(0, f"python.version = {snapshot.python.version}")
    evidence.append(reason.message)
    if reason.inferred:
        evidence.append("inferred from the matrix (the build's own list was not recorded)")
    blocking = reason.level is J.Level.ERROR
    fix: Optional[str] = None
    title = reason.message
    severity = Severity.ERROR if blocking else Severity.WARNING
    driver = (
        target.driver.raw
        if target.driver
        else (f"supporting CUDA up to {target.driver_cuda}" if target.driver_cuda else "?")
    )
    if reason.code == J.DRIVER:
        title = f"Driver {driver} is too old for " + (f"{fw_label(fw)} (CUDA {c.cuda})")
        need = matrix.min_driver_for_cuda(c.cuda, target.driver_os) if c.cuda else None
        fix = (
            f"Upgrade the NVIDIA driver to {need.raw if need else 'a newer branch'} or newer: "
            f"{DRIVER_DOWNLOAD}"
        )
        alt = install_fix(
            fw.name or "", target, matrix, snapshot.packages, fw.version, fw.package or fw.name
        )
        if alt:
            fix += f"\nOr install a build that runs on this driver:\n  {alt}"
    elif reason.code == J.DRIVER_MINOR_COMPAT:
        title = (
            f"{fw_label(fw)} (CUDA {c.cuda}) runs on driver "
            f"{driver} only through CUDA minor-version "
            "compatibility"
        )
        fix = (
            "Usually fine. Code that JIT-compiles PTX newer than the driver fails "
            "(CUDA_ERROR_UNSUPPORTED_PTX_VERSION); upgrade the driver to "
            f"{reason.subject or 'a newer branch'} to be safe."
        )
    elif reason.code == J.GPU_ARCH and blocking:
        alt = install_fix(
            fw.name or "", target, matrix, snapshot.packages, fw.version, fw.package or fw.name
        )
        route = route_fix(fw.name or "", fw.version, target, matrix, fw.package or fw.name or "")
        if route:
            # The matrix's route keeps the user's release running on this GPU.
            fix = f"Install the build that runs this release on this GPU:\n  {route}"
            if alt:
                fix += f"\nOr move to a newer release built for it:\n  {alt}"
        elif alt:
            fix = f"Install a build compiled for this GPU:\n  {alt}"
        else:
            fix = (
                "No build in the matrix runs on this GPU with this driver; "
                f"see `envcheck plan {fw.name} --explain`."
            )
    elif reason.code == J.GPU_ARCH_PTX and blocking:
        # PTX only, from a CUDA newer than the driver runs natively (the judge's
        # combined condition): the JIT fails, so the driver or the build must change.
        fix = (
            f"Upgrade the NVIDIA driver to {reason.subject or 'a newer branch'} or newer: "
            f"{DRIVER_DOWNLOAD}"
        )
        alt = install_fix(
            fw.name or "", target, matrix, snapshot.packages, fw.version, fw.package or fw.name
        )
        if alt:
            fix += f"\nOr install a build that runs on this driver:\n  {alt}"
    elif reason.code == J.GPU_ARCH_PTX:
        fix = (
            "Expect a slow first start while kernels compile; install a build with native "
            "kernels for this GPU if one exists."
        )
    elif reason.code == J.PYTHON:
        # It is installed, so some wheel existed for this Python: outside the
        # supported list it is a risk (experimental, untested), not a certain failure.
        severity = Severity.WARNING
        title = f"{fw_label(fw)} does not list Python {target.python} as supported"
        pys = c.python
        fix = (
            f"Use Python {pys[-1] if pys else 'a supported version'} for this environment, "
            f"or install a {fw.name} release that supports Python {target.python} "
            f"(envcheck plan {fw.name} --python {target.python})."
        )
    return Finding(
        _FINDING[reason.code],
        reason.category if blocking or reason.code != J.PYTHON else Category.PYTHON_UNSUPPORTED,
        severity,
        title
        if fid != GPU_ARCH_UNSUPPORTED
        else f"{fw_label(fw)} has no kernels for {reason.subject or 'this GPU'}",
        evidence=tuple(evidence),
        fix=fix,
        sources=reason.sources,
        framework=fw.name,
        reason=reason.code,
    )


def _build_evidence(fw: Framework, verdict: J.Verdict, inferred_set: bool) -> str:
    c = verdict.candidate
    if inferred_set:
        return (
            f"{fw.name} {fw.version}: no build facts were recorded; judged as {c.label}, "
            "what pip installs for that version here"
        )
    what = fw_label(fw) if fw.version is None else f"{fw.name} {fw.version}"
    if c.cuda is not None:
        what += f" was built with CUDA {c.cuda}"
    return what


def _undecided(fw: Framework, verdict: J.SetVerdict, snapshot: Snapshot) -> Finding:
    def label(v: J.Verdict) -> str:
        # The same variant built for two platforms (an unknown platform): say which.
        c = v.candidate
        where = c.build.platforms if c.build is not None else ()
        return f"{c.label} for {', '.join(where)}" if clash and where else c.label

    labels = [v.candidate.label for v in verdict.verdicts]
    clash = len(set(labels)) < len(labels)
    runs = ", ".join(label(v) for v in verdict.verdicts if v.status is not J.Status.FAILS)
    fails = "; ".join(f"{label(v)}: {v.errors[0].message}" for v in verdict.failing if v.errors)
    tell = _HOW_TO_TELL.get(fw.name or "", "")
    return Finding(
        BUILD_UNDECIDED,
        Category.OTHER,
        Severity.WARNING,
        f"Whether {fw_label(fw)} runs here depends on which of its builds is installed",
        evidence=(
            f"{fw.name} {fw.version}: no CUDA version or variant was recorded",
            f"would run or cannot be judged: {runs}",
            f"would not: {fails}",
        ),
        fix=("Find out which build is installed:\n  " + tell) if tell else None,
        sources=tuple(dict.fromkeys(s for v in verdict.verdicts for s in v.candidate.sources)),
        framework=fw.name,
    )
