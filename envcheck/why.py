"""`envcheck matrix why`: does a combination work, and every reason why (pure).

Framework builds are judged by the one judge (``envcheck.compat.judge``), whose
verdicts this module only formats; it adds the cuDNN and CUDA-toolkit specs and
the cross-checks between the specs given together.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Optional

from envcheck import names
from envcheck.compat.judge import UNVERIFIED, Level, Reason
from envcheck.errors import InputError
from envcheck.model.finding import Category
from envcheck.model.versions import release_matches

if TYPE_CHECKING:
    from collections.abc import Sequence

    from envcheck.compat.select import Selection
    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import Build, CudnnRelease, KerasRelease
    from envcheck.model.versions import CudaVersion

OK = Level.OK
ERROR = Level.ERROR
WARNING = Level.WARNING
INFO = Level.INFO
NOT_IN_MATRIX = "not_in_matrix"
"""Reason code: the spec names a release (or variant) the matrix does not list."""
BUILD_FACTS = "build_facts"
"""Reason code: what the matrix row says the build is (its CUDA, cuDNN, index)."""


def _note(
    level: Level, message: str, sources: tuple[str, ...] = (), code: str = BUILD_FACTS
) -> Reason:
    """A reason `matrix why` states itself (facts of a row, a release it does not know),
    of the judge's one type."""
    return Reason(code, level, Category.OTHER, message, sources)


_SPEC_RE = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[(?P<extra>[A-Za-z0-9._,-]+)\])?\s*"
    r"(?:={1,3}\s*(?P<version>[A-Za-z0-9.*+!_-]+))?\s*$"
)

# Spec kinds beside the frameworks' names (envcheck.names).
_OTHER_KINDS = {
    "cudnn": "cudnn",
    "nvidia-cudnn": "cudnn",
    "cuda": "cuda",
    "cuda-toolkit": "cuda",
    "torchvision": "torchvision",
    "torchaudio": "torchaudio",
}
_COMPANION_KINDS = ("torchvision", "torchaudio")
_NOT_FRAMEWORKS = ("cuda", "cudnn", "keras", *_COMPANION_KINDS)


@dataclass(frozen=True)
class Spec:
    """One SPEC argument: ``torch==2.5.1+cu124``, ``jax[cuda12]==0.4.30``, ``cudnn==8.9``."""

    text: str
    kind: str
    """torch, tensorflow, jax, cupy, onnxruntime, paddle, keras, cudnn or cuda."""
    package: str
    version: str
    variant: Optional[str] = None
    extra: Optional[str] = None


@dataclass(frozen=True)
class Option:
    """One concrete build (or row) a spec may mean, with its verdict."""

    label: str
    works: bool
    reasons: tuple[Reason, ...]
    build: Optional[Build] = field(default=None, compare=False, repr=False)
    """The framework build judged (None for cuDNN/CUDA/Keras rows); not in the JSON."""
    confirmed: bool = True
    """False when nothing rules the build out but a fact of the target it depends on
    cannot be judged (the judge's "cannot tell": e.g. its compiled architectures are
    not in the matrix while the GPU is given)."""

    @property
    def status(self) -> str:
        """works, fails, or unknown (not ruled out, not confirmed)."""
        if not self.works:
            return "fails"
        return "works" if self.confirmed else "unknown"

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "works": self.works,
            "status": self.status,
            "reasons": [r.to_json() for r in self.reasons],
        }


@dataclass(frozen=True)
class SpecResult:
    spec: Spec
    options: tuple[Option, ...]
    reasons: tuple[Reason, ...] = ()
    """Reasons about the spec as a whole (unknown release, cross-spec conflicts)."""
    platform_open: bool = False
    """The target does not say its OS: every platform the builds cover counts."""

    @property
    def status(self) -> str:
        """works, fails, unknown (nothing known rules it out, but no option is
        confirmed), or depends (it works on some of the platforms the target
        leaves open; see the options)."""
        if any(r.level == ERROR for r in self.reasons) or not self.options:
            return "fails"
        # The variant (an index, a cuDNN download) is the user's choice: one that
        # works is enough. The platform is a fact of the machine: when the target
        # leaves it open, each platform the builds cover must have one that works.
        rank = {"fails": 0, "unknown": 1, "works": 2}
        groups: dict[str, int] = {}
        for o in self.options:
            keys = (o.build.platforms if self.platform_open and o.build else ()) or ("",)
            for key in keys:
                groups[key] = max(groups.get(key, 0), rank[o.status])
        if all(g == 2 for g in groups.values()):
            return "works"
        if all(g >= 1 for g in groups.values()):
            return "unknown"
        return "depends" if any(groups.values()) else "fails"

    @property
    def works(self) -> bool:
        """Not found to fail: ``works``, or ``unknown`` (exit status 0)."""
        return self.status in ("works", "unknown")

    def to_json(self) -> dict[str, Any]:
        return {
            "spec": self.spec.text,
            "works": self.works,
            "status": self.status,
            "reasons": [r.to_json() for r in self.reasons],
            "options": [o.to_json() for o in self.options],
        }


