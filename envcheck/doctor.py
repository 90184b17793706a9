"""The doctor: run every rule over a snapshot and collect a report (pure)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from envcheck.model._frozen import record
from envcheck.model.finding import Category, Finding, Severity, sort_findings

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot
    from envcheck.rules import Rule

DOCTOR_SCHEMA = "envcheck.doctor/1"
RULE_CRASHED = "rule-crashed"


@record
class Report:
    snapshot: Snapshot
    matrix_version: str
    findings: tuple[Finding, ...]
    deep: tuple[dict[str, Any], ...] = ()
    """Results of --deep smoke tests, one dict per framework (empty without --deep)."""
    ignored: tuple[Finding, ...] = ()
    """Findings the user accepted (``--ignore ID``, ``[tool.envcheck.doctor]``):
    listed, never counted, never a reason to fail."""
    ignore: tuple[str, ...] = ()
    """The ids asked to be ignored, in the order given (some may match nothing)."""

    @property
    def ignore_unmatched(self) -> tuple[str, ...]:
        """Ids asked to be ignored that no finding has (a typo, or fixed since)."""
        seen = {f.id for f in self.ignored}
        return tuple(i for i in self.ignore if i not in seen)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def failed(self, strict: bool = False) -> bool:
        if self.count(Severity.ERROR):
            return True
        return strict and self.count(Severity.WARNING) > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": DOCTOR_SCHEMA,
            "matrix_version": self.matrix_version,
            "summary": {
                "errors": self.count(Severity.ERROR),
                "warnings": self.count(Severity.WARNING),
                "info": self.count(Severity.INFO),
                "ignored": len(self.ignored),
            },
            "findings": [f.to_json() for f in self.findings],
            "ignored": [f.to_json() for f in self.ignored],
            "ignore": {"ids": list(self.ignore), "unmatched": list(self.ignore_unmatched)},
            "deep": list(self.deep),
            "snapshot": self.snapshot.to_json(),
        }


def ignore_findings(report: Report, ids: tuple[str, ...]) -> Report:
    """``report`` with the findings whose id is in ``ids`` moved to ``ignored``."""
    from envcheck.model._frozen import replace

    if not ids:
        return report
    wanted = set(ids)
    kept = tuple(f for f in report.findings if f.id not in wanted)
    dropped = tuple(f for f in report.findings if f.id in wanted)
    asked = tuple(dict.fromkeys(report.ignore + ids))
    return replace(report, findings=kept, ignored=report.ignored + dropped, ignore=asked)


def diagnose(
    snapshot: Snapshot,
    matrix: Matrix,
    rules: Optional[tuple[tuple[str, Rule], ...]] = None,
    extra: tuple[Finding, ...] = (),
) -> Report:
    """Run ``rules`` (default: ``ALL_RULES``) and return the sorted report.

    A rule that crashes on odd input becomes an ``other`` finding rather than a
    traceback, so a broken rule can never produce a false "all good".
    """
    if rules is None:
        from envcheck.rules import ALL_RULES

        rules = ALL_RULES
    findings: list[Finding] = list(extra)
    for name, rule in rules:
        try:
            findings.extend(rule(snapshot, matrix))
        except Exception as exc:  # noqa: BLE001 - reported as a finding
            findings.append(
                Finding(
                    RULE_CRASHED,
                    Category.OTHER,
                    Severity.WARNING,
                    f"The {name} check could not run on this snapshot",
                    evidence=(f"{type(exc).__name__}: {exc}",),
                    fix="Please report this with the snapshot (envcheck detect --json --redact).",
                )
            )
    return Report(snapshot, matrix.version, sort_findings(findings))
