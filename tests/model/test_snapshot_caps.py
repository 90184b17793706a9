"""Issue 16: a snapshot listing 100 000 GPUs (or any list past its documented cap)
is one plain line, exit 2; at the caps, ``doctor`` stays fast; in a fleet, such a
node is one node's problem, not a stall."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from envcheck.errors import InputError
from envcheck.model.snapshot import MAX_BUILD_FACTS, MAX_ENTRIES
from envcheck.snapshot_io import parse_snapshot_text
from tests.conftest import run_cli

GPU_NAMES = ("NVIDIA A100-SXM4-80GB", "Tesla K80", "NVIDIA GeForce RTX 4090")
FRAMEWORKS = ("torch", "tensorflow", "jax", "cupy", "onnxruntime", "paddle", "keras", "caffe")


def entries(section: str, n: int) -> Any:
    """``n`` plausible entries of a snapshot section (distinct where it matters)."""
    if section == "gpus":
        # Every name distinct: unknown names take the slow (prefix, family) path.
        return [
            {
                "index": i,
                "name": GPU_NAMES[i % 3] if i % 2 else f"NVIDIA Mystery {i}",
                "uuid": f"GPU-{i:08x}",
                "memory_total_mib": 81920,
                "pcie_width": 8,
                "pcie_max_width": 16,
            }
            for i in range(n)
        ]
    if section == "cuda_toolkits":
        return [{"version": f"12.{i % 9}", "path": f"/usr/local/cuda-{i}"} for i in range(n)]
    if section == "libraries":
        libs = ("cudnn", "cublas", "cudart", "nccl", "nvjitlink")
        return [
            {"name": libs[i % 5], "version": f"9.{i % 10}.0", "path": f"/opt/l{i}/lib.so"}
            for i in range(n)
        ]
    if section in ("packages", "conda_packages"):
        return {f"pkg-{i}": "1.0" for i in range(n)}
    if section == "frameworks":
        return [
            {
                "name": FRAMEWORKS[i % 8],
                "version": "2.1.0",
                "cuda_version": "12.1",
                "cudnn_version": "8.9.2",
                "package": FRAMEWORKS[i % 8],
                "build": {f"fact{j}": "on" for j in range(MAX_BUILD_FACTS)},
            }
            for i in range(n)
        ]
    if section == "env":
        return {f"VAR_{i}": "/usr/local/cuda/lib64:/home/alice/lib" for i in range(n)}
    if section == "errors":
        return [{"probe": "driver", "message": f"failed {i}"} for i in range(n)]
    if section == "probes":
        return [f"probe{i}" for i in range(n)]
    raise AssertionError(section)


def snapshot(**sections: Any) -> dict[str, Any]:
    return {
        "schema": "envcheck.snapshot/1",
        "platform": {"os": "linux", "arch": "x86_64"},
        "python": {"version": "3.11.7"},
        "driver": {"version": "535.104.05", "cuda_version": "12.2"},
        **sections,
    }


def write(tmp_path: Path, doc: dict[str, Any], name: str = "snap.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_100000_gpus_is_one_plain_line(tmp_path: Path) -> None:
    path = write(tmp_path, snapshot(gpus=[{"name": "A100"}] * 100_000))
    start = time.monotonic()
    code, out, err = run_cli("doctor", "--snapshot", str(path))
    assert time.monotonic() - start < 10  # it ran for minutes before the cap
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert f"{path}: gpus: 100000 entries, more than the 1024" in err


@pytest.mark.parametrize("section", sorted(MAX_ENTRIES))
def test_every_section_is_capped(section: str) -> None:
    cap = MAX_ENTRIES[section]
    assert parse_snapshot_text(json.dumps(snapshot(**{section: entries(section, cap)})))
    with pytest.raises(InputError, match=rf"^s\.json: {section}: {cap + 1} entries") as info:
        parse_snapshot_text(json.dumps(snapshot(**{section: entries(section, cap + 1)})), "s.json")
    assert "\n" not in str(info.value)


def test_framework_build_facts_are_capped() -> None:
    fw = entries("frameworks", 1)
    fw[0]["build"][f"fact{MAX_BUILD_FACTS}"] = "one too many"
    with pytest.raises(InputError, match=r"frameworks\[0\]\.build: 1025 entries"):
        parse_snapshot_text(json.dumps(snapshot(frameworks=fw)), "s.json")


def test_doctor_on_a_snapshot_at_every_cap_is_fast(tmp_path: Path) -> None:
    """Every list at its cap at once (1 024 GPUs took 7 s before the matrix kept
    its GPU index and per-name matches; about 0.3 s on an idle machine now)."""
    doc = snapshot(**{section: entries(section, cap) for section, cap in MAX_ENTRIES.items()})
    path = write(tmp_path, doc)
    run_cli("doctor", "--snapshot", str(write(tmp_path, snapshot(), "warm.json")))  # imports
    for args in (("--json",), ("--redact",)):
        start = time.monotonic()
        code, out, err = run_cli("doctor", *args, "--snapshot", str(path))
        elapsed = time.monotonic() - start
        assert code in (0, 1), err
        assert elapsed < 4.0, f"doctor {args} took {elapsed:.1f} s"


def test_a_fleet_node_with_100000_gpus_is_one_node_problem(tmp_path: Path) -> None:
    lines = [
        {
            "schema": "envcheck.fleet/1",
            "node": "huge",
            "status": "ok",
            "snapshot": snapshot(gpus=[{"name": "A100"}] * 100_000),
        },
        {"schema": "envcheck.fleet/1", "node": "fine", "status": "ok", "snapshot": snapshot()},
    ]
    path = tmp_path / "fleet.jsonl"
    path.write_text("".join(json.dumps(rec) + "\n" for rec in lines), encoding="utf-8")
    start = time.monotonic()
    code, out, err = run_cli("fleet", "report", "--json", str(path))
    assert time.monotonic() - start < 10
    assert code in (0, 1), err
    report = json.loads(out)
    problems = {p["node"]: p for p in report["problems"]}
    assert set(problems) == {"huge"}
    assert "gpus: 100000 entries, more than the 1024" in problems["huge"]["error"]
    assert report["summary"]["judged"] == 1


def test_the_json_schema_states_the_caps() -> None:
    schema_path = Path(__file__).parents[2] / "envcheck" / "schemas" / "snapshot-1.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    for section, cap in MAX_ENTRIES.items():
        prop = schema["properties"][section]
        assert prop.get("maxItems", prop.get("maxProperties")) == cap, section
    build = schema["$defs"]["Framework"]["properties"]["build"]
    assert build["maxProperties"] == MAX_BUILD_FACTS
