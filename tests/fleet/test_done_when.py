"""Issue 15's "done when": 200 generated snapshots with three planted drifts.

`envcheck fleet report` must name exactly the three drifted nodes (an old
driver, a kernel module / NVML library mismatch, a node without GPUs) and print
an environment that runs on all the rest: checked by installing the printed
pins into every healthy node's snapshot and running the doctor on it.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

from envcheck.doctor import diagnose
from envcheck.matrix import Matrix
from envcheck.model.finding import Severity
from envcheck.model.snapshot import Framework, Snapshot
from tests.conftest import run_cli
from tests.fleet import fleetgen as G

DRIFTS = {23: G.OLD_DRIVER, 101: G.NVML_MISMATCH, 177: G.NO_GPU}


def test_report_names_the_three_drifts_and_an_environment_for_the_rest(
    matrix: Matrix, tmp_path: Path
) -> None:
    fleet = tmp_path / "fleet.jsonl"
    fleet.write_text("".join(G.fleet_lines(200, DRIFTS)))
    drifted = {G.node_name(i) for i in DRIFTS}
    everyone = {G.node_name(i) for i in range(200)}

    code, text, err = run_cli("fleet", "report", str(fleet))
    assert code == 1, err
    # The findings section names exactly the drifted nodes (info lines aside).
    findings = text.split("Findings (errors first):")[1].split("The environment")[0]
    named = set(re.findall(r"gpu\d{5}", findings.split("  info:")[0]))
    assert named == drifted
    # ... and so do the "left out" lines of the environment.
    env_part = text.split("The environment that runs on every node:")[1]
    left_out = {
        n for ln in env_part.splitlines() if "left out" in ln for n in re.findall(r"gpu\d{5}", ln)
    }
    assert left_out == drifted
    assert "for 197 nodes:" in env_part
    assert re.search(r"pip install torch==\S+", env_part)

    code, out, _ = run_cli("fleet", "report", str(fleet), "--json")
    data = json.loads(out)
    assert data["summary"]["error_nodes"] == sorted(drifted)
    (env,) = data["environments"]
    assert set(env["nodes"]) == everyone - drifted
    assert set(env["emitted"]) == {"pip", "conda", "yml", "requirements", "json"}
    (pick,) = [p for p in env["plan"]["picks"] if p["package"] == "torch"]

    # Install the printed torch into every healthy stack and ask the doctor.
    seen = set()
    for i in [-1, *range(200)]:
        if i in DRIFTS:
            continue
        # -1: the old-driver node, where the same pins must fail (the check bites).
        snap = Snapshot.from_json(G.drift(G.OLD_DRIVER) if i < 0 else G.healthy(i))
        key = (snap.driver.version, snap.gpus[0].name)
        if key in seen:
            continue
        seen.add(key)
        local = f"+{pick['variant']}" if pick["variant"] else ""
        fw = Framework(
            name="torch",
            version=pick["version"] + local,
            cuda_version=pick["cuda"],
            cpu_only=False,
            package="torch",
            variant=pick["variant"],
        )
        pkgs = dict(snap.packages, torch=pick["version"] + local)
        report = diagnose(replace(snap, frameworks=(fw,), packages=pkgs), matrix)
        errors = [f.id for f in report.findings if f.severity == Severity.ERROR]
        if i < 0:
            assert "driver-too-old" in errors
        else:
            assert errors == [], (key, errors)
    assert len(seen) == 5  # the old driver, then two drivers x two GPU models
