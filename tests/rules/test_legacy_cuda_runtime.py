"""CUDA 10.x runtimes are per minor (cudart64_100.dll): the seed machine with only
CUDA 10.1 and cuDNN 7.6 on PATH cannot run tensorflow-gpu 1.14 (built for 10.0)."""

from __future__ import annotations

import json
from pathlib import Path

from envcheck.doctor import diagnose
from envcheck.matrix import load_matrix
from envcheck.model.snapshot import Snapshot

SEED = Path(__file__).parents[1] / "fixtures" / "doctor"
CASE = SEED / "41-windows-quadro-rtx5000-tf-1.14-cuda-10.1.json"


def test_the_seed_machine_gets_the_runtime_mismatch_and_its_fix() -> None:
    snapshot = Snapshot.from_json(json.loads(CASE.read_text(encoding="utf-8"))["snapshot"])
    report = diagnose(snapshot, load_matrix(bundled=True))
    (finding,) = [f for f in report.findings if f.id == "cuda-runtime-missing"]
    assert "CUDA 10.0 runtime" in finding.title
    assert "CUDA found: 10.1" in finding.evidence
    # The resolver's conda plan for the build, quoted for cmd.exe (the old hand-written
    # fix used POSIX single quotes, which cmd.exe and Anaconda Prompt do not read).
    fix = finding.fix or ""
    assert 'conda install -c defaults --override-channels cudatoolkit=10.0 "cudnn=7.*"' in fix
    assert "'" not in fix.split("\n")[1]
    assert "pip install nvidia" not in fix  # TensorFlow <= 2.10 on Windows: PATH only


def test_a_cuda_10_0_toolkit_satisfies_it() -> None:
    data = json.loads(CASE.read_text(encoding="utf-8"))["snapshot"]
    data["cuda_toolkits"][0]["version"] = "10.0.130"
    data["libraries"][1]["version"] = "10.0.130"
    report = diagnose(Snapshot.from_json(data), load_matrix(bundled=True))
    assert "cuda-runtime-missing" not in {f.id for f in report.findings}


def _with_gpu(name: str) -> Snapshot:
    data = json.loads(CASE.read_text(encoding="utf-8"))["snapshot"]
    data["gpus"][0].update(name=name, compute_capability=None)
    return Snapshot.from_json(data)


def test_a_gtx_670_hears_which_cuda_was_the_last_for_sm_30() -> None:
    report = diagnose(_with_gpu("NVIDIA GeForce GTX 670"), load_matrix(bundled=True))
    (finding,) = [f for f in report.findings if f.id == "gpu-legacy-cuda"]
    assert "no CUDA release that current frameworks use supports sm_30" in finding.title
    assert "the last one was CUDA 10.2" in finding.title


def test_current_gpus_are_not_legacy() -> None:
    for name in ("Quadro RTX 5000", "NVIDIA GeForce RTX 5090", "Tesla V100-SXM2-16GB"):
        report = diagnose(_with_gpu(name), load_matrix(bundled=True))
        assert "gpu-legacy-cuda" not in {f.id for f in report.findings}, name


def test_a_radeon_in_a_snapshot_gets_the_nvidia_only_finding() -> None:
    report = diagnose(_with_gpu("AMD Radeon RX 7900 XTX"), load_matrix(bundled=True))
    ids = {f.id for f in report.findings}
    assert "gpu-not-nvidia" in ids and "gpu-unknown" not in ids
    (finding,) = [f for f in report.findings if f.id == "gpu-not-nvidia"]
    assert finding.fix is not None and "ROCm" in finding.fix


def test_a_family_inferred_capability_is_said_so() -> None:
    report = diagnose(_with_gpu("NVIDIA RTX A5500 Laptop GPU"), load_matrix(bundled=True))
    (finding,) = [f for f in report.findings if f.id == "gpu-capabilities"]
    assert "inferred from the family" in finding.evidence[0]
