"""The mutable scratchpad probes fill in; frozen into a Snapshot at the end."""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass
class Context:
    """Facts gathered so far. Probes later in ``PROBES`` may read earlier ones."""

    platform: Platform = field(default_factory=Platform)
    python: PythonInfo = field(default_factory=PythonInfo)
    driver: Driver = field(default_factory=Driver)
    gpus: list[Gpu] = field(default_factory=list)
    cuda_toolkits: list[CudaToolkit] = field(default_factory=list)
    libraries: list[Library] = field(default_factory=list)
    packages: dict[str, str] = field(default_factory=dict)
    conda_packages: dict[str, str] = field(default_factory=dict)
    frameworks: list[Framework] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    errors: list[ProbeError] = field(default_factory=list)

    # Internal facts shared between probes, not part of the snapshot.
    site_dirs: list[str] = field(default_factory=list)
    """site-packages directories of the target interpreter (machine paths)."""
    dist_locations: dict[str, str] = field(default_factory=dict)
    """normalised distribution name → its dist-info directory (machine path)."""
    conda_prefix: Optional[str] = None
    """The conda environment prefix of the target interpreter, if any."""

    def error(self, probe: str, message: str) -> None:
        """Record a non-fatal problem a probe ran into."""
        self.errors.append(ProbeError(probe=probe, message=message))

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