@dataclass(frozen=True)
class WhyResult:
    target: Target
    results: tuple[SpecResult, ...]
    matrix_version: str
    notes: tuple[str, ...] = field(default=())

    @property
    def works(self) -> bool:
        return all(r.works for r in self.results)

    @property
    def confirmed(self) -> bool:
        """Every spec works, none only "cannot tell"."""
        return all(r.status == "works" for r in self.results)

    def to_json(self) -> dict[str, Any]:
        t = self.target
        return {
            "schema": "envcheck.matrix-why/1",
            "matrix": self.matrix_version,
            "works": self.works,
            "confirmed": self.confirmed,
            "target": {
                "os": t.os,
                "arch": t.arch,
                "driver": t.driver.raw if t.driver else None,
                "gpus": [str(c) for c in t.gpus],
                "gpu_names": list(t.gpu_names),
                "python": t.python,
            },
            "results": [r.to_json() for r in self.results],
        }


def parse_spec(text: str) -> Spec:
    """Read one SPEC; raises InputError (exit 2) for text it cannot read."""
    m = _SPEC_RE.match(text)
    if not m or not m.group("version"):
        raise InputError(
            None,
            None,
            f"cannot read spec {text!r}: expected NAME==VERSION, e.g. torch==2.5.1+cu124, "
            "jax[cuda12]==0.4.30, cudnn==8.9 or cuda==12.4",
        )
    package = names.canonical(m.group("name"))
    kind = names.framework_of(package) or _OTHER_KINDS.get(package)
    if kind is None:
        kinds = sorted({*names.DISTRIBUTIONS, *_OTHER_KINDS.values()})
        hint = names.did_you_mean(package, [*kinds, *names.known_names(), *_OTHER_KINDS])
        raise InputError(
            None,
            None,
            f"unknown package {package[:80]!r}{hint} in {text[:120]!r} (known: {', '.join(kinds)})",
        )
    version = m.group("version").rstrip("*").rstrip(".")
    variant = None
    if "+" in version:
        version, variant = version.split("+", 1)
    return Spec(text.strip(), kind, package, version, variant, m.group("extra"))


def _selection(matrix: Matrix, spec: Spec) -> Selection:
    """The builds a framework SPEC means, through the one selector (``compat.select``).

    A SPEC's version is a prefix (``2.5`` means every 2.5.x) unless it names a patch
    release (``2.5.1``)."""
    from envcheck.compat.select import Intent, Request, select

    parts = [p for p in spec.version.split(".") if p]
    exact = len(parts) >= 3 or not all(p.isdigit() for p in parts)
    specifier = f"=={spec.version}" if exact else f"=={spec.version}.*"
    request = Request(
        spec.kind,
        spec.package,
        specifier,
        extras=(spec.extra,) if spec.extra else (),
        local=spec.variant,
        intent=Intent.ASK,
    )
    return select(matrix, request)


def _option_label(build: Build, version: str) -> str:
    from envcheck.compat.candidate import from_build

    return from_build(build, version).label


