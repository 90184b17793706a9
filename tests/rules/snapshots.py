"""Snapshot parts the rule tests share: a Linux platform, a Python, a TensorFlow
2.10 CUDA 11.2 build, and ``snap`` to put them together."""

from __future__ import annotations

from typing import Any

from envcheck.model.snapshot import Snapshot

LINUX = {"os": "linux", "arch": "x86_64", "distro": "ubuntu", "distro_version": "22.04"}
PY311 = {"version": "3.11.9", "implementation": "CPython", "env_kind": "venv"}
PY310 = {"version": "3.10.12"}
"""A Python TensorFlow 2.10 supports."""
TF_2_10_CU112 = {
    "name": "tensorflow",
    "version": "2.10.0",
    "cuda_version": "11.2",
    "cudnn_version": "8",
    "cpu_only": False,
    "package": "tensorflow",
}


def snap(python: dict[str, Any] = PY311, **parts: Any) -> Snapshot:
    data: dict[str, Any] = {"platform": LINUX, "python": python}
    data.update(parts)
    return Snapshot.from_json(data)
