"""NVIDIA wheels shared by frameworks planned together: their exact pins must agree.

pip installs one version of each ``nvidia-*`` wheel per environment. The matrix
records what each framework release's wheels require (``[[nvidia_pin]]``, their
Requires-Dist); ``agree_pins`` keeps a plan's choice when the pins agree, else
takes the best releases whose pins do, else says that pip will re-pin one under
the other. Pure; called by ``plan``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Optional

from envcheck.resolve.plan import PINS, _cudnn_major
from envcheck.resolve.plan_model import Decision

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import NvidiaPin
    from envcheck.resolve.plan import _Candidate, _Ctx, _Request


def _pins_of(c: _Candidate, matrix: Matrix) -> Optional[NvidiaPin]:
    b = c.build
    if not b.bundles_cuda or b.cuda is None:
        return None
    return matrix.nvidia_pin(b.package, c.version, b.variant, b.extra)


def _exact(spec: Any) -> Optional[str]:
    items = list(spec)
    if len(items) == 1 and items[0].operator in ("==", "===") and "*" not in items[0].version:
        return str(items[0].version)
    return None


def pin_conflicts(a: NvidiaPin, b: NvidiaPin) -> list[str]:
    """``nvidia-cudnn-cu12 ==9.1.0.70 vs ==9.3.0.75`` for each wheel both require
    where an exact pin of one falls outside the other's specifier."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    def specs(row: NvidiaPin) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for text in row.requires:
            req = Requirement(text)
            out[canonicalize_name(req.name)] = req.specifier
        return out

    ra, rb = specs(a), specs(b)
    found = []
    for name in sorted(ra.keys() & rb.keys()):
        sa, sb = ra[name], rb[name]
        ea, eb = _exact(sa), _exact(sb)
        if (ea is not None and not sb.contains(ea, prereleases=True)) or (
            eb is not None and not sa.contains(eb, prereleases=True)
        ):
            found.append(f"{name} {sa} vs {sb}")
    return found


def _conflicts_among(
    frameworks: Sequence[str], pins: dict[str, NvidiaPin]
) -> list[tuple[str, str, list[str]]]:
    out = []
    for a, b in itertools.combinations(frameworks, 2):
        found = pin_conflicts(pins[a], pins[b])
        if found:
            out.append((a, b, found))
    return out


def _label(c: _Candidate) -> str:
    b = c.build
    return f"{b.package}{f'[{b.extra}]' if b.extra else ''} {c.version}"


def agree_pins(
    mains: Sequence[_Request],
    runnable: dict[str, list[_Candidate]],
    chosen: dict[str, _Candidate],
    ctx: _Ctx,
    decisions: list[Decision],
) -> tuple[dict[str, _Candidate], tuple[str, ...]]:
    """Frameworks that bring NVIDIA's wheels must agree on their exact versions (pip
    installs one nvidia-cudnn-cu12): keep the choice when the pins the matrix records
    agree, else take the best releases whose pins agree (same CUDA and cuDNN majors),
    else say that pip will re-pin one under the other. Returns (choice, conflicting
    frameworks in request order)."""
    if ctx.target.platform not in (None, "linux-x86_64"):
        return chosen, ()  # the recorded pins are the linux-x86_64 wheels'
    order = [r.framework for r in mains]
    bringing = [f for f in order if f in chosen and chosen[f].build.bundles_cuda]
    bringing = [f for f in bringing if chosen[f].build.cuda is not None]
    if len(bringing) < 2:
        return chosen, ()
    matrix = ctx.matrix
    pins = {f: p for f in bringing if (p := _pins_of(chosen[f], matrix)) is not None}
    unknown = [f for f in bringing if f not in pins]
    if unknown:
        decisions.append(
            Decision(
                "environment",
                "the matrix does not record which nvidia-* wheels "
                + ", ".join(f"{_label(chosen[f])} ({chosen[f].build.variant})" for f in unknown)
                + f" require{'s' if len(unknown) == 1 else ''}: whether pip re-pins them is"
                " not checked",
            )
        )
    known = [f for f in bringing if f in pins]
    if len(known) < 2:
        return chosen, ()
    clashes = _conflicts_among(known, pins)
    cites = tuple(pins[f].origin.cite() for f in known)
    if not clashes:
        decisions.append(
            Decision(
                "environment",
                " and ".join(_label(chosen[f]) for f in known)
                + " require the same versions of the NVIDIA wheels they share",
                cites,
            )
        )
        return chosen, ()
    better = _agreeing(known, runnable, chosen, matrix)
    said = "; ".join(
        f"{_label(chosen[a])} and {_label(chosen[b])} pin {', '.join(found)}"
        for a, b, found in clashes
    )
    if better is not None:
        new = {**chosen, **better}
        decisions.append(
            Decision(
                "environment",
                " and ".join(_label(new[f]) for f in known)
                + " are the newest releases whose exact nvidia-* pins agree (newer ones"
                + f" disagree: {said})",
                tuple(p.origin.cite() for f in known if (p := _pins_of(new[f], matrix))),
            )
        )
        return new, ()
    decisions.append(
        Decision(
            PINS,
            f"{said}: one pip command cannot install them together; installed one after"
            " the other, pip re-pins these NVIDIA wheels to the later one's versions under"
            " the earlier (pip reports the conflict; the earlier framework may fail to load"
            " them); no releases in the matrix agree: use separate environments to avoid it",
            cites,
        )
    )
    return chosen, tuple(known)


def _agreeing(
    frameworks: Sequence[str],
    runnable: dict[str, list[_Candidate]],
    chosen: dict[str, _Candidate],
    matrix: Matrix,
) -> Optional[dict[str, _Candidate]]:
    """The best candidates (request order first) with pins that agree, keeping each
    framework's CUDA and cuDNN majors; None when there are none."""
    pools: list[list[tuple[int, _Candidate, NvidiaPin]]] = []
    for f in frameworks:
        was = chosen[f].build
        pool = []
        for i, c in enumerate(runnable[f]):
            b = c.build
            if b.cuda is None or was.cuda is None or b.cuda.major != was.cuda.major:
                continue
            if _cudnn_major(b) != _cudnn_major(was):
                continue
            pin = _pins_of(c, matrix)
            if pin is not None:
                pool.append((i, c, pin))
        pools.append(pool)
    best: Optional[tuple[tuple[int, ...], dict[str, _Candidate]]] = None
    for combo in itertools.product(*pools):
        score = tuple(-i for i, _, _ in combo)
        if best is not None and score <= best[0]:
            continue
        rows = {f: pin for f, (_, _, pin) in zip(frameworks, combo)}
        if not _conflicts_among(frameworks, rows):
            best = (score, {f: c for f, (_, c, _) in zip(frameworks, combo)})
    return None if best is None else best[1]