def _framework_options(
    spec: Spec, target: Target, matrix: Matrix
) -> tuple[list[Option], list[Reason]]:
    from envcheck.compat import judge as J
    from envcheck.compat.candidate import from_build

    selection = _selection(matrix, spec)
    builds = list(selection.pairs)
    if not builds:
        known = matrix.releases(spec.kind)
        if not known:
            return [], [
                _note(
                    ERROR,
                    f"the matrix has no {spec.kind} data ({spec.kind}.toml not loaded)",
                    code=NOT_IN_MATRIX,
                )
            ]
        near = [v for v in known if v.split(".")[:1] == spec.version.split(".")[:1]][-6:]
        what = spec.version + (f"+{spec.variant}" if spec.variant else "")
        if spec.extra:
            what = f"[{spec.extra}]=={what}"
        hint = f" (known {spec.kind} releases: {', '.join(near or known[-6:])})"
        if selection.releases_matched:
            hint = " (that release has no such variant/extra in the matrix)"
        return [], [
            _note(ERROR, f"{spec.kind} {what} is not in the matrix{hint}", code=NOT_IN_MATRIX)
        ]
    platform = target.platform
    if platform is not None:
        # Builds for other platforms only fail on the platform: leave them out when
        # some build is for the target's platform (otherwise they show why not).
        native = [(b, v) for b, v in builds if not b.platforms or platform in b.platforms]
        builds = native or builds
    options = []
    labels = [_option_label(b, v) for b, v in builds]
    wants_gpu = _wants_cuda(spec, target)
    for build, version in builds:
        # With no --os, a Windows-only build is judged against the Windows driver table.
        on = target
        if (
            target.os is None
            and build.platforms
            and all(p.startswith("windows") for p in build.platforms)
        ):
            on = replace(target, os="windows")
        verdict = J.judge(from_build(build, version, selection.inferred), on, matrix)
        skip = () if wants_gpu else (J.CPU_ONLY, J.ROCM)
        reasons = [r for r in verdict.reasons if r.code not in skip and r.code != J.UNVERIFIED]
        blocked = any(r.level is J.Level.ERROR and r.code not in skip for r in verdict.reasons)
        facts = []
        if build.cuda is not None:
            facts.append(f"CUDA {build.cuda}")
        elif build.variant.startswith("rocm"):
            facts.append(build.variant)
        else:
            facts.append("CPU only")
        if build.cudnn:
            facts.append(f"cuDNN {build.cudnn}")
        if build.bundles_cuda is not None and build.cuda is not None:
            facts.append("bundles CUDA wheels" if build.bundles_cuda else "needs system CUDA/cuDNN")
        if build.index_url:
            facts.append(f"index {build.index_url}")
        if build.find_links:
            facts.append(f"find-links {build.find_links}")
        reasons.insert(0, _note(INFO, "; ".join(facts), (build.origin.cite(),)))
        if not build.origin.verified:
            reasons.append(
                _note(
                    WARNING,
                    "this matrix row is unverified"
                    + (f": {build.origin.note}" if build.origin.note else ""),
                    (build.origin.cite(),),
                    UNVERIFIED,
                )
            )
        label = _option_label(build, version)
        if labels.count(label) > 1 and build.platforms:
            label += f" for {', '.join(build.platforms)}"
        confirmed = verdict.status is not J.Status.UNKNOWN
        options.append(Option(label, not blocked, tuple(reasons), build, confirmed))
    return options, []


def _wants_cuda(spec: Spec, target: Target) -> bool:
    """A target with an NVIDIA driver or GPU asks for CUDA acceleration, unless the
    spec itself names a non-CUDA build (``+cpu``, ``+rocm6.2``, ``tensorflow-cpu``)."""
    if not target.gpus and target.driver is None:
        return False
    if spec.variant is not None and not spec.variant.startswith("cu"):
        return False
    return not spec.package.endswith("-cpu")


def _cudnn_rows(matrix: Matrix, spec: Spec) -> list[CudnnRelease]:
    return [r for r in matrix.cudnn_releases if release_matches(spec.version, r.version)]


def _cudnn_options(
    spec: Spec, target: Target, matrix: Matrix, cuda: Optional[CudaVersion]
) -> tuple[list[Option], list[Reason]]:
    from envcheck.compat.cudnn import cudnn_span, cudnn_verdict

    rows = _cudnn_rows(matrix, spec)
    if not rows:
        return [], [_note(ERROR, f"cuDNN {spec.version} is not in the matrix", code=NOT_IN_MATRIX)]
    options = []
    for row in rows:
        cite = row.origin.cite()
        reasons: list[Reason] = []
        span = cudnn_span(row)
        reasons.append(_note(INFO, f"built for {span}", (cite,)))
        verdict = cudnn_verdict(row, target, cuda, matrix)
        reasons += list(verdict.reasons)
        if not row.origin.verified:
            reasons.append(
                _note(
                    WARNING,
                    "this matrix row is unverified"
                    + (f": {row.origin.note}" if row.origin.note else ""),
                    (cite,),
                    UNVERIFIED,
                )
            )
        works = not any(r.level == ERROR for r in reasons)
        # Old releases have one row per CUDA minor (each with its own driver).
        twins = sum(1 for r in rows if (r.version, r.cuda_major) == (row.version, row.cuda_major))
        label = f"cuDNN {row.version} for " + (span if twins > 1 else f"CUDA {row.cuda_major}")
        options.append(Option(label, works, tuple(reasons)))
    return options, []


