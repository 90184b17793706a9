"""Choose framework builds that run together on a target: ``plan()``.

Pure: a function of (requirements, target, matrix). Whether one build runs on the
target, and which runs best, is decided by the judge (``envcheck.compat.judge``);
this module only searches over the matrix rows, keeps one CUDA major (and one
cuDNN major where the matrix knows it) for the whole environment, and explains
what it chose or what blocks the request.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from envcheck import names
from envcheck.compat import judge as J
from envcheck.compat.candidate import from_build, local_label
from envcheck.compat.driver import max_cuda_for_driver
from envcheck.model.versions import release_key
from envcheck.resolve.plan_model import Decision, Pick, Plan, PlanInputError, Unsatisfiable

if TYPE_CHECKING:
    from packaging.requirements import Requirement

    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import Build
    from envcheck.model.versions import CudaVersion

DRIVER = "driver"
GPU_ARCH = "gpu_arch"
PYTHON = "python"
PLATFORM = "platform"
COMPANION = "companion"
SHARED_CUDA = "shared_cuda"
UNKNOWN = "unknown"
NO_RELEASE = "no_release"
PINS = "nvidia_pins"
MACOS_NOTE = (
    "macOS has no NVIDIA CUDA: the builds planned are the macOS (CPU) wheels; on Apple "
    "silicon PyTorch's wheel uses the GPU through MPS (torch.backends.mps.is_available())"
)
"""Decision subject of a warning about NVIDIA wheel pins that disagree."""

COMPANIONS = names.COMPANIONS["torch"]
MAIN_NAMES = names.MAIN_NAMES


# -- parsing requests ----------------------------------------------------------


@dataclass(frozen=True)
class _Request:
    framework: str
    name: str
    requirement: Requirement


def parse_requests(requirements: Iterable[str]) -> tuple[_Request, ...]:
    """PEP 508 strings → requests keyed by framework; raises PlanInputError."""
    from packaging.requirements import InvalidRequirement, Requirement

    from envcheck.inputs import MAX_DIGITS, has_long_number

    out: dict[str, _Request] = {}
    for text in requirements:
        if has_long_number(text):  # int() would exceed Python's conversion limit
            raise PlanInputError(
                f"not a requirement: {text[:40]!r}... has a number over {MAX_DIGITS} digits"
            )
        try:
            req = Requirement(text)
        except InvalidRequirement as exc:
            raise PlanInputError(f"not a requirement: {text!r} ({exc})") from None
        name = names.canonical(req.name)
        framework = names.framework_of(name) or (name if names.companion_of(name) else None)
        if framework is None:
            plannable = [n for n in names.known_names() if n != "tf"]
            hint = names.did_you_mean(req.name, plannable)
            raise PlanInputError(
                f"cannot plan {req.name[:80]!r}{hint}; envcheck plans: {', '.join(plannable)}"
            )
        if framework in out:
            raise PlanInputError(f"{framework} requested twice ({out[framework].name}, {name})")
        out[framework] = _Request(framework, name, req)
    return tuple(out.values())


# -- candidates ----------------------------------------------------------------


@dataclass(frozen=True)
class Blocker:
    """One reason a build cannot run on a target (a judge's error, as the plan says it)."""

    constraint: str
    """driver, gpu_arch, python, platform, companion or cpu_only."""
    message: str
    sources: tuple[str, ...] = ()


# Judge reason codes → the plan's constraint names (its JSON contract).
_CONSTRAINT = {
    J.PLATFORM: PLATFORM,
    J.PYTHON: PYTHON,
    J.DRIVER: DRIVER,
    J.GPU_DROPPED: "gpu_driver",
    J.GPU_ARCH: GPU_ARCH,
    J.CPU_ONLY: "cpu_only",
    J.ROCM: PLATFORM,
}


@dataclass(frozen=True)
class _Candidate:
    verdict: J.Verdict
    cpu_ok: bool = False
    """A CPU build is acceptable (asked for by name, or --allow-cpu): the judge's
    CPU-only reason does not block."""

    @property
    def build(self) -> Build:
        b = self.verdict.candidate.build
        assert b is not None
        return b

    @property
    def version(self) -> str:
        return self.verdict.candidate.version

    @property
    def blockers(self) -> tuple[Blocker, ...]:
        return tuple(
            Blocker(_CONSTRAINT.get(r.code, r.code), r.message, r.sources)
            for r in self.verdict.errors
            if not (self.cpu_ok and r.code == J.CPU_ONLY)
        )


def _matches(req: Requirement, version: str) -> bool:
    return req.specifier.contains(version, prereleases=True) if req.specifier else True


def _wanted_label(req: Requirement) -> Optional[str]:
    """The local label an exact pin names: ``torch==2.3.0+cu118`` → ``cu118``."""
    for spec in req.specifier:
        if spec.operator in ("==", "===") and "+" in spec.version:
            return local_label(spec.version)
    return None


def explicit_cpu(name: str, req: Requirement) -> bool:
    """The request names a CPU build itself: ``tensorflow-cpu``, ``torch==2.5.1+cpu``,
    ``jax[cpu]``."""
    extras = {e.lower() for e in req.extras}
    return name.endswith("-cpu") or _wanted_label(req) == "cpu" or "cpu" in extras


def _candidates(
    request: _Request, target: Target, matrix: Matrix, allow_cpu: bool = False
) -> tuple[_Candidate, ...]:
    """Every build matching the request, judged on ``target``.

    Which builds the request means is the one selector's answer (``compat.select``):
    a distribution name the matrix has rows for (tensorflow-gpu, cupy-cuda12x,
    paddlepaddle-gpu) means that distribution, an extra (jax[cuda13]) that build, a
    local label (+cu118) that variant.
    """
    from envcheck.compat.select import Intent, Request, select

    req = request.requirement
    label = _wanted_label(req)
    cpu_request = explicit_cpu(request.name, req)
    found = select(
        matrix,
        Request(
            request.framework,
            request.name,
            str(req.specifier),
            extras=tuple(sorted(req.extras)),
            intent=Intent.CHOOSE,
        ),
    )
    if cpu_request and label is None and not any(b.package == request.name for b, _ in found.pairs):
        return ()  # tensorflow-cpu: a distribution the matrix has no rows for
    out = []
    for build, version in found.pairs:
        if build.withdrawn or build.variant.startswith("rocm"):
            continue  # gone from its index; envcheck plans for NVIDIA GPUs
        if cpu_request and not build.cpu_only:
            continue
        verdict = J.judge(from_build(build, version, found.inferred), target, matrix)
        out.append(_Candidate(verdict, cpu_request or allow_cpu))
    return tuple(out)


def _allowed(c: _Candidate, target: Target, allow_cpu: bool) -> bool:
    """CPU builds are a fallback on a GPU machine (--allow-cpu) unless asked for by
    name; on a machine known to have no NVIDIA GPU they are the choice."""
    if not c.build.cpu_only or c.cpu_ok:
        return True
    return target.nvidia is False


def _runs(c: _Candidate) -> bool:
    """Runs, or cannot be judged (ranked after every build that runs)."""
    return not c.blockers


def _rank(c: _Candidate, target: Target, name: str = "") -> tuple[Any, ...]:
    # The same build under two names (tensorflow and tensorflow-gpu 1.15): keep the
    # one asked for.
    return (*J.rank_key(c.verdict, target), c.build.package == name)


def _caveats(c: _Candidate) -> tuple[str, ...]:
    """What works but deserves a warning: the judge's warnings and open questions."""
    shown = (J.Level.WARNING, J.Level.UNKNOWN)
    return tuple(
        r.message
        for r in c.verdict.reasons
        if (r.level in shown and r.code not in (J.WITHDRAWN,))
        or (c.cpu_ok and r.code == J.CPU_ONLY)
        or r.code == J.INFERRED_RELEASE
    )


def _cudnn_major(build: Build) -> Optional[int]:
    if not build.cudnn:
        return None
    head = build.cudnn.split(".")[0]
    return int(head) if head.isdigit() else None


# -- the search ----------------------------------------------------------------


@dataclass(frozen=True)
class _Ctx:
    target: Target
    matrix: Matrix
    requests: tuple[_Request, ...]
    companions: dict[str, _Request]


def _companion_blocker(version: str, ctx: _Ctx) -> Optional[Blocker]:
    if not ctx.companions:
        return None
    row = ctx.matrix.companion(version)
    for name, req in ctx.companions.items():
        pinned = None if row is None else getattr(row, name)
        if pinned is None:
            return Blocker(
                COMPANION, f"the matrix has no {name} release paired with torch {version}"
            )
        if not _matches(req.requirement, pinned):
            return Blocker(
                COMPANION,
                f"torch {version} pairs with {name} {pinned}, not {req.requirement}",
                (row.origin.cite(),) if row else (),
            )
    return None


def _blockers(c: _Candidate, framework: str, ctx: _Ctx) -> tuple[Blocker, ...]:
    found = c.blockers
    if framework == "torch" and not found:
        extra = _companion_blocker(c.version, ctx)
        if extra is not None:
            found = (extra,)
    return found


def plan(
    requirements: Sequence[str],
    target: Target,
    matrix: Matrix,
    *,
    allow_cpu: bool = False,
) -> Plan:
    """Pin the newest builds of the requested frameworks that run together on ``target``.

    Every framework gets the newest release matching its specifier whose build
    the judge does not reject, ranked by the judge; all CUDA builds share one CUDA major and, where the
    matrix records it, one cuDNN major. Raises PlanInputError for a requirement
    envcheck does not know.
    """
    requests = parse_requests(requirements)
    companions = {r.framework: r for r in requests if r.framework in COMPANIONS}
    mains = [r for r in requests if r.framework not in COMPANIONS]
    if companions and not any(r.framework == "torch" for r in mains):
        from packaging.requirements import Requirement

        mains.insert(0, _Request("torch", "torch", Requirement("torch")))
    keras = next((r for r in mains if r.framework == "keras"), None)
    mains = [r for r in mains if r.framework != "keras"]
    ctx = _Ctx(target, matrix, tuple(requests), companions)
    texts = tuple(requirements)
    decisions: list[Decision] = [_target_decision(target, matrix)]
    driver_top = None
    if target.driver is not None:
        driver_top = max_cuda_for_driver(matrix, target.driver, target.driver_os)

    # Every framework: the candidates that run here, best first.
    runnable: dict[str, list[_Candidate]] = {}
    # The same, before the companions' pairings rule any out (what a plan without
    # torchvision/torchaudio would pick from): a plan held back by them says so.
    runnable_any: dict[str, list[_Candidate]] = {}
    for req in mains:
        found = _candidates(req, target, matrix, allow_cpu)
        if not found and (
            not matrix.framework_builds(req.framework)
            or (explicit_cpu(req.name, req.requirement) and _wanted_label(req.requirement) is None)
        ):
            # No data for this framework or distribution (yet): pass it on unpinned.
            runnable[req.framework] = []
            continue
        allowed = [c for c in found if _allowed(c, target, allow_cpu)]
        gpu = [c for c in found if not c.build.cpu_only]
        # By identity: `c in allowed` compared candidates pairwise (~75k __eq__
        # per plan); equal candidates are allowed alike, so this is the same test.
        allowed_ids = {id(c) for c in allowed}
        cpu = [c for c in found if c.build.cpu_only and id(c) in allowed_ids]
        ok = [c for c in allowed if not _blockers(c, req.framework, ctx)]
        runnable_any[req.framework] = [c for c in allowed if not c.blockers]
        ok.sort(key=lambda c: _rank(c, target, req.name), reverse=True)
        if not ok:
            why = _explain_block(req, gpu, cpu, ctx, allow_cpu)
            return Plan(
                texts,
                target,
                decisions=tuple(decisions),
                unsatisfiable=why,
                driver_max_cuda=driver_top,
            )
        runnable[req.framework] = ok

    choice = _choose_shared(mains, runnable)
    if choice is None:
        why = _explain_no_shared(mains, runnable)
        return Plan(
            texts, target, decisions=tuple(decisions), unsatisfiable=why, driver_max_cuda=driver_top
        )
    chosen, cuda_major, cudnn_major = choice
    from envcheck.resolve.nvidia_pins import agree_pins

    chosen, pin_conflicts = agree_pins(mains, runnable, chosen, ctx, decisions)
    if cuda_major is not None and len([c for c in chosen.values() if c.build.cuda]) > 1:
        decisions.append(
            Decision(
                "environment",
                f"one CUDA {cuda_major}.x runtime"
                + (f" and cuDNN {cudnn_major}" if cudnn_major else "")
                + " shared by "
                + ", ".join(f for f, c in chosen.items() if c.build.cuda),
            )
        )

    picks: list[Pick] = []
    warnings: list[str] = []
    if target.os == "macos":
        warnings.append(MACOS_NOTE)
    elif target.nvidia is False:
        warnings.append(
            "the target has no NVIDIA GPU (none was found, or --gpu none): CPU builds "
            "are planned; describe a GPU machine with --driver and --gpu"
        )
    elif target.driver is None and not target.gpus:
        warnings.append(
            "no NVIDIA driver or GPU is known for the target; the builds are not checked "
            "against them (describe the machine with --driver and --gpu)"
        )
    for req in mains:
        if req.framework not in chosen:
            picks.append(_unpinned(req))
            warnings.append(f"the matrix has no {req.name} rows; {req.requirement} is not checked")
            continue
        c = chosen[req.framework]
        caveats = _caveats(c)
        if c.build.bundles_cuda is False and c.build.cuda is not None:
            caveats += (toolkit_caveat(c.build.cuda, c.build.cudnn),)
        picks.append(_pick(req.framework, c, caveats))
        warnings.extend(f"{c.build.package} {c.version}: {note}" for note in caveats)
        decisions.append(_pick_decision(req, c, runnable[req.framework]))
        unconfirmed = _newer_unconfirmed(c, runnable[req.framework])
        if unconfirmed:
            warnings.append(unconfirmed)
        if req.framework == "torch":
            picks.extend(_companion_picks(c, ctx, decisions))
            held = _held_for_companions(c, runnable_any.get(req.framework, ()), ctx)
            if held is not None:
                warnings.append(held.message)
                decisions.append(Decision("torch", held.message, held.sources))

    if keras is not None:
        from envcheck.resolve.keras_plan import plan_keras

        got = plan_keras(keras, chosen, target, matrix)
        if isinstance(got, Unsatisfiable):
            return Plan(
                texts,
                target,
                decisions=tuple(decisions),
                unsatisfiable=got,
                driver_max_cuda=driver_top,
            )
        pick, decision = got
        picks.append(pick)
        decisions.append(decision)
        if pick.version is None:
            warnings.append(f"the matrix has no keras rows; {keras.requirement} is not checked")

    return Plan(
        texts,
        target,
        picks=tuple(picks),
        cuda_major=cuda_major,
        cudnn_major=cudnn_major,
        decisions=tuple(decisions),
        warnings=tuple(dict.fromkeys(warnings + [d.text for d in decisions if d.subject == PINS])),
        driver_max_cuda=driver_top,
        pin_conflicts=pin_conflicts,
    )


def _choose_shared(
    mains: Sequence[_Request], runnable: dict[str, list[_Candidate]]
) -> Optional[tuple[dict[str, _Candidate], Optional[int], Optional[int]]]:
    """The best candidate per framework with one CUDA major and one cuDNN major.

    Compares combinations by the chosen versions in request order (the first
    framework named matters most).
    """
    names = [r.framework for r in mains if runnable.get(r.framework)]
    if not names:
        return {}, None, None
    cuda_majors = sorted(
        {c.build.cuda.major for n in names for c in runnable[n] if c.build.cuda}, reverse=True
    )
    cudnn_majors: list[int] = sorted(
        {m for n in names for c in runnable[n] if (m := _cudnn_major(c.build)) is not None},
        reverse=True,
    )
    best: Optional[tuple[tuple[Any, ...], dict[str, _Candidate], Optional[int], Optional[int]]]
    best = None
    options: list[Optional[int]] = [*cuda_majors, None]
    cudnn_options: list[Optional[int]] = [*cudnn_majors, None]
    for cuda_major, cudnn_major in itertools.product(options, cudnn_options):
        picked: dict[str, _Candidate] = {}
        for n in names:
            same_cuda = [
                c for c in runnable[n] if c.build.cuda is None or c.build.cuda.major == cuda_major
            ]
            # A build whose cuDNN is recorded and matches beats one whose cuDNN is
            # unknown: pip cannot install two cuDNN majors side by side.
            known = [c for c in same_cuda if _cudnn_major(c.build) == cudnn_major]
            unknown = [c for c in same_cuda if _cudnn_major(c.build) is None]
            choice = (known if cudnn_major is not None else []) or unknown
            if not choice:
                break
            picked[n] = choice[0]
        if len(picked) != len(names):
            continue
        # Each framework's own ranking (the judge's: builds that run, GPU builds on a
        # GPU machine and CPU builds elsewhere, newer release, ...) in request order,
        # then newer CUDA.
        score = (
            tuple(-runnable[n].index(picked[n]) for n in names),
            cuda_major or 0,
        )
        if best is None or score > best[0]:
            used_cuda = cuda_major if any(c.build.cuda for c in picked.values()) else None
            used_cudnn = (
                cudnn_major if any(_cudnn_major(c.build) for c in picked.values()) else None
            )
            best = (score, picked, used_cuda, used_cudnn)
    if best is None:
        return None
    return best[1], best[2], best[3]


# -- picks and decisions -------------------------------------------------------


def toolkit_caveat(cuda: CudaVersion, cudnn: Optional[str]) -> str:
    """The caveat of a build whose pip wheels do not bring CUDA and cuDNN.

    Format-neutral; emitters whose file brings them (conda, environment.yml, pixi
    with cudatoolkit) replace it: see ``envcheck.resolve.emit.format_warnings``.
    """
    return (
        f"needs the CUDA {cuda} toolkit"
        + (f" and cuDNN {cudnn}" if cudnn else "")
        + " installed separately (pip wheels do not bring them)"
    )


def _pick(framework: str, c: _Candidate, caveats: tuple[str, ...]) -> Pick:
    b = c.build
    return Pick(
        framework=framework,
        package=b.package,
        version=c.version,
        variant=b.variant,
        extra=b.extra,
        cuda=b.cuda,
        cudnn=b.cudnn,
        bundles_cuda=b.bundles_cuda,
        index_url=b.index_url,
        pypi_default=b.pypi_default is True,
        find_links=b.find_links,
        caveats=caveats,
        source=b.origin.source,
    )


def _unpinned(req: _Request) -> Pick:
    r = req.requirement
    extra = ",".join(sorted(r.extras)) or None
    return Pick(req.framework, r.name, None, extra=extra, specifier=str(r.specifier))


def _held_for_companions(
    chosen: _Candidate, free: Sequence[_Candidate], ctx: _Ctx
) -> Optional[Blocker]:
    """Why the plan holds torch at ``chosen`` although a newer release runs on the
    target (``free``: the runnable builds before companion pairings are applied):
    which companion, and which pairing the matrix lacks or rules out. None when
    nothing newer runs."""
    from packaging.version import InvalidVersion, Version

    def key(v: str) -> Any:
        try:
            return Version(v)
        except InvalidVersion:
            return Version("0")

    newer = sorted(
        {c.version for c in free if key(c.version) > key(chosen.version)}, key=key, reverse=True
    )
    if not newer:
        return None
    missing: dict[str, list[str]] = {}
    sources: list[str] = []
    for version in newer:
        row = ctx.matrix.companion(version)
        for name in ctx.companions:
            if row is None or getattr(row, name) is None:
                missing.setdefault(name, []).append(version)
            elif row.origin.cite() not in sources:
                sources.append(row.origin.cite())
    # The companions that rule out the release just above the pick hold it back; a
    # release ruled out only by the user's own companion specifier is their choice.
    holding = [name for name, versions in missing.items() if newer[-1] in versions]
    if not holding:
        return None
    why = "; ".join(
        f"the matrix records no {name} release paired with torch "
        + (versions[0] if len(versions) == 1 else f"{versions[-1]} to {versions[0]}")
        for name, versions in missing.items()
    )
    held = " and ".join(holding)
    return Blocker(
        COMPANION,
        f"torch held at {chosen.version} for {held}: torch {newer[0]} runs on the target, "
        f"but {why} (a plan for torch alone gives torch {newer[0]})",
        tuple(sources[:1]),
    )


def _companion_picks(c: _Candidate, ctx: _Ctx, decisions: list[Decision]) -> list[Pick]:
    row = ctx.matrix.companion(c.version)
    out = []
    for name in ctx.companions:
        version = None if row is None else getattr(row, name)
        if version is None or row is None:
            continue
        out.append(
            Pick(
                framework=name,
                package=name,
                version=version,
                variant=c.build.variant,
                cuda=c.build.cuda,
                bundles_cuda=c.build.bundles_cuda,
                index_url=c.build.index_url,
                pypi_default=c.build.pypi_default is True,
                source=row.origin.source,
            )
        )
        decisions.append(
            Decision(
                name,
                f"{name} {version} is the release paired with torch {c.version}",
                (row.origin.cite(),),
            )
        )
    return out


def _target_decision(target: Target, matrix: Matrix) -> Decision:
    sources: list[str] = []
    parts = [target.describe()]
    if target.driver is not None:
        top = max_cuda_for_driver(matrix, target.driver, target.driver_os)
        if top is not None:
            parts.append(f"driver {target.driver.raw} supports CUDA up to {top}")
            branch = matrix.driver_branch(matrix.branch_of(target.driver))
            if branch is not None:
                sources.append(branch.origin.cite())
    else:
        parts.append("driver unknown: CUDA versions are not checked against it")
    if not target.gpus:
        parts.append("GPU unknown: compiled architectures are not checked")
    return Decision("target", "; ".join(parts), tuple(sources))


def _pick_decision(req: _Request, c: _Candidate, ok: Sequence[_Candidate]) -> Decision:
    b = c.build
    spec = str(req.requirement.specifier) or "any version"
    what = f"{b.package} {c.version} ({b.variant}"
    what += f", CUDA {b.cuda}" if b.cuda else ""
    what += f", cuDNN {b.cudnn}" if b.cudnn else ""
    what += ")"
    text = f"{what}: newest {req.framework} release matching {spec} whose build runs on the target"
    if b.pypi_default:
        text += "; the variant plain PyPI serves"
    elif b.index_url:
        text += f"; served from {b.index_url}"
    if b.find_links:
        text += f"; wheels from the find-links page {b.find_links}"
    if b.package != req.name:
        # tensorflow==1.14 -> tensorflow-gpu, paddlepaddle -> paddlepaddle-gpu: say so.
        text += f"; this build is the {b.package} distribution, not {req.name}"
    return Decision(req.framework, text, (b.origin.cite(),))


def _newer_unconfirmed(c: _Candidate, ok: Sequence[_Candidate]) -> Optional[str]:
    """When the pick runs but a newer release the judge cannot tell about was
    passed over (its compiled architectures unknown for the GPU), say which and why,
    so the user can ask for it."""
    key = release_key

    if c.verdict.status is not J.Status.RUNS:
        return None
    newer = [
        o for o in ok if o.verdict.status is J.Status.UNKNOWN and key(o.version) > key(c.version)
    ]
    if not newer:
        return None
    top = max(newer, key=lambda o: key(o.version))
    why = next((r.message for r in top.verdict.reasons if r.level is J.Level.UNKNOWN), None)
    text = (
        f"{top.build.package} {top.version} is newer than {c.version} but not confirmed to run here"
    )
    if why:
        text += f": {why}"
    return text + f"; ask for {top.build.package}=={top.version} to take it anyway"


# -- explaining failure ------------------------------------------------------------


def _explain_block(
    req: _Request,
    gpu: Sequence[_Candidate],
    cpu: Sequence[_Candidate],
    ctx: _Ctx,
    allow_cpu: bool,
) -> Unsatisfiable:
    fw = req.framework
    target, matrix = ctx.target, ctx.matrix
    spec = str(req.requirement)
    if not gpu and not cpu:
        releases = matrix.releases(fw)
        known = f"known: {releases[0]} to {releases[-1]}" if releases else "none known"
        builds = matrix.framework_builds(fw)
        # A distribution asked for by name (onnxruntime-gpu) means its own rows, as in
        # _candidates: CPU rows of another distribution (onnxruntime) do not explain it.
        if req.name not in MAIN_NAMES and any(b.package == req.name for b in builds):
            builds = tuple(b for b in builds if b.package == req.name)
        has_cpu_only = any(
            b.cpu_only and any(_matches(req.requirement, v) for v in b.versions) for b in builds
        )
        if has_cpu_only and not allow_cpu:
            return Unsatisfiable(
                fw,
                NO_RELEASE,
                f"every {fw} release matching {spec} is CPU-only",
                "accept a CPU build (envcheck plan --allow-cpu), or relax the specifier",
            )
        withdrawn = sorted(
            {
                v
                for b in matrix.framework_builds(fw)
                if b.withdrawn
                for v in b.versions
                if _matches(req.requirement, v)
            },
            key=release_key,
        )
        if withdrawn:
            return Unsatisfiable(
                fw,
                NO_RELEASE,
                f"every {fw} release matching {spec} ({withdrawn[0]} to {withdrawn[-1]}) is"
                " gone from the index that served it: pip cannot install it now",
                "relax the specifier to a release still published",
            )
        return Unsatisfiable(
            fw,
            NO_RELEASE,
            f"no {fw} release in the matrix matches {spec} ({known})",
            "relax the specifier",
        )
    # What blocks the newest candidate, and which constraint blocks them all.
    pool = sorted(
        gpu or cpu, key=lambda c: (release_key(c.version), c.build.cuda or (0, 0)), reverse=True
    )
    per = [(c, _blockers(c, fw, ctx)) for c in pool]
    blockers = per[0][1]
    common = set.intersection(*({b.constraint for b in bs} for _, bs in per))
    order = (PLATFORM, DRIVER, PYTHON, GPU_ARCH, COMPANION)
    ranked = sorted(
        blockers, key=lambda b: order.index(b.constraint) if b.constraint in order else 9
    )
    # A GPU no candidate has kernels for decides alone: no driver, Python or platform
    # change makes any of them run, so it is named before those.
    deciding = {GPU_ARCH} if GPU_ARCH in common else common
    shared = next((b for b in ranked if b.constraint in deciding), None)
    alt = _best_without_spec(req, ctx)
    alt_text = f"the newest {fw} that runs on this machine is {alt}" if alt else ""
    if shared is None:
        # Each build fails for its own reason: name every reason of the newest one (a
        # Python it lacks and a GPU it has no kernels for are both to be fixed).
        first = ranked[0]
        reasons = list(dict.fromkeys(b.message for b in ranked))
        sources = tuple(dict.fromkeys(src for b in ranked for src in b.sources))
        return Unsatisfiable(
            fw,
            first.constraint,
            f"no {fw} build matching {spec} runs here; the newest: " + "; and ".join(reasons),
            alt_text,
            sources,
        )
    first = shared

    if first.constraint == DRIVER and target.driver is not None:
        top = max_cuda_for_driver(matrix, target.driver, target.driver_os)
        low = min((c.build.cuda for c in gpu if c.build.cuda), default=None)
        need = None
        if low is not None:
            need = matrix.min_driver_for_cuda(low, target.driver_os)
        message = (
            f"driver {target.driver.raw} {J.driver_reach(top)}; every {fw} build "
            f"matching {spec} needs CUDA >= {low}"
            + (f", which needs a driver >= {need.raw}" if need else "")
        )
        unblock = alt_text or (f"upgrade the driver to >= {need.raw}" if need else "")
        if alt_text and need:
            unblock += f"; or upgrade the driver to >= {need.raw}"
        return Unsatisfiable(fw, DRIVER, message, unblock, first.sources)
    if first.constraint == PLATFORM and target.os == "windows":
        win = _newest_on(req, ctx, "windows-x86_64")
        message = (
            f"native Windows: newest GPU {fw} is {win}"
            if win
            else (f"native Windows: no GPU {fw} build")
        )
        message += f" (requested {spec})"
        return Unsatisfiable(
            fw,
            PLATFORM,
            message,
            "use WSL2 (--os wsl)" + (f", or {alt_text}" if alt_text else ""),
            first.sources,
        )
    if first.constraint == PLATFORM and target.os == "macos":
        return Unsatisfiable(
            fw,
            PLATFORM,
            f"macOS has no CUDA build of {fw} (requested {spec})",
            "accept the macOS build (envcheck plan --allow-cpu; on Apple silicon PyTorch "
            "reaches the GPU through MPS), or plan for a Linux machine with an NVIDIA GPU",
            first.sources,
        )
    if first.constraint == GPU_ARCH:
        cc = ", ".join(f"sm_{c.major}{c.minor}" for c in target.gpus)
        why, sources = first.message, first.sources
        floors = [matrix.arch_floor(fw, c.version, c.build.cuda) for c in gpu]
        # Every build under a floor: the lowest one bounds them all.
        floor = None
        if floors and all(f is not None for f in floors):
            floor = min((f for f in floors if f is not None), key=lambda f: f.compute_capability)
        if floor is not None and target.gpus and max(target.gpus) < floor.compute_capability:
            # One data fact answers for every build: say it rather than the newest's list.
            why = f"{fw} {floor.describe()} carry no code below {floor.compute_capability.sm}"
            sources = (floor.origin.cite(),)
        lasts = [(g, matrix.last_cuda_for(g)) for g in sorted(set(target.gpus))]
        legacy = "; ".join(
            f"the last CUDA release that can compile for {g.sm} is {last}"
            for g, last in lasts
            if last is not None
        )
        return Unsatisfiable(
            fw,
            GPU_ARCH,
            f"no {fw} build matching {spec} has kernels for {cc}: {why}"
            + (f"; {legacy}" if legacy else ""),
            alt_text or "no build in the matrix supports this GPU",
            sources,
        )
    if first.constraint == PYTHON:
        pys = sorted({p for c in gpu for p in c.build.python}, key=release_key)
        return Unsatisfiable(
            fw,
            PYTHON,
            f"no {fw} build matching {spec} supports Python {target.python} "
            f"(they support {', '.join(pys) or 'no Python the matrix knows'})",
            alt_text or (f"use Python {pys[-1]}" if pys else ""),
            first.sources,
        )
    return Unsatisfiable(fw, first.constraint, first.message, alt_text, first.sources)


def _best_without_spec(req: _Request, ctx: _Ctx) -> Optional[str]:
    """``torch 1.4.0 (cu101)``: the newest release of any version that runs here."""
    from packaging.requirements import Requirement

    bare = _Request(req.framework, req.name, Requirement(req.name))
    free = _Ctx(ctx.target, ctx.matrix, ctx.requests, {})
    found = [
        c
        for c in _candidates(bare, ctx.target, ctx.matrix)
        if _allowed(c, ctx.target, False) and not _blockers(c, req.framework, free)
    ]
    if not found:
        return None
    best = max(found, key=lambda c: _rank(c, ctx.target))
    return f"{best.build.package} {best.version} ({best.build.variant})"


def _newest_on(req: _Request, ctx: _Ctx, platform: str) -> Optional[str]:
    from packaging.requirements import Requirement

    bare = _Request(req.framework, req.name, Requirement(req.name))
    found = [
        c.version
        for c in _candidates(bare, ctx.target, ctx.matrix)
        if not c.build.cpu_only and platform in c.build.platforms
    ]
    return max(found, key=release_key) if found else None


def _explain_no_shared(
    mains: Sequence[_Request], runnable: dict[str, list[_Candidate]]
) -> Unsatisfiable:
    parts = []
    for r in mains:
        majors = sorted({c.build.cuda.major for c in runnable.get(r.framework, []) if c.build.cuda})
        cudnn = sorted({m for c in runnable.get(r.framework, []) if (m := _cudnn_major(c.build))})
        text = f"{r.framework}: CUDA {'/'.join(map(str, majors)) or '-'}"
        if cudnn:
            text += f" with cuDNN {'/'.join(map(str, cudnn))}"
        parts.append(text)
    return Unsatisfiable(
        ",".join(r.framework for r in mains),
        SHARED_CUDA,
        "no CUDA major (and cuDNN major) is shared by the builds that run here: "
        + "; ".join(parts),
        "install them in separate environments, or relax the version specifiers",
    )
