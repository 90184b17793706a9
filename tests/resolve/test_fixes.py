"""Every fix envcheck prints comes from the resolver, and works (issue 27).

The wrong fixes the issue lists, each on the machine it was seen on:
- TensorFlow 1.14 without cuDNN: no ``nvidia-cudnn-cu10`` (no such package), the
  plan's conda toolkit or NVIDIA's installers instead;
- a missing ``cudart64_110.dll`` under TensorFlow 2.10 on Windows: TensorFlow
  <= 2.10 loads DLLs from PATH only (``[[loader]]`` in tensorflow.toml), so never
  pip nvidia-* wheels;
- ``libcudart.so.12`` raised by ``import torch``: reinstall torch with its
  dependencies, not "install the CUDA 12 toolkit";
- tensorflow-gpu 1.15.5 / torch 1.4 on Ampere: a failure, with the route;
- a plan held back by a companion says which pairing is missing;
- Windows commands quoted for cmd.exe / PowerShell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envcheck.compat.target import target_from_snapshot
from envcheck.doctor import diagnose
from envcheck.explain.core import explain
from envcheck.model.snapshot import Snapshot
from envcheck.resolve.emit import emit_conda, emit_pip
from envcheck.resolve.plan import plan
from envcheck.resolve.shell import join_argv, quote_arg
from tests.conftest import run_cli
from tests.resolve.test_plan import machine


def _snapshot(**over: Any) -> Snapshot:
    data: dict[str, Any] = {
        "schema": "envcheck.snapshot/1",
        "platform": {"os": "linux", "arch": "x86_64"},
        "python": {"version": "3.7.9", "env_kind": "venv"},
        "driver": {"version": "535.104.05"},
        "gpus": [{"index": 0, "name": "Tesla V100-SXM2-16GB"}],
    }
    data.update(over)
    return Snapshot.from_json(data)


TF_1_14 = {
    "name": "tensorflow",
    "version": "1.14.0",
    "package": "tensorflow-gpu",
    "cuda_version": "10.0",
    "cudnn_version": "7",
    "cpu_only": False,
}


def _finding(snapshot: Snapshot, matrix: Any, fid: str) -> Any:
    found = [f for f in diagnose(snapshot, matrix).findings if f.id == fid]
    assert found, [f.id for f in diagnose(snapshot, matrix).findings]
    return found[0]


def test_tf_1_14_without_cudnn_gets_the_plans_toolkit_not_a_cu10_wheel(matrix: Any) -> None:
    # https://github.com/jianchang512/stt/issues/76 (the message), on a V100 venv
    s = _snapshot(frameworks=[TF_1_14], packages={"tensorflow-gpu": "1.14.0"}, probes=["libraries"])
    fix = _finding(s, matrix, "cudnn-missing").fix or ""
    assert "nvidia-cudnn-cu10" not in fix
    assert "pip install nvidia" not in fix  # no cuDNN 7 wheel for CUDA 10 exists
    # The resolver's conda plan for the same build brings cudatoolkit and cudnn.
    conda = emit_conda(plan(["tensorflow-gpu==1.14.0"], target_from_snapshot(s), matrix))
    assert conda.splitlines()[1] in fix
    assert "cudatoolkit=10.0" in fix
    # In a conda environment: into that environment, not a new one.
    s = _snapshot(
        frameworks=[TF_1_14],
        packages={"tensorflow-gpu": "1.14.0"},
        probes=["libraries"],
        python={"version": "3.7.9", "env_kind": "conda"},
    )
    fix = _finding(s, matrix, "cudnn-missing").fix or ""
    assert "conda install -c defaults --override-channels cudatoolkit=10.0 'cudnn=7.*'" in fix


def test_tf_2_10_on_windows_never_gets_pip_nvidia_wheels(matrix: Any) -> None:
    # https://github.com/tensorflow/tensorflow/issues/60854 (the message's shape)
    s = _snapshot(
        platform={"os": "windows", "arch": "x86_64"},
        python={"version": "3.9.13", "env_kind": "venv"},
        driver={"version": "537.13"},
        gpus=[{"index": 0, "name": "NVIDIA GeForce RTX 3060"}],
        frameworks=[
            {
                "name": "tensorflow",
                "version": "2.10.1",
                "cuda_version": "11.2",
                "cudnn_version": "8",
                "cpu_only": False,
            }
        ],
        packages={"tensorflow": "2.10.1"},
    )
    text = "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
    (m,) = [
        m for m in explain(text, s, matrix).matches if m.signature.id == "tf-dlopen-cuda-library"
    ]
    fix = m.fix or ""
    assert "nvidia-cuda-runtime" not in fix and "pip install nvidia" not in fix
    assert "PATH" in fix
    conda = emit_conda(plan(["tensorflow==2.10.1"], target_from_snapshot(s), matrix))
    assert conda.splitlines()[1] in fix
    assert "'" not in conda  # quoted for cmd.exe / PowerShell


def test_the_same_library_on_linux_may_come_from_pip_wheels(matrix: Any) -> None:
    # The loader rule is Windows' only: on Linux the wheels' directories can be put
    # on LD_LIBRARY_PATH, at versions the matrix's nvidia_pin rows know exist.
    s = _snapshot(
        python={"version": "3.9.13", "env_kind": "venv"},
        gpus=[{"index": 0, "name": "NVIDIA GeForce RTX 3060"}],
        frameworks=[
            {"name": "tensorflow", "version": "2.10.1", "cuda_version": "11.2", "cpu_only": False}
        ],
        libraries=[{"name": "cudart", "version": "11.0", "source": "not-loadable"}],
    )
    fix = _finding(s, matrix, "cuda-runtime-missing").fix or ""
    pins = {r for row in matrix.nvidia_pins for r in row.requires}
    wanted = [w for w in fix.split() if w.startswith("nvidia-")]
    assert wanted and all(w in pins for w in wanted), wanted
    assert "LD_LIBRARY_PATH" in fix


def test_libcudart_12_under_import_torch_reinstalls_torch(matrix: Any) -> None:
    # https://github.com/CannyLab/tsne-cuda/issues/126 (the message)
    s = _snapshot(
        python={"version": "3.11.9", "env_kind": "venv"},
        driver={"version": "550.54.15"},
        gpus=[{"index": 0, "name": "NVIDIA GeForce RTX 4090"}],
        frameworks=[
            {
                "name": "torch",
                "version": "2.3.1+cu121",
                "cuda_version": "12.1",
                "cpu_only": False,
                "variant": "cu121",
            }
        ],
        packages={"torch": "2.3.1+cu121"},
    )
    text = (
        'File "x.py", line 1, in <module>\n    import torch\n'
        "OSError: libcudart.so.12: cannot open shared object file: No such file or directory"
    )
    (m,) = explain(text, s, matrix).matches
    fix = m.fix or ""
    assert "toolkit" not in fix
    planned = emit_pip(plan(["torch==2.3.1"], target_from_snapshot(s), matrix)).splitlines()[1]
    assert planned.replace("pip install", "pip install --force-reinstall") in fix


@pytest.mark.parametrize(
    ("request_", "good", "new"),
    [("tensorflow-gpu==1.15.5", "7.5", "8.6"), ("torch==1.4.0", "7.5", "8.6")],
)
def test_cuda_10_builds_fail_on_ampere(
    matrix: Any, request_: str, good: str, new: str, tmp_path: Path
) -> None:
    # The same release runs on Turing (its CUDA 10 libraries have sm_75 code) ...
    assert plan([request_], machine("535.104.05", good, python="3.7"), matrix).ok
    # ... and fails on an RTX 3060/3090: its cuBLAS/cuDNN predate sm_8x.
    p = plan([request_], machine("535.104.05", new, python="3.7"), matrix)
    assert p.unsatisfiable is not None
    assert p.unsatisfiable.constraint == "gpu_arch"
    first = min(
        (r for r in matrix.toolkit_archs if any(a.major == 8 for a in r.compute_capabilities)),
        key=lambda r: r.cuda,
    )
    assert first.origin.source in p.unsatisfiable.sources
    sm = f"sm_{new.replace('.', '')}"
    code, out, _ = run_cli("matrix", "why", request_, "--gpu", sm)
    assert code == 1, out
    # check agrees: the pin cannot serve that GPU.
    reqs = tmp_path / "requirements.txt"
    reqs.write_text(request_ + "\n", encoding="utf-8")
    args = ("--gpu", sm, "--driver", "535.104.05", "--python-version", "3.7", "--os", "linux")
    code, out, err = run_cli("check", str(reqs), *args)
    assert code == 1, out + err
    assert "requirements.txt:1:" in out + err


def test_tf_1_15_on_ampere_names_nvidias_build(matrix: Any) -> None:
    route = matrix.build_routes[0]
    p = plan(["tensorflow-gpu==1.15.5"], machine("535.104.05", "8.6", python="3.8"), matrix)
    assert p.unsatisfiable is not None
    assert route.package in p.unsatisfiable.message
    assert route.origin.source in p.unsatisfiable.sources
    s = _snapshot(
        python={"version": "3.8.10", "env_kind": "venv"},
        gpus=[{"index": 0, "name": "NVIDIA GeForce RTX 3090"}],
        frameworks=[{**TF_1_14, "version": "1.15.5"}],
        packages={"tensorflow-gpu": "1.15.5"},
    )
    fix = _finding(s, matrix, "gpu-arch-unsupported").fix or ""
    assert "pip uninstall -y tensorflow-gpu" in fix
    assert f"pip install {route.package} --extra-index-url {route.index_url}" in fix


def test_a_plan_held_back_by_a_companion_says_which_pairing_is_missing(matrix: Any) -> None:
    target = machine("580.65.06", "8.9", python="3.12")
    alone = plan(["torch"], target, matrix)
    both = plan(["torch", "torchvision", "torchaudio"], target, matrix)
    assert alone.ok and both.ok
    top = next(p.version for p in alone.picks if p.framework == "torch")
    held = next(p.version for p in both.picks if p.framework == "torch")
    assert top != held
    (warning,) = [w for w in both.warnings if w.startswith("torch held at")]
    assert f"torch held at {held} for torchaudio" in warning
    assert "no torchaudio release paired with torch" in warning
    assert top in warning
    # Nothing newer runs: nothing to say.
    assert not [w for w in alone.warnings if w.startswith("torch held at")]
    # Held back by the user's own companion pin: their choice, not a missing pairing.
    pinned = plan(["torch", "torchvision==0.20.*"], target, matrix)
    assert not [w for w in pinned.warnings if w.startswith("torch held at")]


@pytest.mark.parametrize(
    ("arg", "windows", "posix"),
    [
        ("cudnn>=7.4,<8", '"cudnn>=7.4,<8"', "'cudnn>=7.4,<8'"),
        ("cudnn=7.*", '"cudnn=7.*"', "'cudnn=7.*'"),
        ("torch==2.5.1", "torch==2.5.1", "torch==2.5.1"),
        ("tensorflow[and-cuda]==2.15.0", '"tensorflow[and-cuda]==2.15.0"', None),
        ('a"b', '"a\\"b"', None),
        ("", '""', "''"),
        ("@args", '"@args"', "@args"),  # PowerShell would splat a bare @args
    ],
)
def test_one_quoting_function_by_the_targets_os(arg: str, windows: str, posix: Any) -> None:
    assert quote_arg(arg, "windows") == windows
    if posix is not None:
        assert quote_arg(arg, "linux") == posix
        assert quote_arg(arg, "wsl") == posix  # WSL runs a Linux shell


def test_windows_plans_are_quoted_for_cmd(matrix: Any) -> None:
    target = machine("537.13", "7.5", os="windows", python="3.7")
    conda = emit_conda(plan(["tensorflow-gpu==1.14.0"], target, matrix))
    assert '"cudnn=7.*"' in conda and "'" not in conda
    linux = emit_conda(
        plan(["tensorflow-gpu==1.14.0"], machine("535", "7.0", python="3.7"), matrix)
    )
    assert "'cudnn=7.*'" in linux
    assert join_argv(["pip", "install", "a<2"], "windows") == 'pip install "a<2"'


def test_tf_without_windows_gpu_builds_gets_the_plan_for_native_windows(matrix: Any) -> None:
    s = _snapshot(
        platform={"os": "windows", "arch": "x86_64"},
        python={"version": "3.10.11", "env_kind": "venv"},
        driver={"version": "537.13"},
        gpus=[{"index": 0, "name": "NVIDIA GeForce RTX 3060"}],
        frameworks=[{"name": "tensorflow", "version": "2.15.0", "cpu_only": True}],
        packages={"tensorflow": "2.15.0"},
    )
    fix = _finding(s, matrix, "no-gpu-build-for-platform").fix or ""
    planned = plan(["tensorflow"], target_from_snapshot(s), matrix)
    for line in emit_conda(planned).splitlines()[1:]:
        assert line in fix
    assert "'" not in fix.split("\n", 1)[1]  # cmd.exe / PowerShell quoting
    assert "pip install nvidia" not in fix


def test_a_windows_dll_of_an_unknown_program_gets_no_pip_wheels(matrix: Any) -> None:
    # No framework says who loads cudart64_110.dll: its loader may search PATH only.
    s = _snapshot(
        platform={"os": "windows", "arch": "x86_64"},
        libraries=[{"name": "cudart", "version": "11.0", "source": "not-loadable"}],
    )
    fix = _finding(s, matrix, "cuda-runtime-missing").fix or ""
    assert "pip install" not in fix and "PATH" in fix