def _cuda_options(spec: Spec, target: Target, matrix: Matrix) -> tuple[list[Option], list[Reason]]:
    from envcheck.model.versions import parse_cuda_version

    cuda = parse_cuda_version(spec.version)
    if cuda is None:
        raise InputError(None, None, f"cannot read CUDA version in {spec.text!r} (e.g. cuda==12.4)")
    reasons: list[Reason] = []
    release = matrix.cuda_release(cuda)
    if release is None:
        return [], [_note(ERROR, f"CUDA {cuda} is not in the matrix", code=NOT_IN_MATRIX)]
    reasons.append(
        _note(INFO, release.label or f"CUDA {release.version}", (release.origin.cite(),))
    )
    from envcheck.compat.toolkit import toolkit_verdict

    verdict = toolkit_verdict(release, target, matrix)
    reasons += list(verdict.reasons)
    works = not any(r.level == ERROR for r in reasons)
    return [Option(f"CUDA {cuda}", works, tuple(reasons))], []


def _cross(specs: list[Spec], matrix: Matrix, results: list[SpecResult]) -> list[SpecResult]:
    """Add conflicts between specs given together (framework vs cuda/cudnn specs,
    keras vs tensorflow)."""
    results = _cross_companions(matrix, _cross_keras(matrix, results))
    from envcheck.compat.libraries import system_libraries_reasons
    from envcheck.model.versions import parse_cuda_version

    cuda = next((parse_cuda_version(s.version) for s in specs if s.kind == "cuda"), None)
    cudnn = next((s for s in specs if s.kind == "cudnn"), None)
    out = []
    for result in results:
        spec = result.spec
        if spec.kind in _NOT_FRAMEWORKS or not (cuda or cudnn):
            out.append(result)
            continue
        options = []
        for option in result.options:
            build_reasons = list(option.reasons)
            build = option.build
            if build is not None and build.cuda is not None:
                build_reasons += system_libraries_reasons(
                    build, cuda, cudnn.version if cudnn else None
                )
            works = option.works and not any(r.level == ERROR for r in build_reasons)
            options.append(replace(option, works=works, reasons=tuple(build_reasons)))
        out.append(SpecResult(spec, tuple(options), result.reasons, result.platform_open))
    return out


def _spec_versions(result: SpecResult) -> list[str]:
    """The releases a framework spec's options mean."""
    return list(
        dict.fromkeys(
            v
            for o in result.options
            if o.build is not None
            for v in o.build.versions
            if release_matches(result.spec.version, v)
        )
    )


def _cross_keras(matrix: Matrix, results: list[SpecResult]) -> list[SpecResult]:
    """A keras option fails when it conflicts with every release the tensorflow spec
    given with it can mean (``compat.keras``, as plan and check judge the pair)."""
    from envcheck.compat.keras import keras_releases_reason

    tf = next((r for r in results if r.spec.kind == "tensorflow"), None)
    tf_versions = _spec_versions(tf) if tf is not None else []
    if not tf_versions:
        return results
    out = []
    for result in results:
        if result.spec.kind != "keras":
            out.append(result)
            continue
        # _keras_options made one option per matching row, in this order.
        conflicts = [
            keras_releases_reason(
                [v for v in row.versions if release_matches(result.spec.version, v)],
                tf_versions,
                matrix,
            )
            for row in _keras_rows(result.spec, matrix)
        ]
        out.append(_with_conflicts(result, conflicts))
    return out


def _with_conflicts(result: SpecResult, conflicts: Sequence[Optional[Reason]]) -> SpecResult:
    """``result`` with each option failing on its conflict (one per option, in order)."""
    options = tuple(
        option
        if conflict is None
        else replace(option, works=False, reasons=(*option.reasons, conflict))
        for option, conflict in zip(result.options, conflicts)
    )
    return replace(result, options=options)


def _companion_versions(spec: Spec, matrix: Matrix) -> list[str]:
    """The companion releases a torchvision/torchaudio SPEC means (torch.toml's rows)."""
    return list(
        dict.fromkeys(
            v
            for row in matrix.companions
            if (v := getattr(row, spec.kind)) is not None and release_matches(spec.version, v)
        )
    )


