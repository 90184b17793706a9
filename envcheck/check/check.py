"""``check_pins``: which pinned combinations cannot work (pure: pins + target + matrix).

A pin selects a set of candidate framework builds (release range × variant,
narrowed by the index it is installed from). A problem is reported only when
*no* candidate can work, so a loose range never gives a false error; a version
the matrix does not know gives a warning, never a silent pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Optional

from envcheck.check.model import (
    COMPANION_TORCH_CONFLICT,
    CUDA_MAJOR_CONFLICT,
    CUDNN_MAJOR_CONFLICT,
    KERAS_TENSORFLOW_CONFLICT,
    PYTHON_OUT_OF_RANGE,
    TARGET_UNSERVED,
    CheckReport,
    Environment,
    Location,
    Pin,
    Problem,
    Project,
)
from envcheck.compat.target import Target
from envcheck.model._frozen import replace
from envcheck.model.versions import release_key

if TYPE_CHECKING:
    from envcheck.matrix import Matrix


from envcheck.check.components import Component, describe, majors_text, pin_component, spec_of
from envcheck.check.conda_checks import (
    conda_cuda,
    conda_pairing_problems,
    env_platforms,
)
from envcheck.check.targets import targets_for

_PYTHONS = ("2.7", *(f"3.{i}" for i in range(21)))


def check_pins(
    project: Project,
    target: Target,
    matrix: Matrix,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
) -> CheckReport:
    """Every problem of every environment of the project, sorted and de-duplicated.

    ``select``/``ignore`` (codes or prefixes, from the command line) and each
    project's own ``select``/``ignore`` and ``# envcheck: ignore[...]`` comments
    decide which are reported; unreadable input (EC001) always is.
    """
    problems: list[Problem] = list(project.problems)
    for env in project.environments:
        problems.extend(check_environment(env, target, matrix))
    unique = sorted(dict.fromkeys(problems), key=Problem.sort_key)
    suppressed: dict[Location, list[tuple[str, ...]]] = {}
    for s in project.suppressions:
        suppressed.setdefault(s.location, []).append(s.codes)
    shown = [p for p in unique if _reported(p, project, suppressed, select, ignore)]
    return CheckReport(project.files, tuple(shown), matrix.version)


def _specificity(code: str, patterns: Iterable[str]) -> int:
    """Length of the longest pattern matching ``code`` (``ALL``: 0); -1 when none does."""
    best = -1
    for pattern in patterns:
        if pattern == "ALL":
            best = max(best, 0)
        elif code.startswith(pattern):
            best = max(best, len(pattern))
    return best


def _reported(
    problem: Problem,
    project: Project,
    suppressed: Mapping[Location, list[tuple[str, ...]]],
    select: Sequence[str],
    ignore: Sequence[str],
) -> bool:
    from envcheck.check.model import UNREADABLE_INPUT

    if problem.code == UNREADABLE_INPUT:
        return True
    for codes in suppressed.get(problem.location, ()):
        if not codes or any(problem.code.startswith(c) for c in codes):
            return False
    own = next((sel for sel in project.selections if problem.location.path in sel.files), None)
    chosen = select or (own.select if own is not None and own.select else ("ALL",))
    ignored = (*(own.ignore if own is not None else ()), *ignore)
    return _specificity(problem.code, chosen) > _specificity(problem.code, ignored)


def check_environment(env: Environment, target: Target, matrix: Matrix) -> list[Problem]:
    """Problems of one set of pins installed together."""
    problems: list[Problem] = []
    components: list[Component] = []
    # Pins written the same way select the same builds: work each out once (a
    # 20 000-line file of a few distinct pins stays linear).
    seen: dict[tuple[object, ...], tuple[Optional[Component], list[Problem]]] = {}
    for pin in env.pins:
        if pin.constraint:
            continue
        key = (pin.name, pin.specifier, pin.text, pin.source, pin.extras, pin.local, pin.index_url)
        if key in seen:
            cached, found = seen[key]
            problems.extend(replace(p, location=pin.location) for p in found)
            comp = None if cached is None else replace(cached, pin=pin)
        else:
            found = []
            comp = pin_component(pin, env, target, matrix, found)
            seen[key] = (comp, found)
            problems.extend(found)
        if comp is not None:
            components.append(comp)
    distinct = _representatives(components)
    problems.extend(_major_conflicts(components))
    platforms = env_platforms(env, target, matrix)
    problems.extend(conda_cuda(env, distinct, platforms, matrix))
    problems.extend(conda_pairing_problems(env, platforms, matrix))
    problems.extend(_python_bounds(env, distinct))
    problems.extend(_keras_tensorflow(env, matrix))
    problems.extend(_keras_python(env, target, matrix))
    problems.extend(_companions_torch(env, matrix))
    problems.extend(targets_for(env, target, components, matrix))
    return problems


def _allowed(pin: Pin, known: Iterable[str]) -> list[str]:
    """The releases of ``known`` that ``pin``'s specifier allows, in order."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        spec = SpecifierSet(spec_of(pin))
    except InvalidSpecifier:
        return []
    return [v for v in dict.fromkeys(known) if spec.contains(v, prereleases=True)]


