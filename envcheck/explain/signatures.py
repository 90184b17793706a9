"""Known CUDA / cuDNN / driver / NVML error signatures: the row types and their vocabulary.

The rows themselves are data: ``signatures/*.toml`` beside ``matrices/`` (format:
``signatures/README.md``), read by :mod:`envcheck.explain.catalogue` the first
time ``SIGNATURES`` is used. Each row names one error message family, the
frameworks that print it, what it usually means and what to do. ``source``
points at a public issue where users hit exactly this text (or an official page
describing it), so a reviewer can check the reading; ``emitted_by`` names the file whose text the pattern mirrors
(``owner/repo:path@commit``). Titles, causes and fixes are ours.

Rows are matched line by line with ``re.search`` (case-sensitive unless the
pattern says otherwise). A row may ``supersede`` more generic rows: when both
match the same line, only the specific one is reported.

Named groups are facts the explainer uses to build a concrete root cause:
``sm`` (a GPU architecture), ``lib`` (a shared library), ``major`` (its major
version), ``loaded``/``compiled`` (cuDNN versions), ``found``/``built``
(versions JAX or PyTorch compares), ``code`` (an error code name).

The patterns that read facts from the rest of a message (the interpreter banner,
nvidia-smi's header, ...) are data too: ``Fact`` rows of ``signatures/facts.toml``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from re import Pattern
from typing import TYPE_CHECKING, Any

from envcheck.model.finding import Category, Severity

if TYPE_CHECKING:
    SIGNATURES: tuple[Signature, ...]
    """Every row of the catalogue, in matching order (loaded on first use)."""

# Which root-cause analysis applies to a signature (see envcheck.explain.core).
DRIVER = "driver"
ARCH = "arch"
CPU_BUILD = "cpu_build"
CUDNN = "cudnn"
CUDA_LIB = "cuda_lib"
NVML = "nvml"
NO_DRIVER = "no_driver"
NO_GPU = "no_gpu"
ENV_VAR = "env_var"
MEMORY = "memory"
BF16 = "bf16"
COMPANION = "companion"
CUDNN_HANDLE = "cudnn_handle"
UNSEEN_GPU = "unseen_gpu"
"""A framework's own check that it sees no GPU (``is_available()`` False, an empty
GPU list): a symptom whose cause the facts beside it decide."""
NONE = ""
ANALYSES = (
    DRIVER, ARCH, CPU_BUILD, CUDNN, CUDA_LIB, NVML, NO_DRIVER, NO_GPU, ENV_VAR, MEMORY, BF16,
    COMPANION, CUDNN_HANDLE, UNSEEN_GPU,
)  # fmt: skip
"""The analyses a row may name (``analysis``; NONE is written by leaving it out)."""

ALL_FRAMEWORKS = ("torch", "tensorflow", "jax", "onnxruntime", "cupy", "paddle")


@dataclass(frozen=True)
class Signature:
    """One recognisable error message and what it means."""

    id: str
    regex: str
    frameworks: tuple[str, ...]
    category: Category
    title: str
    cause: str
    fix: str
    source: str
    severity: Severity = Severity.ERROR
    analysis: str = NONE
    """Which snapshot facts explain it (DRIVER, ARCH, ...); empty for none."""
    supersedes: tuple[str, ...] = ()
    """Ids of more generic signatures this one hides on the same line."""
    emitted_by: str = ""
    """The source file that prints the message, ``owner/repo:path@commit`` (empty
    for rows written before this field; new rows name it)."""
    explains: tuple[str, ...] = ()
    """Ids of symptom signatures this cause produces: when both are in the text, this
    one is named first (a kernel-stated reason before the nvidia-smi failure it causes)."""
    reaches_gpu: bool = False
    """The message is printed only after the driver reached a GPU, so a process without
    GPU access (a container started without one) cannot be its cause."""
    pattern: Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pattern", re.compile(self.regex))


@dataclass(frozen=True)
class Fact:
    """One pattern that reads a fact from a message or log (``signatures/facts.toml``),
    looked up by id (``envcheck.explain.catalogue.fact_pattern``); what its groups mean
    is the reading code's."""

    id: str
    regex: str
    """The pattern as compiled: fragments expanded."""
    reads: str
    """What it reads, one line (documentation only)."""
    ignorecase: bool = False
    multiline: bool = False
    source: str = ""
    """Where the wording comes from (an http(s) URL), when a page documents it."""
    emitted_by: str = ""
    """The file that prints the text, ``owner/repo:path@commit``, when known."""
    pattern: Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        flags = (re.IGNORECASE if self.ignorecase else 0) | (re.MULTILINE if self.multiline else 0)
        object.__setattr__(self, "pattern", re.compile(self.regex, flags))


def __getattr__(name: str) -> Any:
    # SIGNATURES is read from the catalogue the first time it is used, not at import.
    if name == "SIGNATURES":
        from envcheck.explain.catalogue import load_catalogue

        return load_catalogue()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def by_id() -> dict[str, Signature]:
    from envcheck.explain.catalogue import load_catalogue

    return {s.id: s for s in load_catalogue()}
