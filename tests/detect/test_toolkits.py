"""Toolkits probe: version files, wheel-built toolkits, nvcc, symlinks, conda, pip."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Optional

import pytest

from envcheck.detect import detect
from envcheck.detect.context import Context
from envcheck.detect.system import CommandResult, System, real_system
from envcheck.detect.toolkits import (
    parse_conda_meta_filename,
    parse_cuda_version_json,
    parse_cuda_version_txt,
    parse_nvcc_version,
    parse_toolkit_dist_info,
    probe_toolkits,
    resolve_machine_path,
)
from envcheck.model.snapshot import CudaToolkit, ProbeError
from tests.conftest import FakeRunner, make_system, write_tree

NVCC_13 = """\
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Wed_Aug_20_01:58:59_PM_PDT_2025
Cuda compilation tools, release 13.0, V13.0.88
Build cuda_13.0.r13.0/compiler.36424714_0
"""
NVCC_12_4 = """\
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2024 NVIDIA Corporation
Built on Thu_Mar_28_02:18:24_PDT_2024
Cuda compilation tools, release 12.4, V12.4.131
Build cuda_12.4.r12.4/compiler.34097967_0
"""
NVCC_10_1 = """\
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2019 NVIDIA Corporation
Built on Sun_Jul_28_19:07:16_PDT_2019
Cuda compilation tools, release 10.1, V10.1.243
"""
VERSION_JSON_12_4 = """{
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "12.4.1"
   },
   "cuda_cccl" : {
      "name" : "CUDA C++ Core Compute Libraries",
      "version" : "12.4.127"
   },
   "cuda_cudart" : {
      "name" : "CUDA Runtime (cudart)",
      "version" : "12.4.127"
   },
   "libcublas" : {
      "name" : "CUDA cuBLAS",
      "version" : "12.4.5.8"
   }
}
"""
VERSION_JSON_11_8 = '{"cuda": {"name": "CUDA SDK", "version": "11.8.0"}}'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (NVCC_13, "13.0.88"),
        (NVCC_12_4, "12.4.131"),
        (NVCC_10_1, "10.1.243"),
        ("Cuda compilation tools, release 9.0, V9.0.176\r\n", "9.0.176"),
        ("Cuda compilation tools, release 11.0", "11.0"),
        (NVCC_13[:60], None),
        ("bash: nvcc: command not found", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_nvcc_version(text: Optional[str], expected: Optional[str]) -> None:
    assert parse_nvcc_version(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (VERSION_JSON_12_4, "12.4.1"),
        (VERSION_JSON_11_8, "11.8.0"),
        (VERSION_JSON_12_4[:70], None),
        ('{"cuda": {"version": 12.4}}', None),
        ('{"cuda": "12.4"}', None),
        ("[1, 2]", None),
        ("not json", None),
        ("", None),
    ],
)
def test_parse_cuda_version_json(text: str, expected: Optional[str]) -> None:
    assert parse_cuda_version_json(text) == expected


def test_parse_cuda_version_txt() -> None:
    assert parse_cuda_version_txt("CUDA Version 11.2.152\n") == "11.2.152"
    assert parse_cuda_version_txt("CUDA Version 10.2.89") == "10.2.89"
    assert parse_cuda_version_txt("CUDA Vers") is None
    assert parse_cuda_version_txt(None) is None


def test_parse_toolkit_dist_info() -> None:
    names = [
        "nvidia_cuda_cccl-13.0.85.dist-info",
        "nvidia_cuda_nvcc-13.0.88.dist-info",
        "nvidia_cuda_runtime-13.0.96.dist-info",
    ]
    assert parse_toolkit_dist_info(names) == "13.0.88"
    assert parse_toolkit_dist_info(["nvidia_cuda_runtime_cu12-12.4.127.dist-info"]) == "12.4.127"
    assert parse_toolkit_dist_info(["nvidia_cudnn_cu12-9.1.0.70.dist-info", "junk"]) is None


def test_parse_conda_meta_filename() -> None:
    assert parse_conda_meta_filename("cudatoolkit-11.8.0-h6a678d5_0.json") == (
        "cudatoolkit",
        "11.8.0",
    )
    assert parse_conda_meta_filename("cuda-nvcc-12.4.131-0.json") == ("cuda-nvcc", "12.4.131")
    assert parse_conda_meta_filename("history") is None
    assert parse_conda_meta_filename("weird.json") is None


def _probe(system: System, ctx: Optional[Context] = None) -> Context:
    ctx = ctx or Context()
    probe_toolkits(system, ctx)
    return ctx


def _wheel_toolkit(root: Path) -> None:
    """The dev machine's layout: /usr/local/cuda -> /usr/local/cuda-13.0, built from wheels."""
    write_tree(
        root,
        {
            "usr/local/cuda-13.0/bin/nvcc": "",
            # 13.0.48, not the dev machine's 13.0.88: proves nothing is read outside the root.
            "usr/local/cuda-13.0/dist-info/nvidia_cuda_nvcc-13.0.48.dist-info/METADATA": "",
            "usr/local/cuda-13.0/dist-info/nvidia_cuda_runtime-13.0.96.dist-info/METADATA": "",
            "usr/local/cuda-13.0/lib64/libcudart.so.13": "",
            "usr/local/bin/nvcc": '#!/bin/sh\nexec /usr/local/cuda/bin/nvcc "$@"\n',
        },
    )
    (root / "usr/local/cuda").symlink_to("/usr/local/cuda-13.0")


