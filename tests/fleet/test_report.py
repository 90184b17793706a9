"""The fleet report: stacks, drift, grouped findings, the shared environment."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from envcheck.fleet.records import make_record, read_json_lines, record_line
from envcheck.fleet.render import PLAN_FORMATS, report_json, report_markdown, report_text
from envcheck.fleet.report import FleetReport, build_report
from envcheck.model.finding import Severity
from envcheck.model.versions import parse_driver_version
from tests.fleet import fleetgen as G

if TYPE_CHECKING:
    from envcheck.matrix import Matrix

DRIFTS = {17: G.OLD_DRIVER, 88: G.NVML_MISMATCH, 150: G.NO_GPU}


def _report(lines: list[str], matrix: Matrix, **kw: Any) -> FleetReport:
    return build_report(read_json_lines(lines, "fleet.jsonl"), matrix, **kw)


def test_200_nodes_three_drifts(matrix: Matrix) -> None:
    """Issue 15's "done when": exactly the three drifted nodes are named, and the
    environment printed runs on all the rest."""
    r = _report(G.fleet_lines(200, DRIFTS), matrix)
    drifted = {G.node_name(i) for i in DRIFTS}
    assert set(r.error_nodes) == drifted
    assert r.failed()
    errors = {
        g.finding.id: set(g.nodes) for g in r.findings if g.finding.severity == Severity.ERROR
    }
    assert errors == {
        "driver-too-old": {G.node_name(17)},
        "nvml-mismatch": {G.node_name(88)},
        "no-driver": {G.node_name(150)},
    }
    # The stacks that only one node has are exactly the drifted ones.
    assert {n for s in r.stacks if len(s.nodes) == 1 for n in s.nodes} == drifted
    assert {n for s in r.stacks for n in s.nodes} == {G.node_name(i) for i in range(200)}

    (env,) = r.environments
    rest = {G.node_name(i) for i in range(200)} - drifted
    assert set(env.nodes) == rest
    assert dict(r.excluded) == {
        "doctor errors (fix them, or pass --all-nodes)": (G.node_name(17), G.node_name(88)),
        "no NVIDIA GPU or driver": (G.node_name(150),),
    }
    t = env.target
    assert t.driver == parse_driver_version("550.54.15")  # the oldest of the rest
    assert {str(c) for c in t.gpus} == {"8.0", "9.0"}  # every architecture of the rest
    assert (t.os, t.arch, t.python) == ("linux", "x86_64", "3.11")
    assert env.plan is not None and env.plan.ok
    assert [p.package for p in env.plan.picks] == ["torch"]

    text = report_text(r)
    for name in drifted:
        assert name in text
    assert "pip install torch==" in text
    data = report_json(r)
    json.dumps(data)
    assert set(data["environments"][0]["emitted"]) == set(PLAN_FORMATS)
    assert data["summary"]["error_nodes"] == sorted(drifted)
    md = report_markdown(r)
    assert "### Findings" in md and "```" in md


def test_doctor_runs_once_per_distinct_snapshot(matrix: Matrix, monkeypatch: Any) -> None:
    from envcheck import doctor

    calls = []
    real = doctor.diagnose

    def counting(*a: Any, **kw: Any) -> Any:
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(doctor, "diagnose", counting)
    r = _report(G.fleet_lines(400, DRIFTS), matrix)
    # 4 healthy stacks (GPU UUIDs and creation times do not count) + 3 drifts.
    assert len(calls) == r.distinct_snapshots == 7
    assert r.nodes_judged == 400


def test_bad_input_is_reported_per_node(matrix: Matrix) -> None:
    good = G.fleet_lines(5, {})
    newer = record_line(
        make_record("newer", snapshot={**G.snapshot(), "schema": "envcheck.snapshot/7"})
    )
    lines = [
        *good,
        good[0][:120],  # a truncated second answer of gpu00000
        newer,
        "Traceback (most recent call last):\n",
        "RuntimeError: boom\n",
        record_line(make_record("gpu00003", status="unreachable", error="timed out")),
    ]
    r = _report(lines, matrix)
    by = {(p.node, p.status) for p in r.problems}
    assert ("newer", "unreadable") in by
    assert ("fleet.jsonl:8-9", "unreadable") in by
    assert ("gpu00000", "duplicate") in by
    assert ("gpu00003", "duplicate") in by
    # The newer answer of gpu00000 was unreadable: its snapshot is kept.
    assert r.nodes_judged == 5
    assert "gpu00000" not in r.error_nodes
    assert set(r.error_nodes) == {"newer", "fleet.jsonl:8-9"}
    report_text(r)


def test_zero_snapshots(matrix: Matrix) -> None:
    r = build_report([], matrix, input_problems=("x.jsonl: no snapshots",))
    assert r.failed() and r.nodes_total == 0
    assert "no snapshots" in report_text(r)
    assert report_json(r)["environments"] == []


def test_package_drift_is_shown(matrix: Matrix) -> None:
    lines = G.fleet_lines(3, {})
    rec = json.loads(lines[2])
    rec["snapshot"]["packages"]["numpy"] = "2.1.0"
    lines[2] = json.dumps(rec) + "\n"
    r = _report(lines, matrix)
    odd = next(s for s in r.stacks if G.node_name(2) in s.nodes)
    assert not odd.majority
    assert any(d.field == "package numpy" and d.value == "2.1.0" for d in odd.differences)


def test_requirements_override_and_all_nodes(matrix: Matrix) -> None:
    r = _report(
        G.fleet_lines(10, {3: G.OLD_DRIVER}), matrix, all_nodes=True, requirements=["torch"]
    )
    (env,) = r.environments
    assert env.target.driver == parse_driver_version("470.256.02")
    assert env.plan is not None and env.plan.ok
    assert env.plan.cuda_major == 11


def test_mangled_answers_never_raise(matrix: Matrix) -> None:
    """Cut and byte-flipped record lines: every one is a node's problem or a
    judged snapshot, never a traceback, and the intact nodes are all judged."""
    import random

    rng = random.Random(15)
    base = G.fleet_lines(1, {})[0].rstrip("\n")
    lines = [base.replace("gpu00000", f"cut{i:04d}")[: i * 37] + "\n" for i in range(1, 40)]
    for i in range(120):
        chars = list(base.replace("gpu00000", f"flip{i:04d}"))
        for _ in range(3):
            pos = rng.randrange(40, len(chars))
            chars[pos] = rng.choice('{}[]":,0a\\ \x00é')
        lines.append("".join(chars) + "\n")
    lines += G.fleet_lines(5, {})
    r = _report(lines, matrix)
    report_text(r)
    json.dumps(report_json(r))
    judged = {n for s in r.stacks for n in s.nodes}
    assert {G.node_name(i) for i in range(5)} <= judged
    assert r.nodes_total == len(judged) + len(
        {p.node for p in r.problems if p.status != "duplicate"}
    )


def test_each_gpu_keeps_its_own_capability_in_the_fleet_target(matrix: Matrix) -> None:
    """V100 and A100 nodes: the environment's target pairs each name with its own
    capability (sorting names and capabilities apart labelled the V100 as the A100)."""
    lines = []
    for i, gpu in enumerate(("v100", "a100")):
        rec = {
            "schema": "envcheck.fleet/1",
            "node": G.node_name(i),
            "job_id": "4242",
            "status": "ok",
            "snapshot": G.snapshot(gpu=gpu),
        }
        lines.append(json.dumps(rec))
    r = _report(lines, matrix)
    (env,) = r.environments
    pairs = set(zip((str(c) for c in env.target.gpus), env.target.gpu_names))
    assert pairs == {("7.0", "Tesla V100-SXM2-16GB"), ("8.0", "NVIDIA A100-SXM4-80GB")}
    text = report_text(r)
    assert "A100-SXM4-80GB (sm_70)" not in text
    assert env.plan is not None and env.plan.ok
