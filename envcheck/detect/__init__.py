"""Detection: read the machine through a ``System`` into a ``Snapshot``.

``detect(system)`` is the only entry point that touches the machine. Probes run
in the order of ``PROBES``; each takes the system and the ``Context`` filled so
far, records facts on the context, and may record non-fatal problems with
``ctx.error(...)``. An exception escaping a probe becomes a ``ProbeError``;
detection itself never raises (except for KeyboardInterrupt).
"""

from __future__ import annotations

from typing import Callable, Optional

from envcheck.detect.context import Context
from envcheck.detect.system import DETECT_BUDGET, BudgetedRunner, System, real_system
from envcheck.model.snapshot import ProbeError, Snapshot

Probe = Callable[[System, Context], None]


def _probes() -> tuple[tuple[str, Probe], ...]:
    # Imported here so `envcheck --version` does not load every probe module.
    from envcheck.detect import (
        driver,
        env_vars,
        frameworks,
        libraries,
        platform,
        python_env,
        toolkits,
    )

    return (
        ("platform", platform.probe_platform),
        ("env", env_vars.probe_env_vars),
        ("python", python_env.probe_python),
        ("driver", driver.probe_driver),
        ("toolkits", toolkits.probe_toolkits),
        ("libraries", libraries.probe_libraries),
        ("frameworks", frameworks.probe_frameworks),
    )


def one_line(exc: BaseException) -> str:
    """An exception as one short line for a ProbeError."""
    text = str(exc).strip().splitlines()
    detail = text[0][:300] if text else ""
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def run_probe(name: str, fn: Probe, system: System, ctx: Context) -> None:
    """Run one probe; an Exception becomes a recorded ProbeError."""
    try:
        fn(system, ctx)
    except Exception as exc:  # noqa: BLE001 - a probe failure is data, not a crash
        ctx.errors.append(ProbeError(probe=name, message=one_line(exc)))


def detect(
    system: Optional[System] = None,
    *,
    probes: Optional[tuple[tuple[str, Probe], ...]] = None,
    progress: Optional[Callable[[str], None]] = None,
    budget: float = DETECT_BUDGET,
) -> Snapshot:
    """Detect the GPU software stack of ``system`` (default: this machine)."""
    from envcheck import __version__

    if system is None:
        system = real_system()
    # One time budget shared by every probe's subprocesses.
    system = system.with_runner(BudgetedRunner(system.run, budget))
    ctx = Context()
    ran = []
    for name, fn in probes if probes is not None else _probes():
        if progress is not None:
            progress(name)
        run_probe(name, fn, system, ctx)
        ran.append(name)
    return ctx.to_snapshot(envcheck_version=__version__, probes=tuple(ran))
