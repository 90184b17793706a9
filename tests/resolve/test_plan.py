"""(machine, request) → expected plan, against the shipped matrix.

Every expected pick is read off the data rows, cited as ``torch.toml:LINE`` (the
row's ``source`` is the PyTorch page or issue named there) and, for drivers,
``cuda_driver.toml`` minimums (NVIDIA CUDA toolkit release notes, table 3):
CUDA 10.1 needs 418.39, 11.x minor compat 450.80.02 (Windows 452.39), 12.x minor
compat 525.60.13 (Windows 528.33), 12.4 550.54.14, 12.6 560.28.03, 12.8 570.26,
12.9 575.51.03, 13.0 580.65.06, 13.2 595.45.04; Windows 12.8 570.65, 12.9 576.02.
TensorFlow/JAX/Keras cases use the fixture rows in tests/resolve/fixtures
(tensorflow.org tested build configurations).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Optional

import pytest

from envcheck.compat.target import Target
from envcheck.model.versions import parse_compute_capability, parse_driver_version
from envcheck.resolve.plan import plan
from envcheck.resolve.plan_model import PlanInputError
from tests.conftest import with_unconfirmed_paddle


def machine(
    driver: Optional[str],
    gpu: Optional[str],
    os: str = "linux",
    python: Optional[str] = None,
    arch: str = "x86_64",
) -> Target:
    cc = parse_compute_capability(gpu) if gpu else None
    return Target(
        os=os,
        arch=arch,
        driver=parse_driver_version(driver),
        gpus=(cc,) if cc else (),
        python=python,
    )


K80, MAXWELL, PASCAL, VOLTA, T4 = "3.7", "5.2", "6.1", "7.0", "7.5"
RTX5000, A100, ADA, H100, B200, RTX5090 = "7.5", "8.0", "8.9", "9.0", "10.0", "12.0"


class Case(NamedTuple):
    id: str
    requests: tuple[str, ...]
    target: Target
    picks: dict[str, str]
    """package → "version variant"."""
    combo: bool = False


CASES = [
    # -- driver 418 (CUDA 10.1): cu102 needs 440.33. The newest cu101 torch is 1.8.1, whose
    # Linux arch list (sm_37/50/60/70, from pytorch/builder's manywheel/build.sh on the
    # release day; not read from the wheel, so the row is unverified) carries sm_37 and
    # sm_50 kernels.
    Case("418-k80", ("torch",), machine("418.67", K80), {"torch": "1.8.1 cu101"}),
    # The companions follow the torch pick: torchvision 0.9.1 and torchaudio 0.8.1 are
    # the releases paired with torch 1.8.1 (torch.toml [[companion]] 1.8.1).
    Case(
        "418-k80-companions",
        ("torch", "torchvision", "torchaudio"),
        machine("418.67", K80),
        {"torch": "1.8.1 cu101", "torchvision": "0.9.1 cu101", "torchaudio": "0.8.1 cu101"},
    ),
    Case(
        "418-maxwell-py38",
        ("torch",),
        machine("418.39", MAXWELL, python="3.8"),
        {"torch": "1.8.1 cu101"},
    ),
    # -- driver 450.80.02: CUDA 11.x through minor compat; cu118 rows (torch.toml:1121, 1323)
    Case(
        "450-volta-py38",
        ("torch",),
        machine("450.80.02", VOLTA, python="3.8"),
        {"torch": "2.4.1 cu118"},
    ),
    # 2.7.1 cu118 does not record its architectures. Its cu128 sibling lacks sm_70, but
    # cu128 is a family with its own policy (torch.toml's [[arch_floor]] for CUDA
    # >=12.8,<13): its list says nothing of cu118. The sibling of the same family
    # (cu126) carries sm_70 SASS, so the judge infers it, and the newest release wins.
    Case(
        "450-volta-py311",
        ("torch",),
        machine("450.80.02", VOLTA, python="3.11"),
        {"torch": "2.7.1 cu118"},
    ),
    # -- driver 470 with Kepler (last branch for Kepler): 2.5.x cu118 still lists sm_37 (1190)
    Case(
        "470-k80-py38",
        ("torch",),
        machine("470.57.02", K80, python="3.8"),
        {"torch": "2.4.1 cu118"},
    ),
    Case(
        "470-k80-lt26",
        ("torch<2.6",),
        machine("470.57.02", K80, python="3.10"),
        {"torch": "2.5.1 cu118"},
    ),
    # -- driver 525.60.13: every 12.x via minor compat; 2.14.1 has cu126 as its only 12.x (a row
    # inferred from RELEASE.md's 2.14 release line, as the newest patch of that line)
    Case(
        "525-a100", ("torch",), machine("525.60.13", A100, python="3.10"), {"torch": "2.14.1 cu126"}
    ),
    Case("535-t4", ("torch",), machine("535.104.05", T4, python="3.12"), {"torch": "2.14.1 cu126"}),
    Case(
        "535-t4-24",
        ("torch>=2.4,<2.5", "torchvision"),
        machine("535.104.05", T4),
        {"torch": "2.4.1 cu121", "torchvision": "0.19.1 cu121"},
    ),
    Case(
        "win-535-rtx5000",
        ("torch",),
        machine("537.13", RTX5000, os="windows", python="3.12"),
        {"torch": "2.14.1 cu126"},
    ),
    Case(
        "550-ada", ("torch",), machine("550.54.15", ADA, python="3.12"), {"torch": "2.14.1 cu126"}
    ),
    # 2.4.1: cu118/cu121/cu124 all run natively on 550.54.15; cu121 is the PyPI default (1136)
    Case(
        "550-ada-py38",
        ("torch",),
        machine("550.54.15", ADA, python="3.8"),
        {"torch": "2.4.1 cu121"},
    ),
    # 580.65.06 runs CUDA 13.0 natively: 2.15.0 cu130 (a row inferred from the 2.15 CUDA RFC,
    # archs of the 2.14 line, sm_80 among them) wins over cu132 through minor-version compat
    Case(
        "580-a100-py313",
        ("torch",),
        machine("580.65.06", A100, python="3.13"),
        {"torch": "2.15.0 cu130"},
    ),
    Case(
        "550-a100-py314",
        ("torch",),
        machine("550.54.15", A100, python="3.14"),
        {"torch": "2.14.1 cu126"},
    ),
    Case("560-ada", ("pytorch",), machine("560.35.03", ADA), {"torch": "2.14.1 cu126"}),
    Case("570-h100", ("torch",), machine("570.124.06", H100), {"torch": "2.14.1 cu126"}),
    Case(
        "570-h100-210", ("torch==2.10.*",), machine("570.124.06", H100), {"torch": "2.10.0 cu128"}
    ),
    Case("570-pascal", ("torch",), machine("570.124.06", PASCAL), {"torch": "2.14.1 cu126"}),
    # -- Blackwell on 575 (CUDA 12.9): 2.14 cu126 lacks sm_100, cu130 needs 580; the 2.13.0
    #    cu129 row records its own list (7.0-12.0, read from the build script, within the
    #    cu128/cu129 [[arch_floor]]), so it wins; no list is inferred across that policy.
    Case("575-b200", ("torch",), machine("575.57.08", B200), {"torch": "2.13.0 cu129"}),
    # Windows 576.02 (CUDA 12.9): no cu129 on Windows; 2.11.0 cu128 has sm_120 (1614)
    Case(
        "win-576-rtx5090",
        ("torch",),
        machine("576.02", RTX5090, os="windows"),
        {"torch": "2.11.0 cu128"},
    ),
    Case(
        "580-rtx5090",
        ("torch", "torchvision"),
        machine("580.65.06", RTX5090, python="3.12"),
        {"torch": "2.14.0 cu130", "torchvision": "0.29.0 cu130"},
    ),
    Case(
        "580-b200-py314",
        ("torch",),
        machine("580.95.05", B200, python="3.14"),
        {"torch": "2.15.0 cu130"},
    ),
    # Maxwell/Volta: cu130 starts at sm_75 (1949); cu126 keeps sm_50/sm_70 (1919)
    Case("580-maxwell", ("torch",), machine("580.65.06", MAXWELL), {"torch": "2.14.1 cu126"}),
    Case("580-volta", ("torch",), machine("580.65.06", VOLTA), {"torch": "2.14.1 cu126"}),
    Case(
        "580-pascal-211",
        ("torch==2.11.*",),
        machine("580.65.06", PASCAL),
        {"torch": "2.11.0 cu126"},
    ),
    # Python 3.9: newest is 2.8.0 (python 3.9-3.13, 1404): cu128 is native and the PyPI default
    Case(
        "580-ada-py39",
        ("torch",),
        machine("580.65.06", ADA, python="3.9"),
        {"torch": "2.8.0 cu128"},
    ),
    # Python 3.7: newest is 1.13.1 (3.7-3.10); cu117 is the PyPI default (869)
    Case(
        "580-ada-py37",
        ("torch",),
        machine("580.65.06", ADA, python="3.7"),
        {"torch": "1.13.1 cu117"},
    ),
    # 595.71.05 runs CUDA 13.2 natively: 2.15.0 cu132, its PyPI default (archs read from the wheel)
    Case("595-h100", ("torch",), machine("595.71.05", H100), {"torch": "2.15.0 cu132"}),
    # aarch64: 2.15.0's PyPI aarch64 wheel is cu132 with sm_90 (torch.toml, read from the wheel)
    Case(
        "610-gh200-aarch64",
        ("torch",),
        machine("610.43.02", H100, arch="aarch64"),
        {"torch": "2.15.0 cu132"},
    ),
    # torchaudio is recorded up to 2.11.0 (companion rows); on 550 both cu126 and cu128 run
    # through minor compat, neither is the PyPI default (cu130 is), so the newer CUDA
    Case(
        "torchaudio-alone",
        ("torchaudio",),
        machine("550.54.15", ADA),
        {"torch": "2.11.0 cu128", "torchaudio": "2.11.0 cu128"},
    ),
    # -- TensorFlow, JAX, Keras (fixture rows)
    Case(
        "tf114-old-project",
        ("tensorflow-gpu==1.14.*",),
        machine("418.67", PASCAL, python="3.7"),
        {"tensorflow-gpu": "1.14.0 cu100"},
        True,
    ),
    Case(
        "tf-550",
        ("tensorflow",),
        machine("550.54.15", ADA, python="3.12"),
        {"tensorflow": "2.20.0 cu125"},
        True,
    ),
    Case(
        "win-tf-210",
        ("tensorflow",),
        machine("560.94", T4, os="windows", python="3.10"),
        {"tensorflow": "2.10.0 cu112"},
        True,
    ),
    Case(
        "wsl-tf",
        ("tensorflow",),
        machine("560.94", T4, os="wsl", python="3.12"),
        {"tensorflow": "2.20.0 cu125"},
        True,
    ),
    Case(
        "torch-tf-jax-550",
        ("torch", "tensorflow", "jax"),
        machine("550.54.15", ADA, python="3.12"),
        {"torch": "2.14.1 cu126", "tensorflow": "2.20.0 cu125", "jax": "0.7.2 cuda12"},
        True,
    ),
    # cuDNN 8.9 (TF 2.15) forces a cuDNN 8 torch: 2.3.1 cu121 has cuDNN 8.9 (1082)
    Case(
        "torch-tf215-cudnn8",
        ("torch", "tensorflow==2.15.*"),
        machine("550.54.15", A100, python="3.11"),
        {"torch": "2.3.1 cu121", "tensorflow": "2.15.0 cu122"},
        True,
    ),
    # TF 2.14 is CUDA 11.8 + cuDNN 8.7: torch 2.3.1 cu118 (8.7, 1067)
    Case(
        "torch-tf214-cuda11",
        ("torch", "tensorflow==2.14.*"),
        machine("535.104.05", A100, python="3.11"),
        {"torch": "2.3.1 cu118", "tensorflow": "2.14.0 cu118"},
        True,
    ),
    # On 580 jax picks cuda13 first only if torch agrees: torch 2.15 cu132 (CUDA 13 through
    # minor-version compatibility), jax 0.7.2 cuda13
    Case(
        "torch-jax-580",
        ("torch", "jax"),
        machine("580.65.06", H100, python="3.12"),
        {"torch": "2.15.0 cu132", "jax": "0.7.2 cuda13"},
        True,
    ),
    # jax.toml cuda13 rows compile sm_75+ only (.bazelrc HERMETIC_CUDA_COMPUTE_CAPABILITIES,
    # pjrt wheel fatbins): plain jax on a V100 (7.0) with 580 gets the cuda12 build (sm_70
    # SASS); an explicit jax[cuda13] is refused there (tests/compat), an A100 keeps cuda13.
    Case(
        "jax-volta-580",
        ("jax",),
        machine("580.65.06", VOLTA, python="3.12"),
        {"jax": "0.12.0.1 cu12"},
    ),
    Case(
        "jax-cuda13-a100-580",
        ("jax[cuda13]",),
        machine("580.65.06", A100, python="3.12"),
        {"jax": "0.12.0.1 cu13"},
    ),
    # Windows, driver 472 (CUDA 11.4 natively, 11.x through minor compat): the only 3.x
    # cu118 build with a Windows row is the 3.0.0b2 beta (paddle.toml); pip never takes
    # a beta without --pre, so a final 2.6.2 wins: the PyPI cu118 build, whose wheel has
    # sm_75 SASS (read from it), over the paddle index's cu117 build, whose archs are unknown.
    Case(
        "paddle-win-472-final-over-beta",
        ("paddlepaddle-gpu",),
        machine("472.12", T4, os="windows", python="3.10"),
        {"paddlepaddle-gpu": "2.6.2 cu118"},
    ),
    # ... while a request that names the beta still gets it.
    Case(
        "paddle-win-472-beta-asked",
        ("paddlepaddle-gpu==3.0.0b2",),
        machine("472.12", T4, os="windows", python="3.10"),
        {"paddlepaddle-gpu": "3.0.0b2 cu118"},
    ),
    Case(
        "keras2-with-tf215",
        ("tensorflow==2.15.*", "keras"),
        machine("550.54.15", ADA, python="3.11"),
        {"tensorflow": "2.15.0 cu122", "keras": "2.15.0 None"},
        True,
    ),
    Case(
        "keras3-alone",
        ("keras",),
        machine("550.54.15", ADA, python="3.12"),
        {"keras": "3.12.0 None"},
        True,
    ),
]


def _got(result: Any) -> dict[str, str]:
    return {p.package: f"{p.version} {p.variant}" for p in result.picks}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_plan_picks(case: Case, matrix: Any, combo_matrix: Any) -> None:
    m = combo_matrix if case.combo else matrix
    result = plan(case.requests, case.target, m)
    assert result.unsatisfiable is None, str(result.unsatisfiable)
    assert _got(result) == case.picks


class Blocked(NamedTuple):
    id: str
    requests: tuple[str, ...]
    target: Target
    constraint: str
    says: tuple[str, ...]
    combo: bool = False


BLOCKED = [
    Blocked(
        "418-torch2",
        ("torch>=2",),
        machine("418.67", K80),
        "driver",
        (
            "driver 418.67 supports CUDA up to 10.1",
            "needs CUDA >= 11.7",
            "driver >= 450.80.02",
            "newest torch that runs on this machine is torch 1.8.1",
        ),
    ),
    Blocked(
        "win-418-torch2",
        ("torch>=2",),
        machine("418.96", PASCAL, os="windows"),
        "driver",
        ("supports CUDA up to 10.1", "driver >= 452.39"),
    ),
    # torch 2.15.0 publishes cp315 wheels (torch.toml, PyPI files); nothing has 3.16
    Blocked(
        "py316",
        ("torch",),
        machine("580.65.06", ADA, python="3.16"),
        "python",
        ("supports Python 3.16",),
    ),
    # RTX 5090 (sm_120) on 570: every 2.0-2.5 row lists its archs and none has sm_120
    Blocked(
        "rtx5090-old-torch",
        ("torch>=2.0,<2.6",),
        machine("570.124.06", RTX5090),
        "gpu_arch",
        ("sm_120", "newest torch that runs on this machine is torch 2.13.0"),
    ),
    Blocked(
        "macos", ("torch",), machine(None, None, os="macos", arch="aarch64"), "platform", ("macOS",)
    ),
    Blocked(
        "unknown-release",
        ("torch==9.9",),
        machine("580.65.06", ADA),
        "no_release",
        ("no torch release",),
    ),
    Blocked(
        "companion-mismatch",
        ("torch==2.5.1", "torchvision==0.19.1"),
        machine("580.65.06", ADA),
        "companion",
        ("0.20.1",),
    ),
    Blocked(
        "win-tf-new",
        ("tensorflow>=2.11",),
        machine("560.94", T4, os="windows"),
        "platform",
        ("native Windows: newest GPU tensorflow is 2.10.0", "WSL2"),
        True,
    ),
    Blocked(
        "tf114-on-ampere-driver-too-old",
        ("tensorflow-gpu==1.14.*",),
        machine("396.26", PASCAL, python="3.7"),
        "driver",
        ("supports CUDA up to 9.2", "CUDA >= 10.0"),
        True,
    ),
    Blocked(
        "jax-windows",
        ("jax",),
        machine("560.94", ADA, os="windows"),
        "platform",
        ("native Windows",),
        True,
    ),
    Blocked(
        "tf215-with-torch-on-418",
        ("tensorflow==2.15.*",),
        machine("418.67", T4),
        "driver",
        ("CUDA >= 12.2",),
        True,
    ),
]


@pytest.mark.parametrize("case", BLOCKED, ids=[c.id for c in BLOCKED])
def test_plan_unsatisfiable(case: Blocked, matrix: Any, combo_matrix: Any) -> None:
    m = combo_matrix if case.combo else matrix
    result = plan(case.requests, case.target, m)
    assert result.unsatisfiable is not None, result.picks
    assert result.unsatisfiable.constraint == case.constraint
    text = str(result.unsatisfiable)
    for part in case.says:
        assert part in text


def test_old_tf_with_new_torch_names_python(combo_matrix: Any) -> None:
    # TF 1.14 is CUDA 10.0 only; torch>=2 has no CUDA 10 build.
    result = plan(
        ("torch>=2", "tensorflow-gpu==1.14.*"),
        machine("580.65.06", VOLTA, python="3.7"),
        combo_matrix,
    )
    assert result.unsatisfiable is not None
    # torch>=2 needs Python >= 3.8: python blocks first
    assert result.unsatisfiable.framework == "torch"


def test_shared_cuda_conflict_named(combo_matrix: Any) -> None:
    result = plan(
        ("torch==2.14.*", "tensorflow==2.14.*"),
        machine("580.65.06", H100, python="3.11"),
        combo_matrix,
    )
    assert result.unsatisfiable is not None
    assert result.unsatisfiable.constraint == "shared_cuda"
    assert "tensorflow: CUDA 11" in result.unsatisfiable.message


def test_allow_cpu_on_macos(matrix: Any) -> None:
    result = plan(
        ("torch",), machine(None, None, os="macos", arch="aarch64"), matrix, allow_cpu=True
    )
    # 2.15.0's macos-arm64 CPU wheel (torch.toml, PyPI files)
    assert _got(result) == {"torch": "2.15.0 cpu"}


def test_decisions_cite_sources(matrix: Any) -> None:
    result = plan(("torch",), machine("580.65.06", RTX5090), matrix)
    torch = [d for d in result.decisions if d.subject == "torch"]
    assert torch and torch[0].sources
    assert re.search(
        r"github\.com/pytorch/pytorch|pytorch\.org|pypi\.org/project/torch/", torch[0].sources[0]
    )


def test_a_gpu_build_under_another_name_is_said(matrix: Any) -> None:
    # Plain tensorflow 1.14.0 is CPU-only; its GPU build is the tensorflow-gpu wheel.
    result = plan(("tensorflow==1.14.0",), machine("418.67", K80, python="3.7"), matrix)
    assert _got(result) == {"tensorflow-gpu": "1.14.0 cu100"}
    (tf,) = [d for d in result.decisions if d.subject == "tensorflow"]
    assert "this build is the tensorflow-gpu distribution, not tensorflow" in tf.text
    # From 1.15 plain tensorflow has the same GPU build: keep the name asked for.
    result = plan(("tensorflow==1.15.0",), machine("418.67", K80, python="3.7"), matrix)
    assert _got(result) == {"tensorflow": "1.15.0 cu100"}
    result = plan(("tensorflow-gpu==1.15.0",), machine("418.67", K80, python="3.7"), matrix)
    assert _got(result) == {"tensorflow-gpu": "1.15.0 cu100"}


def test_minor_compat_is_a_warning(matrix: Any) -> None:
    result = plan(("torch",), machine("535.104.05", T4), matrix)
    assert any("minor-version compatibility" in w for w in result.warnings)


def test_unknown_framework_is_an_input_error(matrix: Any) -> None:
    with pytest.raises(PlanInputError, match="cannot plan 'numpy'"):
        plan(("numpy",), machine("580.65.06", ADA), matrix)


def test_same_framework_twice(matrix: Any) -> None:
    with pytest.raises(PlanInputError, match="twice"):
        plan(("torch", "pytorch"), machine("580.65.06", ADA), matrix)


def test_framework_without_rows_is_passed_on(matrix: Any) -> None:
    from dataclasses import replace

    bare = replace(matrix, builds={"torch": matrix.builds["torch"]})
    result = plan(("cupy-cuda12x>=13",), machine("580.65.06", ADA), bare)
    assert [p.requirement for p in result.picks] == ["cupy-cuda12x>=13"]
    assert result.warnings


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("Tesla K80", "3.7"),
        ("GTX 980", "5.2"),
        ("GTX 1080 Ti", "6.1"),
        ("Tesla V100", "7.0"),
        ("T4", "7.5"),
        ("Quadro RTX 5000", "7.5"),
        ("A100", "8.0"),
        ("RTX 4090", "8.9"),
        ("H100", "9.0"),
        ("B200", "10.0"),
        ("RTX 5090", "12.0"),
        ("sm_120", "12.0"),
    ],
)
def test_target_from_flags_gpu_names(name: str, cc: str, matrix: Any) -> None:
    from envcheck.compat.target import target_from_flags

    t = target_from_flags(matrix, driver="580.65.06", gpus=(name,))
    assert [f"{c.major}.{c.minor}" for c in t.gpus] == [cc]
    assert (t.os, t.arch, t.driver.raw if t.driver else None) == ("linux", "x86_64", "580.65.06")


def test_allow_cpu_is_a_fallback_not_a_preference(matrix: Any) -> None:
    # Driver 418: the best GPU build is 1.8.1 cu101 (newest cu101, with sm_37 kernels in
    # its build script's list); torch 2.14.1 cpu is newer but CPU.
    result = plan(("torch",), machine("418.67", K80), matrix, allow_cpu=True)
    assert _got(result) == {"torch": "1.8.1 cu101"}
    result = plan(("torch>=2",), machine("418.67", K80), matrix, allow_cpu=True)
    # 2.15.0 has no Linux CPU row; 2.14.1's (download.pytorch.org/whl/cpu) is inferred from the 2.14 line
    assert _got(result) == {"torch": "2.14.1 cpu"}


def test_withdrawn_releases_are_never_planned(matrix: Any) -> None:
    # onnxruntime-gpu before 1.11 is gone from PyPI (onnxruntime.toml, withdrawn rows).
    # Driver 440 (CUDA 10.2) was served by 1.5/1.6 cu102 once; now the answer is a driver.
    result = plan(("onnxruntime-gpu",), machine("440.33", T4), matrix)
    assert result.unsatisfiable is not None
    assert result.unsatisfiable.constraint == "driver"
    result = plan(("onnxruntime-gpu<1.11",), machine("470.57.02", T4), matrix)
    assert result.unsatisfiable is not None
    assert "(1.0.0 to 1.10.0) is gone from the index" in result.unsatisfiable.message


def test_a_newer_release_the_judge_cannot_tell_about_is_named_not_picked(matrix: Any) -> None:
    unknown, _ = with_unconfirmed_paddle(matrix)
    a100 = machine("580.65.06", "8.0", python="3.12")
    result = plan(("paddlepaddle-gpu",), a100, unknown)
    assert result.unsatisfiable is None
    (pick,) = result.picks
    assert pick.version != "9.9.0"  # a build known to have sm_80 kernels wins
    (warning,) = [w for w in result.warnings if "9.9.0" in w]
    assert f"9.9.0 is newer than {pick.version} but not confirmed to run here" in warning
    assert "has kernels for sm_80 is not known" in warning
    assert "ask for paddlepaddle-gpu==9.9.0" in warning
    # Asked for by version, it is planned (with the open question as a warning).
    pinned = plan(("paddlepaddle-gpu==9.9.0",), a100, unknown)
    assert [p.version for p in pinned.picks] == ["9.9.0"]
    # Without a GPU to judge, nothing is open and nothing is said.
    no_gpu = plan(("paddlepaddle-gpu",), machine("580.65.06", None, python="3.12"), unknown)
    assert [p.version for p in no_gpu.picks] == ["9.9.0"]
    assert not any("not confirmed" in w for w in no_gpu.warnings)


@pytest.mark.parametrize("driver", ["570.124.06", "575.57.08", "580.65.06"])
def test_pascal_beside_blackwell_gets_no_cu128_or_cu129_build(driver: str, matrix: Any) -> None:
    """cu128/cu129 builds start at sm_70 (.ci/manywheel/build_cuda.sh's 12.8/12.9 cases),
    cu126 stops at sm_90 and cu13x at sm_75: no torch wheel runs a GTX 1080 (sm_61) and
    an RTX 5090 (sm_120) together, so the plan says so instead of picking one."""
    target = Target(
        os="linux",
        arch="x86_64",
        driver=parse_driver_version(driver),
        gpus=(parse_compute_capability(PASCAL), parse_compute_capability(RTX5090)),
        python="3.12",
    )
    result = plan(("torch",), target, matrix)
    assert result.unsatisfiable is not None, result.picks
    assert not any(p.variant in ("cu128", "cu129") for p in result.picks)
    # One GPU at a time, each has a build.
    for gpu in (PASCAL, RTX5090):
        one = plan(("torch",), machine(driver, gpu, python="3.12"), matrix)
        assert one.unsatisfiable is None, (gpu, str(one.unsatisfiable))