def _pins_of(env: Environment, framework: str) -> list[Pin]:
    from envcheck import names

    return [
        p
        for p in env.pins
        if not p.constraint
        and names.framework_of(p.name, conda=p.source == "conda", aliases=False) == framework
    ]


def _keras_python(env: Environment, cli: Target, matrix: Matrix) -> list[Problem]:
    """A keras pin none of whose releases installs on a target's Python
    (``compat.keras.keras_verdict``: the release's Requires-Python, which pip enforces),
    for the target given on the command line or declared in [tool.envcheck]."""
    from envcheck.check.targets import declared_targets
    from envcheck.compat.judge import Status
    from envcheck.compat.keras import keras_release, keras_verdict

    keras = _pins_of(env, "keras")
    if not keras:
        return []
    targets, _ = declared_targets(env.declared, cli, matrix)
    known = [v for row in matrix.keras_releases for v in row.versions]
    where = f" (declared at {env.declared.location})" if env.declared else ""
    problems: list[Problem] = []
    for target in targets:
        if target.python is None:
            continue
        for pin in keras:
            verdicts = []
            for version in _allowed(pin, known):
                row = keras_release(matrix, version)
                if row is not None:
                    verdicts.append(keras_verdict(row, version, target))
            if verdicts and all(v.status is Status.FAILS for v in verdicts):
                problems.append(
                    Problem(
                        pin.location,
                        TARGET_UNSERVED,
                        f"{pin.text} cannot serve {target.describe()}{where}: "
                        + "; ".join(r.message for r in verdicts[-1].errors),
                    )
                )
    return problems


def _companions_torch(env: Environment, matrix: Matrix) -> list[Problem]:
    """A torchvision/torchaudio pin none of whose releases goes with any torch release a
    torch pin allows (``compat.companions``): reported at the companion's pin."""
    from envcheck.compat.companions import (
        COMPANIONS,
        companion_reason,
        companion_variant_reason,
    )

    torches = _pins_of(env, "torch")
    if not torches:
        return []
    torch_known = list(dict.fromkeys(v for b in matrix.builds.get("torch", ()) for v in b.versions))
    problems: list[Problem] = []
    for package in COMPANIONS:
        known = [v for row in matrix.companions if (v := getattr(row, package, None)) is not None]
        for pin in (p for p in env.pins if not p.constraint and p.name == package):
            for t in torches:
                mine, theirs = _allowed(pin, known), _allowed(t, torch_known)
                reasons = [
                    companion_reason(tv, package, cv, matrix) for cv in mine for tv in theirs
                ]
                if not mine or not theirs or not all(reasons):
                    reason = None
                else:
                    newest = (max(theirs, key=release_key), max(mine, key=release_key))
                    reason = companion_reason(newest[0], package, newest[1], matrix)
                variant = None
                if t.local and pin.local and len(theirs) == 1 and len(mine) == 1:
                    variant = companion_variant_reason(
                        f"{theirs[0]}+{t.local}", package, f"{mine[0]}+{pin.local}"
                    )
                chosen = reason or variant
                if chosen is not None:
                    problems.append(
                        Problem(
                            pin.location,
                            COMPANION_TORCH_CONFLICT,
                            f"{pin.text} cannot be installed with {t.text} ({t.location}): "
                            f"{chosen.message}",
                        )
                    )
    return problems


def _keras_tensorflow(env: Environment, matrix: Matrix) -> list[Problem]:
    """A keras pin that no TensorFlow release a tensorflow pin allows can go with
    (``compat.keras``): reported at the keras pin, once per distinct pair of pins."""
    from envcheck.compat.keras import keras_releases_reason

    allowed = _allowed
    keras, tfs = _pins_of(env, "keras"), _pins_of(env, "tensorflow")
    if not keras or not tfs:
        return []
    keras_known = [v for row in matrix.keras_releases for v in row.versions]
    tf_known = [v for b in matrix.builds.get("tensorflow", ()) for v in b.versions]
    problems: list[Problem] = []
    seen: set[tuple[str, str, str, str]] = set()
    for k in keras:
        for t in tfs:
            key = (k.name, k.specifier, t.name, t.specifier)
            if key in seen:
                continue
            seen.add(key)
            # A version the matrix lacks is not judged (an empty side).
            newest = keras_releases_reason(allowed(k, keras_known), allowed(t, tf_known), matrix)
            if newest is None:
                continue
            problems.append(
                Problem(
                    k.location,
                    KERAS_TENSORFLOW_CONFLICT,
                    f"{k.text} cannot be installed with {t.text} ({t.location}): {newest.message}",
                )
            )
    return problems


