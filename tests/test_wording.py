"""Wording defects from issue 26, each at its source: plurals, doubled prefixes,
"from inferred from", `explain ""`, and a fix pointing at findings that are not there."""

from __future__ import annotations

import pytest

from envcheck.matrix import Matrix
from tests.conftest import run_cli


def test_one_line_scanned_is_singular() -> None:
    from envcheck.explain.core import explain
    from envcheck.explain.render import summary_line

    assert (
        summary_line(explain("nothing here"))
        == "No known error signature recognised (1 line scanned)"
    )
    two = summary_line(
        explain("CUDA error: no kernel image is available for execution on the device")
    )
    assert " in 1 line" in two and "lines" not in two


def test_fleet_counts_are_plural_only_when_needed(matrix: Matrix) -> None:
    from envcheck.fleet.records import read_json_lines
    from envcheck.fleet.render import report_text
    from envcheck.fleet.report import build_report
    from tests.fleet import fleetgen as G

    report = build_report(read_json_lines(G.fleet_lines(1, {}), "f.jsonl"), matrix)
    head = report_text(report).splitlines()[0]
    assert head.startswith("Fleet: 1 node, 1 judged, 1 stack (1 distinct snapshot); matrix ")


def test_an_ssh_error_says_ssh_once() -> None:
    from envcheck.fleet import collect as C

    record = C.ssh_record(
        C.Host("ws01", "ws01"),
        C.Completed(255, "", "ssh: connect to host ws01 port 22: Connection refused\n"),
        60,
    )
    assert record["error"] == "ssh: connect to host ws01 port 22: Connection refused"
    other = C.ssh_record(
        C.Host("b", "b"), C.Completed(255, "", "Permission denied (publickey).\n"), 60
    )
    assert other["error"] == "ssh: Permission denied (publickey)."


def test_inferred_architectures_are_not_from_inferred_from() -> None:
    """torch 2.6.0+cu118's row has no arch list; the cu124 build's list stands in."""
    code, out, _ = run_cli("matrix", "why", "torch==2.6.0+cu118", "--gpu", "sm_89")
    assert code == 0
    assert "(SASS for sm_86, inferred from the release's cu124 builds)" in out
    assert "from inferred from" not in out


@pytest.mark.parametrize("arg", ["", "   "])
def test_explain_an_empty_argument(arg: str) -> None:
    code, out, err = run_cli("explain", "--no-detect", arg)
    assert (code, out) == (2, "")
    assert (
        err
        == "envcheck: error: the argument is empty: give the error text, a log file, or - for stdin\n"
    )


def test_a_failed_smoke_test_fix_points_at_its_own_evidence(matrix: Matrix) -> None:
    from envcheck.deep import DEEP_FAILED, DeepResult, deep_findings
    from envcheck.model.snapshot import Snapshot

    result = DeepResult("torch", ok=False, error="RuntimeError: boom", output_tail="boom")
    (finding,) = [f for f in deep_findings([result], Snapshot(), matrix) if f.id == DEEP_FAILED]
    assert "findings above" not in (finding.fix or "")
    assert finding.fix.startswith("The evidence above shows how the test failed")
