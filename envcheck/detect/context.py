"""The mutable scratchpad probes fill in; frozen into a Snapshot at the end."""

from __future__ import annotations

from typing import Optional

from envcheck.model.snapshot import (
    CudaToolkit,
    Driver,
    Framework,
    Gpu,
    Library,
    Platform,
    ProbeError,
    PythonInfo,
    Snapshot,
)


class Context:
    """Facts gathered so far. Probes later in ``PROBES`` may read earlier ones.

    A plain class, not a dataclass: importing ``dataclasses`` (and ``inspect``)
    would cost every detection a few ms."""

    def __init__(self) -> None:
        self.platform = Platform()
        self.python = PythonInfo()
        self.driver = Driver()
        self.gpus: list[Gpu] = []
        self.cuda_toolkits: list[CudaToolkit] = []
        self.libraries: list[Library] = []
        self.packages: dict[str, str] = {}
        self.conda_packages: dict[str, str] = {}
        self.frameworks: list[Framework] = []
        self.env: dict[str, str] = {}
        self.errors: list[ProbeError] = []

        # Internal facts shared between probes, not part of the snapshot.
        self.site_dirs: list[str] = []
        """site-packages directories of the target interpreter (machine paths)."""
        self.dist_locations: dict[str, str] = {}
        """normalised distribution name → its dist-info directory (machine path)."""
        self.conda_prefix: Optional[str] = None
        """The conda environment prefix of the target interpreter, if any."""

    def error(self, probe: str, message: str, detail: Optional[str] = None) -> None:
        """Record a non-fatal problem a probe ran into; ``detail``: a failed
        child's stderr tail."""
        self.errors.append(ProbeError(probe=probe, message=message, detail=detail or None))

    def to_snapshot(
        self, envcheck_version: Optional[str] = None, probes: tuple[str, ...] = ()
    ) -> Snapshot:
        return Snapshot(
            platform=self.platform,
            python=self.python,
            driver=self.driver,
            gpus=tuple(self.gpus),
            cuda_toolkits=tuple(self.cuda_toolkits),
            libraries=tuple(self.libraries),
            packages=self.packages,
            conda_packages=self.conda_packages,
            frameworks=tuple(self.frameworks),
            env=self.env,
            errors=tuple(self.errors),
            envcheck_version=envcheck_version,
            source="detect",
            probes=probes,
        )
