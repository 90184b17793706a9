"""Whole-machine scenarios against the shipped matrix: the exact error and warning ids.

Each fixture in tests/fixtures/doctor/ is a realistic snapshot (drivers 418 to
580, Kepler to Blackwell, Linux, Windows, WSL2, containers, conda and venv)
with the findings a careful engineer expects. Healthy machines expect none:
no false alarms.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from envcheck.doctor import diagnose
from envcheck.matrix import load_matrix
from envcheck.model.finding import Severity
from envcheck.model.snapshot import Snapshot
from envcheck.schemas import get_schema

CASES = sorted((Path(__file__).parent / "fixtures" / "doctor").glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_there_are_at_least_30_scenarios() -> None:
    assert len(CASES) >= 30
    healthy = [p for p in CASES if not load(p)["expect"]["errors"]]
    assert len(healthy) >= 10  # enough machines that must not raise false alarms


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_scenario(path: Path) -> None:
    case = load(path)
    jsonschema.validate(case["snapshot"], get_schema("snapshot-1"))
    report = diagnose(Snapshot.from_json(case["snapshot"]), load_matrix(bundled=True))
    errors = sorted({f.id for f in report.findings if f.severity is Severity.ERROR})
    warnings = sorted({f.id for f in report.findings if f.severity is Severity.WARNING})
    assert errors == case["expect"]["errors"], case["description"]
    assert warnings == case["expect"]["warnings"], case["description"]
    for finding in report.findings:
        if finding.severity is Severity.ERROR:
            assert finding.fix, f"{finding.id} has no fix"
            assert finding.evidence, f"{finding.id} has no evidence"
