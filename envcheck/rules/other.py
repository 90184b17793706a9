"""Things the doctor could not check: failed probes and versions the matrix lacks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from envcheck.model.finding import Category, Finding, Severity
from envcheck.model.snapshot import UNKNOWN_KEY_PROBE, UNREADABLE_VALUE_PROBE
from envcheck.rules._facts import matched_build

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

PROBE_FAILED = "probe-failed"
UNKNOWN_SNAPSHOT_KEY = "snapshot-unknown-key"
UNREADABLE_SNAPSHOT_VALUE = "snapshot-unreadable-value"
UNKNOWN_FRAMEWORK_VERSION = "unknown-framework-version"
CUDA_UNAVAILABLE_REPORTED = "framework-reports-no-cuda"


def check_unknowns(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    typos = [e.message or "" for e in snapshot.errors if e.probe == UNKNOWN_KEY_PROBE]
    if typos:
        yield Finding(
            UNKNOWN_SNAPSHOT_KEY,
            Category.OTHER,
            Severity.WARNING,
            "The snapshot has keys envcheck does not know; their facts were not read",
            evidence=tuple(typos),
            fix="Correct the key names (see envcheck/schemas/snapshot-1.schema.json) "
            "or write the snapshot with `envcheck detect --json -o FILE`.",
        )
    unreadable = [e.message or "" for e in snapshot.errors if e.probe == UNREADABLE_VALUE_PROBE]
    if unreadable:
        yield Finding(
            UNREADABLE_SNAPSHOT_VALUE,
            Category.OTHER,
            Severity.WARNING,
            "The snapshot has values envcheck cannot read; checks that need them were skipped",
            evidence=tuple(unreadable),
            fix="Write the value as envcheck's flags take it (driver 535.104.05, CUDA 12.4,"
            " compute capability 8.9) or write the snapshot with `envcheck detect --json -o FILE`.",
        )
    for err in snapshot.errors:
        if err.probe in (UNKNOWN_KEY_PROBE, UNREADABLE_VALUE_PROBE):
            continue
        if err.message and "mismatch" in err.message.lower():
            continue  # the NVML mismatch rule explains it
        if err.probe == "driver" and snapshot.driver.version is None:
            continue  # the no-driver rules carry these as evidence
        yield Finding(
            PROBE_FAILED,
            Category.OTHER,
            Severity.WARNING,
            f"Could not read {err.probe} facts; some checks were skipped",
            evidence=(f"{err.probe}: {err.message}",),
            fix="Checks that depend on this fact were skipped; fix the cause above "
            "(permissions, a missing tool) and run again.",
        )
    for fw in snapshot.frameworks:
        if fw.name in (None, "keras", "caffe") or fw.version is None:
            continue
        if not matrix.framework_builds(fw.name):
            continue
        known = matrix.builds_for(fw.name, fw.version) or matrix.builds_for_minor(
            fw.name, fw.version
        )
        if not known and matched_build(fw, snapshot, matrix) is None:
            yield Finding(
                UNKNOWN_FRAMEWORK_VERSION,
                Category.OTHER,
                Severity.WARNING,
                f"The matrix does not know {fw.package or fw.name} {fw.version}"
                + (f" ({fw.variant})" if fw.variant else ""),
                evidence=(f"matrix data {matrix.data_version}",),
                fix="Checks that need its build facts were skipped; run `envcheck matrix "
                "update` for newer data.",
            )


def check_reported_availability(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    """A CUDA build whose own report (collect_env) says CUDA is unavailable."""
    for fw in snapshot.frameworks:
        if fw.cpu_only or not fw.cuda_version:
            continue
        if fw.build.get("is_cuda_available") != "False":
            continue
        yield Finding(
            CUDA_UNAVAILABLE_REPORTED,
            Category.OTHER,
            Severity.ERROR,
            f"{fw.name} {fw.version} is a CUDA {fw.cuda_version} build but reported "
            "CUDA as unavailable",
            evidence=("Is CUDA available: False",),
            fix="CUDA failed to initialise; the other findings name the cause. For the "
            "exact error, run `envcheck explain` on the warnings printed above the "
            "report, or `envcheck doctor --deep` on that machine.",
        )
