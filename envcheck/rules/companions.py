"""A torchvision or torchaudio that does not go with the installed torch.

``compat.companions`` decides: the release pairing (torch.toml's ``[[companion]]`` rows,
from the companions' ``Requires-Dist: torch (==X)``) and the build variant (a ``+cpu``
companion beside a CUDA torch, another CUDA major). The fix is the resolver's plan for
the companions beside the installed torch release.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from envcheck.model.finding import Category, Finding, Severity

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

COMPANION_TORCH_MISMATCH = "companion-torch-mismatch"


def check_companions(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    from envcheck.compat.companions import (
        COMPANIONS,
        companion_reason,
        companion_variant_reason,
    )

    torch = next((f for f in snapshot.frameworks if f.name == "torch" and f.version), None)
    if torch is None or torch.version is None:
        return
    wrong = []
    for package in COMPANIONS:
        version = snapshot.packages.get(package)
        if not version:
            continue
        reason = companion_reason(torch.version, package, version, matrix)
        reason = reason or companion_variant_reason(torch.version, package, version)
        if reason is not None:
            wrong.append((package, version, reason))
    if not wrong:
        return
    names = " and ".join(f"{p} {v}" for p, v, _ in wrong)
    yield Finding(
        COMPANION_TORCH_MISMATCH,
        Category.MIXED_WHEELS,
        Severity.ERROR,
        f"{names} {'do' if len(wrong) > 1 else 'does'} not go with the installed "
        f"torch {torch.version}",
        evidence=(
            f"torch {torch.version}",
            *(f"{p} {v}" for p, v, _ in wrong),
            *(r.message for _, _, r in wrong),
        ),
        fix=_fix(torch.version, [p for p, _, _ in wrong], snapshot, matrix),
        sources=tuple(dict.fromkeys(s for _, _, r in wrong for s in r.sources)),
        framework="torch",
        reason=wrong[0][2].code,
    )


def _fix(torch_version: str, packages: list[str], snapshot: Snapshot, matrix: Matrix) -> str:
    """The resolver's companions for the installed torch release."""
    from envcheck.rules._facts import target_of
    from envcheck.rules._fix import plan_fix

    # The installed build, variant included: only the companions change.
    release = torch_version.split("+")[0]
    command = plan_fix(
        [f"torch=={torch_version}", *packages],
        target_of(snapshot, matrix),
        snapshot,
        matrix,
        "",  # nothing to remove first: pip replaces a companion of another release
    )
    if command:
        return f"Install the companions built for this torch, from its index:\n  {command}"
    return (
        "Install the companion releases built for the installed torch, from the same index "
        f"and CUDA variant (`envcheck plan torch=={release} {' '.join(packages)}`)."
    )
