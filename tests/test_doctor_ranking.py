"""The doctor ranks what it found before what it could not check."""

from __future__ import annotations

from envcheck.doctor import diagnose
from envcheck.matrix import Matrix
from envcheck.model.finding import Category, Finding, Severity
from envcheck.model.snapshot import ProbeError, Snapshot
from envcheck.rules.other import PROBE_FAILED


def _warn(snapshot: Snapshot, matrix: Matrix) -> list[Finding]:
    return [Finding("gpu-capabilities", Category.CAPABILITY, Severity.WARNING, "A real finding")]


def test_cut_short_report_does_not_outrank_a_real_finding(mini_matrix: Matrix) -> None:
    from envcheck.rules.other import check_unknowns

    # A probe that could not read a fact is a warning, ranked after a real one.
    snapshot = Snapshot(errors=(ProbeError("nvml", "NVML_ERROR_UNKNOWN"),))
    rules = (("other", check_unknowns), ("gpu", _warn))
    findings = diagnose(snapshot, mini_matrix, rules=rules).findings
    assert [f.id for f in findings] == ["gpu-capabilities", PROBE_FAILED]


def test_errors_still_come_first(mini_matrix: Matrix) -> None:
    def _error(snapshot: Snapshot, matrix: Matrix) -> list[Finding]:
        return [Finding("x-error", Category.OTHER, Severity.ERROR, "An error finding")]

    from envcheck.rules.other import check_unknowns

    snapshot = Snapshot(errors=(ProbeError("nvml", "NVML_ERROR_UNKNOWN"),))
    rules = (("other", check_unknowns), ("gpu", _warn), ("e", _error))
    findings = diagnose(snapshot, mini_matrix, rules=rules).findings
    assert [f.id for f in findings] == ["x-error", "gpu-capabilities", PROBE_FAILED]


def test_report_cut_short_is_information(mini_matrix: Matrix) -> None:
    from envcheck.rules.other import check_unknowns

    # envcheck.collect_env records a report that ends early under its own probe name.
    snapshot = Snapshot(errors=(ProbeError("collect_env", "the report ends at line 12"),))
    rules = (("other", check_unknowns), ("gpu", _warn))
    findings = diagnose(snapshot, mini_matrix, rules=rules).findings
    assert [(f.id, f.severity) for f in findings] == [
        ("gpu-capabilities", Severity.WARNING),
        (PROBE_FAILED, Severity.INFO),
    ]
