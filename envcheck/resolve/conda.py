"""Which conda channel an emitted environment uses, and what it pins from it.

Facts come from ``matrices/conda.toml``: a package is pinned from a channel only
when a ``[[package]]`` row says that channel ships it for the target platform and
Python (and, for CUDA builds, the plan's cudatoolkit); an ``[[absent]]`` row sends
it to pip. One channel per environment: mixing defaults and conda-forge builds of
one stack is what breaks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import CondaAbsent, CondaPackage
    from envcheck.resolve.plan import Pick, Plan

CONDA_FORGE = "conda-forge"
DEFAULTS = "defaults"


@dataclass(frozen=True)
class CondaFacts:
    """The conda rows of a matrix (``Matrix.conda_packages`` / ``conda_absent``)."""

    packages: tuple[CondaPackage, ...] = ()
    absent: tuple[CondaAbsent, ...] = ()

    @classmethod
    def of(cls, matrix: Matrix) -> CondaFacts:
        return cls(matrix.conda_packages, matrix.conda_absent)


@dataclass(frozen=True)
class ChannelPick:
    """A pick served by a channel row: the match specs it becomes."""

    pick: Pick
    row: CondaPackage

    def specs(self) -> tuple[str, ...]:
        out = [f"{self.row.name}={self.pick.version}"]
        if self.row.cudatoolkit:
            out.append(f"cudatoolkit={self.row.cudatoolkit}")
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
        if pick.cuda is not None and row.cudatoolkit is not None:
            if row.cudatoolkit != f"{pick.cuda.major}.{pick.cuda.minor}":
                continue
        elif (pick.cuda is None) != (row.cudatoolkit is None):
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
