"""Match error text against the signature table and name the root cause (pure).

``explain(text, snapshot, matrix)`` never reads files or runs anything: the
command reads the text and detects (or loads) the snapshot, then calls it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Optional

from envcheck.compat.driver import max_cuda_for_driver
from envcheck.explain.anchors import AnchorIndex, lower
from envcheck.explain.signatures import (
    ARCH,
    BF16,
    COMPANION,
    CPU_BUILD,
    CUDA_LIB,
    CUDNN,
    CUDNN_HANDLE,
    DRIVER,
    ENV_VAR,
    MEMORY,
    NO_DRIVER,
    NO_GPU,
    NVML,
    UNSEEN_GPU,
    Signature,
)
from envcheck.explain.signatures import by_id as _table_by_id
from envcheck.model.finding import Category, Finding, Severity
from envcheck.model.versions import (
    ComputeCapability,
    parse_compute_capability,
    parse_cuda_version,
)

if TYPE_CHECKING:
    from envcheck.compat.target import Target
    from envcheck.explain.facts import MessageFacts
    from envcheck.explain.normalise import Normalised
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Framework, Snapshot

EXPLAIN_SCHEMA = "envcheck.explain/1"
UNRECOGNISED = "explain-unrecognised"
MAX_LINE_CHARS = 8192
"""Only this much of each line is matched (a hostile megabyte-long line stays cheap)."""
MAX_EVIDENCE_LINES = 3
_SHOWN_LINE_CHARS = 240


@functools.lru_cache(maxsize=4)
def _index(signatures: tuple[Signature, ...]) -> AnchorIndex:
    """The literal anchors of ``signatures`` (see :mod:`envcheck.explain.anchors`)."""
    return AnchorIndex.build([sig.regex for sig in signatures])


def _cap_lines(text: str) -> str:
    """``text`` with every line cut to MAX_LINE_CHARS, before any regex sees it."""
    lines = text.split("\n")
    if max(map(len, lines)) <= MAX_LINE_CHARS:
        return text
    return "\n".join(line[:MAX_LINE_CHARS] for line in lines)


def _candidate_lines(text: str, lowered: str, index: AnchorIndex) -> Iterator[tuple[int, int, int]]:
    """(line number, start, end) of every line of ``text`` (already capped;
    ``lowered`` is :func:`lower` of it) that holds an anchor, in order; every line
    when a signature has no anchor."""
    if index.unanchored:
        # A signature with no literal anchor is tried on every line (none is today).
        pos = 0
        for number, line in enumerate(text.split("\n"), 1):
            yield number, pos, pos + len(line)
            pos += len(line) + 1
        return
    line_no = 1
    counted_to = 0
    pos = 0
    while True:
        hit = index.first.search(lowered, pos)
        if hit is None:
            return
        before = lowered.rfind("\n", pos, hit.start())
        start = pos if before < 0 else before + 1
        end = lowered.find("\n", hit.end())
        if end < 0:
            end = len(lowered)
        line_no += text.count("\n", counted_to, start)
        counted_to = start
        yield line_no, start, end
        pos = end + 1


def _line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


@dataclass(frozen=True)
class Match:
    """One signature recognised in the text, with what the snapshot adds."""

    signature: Signature
    lines: tuple[tuple[int, str], ...]
    """(1-based line number, line text) of every matching line (first few)."""
    facts: Mapping[str, str] = field(default_factory=dict)
    """Named groups captured from the first matching line (``sm``, ``lib``, ...)."""
    root_cause: Optional[str] = None
    """The concrete cause on this machine, when the snapshot tells."""
    evidence: tuple[str, ...] = ()
    """Snapshot facts behind the root cause."""
    fix: Optional[str] = None
    """A fix specific to this machine (else the signature's fix)."""
    count: int = 1
    """How many lines matched in all."""
    category: Optional[Category] = None
    """The category the facts established when it is not the signature's own (a
    "no driver" message inside a container started without GPUs)."""

    @property
    def line_no(self) -> int:
        return self.lines[0][0]

    def to_finding(self) -> Finding:
        sig = self.signature
        shown = tuple(f"line {n}: {_shorten(text)}" for n, text in self.lines)
        if self.count > len(self.lines):
            shown += (f"... and {self.count - len(self.lines)} more matching lines",)
        detail = sig.cause
        if self.root_cause:
            detail = f"On this machine: {self.root_cause} ({sig.cause})"
        return Finding(
            sig.id,
            self.category or sig.category,
            sig.severity,
            sig.title,
            evidence=shown + self.evidence,
            fix=self.fix or sig.fix,
            detail=detail,
            sources=(sig.source,),
        )

    def to_json(self) -> dict[str, Any]:
        sig = self.signature
        return {
            "id": sig.id,
            "category": (self.category or sig.category).value,
            "severity": sig.severity.value,
            "title": sig.title,
            "frameworks": list(sig.frameworks),
            "lines": [{"line": n, "text": text} for n, text in self.lines],
            "count": self.count,
            "facts": dict(self.facts),
            "cause": sig.cause,
            "root_cause": self.root_cause,
            "evidence": list(self.evidence),
            "fix": self.fix or sig.fix,
            "source": sig.source,
            "emitted_by": sig.emitted_by or None,
        }


@dataclass(frozen=True)
class ExplainReport:
    """Everything ``explain`` found, most important first."""

    matches: tuple[Match, ...]
    lines_scanned: int
    snapshot_used: bool
    findings: tuple[Finding, ...]

    @property
    def recognised(self) -> bool:
        return any(f.id != UNRECOGNISED for f in self.findings)

    def failed(self) -> bool:
        """True when an error was recognised (exit code 1)."""
        return any(f.severity == Severity.ERROR for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": EXPLAIN_SCHEMA,
            "recognised": self.recognised,
            "lines_scanned": self.lines_scanned,
            "snapshot_used": self.snapshot_used,
            "matches": [m.to_json() for m in self.matches],
            "findings": [f.to_json() for f in self.findings],
        }


def _shorten(text: str, limit: int = _SHOWN_LINE_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _printable(text: str) -> str:
    """Drop control characters (ANSI colour codes, NULs) a pasted log may carry."""
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)
    return "".join(ch if ch.isprintable() or ch == "\t" else " " for ch in text)


def match_signatures(
    text: str, signatures: Optional[Iterable[Signature]] = None
) -> tuple[tuple[Match, ...], int]:
    """Every signature found in ``text`` (one Match per signature) and the line count;
    ``signatures`` defaults to the whole catalogue (``SIGNATURES``)."""
    sigs = _table() if signatures is None else tuple(signatures)
    found: dict[str, tuple[list[tuple[int, str]], dict[str, str], list[int]]] = {}
    order: list[str] = []
    capped = _cap_lines(text)
    index = _index(sigs)
    lowered = lower(capped)
    # A log repeats its lines (a warning per step, a pasted loop): each distinct
    # line is matched once.
    seen: dict[str, tuple[tuple[str, dict[str, str]], ...]] = {}
    for number, start, end in _candidate_lines(capped, lowered, index):
        line = capped[start:end].rstrip("\r")
        result = seen.get(line)
        if result is None:
            result = _match_line(line, sigs, index.hits(lowered, start, end))
            if len(seen) >= _SEEN_LINES:
                seen.clear()
            seen[line] = result
        for sid, facts in result:
            if sid not in found:
                found[sid] = ([], facts, [0])
                order.append(sid)
            shown, _facts, count = found[sid]
            count[0] += 1
            if len(shown) < MAX_EVIDENCE_LINES:
                shown.append((number, _shorten(_printable(line.strip()[: 4 * _SHOWN_LINE_CHARS]))))
    matches = []
    for sid in order:
        shown, facts, count = found[sid]
        matches.append(Match(_by_id()[sid], tuple(shown), facts, count=count[0]))
    return tuple(matches), _line_count(text)


_SEEN_LINES = 1024
"""Distinct lines whose result is kept (each at most MAX_LINE_CHARS long)."""


def _match_line(
    line: str, sigs: tuple[Signature, ...], candidates: frozenset[int]
) -> tuple[tuple[str, dict[str, str]], ...]:
    """(signature id, facts) of every signature on one line, superseded ones left out."""
    hits: dict[str, re.Match[str]] = {}
    for i in sorted(candidates):
        m = sigs[i].pattern.search(line)
        if m is not None:
            hits[sigs[i].id] = m
    hidden = {h for sid in hits for h in _by_id()[sid].supersedes}
    return tuple(
        (sid, {k: v for k, v in m.groupdict().items() if v is not None})
        for sid, m in hits.items()
        if sid not in hidden
    )


_ID_CACHE: dict[str, Signature] = {}


def _by_id() -> dict[str, Signature]:
    if not _ID_CACHE:
        _ID_CACHE.update(_table_by_id())
    return _ID_CACHE


def _table() -> tuple[Signature, ...]:
    """The catalogue's rows (read on first use, see :mod:`envcheck.explain.catalogue`)."""
    from envcheck.explain.catalogue import load_catalogue

    return load_catalogue()


def explain(
    text: str,
    snapshot: Optional[Snapshot] = None,
    matrix: Optional[Matrix] = None,
) -> ExplainReport:
    """Recognise known error signatures in ``text``; with a snapshot (and the
    matrix) name the concrete root cause on that machine.

    Nothing recognised gives one ``other`` warning finding saying so (never a
    silent "all good").
    """
    from envcheck.explain.facts import extract, known_gpus, overlay
    from envcheck.explain.normalise import normalise

    norm = normalise(text)
    matches, _logical = match_signatures(norm.text)
    matches = _as_pasted(matches, norm, text)
    count = _line_count(text)
    facts = known_gpus(extract(norm.text), matrix) if matrix is not None else None
    machine = overlay(snapshot, facts) if facts else snapshot
    stated: tuple[Finding, ...] = ()
    if machine is not None and matrix is not None and (matches or facts):
        doctor = _doctor_findings(machine, matrix)
        if matches:
            told = facts.lines() if facts else ()
            matches = tuple(_with_root_cause(m, machine, matrix, doctor, told) for m in matches)
        if facts:
            stated = _stated_findings(facts, doctor, snapshot, matrix, matches)
    elif matches and matrix is not None:
        # Nothing detected and no fact stated beside the error: the signatures' own
        # facts (versions, package names) still name a cause; nothing is judged absent.
        from envcheck.explain.facts import MessageFacts

        bare = overlay(None, MessageFacts())
        matches = tuple(_with_root_cause(m, bare, matrix, ()) for m in matches)
    ordered = _ranked(_weigh_shared_wordings(matches))
    findings = tuple(
        _message_only(m, facts) if snapshot is None else m.to_finding() for m in ordered
    )
    findings = tuple(_xla_compiled(m, f, facts) for m, f in zip(ordered, findings))
    if facts and matrix is not None:
        findings = (
            tuple(_pip_no_wheel(m, f, facts, machine, matrix) for m, f in zip(ordered, findings))
            + findings[len(ordered) :]
        )
    findings = _env_first(findings + stated, facts)
    findings = _non_nvidia_gpu_first(findings, facts)
    if facts and matrix is not None:
        too_old = _driver_below_needed_cuda(facts, matrix)
        if too_old is not None and too_old.category not in {f.category for f in findings[:1]}:
            findings = (too_old, *(f for f in findings if f.id != UNRECOGNISED))
    if not findings and facts:
        findings = _visible_devices_set(facts)
    if not findings:
        findings = (_unrecognised(text, count),)
    return ExplainReport(ordered, count, snapshot is not None, findings)


VISIBLE_DEVICES_SET = "explain-cuda-visible-devices-set"


def _visible_devices_set(facts: MessageFacts) -> tuple[Finding, ...]:
    """No message was recognised, but the text sets CUDA_VISIBLE_DEVICES (a shell
    prefix, an export, ``os.environ[...] = ...`` in the script) to a value that hides a
    one-GPU machine's only GPU: empty, negative, not an index, or an index above 0. That
    is the likely cause of whatever the program did without a GPU."""
    from envcheck.rules.env_vars import hiding_reason

    value = dict(facts.env).get("CUDA_VISIBLE_DEVICES")
    if value is None or hiding_reason(value, 1, set()) is None:
        return ()
    return (
        Finding(
            VISIBLE_DEVICES_SET,
            Category.ENV_VAR_HIDES_GPU,
            Severity.WARNING,
            f"The text sets CUDA_VISIBLE_DEVICES={value!r}, which hides the GPU of a machine "
            "that does not have that index",
            evidence=(
                f"from the message: CUDA_VISIBLE_DEVICES={value!r}",
                "no error message was recognised; the machine's GPUs are unknown",
            ),
            fix="Set CUDA_VISIBLE_DEVICES to indices that exist (`nvidia-smi -L` lists them; a "
            "one-GPU machine has only 0), or remove the line that sets it.",
        ),
    )


MESSAGE_ONLY = "explain"
"""``Snapshot.source`` of the empty snapshot the message's facts are laid over when
nothing was detected: its absent facts are unknown, not observed absent."""


def _message_only(m: Match, facts: Optional[MessageFacts]) -> Finding:
    """A match's finding when nothing was detected (``explain --no-detect``).

    CUDA's "no device" (cudaErrorNoDevice, CUDA_ERROR_NO_DEVICE, 100) says the driver
    answered and offered this process no device; it does not say the machine has no
    GPU. PyTorch words the same code "No CUDA GPUs are available", which its signature
    files under the variable that most often causes it: every wording of the code is
    judged alike, and a CUDA_VISIBLE_DEVICES the text sets is named as the cause."""
    finding = m.to_finding()
    if m.signature.analysis != NO_GPU or finding.category != m.signature.category:
        return finding  # another reading (a container the text shows) already decided
    value = dict(facts.env).get("CUDA_VISIBLE_DEVICES") if facts else None
    if value is not None:
        title = (
            f"CUDA found no device after the text set CUDA_VISIBLE_DEVICES={value!r}: "
            "it names no GPU of that machine"
        )
        seen = (f"from the message: CUDA_VISIBLE_DEVICES={value!r}",)
    else:
        title = (
            "CUDA was offered no device: most often CUDA_VISIBLE_DEVICES hides the GPUs "
            "(the machine was not inspected)"
        )
        seen = (
            "CUDA_VISIBLE_DEVICES, the GPUs and the driver are unknown: the machine was not inspected",
        )
    return replace(
        finding,
        category=Category.ENV_VAR_HIDES_GPU,
        title=title,
        evidence=(*finding.evidence, *seen),
        fix="Check `echo $CUDA_VISIBLE_DEVICES` and `nvidia-smi -L` where it failed: unset the "
        "variable (or give indices that exist); in a container, start it with `--gpus all`.",
    )


def _xla_compiled(m: Match, finding: Finding, facts: Optional[MessageFacts]) -> Finding:
    """ "No kernel image" from code XLA compiled itself.

    XLA (in JAX) compiles its kernels for the GPU it runs on with ptxas
    (openxla/xla xla/service/gpu/nvptx_compiler.cc), so an architecture the wheel lacks
    is not the reason; the usual one is a ptxas of a newer CUDA than the driver, whose
    output the driver cannot load. A kernel compiled ahead of time (found through the
    runtime API, fact ``ahead-of-time-kernel``) or a doctor error naming the architecture
    keeps the arch reading."""
    from envcheck.explain.catalogue import fact_pattern

    ahead_of_time = fact_pattern("ahead-of-time-kernel")
    if (
        m.signature.id != "no-kernel-image"
        or facts is None
        or not facts.jax
        or m.root_cause is not None
        or any(ahead_of_time.search(text) for _n, text in m.lines)
    ):
        return finding
    return replace(
        finding,
        category=Category.DRIVER_TOO_OLD,
        title="XLA compiled this kernel with a newer ptxas than the NVIDIA driver can load",
        detail="XLA compiles its kernels for the GPU it runs on, so the GPU's architecture is "
        "not missing; 'no kernel image' then usually means the ptxas it used (a CUDA toolkit "
        "or the nvidia-cuda-nvcc wheel) belongs to a newer CUDA than the driver supports.",
        fix="Upgrade the NVIDIA driver to one for that CUDA, or put a ptxas of the driver's "
        "CUDA first on PATH (for jaxlib of that era also XLA_FLAGS="
        "--xla_gpu_force_compilation_parallelism=1).",
    )


PIP_NO_WHEEL = "pip-no-framework-wheel"
_GPU_ONLY_DISTRIBUTIONS = ("tensorflow-gpu", "onnxruntime-gpu", "paddlepaddle-gpu")


def _pip_no_wheel(
    m: Match,
    finding: Finding,
    facts: MessageFacts,
    machine: Optional[Snapshot],
    matrix: Matrix,
) -> Finding:
    """pip found no wheel of the framework: which of its causes the text shows.

    The signature's reading (no wheel for this Python) stands unless the text says
    otherwise: pip was pointed at a PyTorch index the matrix lists no build on (one
    that does not exist: an unpublished cuXYZ), a CUDA build was asked for on macOS
    (NVIDIA's builds are for Linux and Windows only), or pip listed the very release
    asked for, so the Python has wheels of it and only the CUDA variant (+cuXYZ) is
    missing from that index."""
    if m.signature.id != PIP_NO_WHEEL or finding.id != PIP_NO_WHEEL:
        return finding
    lib = m.facts.get("lib", "")
    spec = m.facts.get("spec", "")
    listed = [v.strip() for v in m.facts.get("versions", "").split(",") if v.strip()]
    local = re.search(r"\+(cu\d{2,3}|rocm[\d.]{1,8})\b", spec)
    index = facts.pip_index
    if lib == "torch" and index and "download.pytorch.org/whl/" in index:
        known = {b.index_url.rstrip("/") for b in matrix.framework_builds("torch") if b.index_url}
        # Nightly and test channels publish variants the matrix does not track.
        channel = any(part in index for part in ("/nightly", "/test/")) or index.endswith("/whl")
        if index not in known and not channel:
            return _reread(
                finding,
                Category.OTHER,
                f"pip was pointed at {index}, an index with no PyTorch build the matrix knows",
                f"from the message: pip index {index}",
                detail="PyTorch publishes one index per CUDA variant it builds a release for; "
                "a variant it never published has no index, so pip lists no versions there.",
                fix="Use the index of a CUDA variant PyTorch publishes for the release "
                "(`envcheck plan torch` names the one for this machine).",
            )
    os_name = machine.platform.os if machine is not None else facts.os
    if os_name == "darwin" and (
        local or lib in _GPU_ONLY_DISTRIBUTIONS or lib.startswith("cupy-cuda")
    ):
        return _reread(
            finding,
            Category.PLATFORM_UNSUPPORTED,
            f"No CUDA build of {lib} exists for macOS",
            "from the message: macOS",
            detail="NVIDIA CUDA builds are published for Linux and Windows only; on macOS "
            "pip finds only CPU (or, for PyTorch on Apple silicon, MPS) builds.",
            fix="On macOS install the plain release without a +cuXYZ variant (PyTorch uses "
            "the GPU of Apple silicon through MPS), or run on a Linux or Windows machine "
            "with an NVIDIA GPU.",
        )
    base = spec.lstrip("=").split("+")[0] if spec.startswith("==") else ""
    if local and base and base in listed and not any("+" in v for v in listed):
        if index and "download.pytorch.org/whl/" in index:
            # PyTorch's CUDA index was searched and gave no build at all for this
            # interpreter and platform, while PyPI has the release: a platform without
            # CUDA wheels (macOS, Linux or Windows on ARM).
            return _reread(
                finding,
                Category.PLATFORM_UNSUPPORTED,
                f"PyTorch's {local.group(1)} index has no build of {lib} for this "
                "platform: pip found only PyPI's",
                f"from the message: pip index {index}",
                detail="pip searched PyTorch's CUDA index and found no wheel there, while "
                "PyPI has the release: its CUDA builds exist for Linux and Windows on x86-64 "
                "only, not for macOS or ARM machines.",
                fix="On macOS or an ARM machine install the plain release (no +cuXYZ); for "
                "CUDA run on an x86-64 Linux or Windows machine with an NVIDIA GPU.",
            )
        return _reread(
            finding,
            Category.OTHER,
            f"pip has {lib} {base} for this Python, but not its +{local.group(1)} build "
            "on that index",
            f"pip listed {lib} {base} among the versions it found",
            detail="A local +cuXYZ version is published only on the framework's own index "
            "(PyTorch's download.pytorch.org/whl/cuXYZ), not on PyPI.",
            fix="Install it from the index of that variant (`--index-url` of PyTorch's "
            "cuXYZ index; `envcheck plan torch` gives the command for this machine).",
        )
    return finding


def _reread(
    finding: Finding, category: Category, title: str, seen: str, *, detail: str, fix: str
) -> Finding:
    """``finding`` with the cause the text's facts establish instead of its own."""
    return replace(
        finding,
        category=category,
        title=title,
        evidence=(*finding.evidence, seen),
        detail=detail,
        fix=fix,
    )


DRIVER_BELOW_NEEDED_CUDA = "explain-driver-below-needed-cuda"


def _driver_below_needed_cuda(facts: MessageFacts, matrix: Matrix) -> Optional[Finding]:
    """The driver a diagnostic line states (nvidia-smi's table, TensorFlow's
    cuda_diagnostics, the NGC banner) judged by the matrix's cuda_driver rows against the
    CUDA the failing build needs (the sonames it opened or could not open). A driver too
    old for that CUDA is the first cause: installing the missing library would not help."""
    from envcheck.model.versions import CudaVersion, parse_driver_version

    driver = parse_driver_version(facts.driver)
    if driver is None:
        return None
    for text in facts.cuda_needed():
        major, _, minor = text.partition(".")
        cuda = CudaVersion(int(major), int(minor or 0))
        need = matrix.min_driver_for_cuda(cuda)
        if need is None or driver.key >= need.key:
            continue
        top = max_cuda_for_driver(matrix, driver)
        reach = f" (CUDA up to {top})" if top is not None else ""
        return Finding(
            DRIVER_BELOW_NEEDED_CUDA,
            Category.DRIVER_TOO_OLD,
            Severity.ERROR,
            f"The NVIDIA driver {facts.driver}{reach} is older than the CUDA {text} the "
            "failing build needs",
            evidence=(*facts.lines(), f"matrix: CUDA {cuda} needs driver {need} or later"),
            fix=f"Upgrade the NVIDIA driver to {need} or later, or install a build made for a "
            "CUDA this driver supports.",
            detail="Both versions come from the text: the driver from a diagnostic line, the "
            "CUDA from the runtime library's name.",
        )
    return None


def _env_first(findings: tuple[Finding, ...], facts: Optional[MessageFacts]) -> tuple[Finding, ...]:
    """A CUDA_VISIBLE_DEVICES the failing command or script set is named before the
    other causes of its grade when a finding blames it."""
    if not facts or "CUDA_VISIBLE_DEVICES" not in dict(facts.env):
        return findings
    return tuple(
        sorted(
            findings,
            key=lambda f: (f.severity.rank, f.category != Category.ENV_VAR_HIDES_GPU),
        )
    )


NON_NVIDIA_GPU = "gpu-not-nvidia"
_NO_NVIDIA_EXPLAINS = (
    Category.NO_DRIVER,
    Category.NO_GPU,
    Category.CPU_ONLY_BUILD,
    Category.ENV_VAR_HIDES_GPU,
    Category.DRIVER_TOO_OLD,
    Category.CONTAINER_NO_GPU,
)
"""First causes that a machine without an NVIDIA GPU produces: no driver found, no
device, a CPU build, CUDA's "insufficient driver" (35) with no driver at all, a container
engine with no NVIDIA runtime to hand a GPU over."""


def _non_nvidia_gpu_first(
    findings: tuple[Finding, ...], facts: Optional[MessageFacts]
) -> tuple[Finding, ...]:
    """A text that names only a GPU of another vendor (an AMD, Intel or Apple GPU) and
    fails the way a machine without an NVIDIA GPU does: that GPU is the cause."""
    if not facts or not (facts.other_gpus or facts.no_gpu_said) or not findings:
        return findings
    if facts.gpus or facts.gpu_names:
        return findings
    top = findings[0]
    if top.id == UNRECOGNISED or top.category not in _NO_NVIDIA_EXPLAINS:
        return findings
    if not facts.other_gpus:
        return (_said_no_gpu(facts.no_gpu_said or "", top), *findings)
    cause = Finding(
        NON_NVIDIA_GPU,
        Category.NO_GPU,
        Severity.ERROR,
        "The GPU the message names is not an NVIDIA GPU: CUDA cannot use it",
        evidence=(
            *(f"from the message: {n} (not an NVIDIA GPU)" for n in facts.other_gpus),
            f"{top.id}: {top.title}",
        ),
        fix=(
            "Run on the CPU (device='cpu', or a CPU build of the framework), or install the "
            "build for this GPU's own backend: PyTorch's ROCm wheels for AMD GPUs on Linux, "
            "its XPU build for Intel GPUs, MPS on Apple silicon."
        ),
    )
    return (cause, *findings)


SAID_NO_GPU = "gpu-none-said"


def _said_no_gpu(words: str, top: Finding) -> Finding:
    """The text says the machine has no GPU, and the failure is one such a machine
    produces: that is the cause."""
    return Finding(
        SAID_NO_GPU,
        Category.NO_GPU,
        Severity.ERROR,
        "The message says the machine has no NVIDIA GPU: CUDA code cannot run there",
        evidence=(f"from the message: {words!r}", f"{top.id}: {top.title}"),
        fix=(
            "Run on the CPU (device='cpu', the program's CPU option, or a CPU build of the "
            "framework), or run on a machine with an NVIDIA GPU and its driver."
        ),
    )


def _ranked(matches: tuple[Match, ...]) -> tuple[Match, ...]:
    """Most severe first; a cause the text states (the kernel's reason) before the
    symptoms it explains; then in the order of the text."""
    present = {m.signature.id for m in matches}
    explained = {
        sid for m in matches for sid in m.signature.explains if m.signature.id != sid
    } & present
    return tuple(
        sorted(
            matches,
            key=lambda m: (m.signature.severity.rank, m.signature.id in explained, m.line_no),
        )
    )


def _as_pasted(matches: tuple[Match, ...], norm: Normalised, text: str) -> tuple[Match, ...]:
    """The matches' lines numbered and shown as the text was pasted (see
    ``envcheck.explain.normalise``)."""
    if not matches:
        return matches
    from envcheck.explain.normalise import as_pasted

    original = text.split("\n")
    out = []
    for m in matches:
        lines = []
        for n, shown in m.lines:
            start, line = as_pasted(norm, original, n, shown)
            lines.append((start, shown if line is shown else _shorten(_printable(line))))
        out.append(replace(m, lines=tuple(lines)))
    return tuple(out)


def _stated_findings(
    facts: MessageFacts,
    doctor: tuple[Finding, ...],
    snapshot: Optional[Snapshot],
    matrix: Matrix,
    matches: tuple[Match, ...],
) -> tuple[Finding, ...]:
    """The doctor's errors and warnings that the message's own facts cause (a pip command for a
    build that has no wheel for the Python it shows, a CUDA_VISIBLE_DEVICES prefix
    that hides every GPU), unless a recognised signature already names them."""
    before = {(f.id, f.title) for f in _doctor_findings(snapshot, matrix)} if snapshot else set()
    named = {m.signature.category for m in matches}
    out = []
    for f in doctor:
        if f.severity == Severity.INFO or (f.id, f.title) in before or f.category in named:
            continue
        out.append(replace(f, evidence=(*facts.lines(), *f.evidence)))
    return tuple(out)


def explain_findings(
    text: str, snapshot: Optional[Snapshot] = None, matrix: Optional[Matrix] = None
) -> tuple[Finding, ...]:
    """Findings for the recognised signatures only (used by ``doctor --deep``)."""
    report = explain(text, snapshot, matrix)
    return report.findings if report.recognised else ()


def _lines(count: int) -> str:
    return "line" if count == 1 else "lines"


def _unrecognised(text: str, count: int) -> Finding:
    if not text.strip():
        title = "The text is empty: there is nothing to explain"
    else:
        title = "No known CUDA/cuDNN/driver error was recognised in the text"
    return Finding(
        UNRECOGNISED,
        Category.OTHER,
        Severity.WARNING,
        title,
        evidence=(f"{count} {_lines(count)} scanned against {len(_table())} known signatures",),
        fix="This does not mean the setup is healthy. Paste the full error output "
        "(the traceback and the lines before it), or run `envcheck doctor` to check "
        "the installed stack.",
    )


# -- root causes ------------------------------------------------------------------


def _weigh_shared_wordings(matches: tuple[Match, ...]) -> tuple[Match, ...]:
    """A wording that two real failures share takes its category from the facts
    beside it in the same text: TensorFlow's cuDNN handle failure is GPU memory
    already taken unless a "Loaded runtime CuDNN library ... but source was compiled
    with" line (the cuDNN version check in cuda_dnn.cc) shows a cuDNN mismatch; an
    out-of-memory or "failed to allocate" line confirms the memory reading."""
    shared = [m for m in matches if m.signature.analysis == CUDNN_HANDLE]
    if not shared:
        return matches
    mismatch = next(
        (
            m
            for m in matches
            if m.signature.category == Category.CUDNN_MISMATCH and m.facts.get("loaded")
        ),
        None,
    )
    memory = next((m for m in matches if m.signature.analysis == MEMORY), None)
    out = []
    for m in matches:
        if m.signature.analysis != CUDNN_HANDLE:
            out.append(m)
        elif mismatch is not None:
            why = (
                f"the process loaded cuDNN {mismatch.facts.get('loaded')}, not the "
                f"{mismatch.facts.get('compiled')} the build was compiled with (line "
                f"{mismatch.line_no}), so cuDNN could not start"
            )
            out.append(replace(m, category=Category.CUDNN_MISMATCH, root_cause=why))
        elif memory is not None:
            why = (
                f"the GPU ran out of memory (line {memory.line_no}), so cuDNN could not "
                "allocate its workspace"
            )
            out.append(replace(m, category=Category.OTHER, root_cause=m.root_cause or why))
        else:
            out.append(m)
    return tuple(out)


@dataclass
class _Cause:
    text: Optional[str] = None
    evidence: list[str] = field(default_factory=list)
    fix: Optional[str] = None
    category: Optional[Category] = None
    """The category the facts establish when it is not the signature's."""
    by: Optional[str] = None
    """The id of the doctor finding the cause was adopted from."""

    def add(self, fact: str) -> None:
        if fact not in self.evidence:
            self.evidence.append(fact)

    def because(self, text: str, fix: Optional[str] = None) -> None:
        if self.text is None:
            self.text = text
            if fix and self.fix is None:
                self.fix = fix


def _doctor_findings(snapshot: Snapshot, matrix: Matrix) -> tuple[Finding, ...]:
    """The doctor's findings on the same snapshot (run once per explain call)."""
    from envcheck.doctor import diagnose

    try:
        return diagnose(snapshot, matrix).findings
    except Exception:  # noqa: BLE001 - the doctor only backs the explanation up
        return ()


def _with_root_cause(
    m: Match,
    snapshot: Snapshot,
    matrix: Matrix,
    doctor: tuple[Finding, ...],
    told: tuple[str, ...] = (),
) -> Match:
    """The concrete cause of one match on ``snapshot`` (the machine with the message's
    facts laid over it); ``told`` lists those facts, shown as evidence when a doctor
    finding they feed names the cause."""
    from dataclasses import replace

    cause = _Cause()
    analysis = _ANALYSES.get(m.signature.analysis)
    try:
        agreeing = _doctor_agrees(m, doctor)
        errors = [f for f in agreeing if f.severity == Severity.ERROR]
        if errors:
            # The doctor, run on the snapshot with the message's facts laid over it,
            # names an error of the kind the signature reports: that is the cause.
            cause.because(errors[0].title, errors[0].fix)
            cause.by = errors[0].id
            if m.signature.analysis == UNSEEN_GPU:
                cause.category = errors[0].category
            for line in errors[0].evidence:
                cause.add(line)
        if analysis is not None:
            analysis(m, snapshot, matrix, cause)
        access = next((f for f in errors or agreeing if f.category in _ACCESS), None)
        if access is not None and not m.signature.reaches_gpu:
            # The machine gives the process no GPU at all: that, not what the message's
            # wording files it under, is the cause (error 35 in a container started
            # without GPUs, under WSL 1). The doctor only warns when nothing installed
            # is a CUDA build; the message shows a CUDA program failing.
            cause.because(access.title, access.fix)
            cause.category = access.category
        for f in agreeing:
            if f.title != cause.text:  # the root cause is not repeated as evidence
                cause.add(f"doctor: {f.title}")
            cause.because(f.title, f.fix)
        if agreeing:
            for line in told:
                cause.add(line)
        if cause.fix is None and (cause.text is not None or m.signature.category in _REPLACE_BUILD):
            # A build to replace is the signature's own cause: the resolver's commands
            # for the target the message describes stand in for its generic advice.
            cause.fix = _resolver_fix(m, snapshot, matrix)
    except Exception as exc:  # noqa: BLE001 - explaining must not crash on odd snapshots
        cause.add(f"(root-cause analysis stopped: {type(exc).__name__}: {exc})")
    return replace(
        m,
        root_cause=cause.text,
        evidence=tuple(cause.evidence),
        fix=cause.fix,
        category=cause.category,
    )


_REPLACE_BUILD = (Category.CPU_ONLY_BUILD, Category.DRIVER_TOO_OLD, Category.GPU_ARCH_UNSUPPORTED)
_LIBRARIES = (Category.CUDA_RUNTIME_MISSING, Category.CUDNN_MISMATCH)


def _resolver_fix(m: Match, snapshot: Snapshot, matrix: Matrix) -> Optional[str]:
    """The resolver's commands for the one installed framework the signature is about,
    when the cause is found but nothing gave a fix: its build replaced (CPU-only,
    driver, architecture), or the CUDA libraries it loads supplied. None otherwise
    (the signature's version-free advice stands)."""
    from envcheck.rules._fix import install_fix, libraries_fix, reinstall_fix

    wanted = set(m.signature.frameworks)
    installed = [fw for fw in snapshot.frameworks if fw.name in wanted and fw.version]
    category = m.signature.category
    if not installed and len(wanted) == 1 and category in _REPLACE_BUILD:
        # Nothing says which build is installed, but the message shows the machine: the
        # resolver's build of the one framework the message is about.
        # Only for a known OS and driver: PyPI's default wheel is a CUDA build on Linux
        # and a CPU one on Windows, and the CUDA variant must be one the driver runs, so
        # a command for an unknown machine may install a build that does not work.
        target = _target(snapshot, matrix)
        if target.os is None or target.driver is None:
            return None
        (name,) = wanted
        command = install_fix(name, target, matrix, snapshot.packages, replacing=name)
        return f"Install a build that runs here:\n  {command}" if command else None
    if len(installed) != 1 or not installed[0].name:
        return None
    fw = installed[0]
    if category in _REPLACE_BUILD:
        command = install_fix(
            fw.name or "",
            _target(snapshot, matrix),
            matrix,
            snapshot.packages,
            fw.version,
            fw.package or fw.name,
        )
        return f"Install a build that runs here:\n  {command}" if command else None
    if category in _LIBRARIES and not fw.cpu_only and fw.cuda_version:
        if fw.name == "torch":
            return reinstall_fix(fw, snapshot, matrix)
        return libraries_fix(fw, snapshot, matrix, cudnn=fw.cudnn_version)
    return None


def _doctor_agrees(m: Match, doctor: tuple[Finding, ...]) -> list[Finding]:
    """The doctor's errors and warnings in the categories the signature reports."""
    related = _RELATED.get(m.signature.category, (m.signature.category,))
    if m.signature.analysis == UNSEEN_GPU:
        # Seeing no GPU is what every cause of a GPU not being used looks like.
        related = tuple(c for c in Category if c not in _NOT_A_SETUP)
    ids = _RELATED_IDS.get(m.signature.category, ())
    return [
        f
        for f in doctor
        if (
            f.category in related
            or f.id in ids
            or (f.id in _NO_CUDA_HERE_IDS and m.signature.category not in _NOT_PLATFORM)
        )
        # The doctor only informs of a machine without GPU or driver; a CUDA error
        # from a program there is explained by it.
        and (f.severity != Severity.INFO or f.id in _NO_ACCESS_IDS)
        and not _about_another_framework(f, m.signature.frameworks)
    ]


def _about_another_framework(f: Finding, frameworks: tuple[str, ...]) -> bool:
    """A finding that judges another installed framework than the message's is no
    evidence for it (the CPU onnxruntime beside a JAX error)."""
    return bool(frameworks) and f.framework is not None and f.framework not in frameworks


# A missing cuDNN is filed under cuda_runtime_missing, but it is what a cuDNN
# signature reports too; a legacy GPU is a capability finding.
_ACCESS = (
    Category.CONTAINER_NO_GPU,
    Category.PLATFORM_UNSUPPORTED,
    Category.NO_GPU,
    Category.NO_DRIVER,
)
"""Doctor categories that mean no CUDA program here reaches a GPU (compat.access,
no driver loaded, no NVIDIA GPU)."""
_NO_ACCESS_IDS = ("container-no-gpu", "wsl1-no-gpu", "no-driver", "no-gpu", "macos-no-cuda")
_NO_CUDA_HERE_IDS = ("macos-no-cuda", "wsl1-no-gpu")
"""Platforms where no CUDA program runs at all: whatever a CUDA message says went
wrong (a CPU library loaded, a CUDA library missing), the platform is the cause."""
_NOT_PLATFORM = (
    Category.OTHER,
    Category.CAPABILITY,
    Category.NO_GPU,
    Category.NO_DRIVER,
    Category.PYTHON_UNSUPPORTED,
)
"""Categories the platform does not explain: a running GPU's states and features, a
machine with no NVIDIA GPU or driver at all (on macOS that is the fact itself), and
pip's choice of wheels for the interpreter."""

_NOT_A_SETUP = (Category.OTHER, Category.CAPABILITY, Category.PYTHON_UNSUPPORTED)
"""Doctor categories that do not make a framework see no GPU."""

_RELATED_IDS: dict[Category, tuple[str, ...]] = {
    Category.CUDNN_MISMATCH: ("cudnn-missing",),
    # CUDA answers "driver insufficient" (35) when it finds no usable driver at all.
    Category.DRIVER_TOO_OLD: _NO_ACCESS_IDS,
    Category.NO_DRIVER: ("wsl1-no-gpu",),
    Category.NO_GPU: ("wsl1-no-gpu",),
    # A GPU older than every CUDA release current builds use has no kernels in them.
    Category.GPU_ARCH_UNSUPPORTED: ("gpu-legacy-cuda",),
}


_RELATED: dict[Category, tuple[Category, ...]] = {
    Category.NO_GPU: (Category.NO_GPU, Category.ENV_VAR_HIDES_GPU, Category.CONTAINER_NO_GPU),
    Category.NO_DRIVER: (Category.NO_DRIVER, Category.CONTAINER_NO_GPU),
    Category.CUDA_RUNTIME_MISSING: (
        Category.CUDA_RUNTIME_MISSING,
        Category.LIB_PATH_CONFLICT,
        Category.MIXED_WHEELS,
    ),
    Category.CUDNN_MISMATCH: (Category.CUDNN_MISMATCH, Category.LIB_PATH_CONFLICT),
    Category.ENV_VAR_HIDES_GPU: (Category.ENV_VAR_HIDES_GPU,),
    Category.OTHER: (),
    Category.CAPABILITY: (),
}


def _target(snapshot: Snapshot, matrix: Matrix) -> Target:
    from envcheck.rules._facts import target_of

    return target_of(snapshot, matrix)


def _label(fw: Framework) -> str:
    from envcheck.rules._facts import fw_label

    return fw_label(fw)


def _driver(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    """Whether the installed build needs a newer driver is the doctor's driver rule's
    call (the message's driver facts are overlaid). Left here: the message names one
    framework and what the driver supports, but not which build failed, so no rule
    can judge it; the fix is then the newest build of that framework the resolver
    finds for this driver, never a fixed CUDA variant the driver may be too old for."""
    built = m.facts.get("built")
    if built and cause.text is None:
        # The NGC banner names both sides: the driver release the container needs, and
        # (on its next line, a message fact) the one it found.
        from envcheck.model.versions import parse_driver_version

        found = snapshot.driver.version
        need, have = parse_driver_version(built), parse_driver_version(found)
        if found and need is not None and have is not None and have < need:
            cause.because(
                f"the container needs NVIDIA driver {built} or later; the host runs {found}"
            )
        elif not found:
            cause.add("the banner names no host driver version")
    if cause.text is None and m.signature.id == INSUFFICIENT_DRIVER:
        _driver_not_reached(snapshot, matrix, cause)
    if cause.text is not None or len(m.signature.frameworks) != 1:
        return
    framework = m.signature.frameworks[0]
    if any(fw.name == framework and fw.version for fw in snapshot.frameworks):
        return
    target = _target(snapshot, matrix)
    top = target.driver_cuda
    if top is None and target.driver is not None:
        top = max_cuda_for_driver(matrix, target.driver, target.driver_os)
    if top is None:
        return
    command = _plan_command(framework, target, matrix)
    cause.because(
        f"the driver supports CUDA up to {top}, and the {framework} build that failed "
        "was made for a newer CUDA",
        "Upgrade the NVIDIA driver, or install a build this driver runs:\n  " + command
        if command
        else "Upgrade the NVIDIA driver.",
    )


INSUFFICIENT_DRIVER = "cuda-driver-insufficient"
"""cudaErrorInsufficientDriver (35) and its wordings: the runtime found no driver it can use."""


def _driver_not_reached(snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    """ "Driver older than the runtime" beside a driver the judge finds new enough for
    every build of the framework the text names (CUDA minor-version compatibility runs a
    CUDA 12.8 runtime on any 12.x driver): the failing process did not load that driver.
    A container started without GPU access (the driver shown is the host's), or a stub
    libcuda ahead of the driver's on the library path, report the same code."""
    from envcheck.compat import judge as J
    from envcheck.compat.candidate import candidates_for_installed

    target = _target(snapshot, matrix)
    if target.driver is None:
        return
    judged = []
    for fw in snapshot.frameworks:
        if not fw.version or fw.cpu_only:
            continue
        candidates = [c for c in candidates_for_installed(fw, matrix, target.platform) if c.cuda]
        if not candidates:
            continue
        verdicts = [J.judge(c, target, matrix) for c in candidates]
        if any(r.code == J.DRIVER for v in verdicts for r in v.errors):
            return  # a build the driver is too old for: the message's plain reading
        judged.append((fw, max(c.cuda for c in candidates if c.cuda)))
    if not judged:
        return
    fw, cuda = judged[0]
    cause.category = Category.CONTAINER_NO_GPU
    cause.because(
        f"driver {target.driver.raw} runs CUDA {cuda}, the newest {fw.name} {fw.version} "
        "can be built with, so the process that failed did not load that driver: a "
        "container started without GPU access (the driver shown is the host's), or a stub "
        "libcuda ahead of the driver's",
        "Start the container with GPU access (`docker run --gpus all`, or the GPU "
        "reservation of your compose file or orchestrator, with the NVIDIA Container Toolkit "
        "on the host); outside a container, remove any stubs directory from LD_LIBRARY_PATH.",
    )


def _plan_command(framework: str, target: Target, matrix: Matrix) -> Optional[str]:
    """The resolver's commands installing ``framework`` on ``target``."""
    from envcheck.rules._fix import install_fix

    return install_fix(framework, target, matrix)


def _arch(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    """Whether a build runs on the GPU is the doctor's arch rule's call (the GPU and
    the compiled list the message states are overlay facts). Left here: a ptxas that
    cannot compile for the GPU, which no snapshot rule judges (the toolkit is not the
    framework build)."""
    below, floor = m.facts.get("cc"), m.facts.get("min")
    if below and floor:
        # TensorFlow's gpu_device.cc states both numbers: the judgement is the message's.
        cause.because(
            f"the GPU's compute capability {below} is below the {floor} this build of "
            f"{'/'.join(m.signature.frameworks)} requires"
        )
        return
    if m.signature.id != "ptxas-unknown-gpu-arch":
        return
    from envcheck.rules._facts import gpu_facts

    ccs = [(g.label, g.cc) for g in gpu_facts(snapshot, matrix) if g.cc is not None]
    cc = parse_compute_capability(m.facts.get("sm"))
    if not ccs and cc is not None:
        ccs.append((f"the GPU in the message (sm_{cc.major}{cc.minor})", cc))
    _ptxas(snapshot, matrix, ccs, cause)


def _ptxas(
    snapshot: Snapshot,
    matrix: Matrix,
    ccs: list[tuple[str, ComputeCapability]],
    cause: _Cause,
) -> None:
    for tk in snapshot.cuda_toolkits:
        cuda = parse_cuda_version(tk.version)
        if cuda is None:
            continue
        row = matrix.toolkit_archs_for(cuda)
        where = f" at {tk.path}" if tk.path else ""
        cause.add(f"CUDA toolkit {tk.version}{where}")
        if row is None:
            continue
        for label, cc in ccs:
            if cc not in row.compute_capabilities:
                cause.because(
                    f"the CUDA {cuda} toolkit{where} predates {label}; its compiler "
                    "cannot build for it",
                    "Install a newer CUDA toolkit (or the nvidia-cuda-nvcc wheel of your "
                    "framework's CUDA) and put its bin directory first on PATH.",
                )


def _cpu_build(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    from envcheck.rules._facts import gpu_facts

    gpus = gpu_facts(snapshot, matrix)
    has_gpu = bool(gpus) or snapshot.driver.version is not None
    unseen = snapshot.source == MESSAGE_ONLY
    if gpus:
        cause.add("GPUs: " + ", ".join(g.label for g in gpus))
    elif snapshot.driver.version:
        cause.add(f"driver.version = {snapshot.driver.version}")
    elif unseen:
        cause.add("the machine was not inspected: its GPUs and driver are unknown")
    else:
        cause.add("no NVIDIA GPU or driver detected")
    wanted = set(m.signature.frameworks)
    installed = [fw for fw in snapshot.frameworks if fw.name in wanted]
    if not installed:
        if not unseen:
            names = ", ".join(sorted(wanted))
            cause.add(f"{names}: not installed in the inspected environment")
        return
    target = _target(snapshot, matrix)
    for fw in installed:
        # A JAX plugin or cupy-cudaXXx records its CUDA major only: a CUDA build all the same.
        cuda = fw.cuda_shown
        cpu = fw.cpu_only is True or (fw.cpu_only is None and cuda is None)
        cause.add(f"{_label(fw)}: " + ("CPU-only build" if cpu else f"CUDA {cuda}"))
        if not cpu:
            cause.because(
                f"{_label(fw)} in the inspected environment is a CUDA {cuda} build, not a "
                "CPU one: its CUDA backend failed to start, or the message came from "
                "another environment",
                "Look for the first error in the log (it says why the CUDA backend did not "
                "start), and check that the message came from this environment.",
            )
            continue
        fix = None
        if target.gpus and fw.name:
            # The resolver's plan for this framework on these GPUs, as the doctor's
            # CPU-build rule words it (the GPUs are NVIDIA's: a CUDA build, never a CPU
            # one); the CPU build goes first, or pip keeps it for the same version.
            from envcheck.rules._fix import install_fix

            command = install_fix(
                fw.name,
                replace(target, nvidia=True),
                matrix,
                snapshot.packages,
                fw.version,
                fw.package or fw.name,
            )
            if command:
                fix = f"Install a GPU build that runs here:\n  {command}"
        if has_gpu:
            cause.because(f"{_label(fw)} is a CPU-only build on a machine with an NVIDIA GPU", fix)
        elif unseen:
            cause.because(f"{_label(fw)} is a CPU-only build", fix)
        else:
            cause.because(
                f"{_label(fw)} is a CPU-only build, and this machine shows no NVIDIA GPU either",
                "A GPU build needs an NVIDIA GPU and driver; run the code on the CPU "
                "(device='cpu') or on a GPU machine.",
            )
    if "onnxruntime" in wanted:
        pkgs = {k.lower() for k in snapshot.packages}
        if {"onnxruntime", "onnxruntime-gpu"} <= pkgs:
            cause.because(
                "both onnxruntime and onnxruntime-gpu are installed; the CPU package "
                "shadows the GPU one",
                "pip uninstall -y onnxruntime onnxruntime-gpu && pip install onnxruntime-gpu",
            )


def _cudnn(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    from envcheck.explain.catalogue import fact_pattern

    line = " ".join(text for _n, text in m.lines)
    dep = fact_pattern("loader-missing-dependency").search(line)
    failing = m.facts.get("lib") or ""
    if dep and not dep.group(1).startswith(failing.split(".so")[0] or "-"):
        name = dep.group(1)
        if name.startswith("libcuda.so"):
            cause.because(
                "cuDNN itself is present, but the driver library libcuda.so it loads cannot "
                "be found",
                "On WSL2 add /usr/lib/wsl/lib to the loader path (`sudo ldconfig` after "
                "checking /etc/ld.so.conf.d); elsewhere install the NVIDIA driver.",
            )
        else:
            cause.because(
                f"cuDNN itself is present, but its dependency {name} cannot be found",
                f"Install the library that provides {name} (for pip environments the "
                "matching nvidia-* wheel) or add its directory to LD_LIBRARY_PATH.",
            )
    _cudnn_compat_version(m, cause)
    # A loaded cuDNN older than the build's, a cuDNN major the process could not open,
    # and an older copy installed beside the one the build needs are the doctor's cuDNN
    # rule's call (the message's facts are overlaid); what is left lists the installed
    # copies when no doctor error named the cause.
    from envcheck.model.snapshot import FROM_MESSAGE, LIB_NOT_LOADABLE

    libs = [
        lib
        for lib in snapshot.libraries
        if (lib.name or "").lower() == "cudnn"
        and lib.source not in (FROM_MESSAGE, LIB_NOT_LOADABLE)
    ]
    if cause.text is None:
        for lib in libs:
            where = f" at {lib.path}" if lib.path else ""
            src = f" ({lib.source})" if lib.source else ""
            cause.add(f"cuDNN {lib.version or '?'}{where}{src}")
        for fw in snapshot.frameworks:
            if fw.cudnn_version:
                cause.add(f"{_label(fw)} was built with cuDNN {fw.cudnn_version}")
    ld = snapshot.env.get("LD_LIBRARY_PATH")
    if ld:
        cause.add(f"LD_LIBRARY_PATH = {ld}")


def _cudnn_compat_version(m: Match, cause: _Cause) -> None:
    """Message-only: TensorFlow 1.x compared cuDNN "compatibility versions" (major and
    minor) exactly, and PyTorch before 1.12 the whole version, so a newer copy was
    refused too; no installed-build fact says which release compared that way, only
    the message's wording does."""
    from envcheck.explain.facts import extract

    line = " ".join(text for _n, text in m.lines)
    facts = extract(line)
    loaded, compiled = facts.cudnn_loaded, facts.cudnn_compiled
    if "but linked against" in line and loaded and compiled and loaded != compiled:
        # PyTorch before 1.12 (the "linked against" wording) wanted the exact cuDNN.
        cause.because(
            f"this PyTorch needs exactly the cuDNN {compiled} it was built with; the process "
            f"loaded {loaded}",
            "Remove the other cuDNN from LD_LIBRARY_PATH / PATH so the copy PyTorch ships "
            f"is used, or install cuDNN {compiled}.",
        )
        return
    if "compatibility version" not in line:
        return
    if loaded and compiled and loaded.split(".")[:2] != compiled.split(".")[:2]:
        cause.because(
            f"the loaded cuDNN {loaded} is not the {'.'.join(compiled.split('.')[:2])}.x this "
            "TensorFlow was built with (it needs the same major and minor)",
            f"Install cuDNN {'.'.join(compiled.split('.')[:2])} (the version the TensorFlow "
            "release was tested with) and put it first on the loader path.",
        )


def _cuda_lib(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    """Which CUDA runtime the failing process lacked, and what is installed instead, is
    the doctor's CUDA runtime rule's call (the library the message could not open is an
    overlay fact). Left here, message-only: onnxruntime-gpu's own fix, since only the
    message says that the library was onnxruntime's CUDA provider's dependency."""
    from envcheck.rules.lib_paths import CUDA_RUNTIME_MISSING, installed_cuda

    if (m.facts.get("lib") or "").lower().startswith(("libcudnn", "cudnn")):
        # The library that did not load is cuDNN's (onnxruntime's provider names it
        # after "with error:"): a cuDNN cause, whichever loader reported it.
        cause.category = Category.CUDNN_MISMATCH
    if not m.signature.id.startswith("onnxruntime") or cause.by != CUDA_RUNTIME_MISSING:
        return
    table = "(ONNX Runtime's CUDA requirements table lists which version uses which CUDA and cuDNN)"
    majors = sorted({v.major for v, _what in installed_cuda(snapshot)})
    if majors:
        cause.fix = (
            f"Install the onnxruntime-gpu build for CUDA {', '.join(map(str, majors))} {table}."
        )
    elif cause.fix:
        cause.fix += f"\nOr install the onnxruntime-gpu build for the CUDA you have {table}."


def _uninspected(snapshot: Snapshot) -> bool:
    """True when nothing was detected (``--no-detect``): the snapshot holds only what
    the message states, so a missing fact is unknown, never observed absent."""
    return snapshot.source == MESSAGE_ONLY


def _no_driver(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    p = snapshot.platform
    told = _uninspected(snapshot)
    if snapshot.driver.version:
        cause.add(f"driver.version = {snapshot.driver.version}")
        cause.because(
            f"driver {snapshot.driver.version} is installed on the inspected machine, so the "
            "error most likely came from another environment (a container, a job node) or "
            "from before the module was loaded"
        )
        return
    cause.add(
        "the machine was not inspected: its driver and GPUs are unknown"
        if told
        else "driver.version = not found"
    )
    if p.os == "darwin":
        cause.add("platform.os = darwin" + (" (from the message)" if told else ""))
        cause.category = Category.NO_GPU
        cause.because(
            "the program runs on macOS, where there is no NVIDIA GPU or driver (CUDA and "
            "NVML do not exist there; Apple silicon GPUs are used through MPS)",
            "Turn the NVIDIA GPU code path off on macOS (device='mps' or 'cpu' in PyTorch), "
            "or run on a Linux or Windows machine with an NVIDIA GPU.",
        )
    elif p.container:
        cause.add(f"platform.container = {p.container}" + (" (from the message)" if told else ""))
        cause.category = Category.CONTAINER_NO_GPU
        cause.because(
            f"the program runs in a {p.container} container without GPU access",
            "Start the container with `--gpus all` (Docker, with the NVIDIA Container "
            "Toolkit installed on the host) or request a GPU from the orchestrator.",
        )
    elif p.wsl:
        cause.add("platform.wsl = true")
        cause.because(
            "WSL2 gets the driver from Windows; libcuda.so.1 should be in /usr/lib/wsl/lib",
            "Install or update the NVIDIA driver on Windows (not inside WSL), then run "
            "`wsl --shutdown` and check `ls /usr/lib/wsl/lib/libcuda.so.1`.",
        )
    elif snapshot.gpus:
        cause.category = Category.NO_DRIVER
        cause.because(
            "the message names an NVIDIA GPU, so the driver, not the GPU, is missing"
            if told
            else "a GPU is present but no NVIDIA driver is loaded"
        )
    elif told:
        # Nothing was detected: the message alone cannot tell a missing driver from a
        # machine without an NVIDIA GPU, so neither is stated as observed.
        return
    else:
        # Inspected: a machine whose probes saw no NVIDIA GPU or driver has none; one
        # whose hardware could not be read (a collect_env report) most likely has the GPU
        # it was reported for, without a working driver.
        if snapshot.nvidia() is False:
            cause.category = Category.NO_GPU
        elif m.signature.analysis == NO_DRIVER:
            cause.category = Category.NO_DRIVER
        cause.because("no NVIDIA driver (and no NVIDIA GPU) was detected on this machine")


def _no_gpu(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    _env_var(m, snapshot, matrix, cause)
    if cause.text:
        return
    if snapshot.gpus:
        cause.add(
            f"{len(snapshot.gpus)} GPU(s) detected: "
            + ", ".join(g.name or "?" for g in snapshot.gpus)
        )
    elif snapshot.source != MESSAGE_ONLY:
        cause.add("no GPUs detected")
    _no_driver(m, snapshot, matrix, cause)


def _env_var(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    """The values as evidence; whether they hide the GPUs is the doctor's
    env-var rule's call (``_doctor_agrees`` adopts its finding)."""
    for var in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"):
        value = snapshot.env.get(var)
        if value is not None:
            cause.add(f"{var} = {value!r}")
    if "CUDA_VISIBLE_DEVICES" not in snapshot.env and m.signature.analysis == ENV_VAR:
        cause.add("CUDA_VISIBLE_DEVICES is not set in the inspected environment")


def _memory(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    for g in snapshot.gpus:
        if g.memory_total_mib:
            cause.add(f"GPU {g.index} {g.name or ''}: {g.memory_total_mib} MiB".replace("  ", " "))


def _bf16(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    from envcheck.explain.catalogue import fact_pattern
    from envcheck.rules._facts import gpu_facts

    line = " ".join(text for _n, text in m.lines)
    bf16 = fact_pattern("bf16-named").search(line) is not None
    for g in gpu_facts(snapshot, matrix):
        if g.cc is None:
            continue
        # Whether an architecture has bfloat16 is a row of gpus.toml; none: unknown.
        arch = matrix.architecture_for(g.cc)
        supports = arch.bf16 if arch is not None else None
        if supports is None:
            continue
        cause.add(f"{g.label}: bfloat16 {'supported' if supports else 'not supported'}")
        if bf16 and supports is False:
            cause.because(
                f"the operation uses bfloat16, which {g.label} does not support",
                "Use torch.float16 (or float32) instead of bfloat16 on this GPU.",
            )


# Extension modules whose name is not their distribution's (they sit at the top of
# site-packages): flash-attn's and apex's.
_MODULE_PACKAGES = {
    "flash_attn_2_cuda": "flash-attn",
    "flash_attn_cuda": "flash-attn",
    "amp_c": "apex",
    "fused_layer_norm_cuda": "apex",
    "apex_c": "apex",
}


def _companion(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    """The companion the loader or its own check names (from the .so path, fact
    ``site-packages-module``, or the operator's namespace), judged against the torch
    the message or snapshot shows."""
    from envcheck import names
    from envcheck.explain.catalogue import fact_pattern

    own = m.facts.get("lib") or ""
    if own.startswith(("libtorch", "libc10")):
        _torch_library(own, snapshot, matrix, cause)
        return
    module = m.facts.get("lib") or m.facts.get("lib2")
    if not module:
        for _n, line in m.lines:
            where = fact_pattern("site-packages-module").search(line)
            if where:
                module = where.group(1)
                break
    if not module:
        return
    package = _MODULE_PACKAGES.get(module.lower(), names.canonical(module))
    installed = snapshot.packages.get(package) or snapshot.packages.get(module)
    torch = next((fw for fw in snapshot.frameworks if fw.name == "torch"), None)
    if installed:
        cause.add(f"{package} {installed} installed")
    if torch is not None and torch.version:
        cause.add(f"{_label(torch)} installed")
    found, built = m.facts.get("found"), m.facts.get("built")
    if found and built:
        cause.because(f"{package} was built for CUDA {built}, the installed torch for CUDA {found}")
    else:
        cause.because(f"{package} was built for another torch release than the one it runs with")


def _torch_library(lib: str, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    """A package's extension cannot open one of torch's own libraries: a CPU-only torch
    has no libtorch_cuda*/libc10_cuda at all; otherwise the package was built for
    another torch release."""
    torch = next((fw for fw in snapshot.frameworks if fw.name == "torch"), None)
    if torch is None or not torch.version:
        cause.because(f"the package was built for another torch release: this torch has no {lib}")
        return
    cause.add(f"{_label(torch)} installed")
    cpu = torch.cpu_only is True or torch.version.endswith("+cpu")
    if cpu and "cuda" in lib:
        cause.category = Category.CPU_ONLY_BUILD
        plan = _plan_command("torch", _target(snapshot, matrix), matrix)
        cause.because(
            f"the installed torch ({_label(torch)}) is a CPU-only build, which has no {lib}: "
            "a CUDA package beside it cannot load",
            f"Install the CUDA build of torch:\n  {plan}" if plan else None,
        )
        return
    cause.because(f"the package was built for another torch release: {_label(torch)} has no {lib}")


def _nvml(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    """Both versions when the message gives them: the kernel module that is loaded and
    the user-space driver (libcuda, NVML, the client) that talks to it."""
    kernel, client = m.facts.get("kernel"), m.facts.get("client")
    if kernel:
        cause.add(f"kernel module: driver {kernel}")
    if client:
        cause.add(f"user-space driver libraries: {client}")
    if kernel and client and kernel != client:
        cause.because(
            f"the loaded kernel module is driver {kernel} but the user-space libraries are "
            f"{client}: the driver changed without the module being reloaded, or two driver "
            "installs are mixed",
            "Reboot so the module of the installed driver loads; if it persists, remove the "
            "second driver install (distribution packages and the .run installer, or a "
            "libcuda copied into a container image).",
        )


def _unseen_gpu(m: Match, snapshot: Snapshot, matrix: Matrix, cause: _Cause) -> None:
    """A framework's own check says it sees no GPU (``torch.cuda.is_available()``
    False, TensorFlow's empty GPU list, JAX's CPU devices). That is a symptom: the
    doctor's errors on the machine (the message's facts laid over it) decide it first
    (``_with_root_cause`` adopts any of them); what the text shows beside it comes next:
    a ``CUDA_VISIBLE_DEVICES`` the script sets, a release with no GPU build for the
    platform the text is from (or may be from). Otherwise the row's own reading, the
    most common cause of that framework's check failing, stands."""
    from envcheck.compat.platform import gpu_platform_reason

    if cause.text is not None:
        return
    from envcheck.rules.env_vars import hiding_reason

    value = snapshot.env.get("CUDA_VISIBLE_DEVICES")
    if value is not None:
        cause.add(f"CUDA_VISIBLE_DEVICES = {value!r}")
        # The GPUs are not known (else the doctor's env-var rule already judged it): a
        # value that hides the only GPU of a one-GPU machine is the likely cause.
        hides = None if snapshot.gpus else hiding_reason(value, 1, set())
        if hides is not None:
            cause.category = Category.ENV_VAR_HIDES_GPU
            cause.because(
                f"CUDA_VISIBLE_DEVICES={value!r} hides the GPU of a one-GPU machine, so the "
                f"framework sees none: {hides}",
                "Set CUDA_VISIBLE_DEVICES to indices that exist (`nvidia-smi -L` lists them; "
                "a one-GPU machine has only 0) or unset it.",
            )
            return
    told = _uninspected(snapshot)
    os_name = snapshot.platform.os
    for fw in snapshot.frameworks:
        if fw.name not in m.signature.frameworks or not fw.version:
            continue
        if os_name not in (None, "windows"):
            continue
        reason = gpu_platform_reason(matrix, fw.name, fw.version, "windows-x86_64", fw.package)
        if reason is None:
            continue
        cause.category = reason.category
        cause.add(f"{_label(fw)} (from the message)" if told else _label(fw))
        if os_name is None:
            cause.add(
                "the operating system is not shown; native Windows is assumed, the "
                "platform most such reports come from"
            )
        for cite in reason.sources:
            cause.add(f"matrix: {cite}")
        cause.because(
            reason.message
            if os_name == "windows"
            else f"if this runs on native Windows: {reason.message}",
            "On Windows use WSL2 (the Linux build sees the GPU there), or a release that "
            "still has a Windows GPU build (`envcheck plan` with `--os windows` names it).",
        )
        return


_ANALYSES = {
    UNSEEN_GPU: _unseen_gpu,
    DRIVER: _driver,
    ARCH: _arch,
    CPU_BUILD: _cpu_build,
    CUDNN: _cudnn,
    CUDA_LIB: _cuda_lib,
    NO_DRIVER: _no_driver,
    NO_GPU: _no_gpu,
    ENV_VAR: _env_var,
    MEMORY: _memory,
    BF16: _bf16,
    COMPANION: _companion,
    NVML: _nvml,
}
