"""Doctor rules: pure functions ``(snapshot, matrix) -> Iterable[Finding]``.

``ALL_RULES`` is the one list of them, in the order they run; the report sorts
findings by severity afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Callable

from envcheck.rules import (
    arch,
    builds,
    capability,
    companions,
    container,
    cpu_build,
    driver,
    duplicates,
    env_vars,
    keras,
    lib_paths,
    mixed_wheels,
    other,
    platform,
)

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.finding import Finding
    from envcheck.model.snapshot import Snapshot

Rule = Callable[["Snapshot", "Matrix"], Iterable["Finding"]]

ALL_RULES: tuple[tuple[str, Rule], ...] = (
    ("driver_present", driver.check_driver_present),
    ("platform", platform.check_platform),
    ("container", container.check_container),
    ("env_vars", env_vars.check_visible_devices),
    ("nvml_mismatch", driver.check_nvml_mismatch),
    ("builds", builds.check_builds),
    ("toolkit_driver", driver.check_toolkit_driver),
    ("retired_gpu", driver.check_retired_gpu),
    ("gpu_known", arch.check_gpu_known),
    ("cpu_only", cpu_build.check_cpu_only),
    ("cudnn", lib_paths.check_cudnn),
    ("cuda_runtime", lib_paths.check_cuda_runtime),
    ("ld_library_path", lib_paths.check_ld_library_path),
    ("mixed_wheels", mixed_wheels.check_mixed_wheels),
    ("shared_package", duplicates.check_shared_package),
    ("keras", keras.check_keras),
    ("companions", companions.check_companions),
    ("unknowns", other.check_unknowns),
    ("reported_availability", other.check_reported_availability),
    ("capability", capability.check_capability),
)