def test_symlinked_wheel_built_toolkit_is_reported_once(tmp_path: Path) -> None:
    _wheel_toolkit(tmp_path)
    system = make_system(
        tmp_path,
        env={"PATH": "/usr/local/bin:/usr/bin"},
        outputs={"nvcc": NVCC_13.replace("V13.0.88", "V13.0.48")},
        executables={"nvcc": "/usr/local/bin/nvcc"},
    )
    ctx = _probe(system)
    assert ctx.cuda_toolkits == [
        CudaToolkit(version="13.0.48", path="/usr/local/cuda", source="dist-info")
    ]
    assert ctx.errors == []
    assert isinstance(system.run, FakeRunner)
    # The wrapper execs the toolkit's nvcc, whose version files already said 13.0.48:
    # nvcc is not run at all (it costs ~100 ms per detection).
    assert system.run.calls == []


def test_resolve_machine_path_stays_in_the_fake_root(tmp_path: Path) -> None:
    _wheel_toolkit(tmp_path)
    (tmp_path / "usr/local/cuda-13.0/lib").symlink_to("lib64")
    system = make_system(tmp_path)
    assert resolve_machine_path(system, "/usr/local/cuda/bin") == "/usr/local/cuda-13.0/bin"
    assert resolve_machine_path(system, "/usr/local/cuda/lib") == "/usr/local/cuda-13.0/lib64"
    assert resolve_machine_path(system, "/nowhere/x") == "/nowhere/x"


def test_two_toolkits_cuda_home_first(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "usr/local/cuda-11.8/version.json": VERSION_JSON_11_8,
            "usr/local/cuda-11.8/bin/nvcc": "",
            "usr/local/cuda-12.4/version.json": VERSION_JSON_12_4,
            "usr/local/cuda-12.4/bin/nvcc": "",
            "usr/local/cuda-10.2/version.txt": "CUDA Version 10.2.89\n",
        },
    )
    (tmp_path / "usr/local/cuda").symlink_to("cuda-12.4")
    system = make_system(
        tmp_path,
        env={"CUDA_HOME": "/usr/local/cuda-11.8"},
        outputs={"nvcc": NVCC_12_4},
        executables={"nvcc": "/usr/local/cuda/bin/nvcc"},
    )
    ctx = _probe(system)
    assert ctx.cuda_toolkits == [
        CudaToolkit("11.8.0", "/usr/local/cuda-11.8", "version.json"),
        CudaToolkit("12.4.1", "/usr/local/cuda", "version.json"),
        CudaToolkit("10.2.89", "/usr/local/cuda-10.2", "version.txt"),
    ]
    assert ctx.errors == []
    assert isinstance(system.run, FakeRunner)
    assert system.run.calls == []  # nvcc's toolkit has version.json: not run


def test_nvcc_elsewhere_on_path_is_its_own_toolkit(tmp_path: Path) -> None:
    hpc = "/opt/nvidia/hpc_sdk/Linux_x86_64/24.3/cuda/12.3"
    write_tree(tmp_path, {hpc.lstrip("/") + "/bin/nvcc": ""})
    system = make_system(
        tmp_path,
        outputs={"nvcc": NVCC_12_4.replace("12.4", "12.3")},
        executables={"nvcc": hpc + "/bin/nvcc"},
    )
    ctx = _probe(system)
    assert ctx.cuda_toolkits == [CudaToolkit("12.3.131", hpc, "nvcc")]


def test_toolkit_without_version_files_runs_its_own_nvcc(tmp_path: Path) -> None:
    write_tree(tmp_path, {"opt/cuda/bin/nvcc": "", "opt/cuda/version.json": "{truncated"})
    system = make_system(tmp_path, outputs={"/opt/cuda/bin/nvcc --version": NVCC_12_4})
    ctx = _probe(system)
    assert ctx.cuda_toolkits == [CudaToolkit("12.4.131", "/opt/cuda", "nvcc")]