def _signature(comp: Component) -> tuple[object, ...]:
    return (
        comp.pin.name,
        tuple(sorted({o.cuda_major for o in comp.options}, key=lambda v: -1 if v is None else v)),
        tuple(sorted({o.cudnn_major for o in comp.options}, key=lambda v: -1 if v is None else v)),
        tuple(sorted({(o.version, id(o.build)) for o in comp.options})),
    )


def _representatives(components: Sequence[Component]) -> list[Component]:
    """The first component (in file order) of each distinct pin: what pairwise checks compare."""
    ordered = sorted(components, key=lambda c: (c.pin.location.path, c.pin.location.line or 0))
    return list({_signature(c): c for c in reversed(ordered)}.values())[::-1]


# -- the checks ----------------------------------------------------------------------


def _major_conflicts(components: Sequence[Component]) -> list[Problem]:
    """Each pin against the earlier pins of other packages it cannot share a process with.

    Compared with the first pin of each distinct kind only (not every earlier
    line), so the work and the output stay linear in the number of lines.
    """
    problems: list[Problem] = []
    ordered = sorted(components, key=lambda c: (c.pin.location.path, c.pin.location.line or 0))
    earlier: dict[tuple[object, ...], Component] = {}
    for b in ordered:
        for a in list(earlier.values()):
            if a.pin.name == b.pin.name:
                continue
            for code, what, attr in (
                (CUDA_MAJOR_CONFLICT, "CUDA", "cuda_major"),
                (CUDNN_MAJOR_CONFLICT, "cuDNN", "cudnn_major"),
            ):
                av = [getattr(o, attr) for o in a.options]
                bv = [getattr(o, attr) for o in b.options]
                if any(x is None for x in av) or any(y is None for y in bv):
                    continue
                if set(av) & set(bv):
                    continue
                problems.append(
                    Problem(
                        b.pin.location,
                        code,
                        f"{b.pin.text} needs {what} {majors_text(bv)}, but {describe(a)}"
                        f" needs {what} {majors_text(av)}; one environment cannot load both",
                    )
                )
        earlier.setdefault(_signature(b), b)
    return problems


def _allowed_pythons(spec_text: str) -> list[str]:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        spec = SpecifierSet(spec_text)
    except InvalidSpecifier:
        return []
    return [
        m for m in _PYTHONS if any(spec.contains(f"{m}.{p}", prereleases=True) for p in ("0", "99"))
    ]


def _python_range(versions: Iterable[str]) -> str:
    known = sorted(set(versions), key=release_key)
    if not known:
        return "none"
    return known[0] if len(known) == 1 else f"{known[0]} to {known[-1]}"


def _allowed_range(allowed: Sequence[str]) -> str:
    if len(allowed) > 1 and allowed[-1] == _PYTHONS[-1]:
        return f"{allowed[0]} and newer"
    return _python_range(allowed)


def _python_bounds(env: Environment, components: Sequence[Component]) -> list[Problem]:
    problems: list[Problem] = []
    for bound in env.python:
        allowed = _allowed_pythons(bound.specifier)
        if not allowed:
            continue
        for comp in components:
            builds = [o.build for o in comp.options if o.build is not None]
            if not builds or any(not b.python for b in builds):
                continue
            supported = {p for b in builds for p in b.python}
            both = [p for p in allowed if p in supported]
            if not both:
                problems.append(
                    Problem(
                        bound.location,
                        PYTHON_OUT_OF_RANGE,
                        f"{bound.text} allows Python {_allowed_range(allowed)}, but"
                        f" {describe(comp)} supports Python {_python_range(supported)}",
                    )
                )
            elif release_key(allowed[0]) < release_key(_python_range(supported).split(" ")[0]):
                problems.append(
                    Problem(
                        bound.location,
                        PYTHON_OUT_OF_RANGE,
                        f"{bound.text} allows Python {allowed[0]}, which {describe(comp)}"
                        f" does not support (Python {_python_range(supported)})",
                    )
                )
    return problems