def _companion_options(spec: Spec, matrix: Matrix) -> tuple[list[Option], list[Reason]]:
    """A companion release: pure Python beside torch's kernels, judged against the torch
    release it is built for (``compat.companions``; with a torch SPEC, ``_cross``)."""
    from envcheck.compat.companions import paired_torch

    versions = _companion_versions(spec, matrix)
    if not versions:
        return [], [
            _note(ERROR, f"{spec.kind} {spec.version} is not in the matrix", code=NOT_IN_MATRIX)
        ]
    options = []
    for version in versions:
        torches = paired_torch(spec.kind, version, matrix)
        row = matrix.companion(torches[0]) if torches else None
        cite = (row.origin.cite(),) if row is not None else ()
        label = ", ".join(torches) or "?"
        reasons = (_note(INFO, f"built for torch {label}", cite),)
        options.append(Option(f"{spec.kind} {version}", True, reasons))
    return options, []


def _cross_companions(matrix: Matrix, results: list[SpecResult]) -> list[SpecResult]:
    """A companion option fails when it goes with no release the torch spec given with
    it can mean (``compat.companions``, as plan, check and the doctor judge the pair)."""
    from envcheck.compat.companions import companion_reason, companion_variant_reason

    torch = next((r for r in results if r.spec.kind == "torch"), None)
    torch_versions = _spec_versions(torch) if torch is not None else []
    if torch is None or not torch_versions:
        return results
    out = []
    for result in results:
        if result.spec.kind not in _COMPANION_KINDS:
            out.append(result)
            continue
        found: list[Optional[Reason]] = []
        for version in _companion_versions(result.spec, matrix):
            each = [companion_reason(t, result.spec.kind, version, matrix) for t in torch_versions]
            conflict = each[-1] if all(each) else None
            if conflict is None and torch.spec.variant and result.spec.variant:
                conflict = companion_variant_reason(
                    f"{torch_versions[-1]}+{torch.spec.variant}",
                    result.spec.kind,
                    f"{version}+{result.spec.variant}",
                )
            found.append(conflict)
        out.append(_with_conflicts(result, found))
    return out


def _keras_rows(spec: Spec, matrix: Matrix) -> list[KerasRelease]:
    return [
        r
        for r in matrix.keras_releases
        if any(release_matches(spec.version, v) for v in r.versions)
    ]


def _keras_options(spec: Spec, target: Target, matrix: Matrix) -> tuple[list[Option], list[Reason]]:
    from envcheck.compat.keras import keras_verdict

    rows = _keras_rows(spec, matrix)
    if not rows:
        return [], [_note(ERROR, f"keras {spec.version} is not in the matrix", code=NOT_IN_MATRIX)]
    options = []
    for row in rows:
        cite = row.origin.cite()
        reasons = []
        if row.tensorflow:
            reasons.append(_note(INFO, f"needs tensorflow {row.tensorflow}", (cite,)))
        if row.backends:
            reasons.append(_note(INFO, f"backends: {', '.join(row.backends)}", (cite,)))
        # The row's releases the request means: ``keras==3.11.0`` is not its 3.12 siblings.
        matched = [v for v in row.versions if release_matches(spec.version, v)]
        verdict = keras_verdict(row, matched[0], target)
        reasons += list(verdict.reasons)
        works = not any(r.level == ERROR for r in reasons)
        options.append(Option(f"keras {', '.join(matched)}", works, tuple(reasons)))
    return options, []


def explain_specs(
    texts: tuple[str, ...], target: Target, matrix: Matrix, variant: Optional[str] = None
) -> WhyResult:
    """Judge every SPEC on ``target``; raises InputError for an unreadable spec.

    ``variant`` applies to framework specs that do not name one (``+cu124``).
    """
    from envcheck.model.versions import parse_cuda_version

    specs = [parse_spec(t) for t in texts]
    if variant is not None:
        specs = [
            replace(s, variant=variant)
            if s.variant is None and s.kind not in _NOT_FRAMEWORKS
            else s
            for s in specs
        ]
    cuda = next((parse_cuda_version(s.version) for s in specs if s.kind == "cuda"), None)
    results = []
    for spec in specs:
        if spec.kind == "cuda":
            options, reasons = _cuda_options(spec, target, matrix)
        elif spec.kind == "cudnn":
            options, reasons = _cudnn_options(spec, target, matrix, cuda)
        elif spec.kind == "keras":
            options, reasons = _keras_options(spec, target, matrix)
        elif spec.kind in _COMPANION_KINDS:
            options, reasons = _companion_options(spec, matrix)
        else:
            options, reasons = _framework_options(spec, target, matrix)
        results.append(SpecResult(spec, tuple(options), tuple(reasons), target.platform is None))
    return WhyResult(target, tuple(_cross(specs, matrix, results)), matrix.version)
