"""What a plan is: its picks (``Pick``), the decisions behind them (``Decision``), why
nothing fits (``Unsatisfiable``) and the whole answer (``Plan``), as every emitter,
command and fix reads them; ``envcheck.resolve.plan`` computes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from envcheck.errors import EnvcheckError

if TYPE_CHECKING:
    from envcheck.compat.target import Target
    from envcheck.model.versions import CudaVersion

SCHEMA = "envcheck.plan/1"


@dataclass(frozen=True)
class Decision:
    """One step of the reasoning, with the matrix rows behind it (``--explain``)."""

    subject: str
    text: str
    sources: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"subject": self.subject, "text": self.text, "sources": list(self.sources)}


@dataclass(frozen=True)
class Pick:
    """One package to install, pinned."""

    framework: str
    package: str
    version: Optional[str]
    """None: the matrix has no rows for it; the requirement is passed on as written."""
    variant: Optional[str] = None
    extra: Optional[str] = None
    cuda: Optional[CudaVersion] = None
    cudnn: Optional[str] = None
    bundles_cuda: Optional[bool] = None
    index_url: Optional[str] = None
    pypi_default: bool = False
    """Plain PyPI serves this variant on linux-x86_64."""
    find_links: Optional[str] = None
    """A pip ``--find-links`` page the wheel comes from (old jaxlib CUDA builds)."""
    specifier: str = ""
    """The user's specifier, used only when ``version`` is None."""
    caveats: tuple[str, ...] = ()
    source: Optional[str] = None

    @property
    def requirement(self) -> str:
        """``tensorflow[and-cuda]==2.15.0`` (a PEP 508 string)."""
        name = self.package + (f"[{self.extra}]" if self.extra else "")
        if self.version is None:
            return name + self.specifier
        return f"{name}=={self.version}"

    def to_json(self) -> dict[str, Any]:
        return {
            "framework": self.framework,
            "package": self.package,
            "version": self.version,
            "requirement": self.requirement,
            "variant": self.variant,
            "extra": self.extra,
            "cuda": None if self.cuda is None else str(self.cuda),
            "cudnn": self.cudnn,
            "bundles_cuda": self.bundles_cuda,
            "index_url": self.index_url,
            "pypi_default": self.pypi_default,
            "find_links": self.find_links,
            "caveats": list(self.caveats),
            "source": self.source,
        }


@dataclass(frozen=True)
class Unsatisfiable:
    """Why no environment satisfies the request, and what would unblock it."""

    framework: str
    constraint: str
    """driver, gpu_arch, python, platform, companion, shared_cuda, no_release."""
    message: str
    unblock: str
    sources: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.message}; {self.unblock}" if self.unblock else self.message

    def to_json(self) -> dict[str, Any]:
        return {
            "framework": self.framework,
            "constraint": self.constraint,
            "message": self.message,
            "unblock": self.unblock,
            "sources": list(self.sources),
        }


@dataclass(frozen=True)
class Plan:
    """The outcome of ``plan()``: picks that run together, or what blocks them."""

    requirements: tuple[str, ...]
    target: Target
    picks: tuple[Pick, ...] = ()
    cuda_major: Optional[int] = None
    cudnn_major: Optional[int] = None
    decisions: tuple[Decision, ...] = ()
    unsatisfiable: Optional[Unsatisfiable] = None
    warnings: tuple[str, ...] = field(default=())
    driver_max_cuda: Optional[CudaVersion] = None
    """Highest CUDA the target's driver runs natively; None when unknown."""
    pin_conflicts: tuple[str, ...] = ()
    """Frameworks whose exact nvidia-* pins disagree (wheel Requires-Dist): one pip
    command cannot install them together, so emitters give each its own command and
    the later one re-pins the shared NVIDIA wheels under the earlier."""

    @property
    def ok(self) -> bool:
        return self.unsatisfiable is None

    @property
    def index_urls(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.index_url for p in self.picks if p.index_url))

    def to_json(self) -> dict[str, Any]:
        t = self.target
        return {
            "schema": SCHEMA,
            "ok": self.ok,
            "requirements": list(self.requirements),
            "target": {
                "os": t.os,
                "arch": t.arch,
                "driver": None if t.driver is None else t.driver.raw,
                "gpus": [f"{c.major}.{c.minor}" for c in t.gpus],
                "gpu_names": list(t.gpu_names),
                "python": t.python,
            },
            "cuda_major": self.cuda_major,
            "cudnn_major": self.cudnn_major,
            "driver_max_cuda": None if self.driver_max_cuda is None else str(self.driver_max_cuda),
            "picks": [p.to_json() for p in self.picks],
            "unsatisfiable": None if self.unsatisfiable is None else self.unsatisfiable.to_json(),
            "warnings": list(self.warnings),
            "pin_conflicts": list(self.pin_conflicts),
            "decisions": [d.to_json() for d in self.decisions],
        }


class PlanInputError(EnvcheckError):
    """A requirement envcheck cannot plan (unknown framework, bad syntax)."""
