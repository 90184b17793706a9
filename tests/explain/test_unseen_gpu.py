"""A framework's own check answered no (is_available() False, an empty GPU list) is a
symptom; what the text shows beside it decides the cause (explain.core._unseen_gpu)."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.explain import explain
from envcheck.model.finding import Category

CASES = [
    # A script exporting an index a one-GPU machine lacks.
    (
        "export CUDA_VISIBLE_DEVICES=1\npython train.py\ntorch.cuda.is_available() returns False\n",
        Category.ENV_VAR_HIDES_GPU,
    ),
    # Index 0 hides nothing: the row's own reading stands.
    (
        (
            "CUDA_VISIBLE_DEVICES=0 python -c 'import torch; print(torch.cuda.is_available())'\n"
            "torch.cuda.is_available() -> False\n"
        ),
        Category.CPU_ONLY_BUILD,
    ),
    # A release without a GPU build for native Windows, the OS not shown.
    ("Tensor Flow Version: 2.12.0\nGPU is NOT AVAILABLE\n", Category.PLATFORM_UNSUPPORTED),
    # The same release on Linux: its libraries, not the platform.
    (
        (
            'Tensor Flow Version: 2.12.0\n  File "/home/me/venv/lib/python3.10/site-packages/x.py"\n'
            "GPU is NOT AVAILABLE\n"
        ),
        Category.CUDA_RUNTIME_MISSING,
    ),
    # A release that had Windows GPU builds: not the platform either.
    ("Tensor Flow Version: 2.10.0\nGPU is NOT AVAILABLE\n", Category.CUDA_RUNTIME_MISSING),
    # The doctor's error on the facts shown (a CPU build) is adopted.
    (
        ">>> torch.__version__\n'2.1.0+cpu'\n>>> torch.cuda.is_available()\nFalse\n",
        Category.CPU_ONLY_BUILD,
    ),
    # A container session without GPU flags.
    (
        (
            "appuser@365bfc56cfa5:~/app$ python -c 'import torch; print(torch.cuda.is_available())'\n"
            "torch.cuda.is_available() -> False\n"
        ),
        Category.CONTAINER_NO_GPU,
    ),
    # macOS has no CUDA at all.
    (
        (
            '  File "/Users/me/miniconda3/lib/python3.11/site-packages/torch/__init__.py"\n'
            "torch.cuda.is_available() returns False\n"
        ),
        Category.PLATFORM_UNSUPPORTED,
    ),
    # JAX on a machine the text does not describe: the CPU jaxlib.
    (">>> jax.devices()\n[CpuDevice(id=0)]\n", Category.CPU_ONLY_BUILD),
]


@pytest.mark.parametrize(("text", "category"), CASES)
def test_the_facts_beside_the_check_decide_its_cause(
    text: str, category: Category, matrix: Any
) -> None:
    first = explain(text, None, matrix).findings[0]
    assert first.category == category, first


def test_an_error_beside_the_check_comes_first(matrix: Any) -> None:
    text = (
        "torch.cuda.is_available() returns False\n"
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).\n"
    )
    first = explain(text, None, matrix).findings[0]
    assert first.category == Category.DRIVER_TOO_OLD


@pytest.mark.parametrize(
    ("text", "shown", "driver"),
    [
        (
            "I have an RTX 3090 with driver 470.57 and installed torch 1.7.1+cu101.",
            ("torch", "1.7.1+cu101"),
            "470.57",
        ),
        (
            "GTX 1080 Ti, PyTorch 2.7.0+cu128, Driver Version: 570.86.15",
            ("torch", "2.7.0+cu128"),
            "570.86.15",
        ),
        ("tensorflow-gpu 1.14.0 on Windows 10", ("tensorflow-gpu", "1.14.0"), None),
        # a version inside a longer token, a path or a range is not a statement of it
        ("pip install torch-1.7.1-cp38-cp38-linux_x86_64.whl", None, None),
        ("requires torch 1.7.1.post2", None, None),
    ],
)
def test_a_machine_described_in_prose_gives_its_facts(text: str, shown: Any, driver: Any) -> None:
    from envcheck.explain.facts import extract

    facts = extract(text)
    assert (shown in facts.shown) if shown else not facts.shown
    assert facts.driver == driver


def test_a_described_machine_is_judged_by_the_doctor(matrix: Any) -> None:
    text = (
        "I have an RTX 3090 with driver 470.57 and installed torch 1.7.1+cu101. Training crashes."
    )
    first = explain(text, None, matrix).findings[0]
    assert first.category == Category.GPU_ARCH_UNSUPPORTED
    assert "sm_86" in first.title


# pip found no wheel: which cause the text shows (explain.core._pip_no_wheel), on reports
# that did not motivate the reasoning.
PIP_REPORTS = [
    # https://github.com/Stability-AI/StableCascade/issues/23: a +cu118 pin on a Mac M1;
    # dropping the variant installed it.
    (
        (
            "Running `pip install -r requirements.txt` on a Mac M1, python 3.11.5, pip==23.2.1\n"
            "ERROR: Could not find a version that satisfies the requirement torch==2.1.2+cu118 "
            "(from versions: 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0)\n"
            "ERROR: No matching distribution found for torch==2.1.2+cu118\n"
        ),
        Category.PLATFORM_UNSUPPORTED,
    ),
    # https://github.com/zhoudaquan/ChatAnything/issues/3: PyTorch's cu117 index searched
    # beside PyPI, only PyPI's builds listed (a Mac M1).
    (
        (
            "Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/cu117\n"
            "ERROR: Could not find a version that satisfies the requirement torch==2.0.1+cu117 "
            "(from versions: 1.9.0, 1.10.0, 1.13.1, 2.0.0, 2.0.1, 2.1.0, 2.1.1)\n"
            "ERROR: No matching distribution found for torch==2.0.1+cu117\n"
        ),
        Category.PLATFORM_UNSUPPORTED,
    ),
    # https://github.com/Akegarasu/lora-scripts/issues/741: a known index whose builds are
    # all for newer releases: the interpreter (Python 3.14), as the reporter found.
    (
        (
            "Looking in indexes: https://download.pytorch.org/whl/cu128\n"
            "ERROR: Could not find a version that satisfies the requirement torch==2.7.0+cu128 "
            "(from versions: 2.9.0+cu128, 2.9.1+cu128)\n"
        ),
        Category.PYTHON_UNSUPPORTED,
    ),
    # An index PyTorch never published (no build of any release on it).
    (
        (
            "Looking in indexes: https://download.pytorch.org/whl/cu122\n"
            "ERROR: Could not find a version that satisfies the requirement torch==2.1.0 "
            "(from versions: none)\n"
        ),
        Category.OTHER,
    ),
]


@pytest.mark.parametrize(("text", "category"), PIP_REPORTS)
def test_pip_finding_no_wheel_is_told_apart_by_what_it_listed(
    text: str, category: Category, matrix: Any
) -> None:
    first = explain(text, None, matrix).findings[0]
    assert (first.id, first.category) == ("pip-no-framework-wheel", category), first


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ('os.environ["CUDA_VISIBLE_DEVICES"] = "1"\nloading the model\n', "env_var_hides_gpu"),
        ("export CUDA_VISIBLE_DEVICES=\npython train.py\n", "env_var_hides_gpu"),
        # index 0 hides nothing: still nothing recognised
        ("CUDA_VISIBLE_DEVICES=0 python train.py\n", "other"),
    ],
)
def test_a_hiding_cuda_visible_devices_is_named_when_nothing_else_is(
    text: str, category: str, matrix: Any
) -> None:
    first = explain(text, None, matrix).findings[0]
    assert first.category.value == category, first


def test_a_nightly_index_is_not_taken_for_an_unpublished_one(matrix: Any) -> None:
    text = (
        "Looking in indexes: https://download.pytorch.org/whl/nightly/cu130\n"
        "ERROR: Could not find a version that satisfies the requirement torch "
        "(from versions: none)\n"
    )
    first = explain(text, None, matrix).findings[0]
    assert first.category == Category.PYTHON_UNSUPPORTED
