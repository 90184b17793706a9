"""The targets a project declares (``[tool.envcheck]``: minimum driver, GPUs,
platforms, Python) turned into the ``Target`` values check judges pins against."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional

from envcheck.check.components import Component
from envcheck.check.model import (
    INVALID_VALUE,
    TARGET_UNSERVED,
    UNREADABLE,
    DeclaredTarget,
    Environment,
    Problem,
)
from envcheck.compat import judge as J
from envcheck.compat.candidate import from_build
from envcheck.compat.target import Target, check_driver_branch, resolve_gpu
from envcheck.model._frozen import replace

if TYPE_CHECKING:
    from envcheck.matrix import Matrix


_PLATFORM_TARGETS = {
    "linux": ("linux", "x86_64"),
    "linux-aarch64": ("linux", "aarch64"),
    "windows": ("windows", "x86_64"),
    "wsl": ("wsl", "x86_64"),
    "macos": ("macos", "aarch64"),
}


def declared_targets(
    declared: Optional[DeclaredTarget], cli: Target, matrix: Matrix
) -> tuple[list[Target], list[Problem]]:
    """The targets to serve: one per declared platform; CLI flags override."""
    from envcheck.model.versions import parse_driver_version

    if declared is None:
        has_cli = cli.driver is not None or cli.gpus or cli.os is not None or cli.python
        return ([cli] if has_cli else []), []
    problems: list[Problem] = []
    gpus = []
    names = []
    for text in declared.gpus:
        try:
            cc, name = resolve_gpu(text, matrix)
        except ValueError as exc:
            problems.append(Problem(declared.location, INVALID_VALUE, str(exc), UNREADABLE))
            continue
        gpus.append(cc)
        names.append(name or f"sm_{cc.major}{cc.minor}")
    driver = parse_driver_version(declared.min_driver) if declared.min_driver else None
    if declared.min_driver and driver is None:
        problems.append(
            Problem(
                declared.location,
                INVALID_VALUE,
                f"min-driver {declared.min_driver!r} is not a driver version",
                UNREADABLE,
            )
        )
    elif driver is not None:
        try:
            check_driver_branch(driver, matrix)
        except ValueError as exc:
            problems.append(Problem(declared.location, INVALID_VALUE, str(exc), UNREADABLE))
            driver = None
    if cli.gpus:
        gpus, names = list(cli.gpus), list(cli.gpu_names)
    base = Target(
        driver=cli.driver or driver,
        gpus=tuple(dict.fromkeys(gpus)),
        gpu_names=tuple(dict.fromkeys(names)),
        python=cli.python or declared.python,
        os=cli.os,
        arch=cli.arch,
    )
    if cli.os is not None or not declared.platforms:
        return [base], problems
    return [
        replace(base, os=_PLATFORM_TARGETS[p][0], arch=_PLATFORM_TARGETS[p][1])
        for p in declared.platforms
    ], problems


def targets_for(
    env: Environment, cli: Target, components: Sequence[Component], matrix: Matrix
) -> list[Problem]:
    targets, problems = declared_targets(env.declared, cli, matrix)
    verdicts: dict[tuple[int, int, str], J.Verdict] = {}
    where = f" (declared at {env.declared.location})" if env.declared else ""
    for target in targets:
        for comp in components:
            options = [o for o in comp.options if o.build is not None]
            if not options:
                continue
            if target.gpus and target.os != "macos":
                options = [o for o in options if o.build is not None and o.build.cuda is not None]
                if not options:
                    problems.append(
                        Problem(
                            comp.pin.location,
                            TARGET_UNSERVED,
                            f"{comp.pin.text} selects no CUDA build, but the target"
                            f" ({target.describe()}){where} has GPUs",
                        )
                    )
                    continue
            best: Optional[tuple[str, ...]] = None
            for option in options:
                assert option.build is not None
                key = (id(target), id(option.build), option.version)
                if key not in verdicts:
                    verdicts[key] = J.judge(
                        from_build(option.build, option.version), target, matrix
                    )
                verdict = verdicts[key]
                # A CPU build is judged as a pin, not as a GPU choice: TARGET_UNSERVED
                # above already said when no CUDA build is selected.
                blockers = [r for r in verdict.errors if r.code not in (J.CPU_ONLY, J.ROCM)]
                if not blockers:
                    best = None
                    break
                messages = tuple(r.message for r in blockers)
                if best is None or len(messages) < len(best):
                    best = messages
            if best:
                problems.append(
                    Problem(
                        comp.pin.location,
                        TARGET_UNSERVED,
                        f"{comp.pin.text} cannot serve {target.describe()}{where}: "
                        + "; ".join(best),
                    )
                )
    return problems
