"""Which conda channel an emitted environment uses, and what it pins from it.

Facts come from ``matrices/conda.toml``: a package is pinned from a channel only
when a ``[[package]]`` row says that channel ships it for the target platform and
Python (and, for CUDA builds, a CUDA the plan's driver runs); an ``[[absent]]`` row
sends it to pip. One channel per environment: mixing defaults and conda-forge builds of
one stack is what breaks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import CondaAbsent, CondaCudaPackage, CondaPackage
    from envcheck.resolve.plan_model import Pick, Plan

CONDA_FORGE = "conda-forge"
DEFAULTS = "defaults"


@dataclass(frozen=True)
class CondaFacts:
    """The conda rows of a matrix (``Matrix.conda_packages`` / ``conda_absent``)."""

    packages: tuple[CondaPackage, ...] = ()
    absent: tuple[CondaAbsent, ...] = ()
    cuda_packages: tuple[CondaCudaPackage, ...] = ()

    @classmethod
    def of(cls, matrix: Matrix) -> CondaFacts:
        return cls(matrix.conda_packages, matrix.conda_absent, matrix.conda_cuda_packages)

    def has_cuda_package(self, name: str, major: int, minor: int) -> bool:
        """Whether conda-forge's ``name`` (``cuda-version``, ``cudatoolkit``) exists for
        CUDA ``major.minor`` (``[[cuda_package]]`` rows of conda.toml)."""
        release = f"{major}.{minor}"
        return any(
            row.name == name and row.channel == "conda-forge" and release in row.versions
            for row in self.cuda_packages
        )


@dataclass(frozen=True)
class ChannelPick:
    """A pick served by a channel row: the match specs it becomes."""

    pick: Pick
    row: CondaPackage

    def specs(self) -> tuple[str, ...]:
        out = [f"{self.row.name}={self.pick.version}"]
        if self.row.cuda:
            out.append(f"cudatoolkit={self.row.cuda}")
        if self.row.cudnn:
            out.append(f"cudnn={self.row.cudnn}.*")
        return tuple(out)


def shipped_facts() -> CondaFacts:
    """The active matrix's conda rows (for emitters called with a plan only)."""
    from envcheck.matrix import load_matrix

    return CondaFacts.of(load_matrix())


def find_row(pick: Pick, plan: Plan, facts: CondaFacts, channel: str) -> Optional[CondaPackage]:
    """The row of ``channel`` that ships this exact pick for the plan's target."""
    if pick.version is None:
        return None
    platform = plan.target.platform
    python = plan.target.python
    for row in facts.packages:
        if row.channel != channel or row.pip != pick.package:
            continue
        if pick.version not in row.versions:
            continue
        if platform is None or platform not in row.platforms:
            continue
        if python is not None and row.python and python not in row.python:
            continue
        if pick.cuda is not None and row.cuda is not None:
            if row.cuda != f"{pick.cuda.major}.{pick.cuda.minor}":
                continue
        elif (pick.cuda is None) != (row.cuda is None):
            continue
        return row
    return None


def absent_from(pick: Pick, plan: Plan, facts: CondaFacts, channel: str) -> Optional[CondaAbsent]:
    """The row saying ``channel`` has no build of this pick's package for the target."""
    platform = plan.target.platform
    for row in facts.absent:
        if row.channel == channel and pick.package in row.pip and platform in row.platforms:
            return row
    return None


def conda_forge_cuda_build(
    pick: Pick, plan: Plan, facts: CondaFacts
) -> tuple[bool, Optional[CondaPackage]]:
    """(known, row) for a CUDA pick on conda-forge.

    known=False: conda.toml has no conda-forge rows for the package (the emitter maps
    it by name, as before). Otherwise ``row`` is the newest CUDA variant of that
    version and platform the driver runs natively, or None when there is none (the
    pick goes to pip). conda-forge CUDA variants need not be the pip variant's CUDA.
    """
    from envcheck.model.versions import parse_cuda_version

    rows = [r for r in facts.packages if r.channel == CONDA_FORGE and r.pip == pick.package]
    if not rows or pick.cuda is None:
        return False, None
    platform = plan.target.platform
    cap = plan.driver_max_cuda
    best: Optional[CondaPackage] = None
    best_cuda = None
    for row in rows:
        if pick.version not in row.versions or platform not in row.platforms or not row.cuda:
            continue
        cuda = parse_cuda_version(row.cuda)
        if cuda is None or (cap is not None and cuda > cap):
            continue
        if best_cuda is None or cuda > best_cuda:
            best, best_cuda = row, cuda
    return True, best


def choose_channel(plan: Plan, facts: CondaFacts) -> tuple[str, list[ChannelPick]]:
    """conda-forge, unless only the defaults channel ships a pick conda-forge lacks.

    Returns the channel and the picks its rows serve (empty for conda-forge, whose
    packages the emitter maps by name; see ``emit.CONDA_FORGE``).
    """
    served = []
    for pick in plan.picks:
        if find_row(pick, plan, facts, CONDA_FORGE) is not None:
            continue
        row = find_row(pick, plan, facts, DEFAULTS)
        if row is not None:
            served.append(ChannelPick(pick, row))
    if served:
        return DEFAULTS, served
    return CONDA_FORGE, []


def unverified_notes(served: list[ChannelPick]) -> list[str]:
    """One line per pinned fact the matrix could not confirm (for a file comment)."""
    out = []
    for cp in served:
        if not cp.row.origin.verified:
            why = f": {cp.row.origin.note}" if cp.row.origin.note else ""
            out.append(f"unverified: {cp.row.channel} ships {cp.row.name} {cp.pick.version}{why}")
    return out


def unverified_build_note(row: CondaPackage, version: Optional[str]) -> Optional[str]:
    """The file comment for an unverified conda-forge CUDA variant (None when verified)."""
    if row.origin.verified:
        return None
    return (
        f"unverified: conda-forge {row.name} {version} CUDA {row.cuda} build "
        f"(from {row.origin.source}; its file listing was not read)"
    )