def test_unreadable_toolkit_version_is_recorded(tmp_path: Path) -> None:
    write_tree(tmp_path, {"usr/local/cuda/include/cuda_runtime.h": ""})
    ctx = _probe(make_system(tmp_path))
    assert ctx.cuda_toolkits == [CudaToolkit(None, "/usr/local/cuda", None)]
    assert ctx.errors == [
        ProbeError("toolkits", "CUDA toolkit at /usr/local/cuda: version not readable")
    ]


def test_nvcc_timeout_is_recorded(tmp_path: Path) -> None:
    write_tree(tmp_path, {"opt/cuda/bin/nvcc": ""})
    hung = CommandResult(None, timed_out=True, error="timed out after 5s")
    ctx = _probe(make_system(tmp_path, outputs={"nvcc": hung}))
    assert ProbeError("toolkits", "/opt/cuda/bin/nvcc: timed out after 5s") in ctx.errors


def test_windows_cuda_path_and_program_files(tmp_path: Path) -> None:
    base = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA"
    write_tree(
        tmp_path,
        {
            f"{base}/v11.2/version.txt": "CUDA Version 11.2.152\n",
            f"{base}/v11.2/bin/nvcc.exe": "",
            f"{base}/v12.4/version.json": VERSION_JSON_12_4,
            f"{base}/v12.4/bin/nvcc.exe": "",
        },
    )
    win = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"
    system = make_system(
        tmp_path,
        env={
            "CUDA_PATH": win + "\\v11.2",
            "CUDA_PATH_V11_2": win + "\\v11.2",
            "CUDA_PATH_V12_4": win + "\\v12.4",
        },
        platform="win32",
        machine="AMD64",
    )
    ctx = _probe(system)
    assert ctx.cuda_toolkits == [
        CudaToolkit("11.2.152", win + "\\v11.2", "version.txt"),
        CudaToolkit("12.4.1", win + "\\v12.4", "version.json"),
    ]


def test_conda_and_pip_toolkits(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "opt/conda/envs/tf/conda-meta/cudatoolkit-11.8.0-h6a678d5_0.json": "{}",
            "opt/conda/envs/tf/conda-meta/python-3.10.14-h955ad1f_1.json": "{}",
            "venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12": "",
        },
    )
    ctx = Context()
    ctx.packages = {
        "nvidia-cuda-runtime-cu12": "12.4.127",
        "nvidia-cuda-nvcc-cu12": "12.4.131",
        "torch": "2.5.1",
    }
    ctx.site_dirs = ["/venv/lib/python3.11/site-packages"]
    system = make_system(tmp_path, env={"CONDA_PREFIX": "/opt/conda/envs/tf"})
    _probe(system, ctx)
    assert ctx.cuda_toolkits == [
        CudaToolkit("11.8.0", "/opt/conda/envs/tf", "conda"),
        CudaToolkit("12.4.127", "/venv/lib/python3.11/site-packages/nvidia/cuda_runtime", "pip"),
        CudaToolkit("12.4.131", "/venv/lib/python3.11/site-packages", "pip"),
    ]


def test_cuda13_pip_names(tmp_path: Path) -> None:
    ctx = Context()
    ctx.packages = {"nvidia-cuda-runtime": "13.0.96", "nvidia-cuda-nvcc": "13.0.88"}
    _probe(make_system(tmp_path), ctx)
    assert [(t.version, t.source) for t in ctx.cuda_toolkits] == [
        ("13.0.96", "pip"),
        ("13.0.88", "pip"),
    ]


def test_conda_packages_from_context_win(tmp_path: Path) -> None:
    ctx = Context()
    ctx.conda_prefix = "/opt/conda"
    ctx.conda_packages = {"cuda-version": "12.4", "cuda-nvcc": "12.4.131"}
    _probe(make_system(tmp_path), ctx)
    assert ctx.cuda_toolkits == [CudaToolkit("12.4.131", "/opt/conda", "conda")]


@pytest.mark.real_machine
def test_real_machine_toolkit_agrees_with_nvcc() -> None:
    """Where nvcc is on PATH, detect() reports the toolkit nvcc says it is."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH on this machine: nothing to compare against")
    out = subprocess.run(
        [nvcc, "--version"], capture_output=True, text=True, timeout=30, check=False
    ).stdout
    expected = parse_nvcc_version(out)
    assert expected is not None, out
    snapshot = detect(real_system())
    versions = [tk.version for tk in snapshot.cuda_toolkits if tk.source not in ("pip", "conda")]
    assert expected in versions, (expected, snapshot.cuda_toolkits)
    # The toolkit nvcc belongs to is reported once, however many symlinks lead to it.
    real_dirs = [os.path.realpath(tk.path) for tk in snapshot.cuda_toolkits if tk.path]
    assert len(real_dirs) == len(set(real_dirs)), snapshot.cuda_toolkits
