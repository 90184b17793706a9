"""Generated fleet snapshots: a few healthy stacks plus planted drifts.

Used by tests/fleet and scripts/bench_fleet.py. The healthy stacks run torch
2.5.1+cu124 on drivers 550 and 560 with A100 and H100 GPUs; the drifts are the
three of issue 15: an old driver, a kernel module / NVML library mismatch after
an upgrade without a reboot, and a node whose GPUs fell off the bus.
"""

from __future__ import annotations

import copy
import json
from typing import Any

OLD_DRIVER = "old-driver"
NVML_MISMATCH = "nvml-mismatch"
NO_GPU = "no-gpu"
DRIFTS = (OLD_DRIVER, NVML_MISMATCH, NO_GPU)

_GPUS = {
    "a100": ("NVIDIA A100-SXM4-80GB", "8.0", 81920),
    "h100": ("NVIDIA H100 80GB HBM3", "9.0", 81559),
    "v100": ("Tesla V100-SXM2-16GB", "7.0", 16384),
}
_DRIVERS = ("550.54.15", "560.35.03")


def snapshot(driver: str = "550.54.15", gpu: str = "a100", count: int = 8) -> dict[str, Any]:
    name, cc, mem = _GPUS[gpu]
    return {
        "schema": "envcheck.snapshot/1",
        "platform": {
            "os": "linux",
            "arch": "x86_64",
            "distro": "ubuntu",
            "distro_version": "22.04",
            "kernel": "5.15.0-119-generic",
            "glibc": "2.35",
            "wsl": False,
            "container": None,
        },
        "python": {
            "version": "3.11.9",
            "implementation": "CPython",
            "executable": "/opt/venv/bin/python",
            "prefix": "/opt/venv",
            "env_kind": "venv",
            "conda_env": None,
        },
        "driver": {
            "version": driver,
            "cuda_version": "12.4" if driver.startswith("550") else "12.6",
            "source": "nvml",
            "kernel_module_version": driver,
            "nvml_library_version": driver,
        },
        "gpus": [
            {
                "index": i,
                "name": name,
                "uuid": f"GPU-{gpu}-{i:04d}",
                "compute_capability": cc,
                "memory_total_mib": mem,
            }
            for i in range(count)
        ],
        "packages": {
            "torch": "2.5.1+cu124",
            "nvidia-cudnn-cu12": "9.1.0.70",
            "nvidia-cublas-cu12": "12.4.5.8",
            "nvidia-cuda-runtime-cu12": "12.4.127",
            "numpy": "1.26.4",
        },
        "frameworks": [
            {
                "name": "torch",
                "version": "2.5.1+cu124",
                "cuda_version": "12.4",
                "cudnn_version": "9.1.0",
                "cpu_only": False,
                "package": "torch",
                "variant": "cu124",
            }
        ],
        "probes": ["platform", "python", "driver", "gpus", "frameworks"],
        "created_at": "2026-11-20T10:00:00Z",
    }


def healthy(i: int) -> dict[str, Any]:
    """Node i of the healthy majority: four stacks (two drivers x two GPU models)."""
    s = snapshot(_DRIVERS[(i // 2) % 2], "a100" if i % 2 == 0 else "h100")
    for g in s["gpus"]:
        g["uuid"] = f"GPU-{i:06d}-{g['index']}"
    s["created_at"] = f"2026-11-20T10:{i % 60:02d}:00Z"
    return s


def drift(kind: str) -> dict[str, Any]:
    s = snapshot()
    if kind == OLD_DRIVER:
        s["driver"].update(
            version="470.256.02",
            cuda_version="11.4",
            kernel_module_version="470.256.02",
            nvml_library_version="470.256.02",
        )
    elif kind == NVML_MISMATCH:
        # The driver packages were upgraded to 550.127.05; the 550.54.15 module is
        # still loaded, so NVML refuses to start and only the files tell.
        s["driver"] = {
            "version": "550.127.05",
            "cuda_version": None,
            "source": "proc",
            "kernel_module_version": "550.54.15",
            "nvml_library_version": "550.127.05",
        }
        s["errors"] = [{"probe": "driver", "message": "NVML: Driver/library version mismatch"}]
    elif kind == NO_GPU:
        s["driver"] = {}
        s["gpus"] = []
        s["errors"] = [{"probe": "driver", "message": "NVML: Driver Not Loaded"}]
    else:
        raise ValueError(kind)
    return s


def node_name(i: int) -> str:
    return f"gpu{i:05d}"


def fleet_lines(n: int, drifts: dict[int, str]) -> list[str]:
    """n fleet records (JSON lines); ``drifts`` maps node index -> drift kind."""
    cache: dict[Any, dict[str, Any]] = {}
    out = []
    for i in range(n):
        kind = drifts.get(i)
        if kind is None:
            snap = healthy(i)
        else:
            key = kind
            if key not in cache:
                cache[key] = drift(kind)
            snap = copy.deepcopy(cache[key])
        rec = {
            "schema": "envcheck.fleet/1",
            "node": node_name(i),
            "job_id": "4242",
            "status": "ok",
            "snapshot": snap,
        }
        out.append(json.dumps(rec, separators=(",", ":")) + "\n")
    return out
