"""Conda emitters pin only what the chosen channel ships for the target
(``matrices/conda.toml``): the seed's TensorFlow 1.14 stack comes from defaults."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

from envcheck.compat.target import Target
from envcheck.matrix import Matrix, bundled_dir, load_matrix_from
from envcheck.model.versions import parse_compute_capability, parse_driver_version
from envcheck.resolve import emit
from envcheck.resolve.conda import CondaFacts
from envcheck.resolve.plan import plan
from tests.conftest import run_cli

SEED = (
    "tensorflow-gpu==1.14.0",
    "keras==2.2.5",
    "--os",
    "windows",
    "--python-version",
    "3.6",
    "--gpu",
    "Quadro RTX 5000",
    "--driver",
    "431.86",
)


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix_from(bundled_dir())


def _deps(text: str) -> tuple[list[str], list[str], list[str]]:
    doc: dict[str, Any] = yaml.safe_load(text)
    conda = [d for d in doc["dependencies"] if isinstance(d, str)]
    pip = [line for d in doc["dependencies"] if isinstance(d, dict) for line in d["pip"]]
    return doc["channels"], conda, pip


def test_the_seed_stack_is_a_defaults_environment(tmp_path: Path) -> None:
    out = tmp_path / "environment.yml"
    result = run_cli("env", *SEED, "--output", str(out))
    assert result.exit_code == 0, result.stderr
    channels, conda, pip = _deps(out.read_text(encoding="utf-8"))
    assert channels == ["defaults"]
    assert conda[:4] == ["python=3.6", "tensorflow-gpu=1.14.0", "cudatoolkit=10.0", "cudnn=7.*"]
    assert pip == ["keras==2.2.5"]


def test_the_seed_stack_as_a_conda_command() -> None:
    result = run_cli("plan", *SEED, "--format", "conda")
    assert result.exit_code == 0, result.stderr
    assert "conda create -n gpu -c defaults --override-channels python=3.6" in result.stdout
    # A Windows target: quoted for cmd.exe / PowerShell, not with POSIX single quotes.
    assert 'tensorflow-gpu=1.14.0 cudatoolkit=10.0 "cudnn=7.*"' in result.stdout
    assert "pip install keras==2.2.5" in result.stdout


SEPARATELY = "needs the CUDA 10.0 toolkit and cuDNN 7.4 installed separately"


@pytest.mark.parametrize("fmt", ["conda", "yml", "pixi"])
def test_a_file_that_brings_the_toolkit_does_not_say_install_it_separately(fmt: str) -> None:
    result = run_cli("plan", *SEED, "--format", fmt)
    assert result.exit_code == 0, result.stderr
    assert SEPARATELY not in result.stderr
    assert "tensorflow-gpu 1.14.0: needs the CUDA 10.0 toolkit and cuDNN 7.4, which the" in (
        result.stderr
    )
    assert "cudatoolkit=10.0" in result.stderr.split("which the")[1]


@pytest.mark.parametrize("fmt", ["pip", "requirements", "uv"])
def test_a_pip_file_still_says_install_the_toolkit_separately(fmt: str) -> None:
    result = run_cli("plan", *SEED, "--format", fmt)
    assert result.exit_code == 0, result.stderr
    assert f"warning: tensorflow-gpu 1.14.0: {SEPARATELY}" in result.stderr


def test_env_and_explain_say_the_environment_brings_the_toolkit() -> None:
    result = run_cli("env", *SEED, "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert SEPARATELY not in result.stderr
    assert "which the conda environment brings (cudatoolkit=10.0, cudnn=7.*)" in result.stderr
    explained = run_cli("plan", *SEED, "--format", "yml", "--explain")
    assert SEPARATELY not in explained.stdout + explained.stderr
    assert "# warning: tensorflow-gpu 1.14.0: needs the CUDA 10.0 toolkit" in explained.stdout
    # The plan itself (JSON) stays format-neutral.
    as_json = run_cli("plan", *SEED, "--format", "json")
    assert SEPARATELY in as_json.stdout


def _windows(python: str) -> Target:
    return Target(
        os="windows",
        arch="x86_64",
        driver=parse_driver_version("531.14"),
        gpus=(parse_compute_capability("7.5"),),  # type: ignore[arg-type]
        python=python,
    )


def test_conda_forge_has_no_windows_tensorflow(shipped: Matrix) -> None:
    result = plan(("tensorflow==2.10.0",), _windows("3.10"), shipped)
    assert result.ok, result.unsatisfiable
    channels, conda, pip = _deps(emit.emit_environment_yml(result, facts=CondaFacts.of(shipped)))
    assert channels == ["conda-forge"]
    assert not any(s.startswith("tensorflow") for s in conda)
    assert not any(s.startswith("cuda-version") for s in conda)
    assert "cudatoolkit=11.2" in conda
    assert pip == ["tensorflow==2.10.0"]


def test_a_python_defaults_did_not_build_for_stays_on_pip(shipped: Matrix) -> None:
    result = plan(("tensorflow-gpu==1.14.0",), _windows("3.5"), shipped)
    if not result.ok:
        pytest.skip("no tensorflow-gpu 1.14.0 plan for Python 3.5")
    assert emit.conda_channel(result, CondaFacts.of(shipped)) == "conda-forge"


def test_an_unverified_channel_fact_is_said_in_the_file(shipped: Matrix) -> None:
    rows = tuple(
        dataclasses.replace(r, origin=dataclasses.replace(r.origin, verified=False, note="why"))
        for r in shipped.conda_packages
    )
    facts = CondaFacts(rows, shipped.conda_absent)
    result = plan(("tensorflow-gpu==1.14.0",), _windows("3.6"), shipped)
    text = emit.emit_environment_yml(result, facts=facts)
    assert "# unverified: defaults ships tensorflow-gpu 1.14.0: why" in text
    assert yaml.safe_load(text)["channels"] == ["defaults"]
    assert "# unverified" in emit.emit_conda(result, facts=facts)


def _linux(driver: str) -> Target:
    return Target(
        os="linux",
        arch="x86_64",
        driver=parse_driver_version(driver),
        gpus=(parse_compute_capability("8.6"),),  # type: ignore[arg-type]
        python="3.11",
    )


def test_conda_forge_pytorch_gets_a_cuda_version_a_build_exists_for(shipped: Matrix) -> None:
    # conda-forge built pytorch 2.5.1 for CUDA 11.8, 12.0 and 12.6 on linux-64; driver
    # 535 runs 12.2 natively: the 12.0 build, not cuda-version=12.2 (no such build).
    result = plan(("torch==2.5.1",), _linux("535.104.05"), shipped)
    text = emit.emit_environment_yml(result, facts=CondaFacts.of(shipped))
    _, conda, pip = _deps(text)
    assert "cuda-version=12.0" in conda and "pytorch=2.5.1=cuda*" in conda
    assert pip == []
    assert "# unverified: conda-forge pytorch 2.5.1 CUDA 12.0 build" in text


def test_pytorch_conda_forge_has_no_build_for_goes_to_pip(shipped: Matrix) -> None:
    # conda-forge pytorch 2.10.0 CUDA builds are 12.9 and 13.0: driver 535 runs neither.
    result = plan(("torch==2.10.0", "torchvision"), _linux("535.104.05"), shipped)
    assert result.ok, result.unsatisfiable
    _, conda, pip = _deps(emit.emit_environment_yml(result, facts=CondaFacts.of(shipped)))
    assert not any(s.startswith(("pytorch", "torchvision", "cuda-version")) for s in conda)
    assert any(p.startswith("torch==2.10.0") for p in pip)
    assert any(p.startswith("torchvision==") for p in pip)  # follows torch: no second torch


def test_conda_forge_has_no_windows_jaxlib(shipped: Matrix) -> None:
    from envcheck.resolve.conda import absent_from
    from envcheck.resolve.plan_model import Pick

    result = plan(("tensorflow==2.10.0",), _windows("3.10"), shipped)
    pick = Pick(framework="jax", package="jax", version="0.4.30")
    assert absent_from(pick, result, CondaFacts.of(shipped), "conda-forge") is not None


def test_the_seed_stacks_kernels_for_its_gpu_are_known() -> None:
    """tensorflow-gpu 1.14.0's Windows wheel carries SASS up to sm_70 (read from the
    wheel's fatbinaries): a Quadro RTX 5000 (sm_75) runs it, no 'not known' warning."""
    result = run_cli("plan", *SEED, "--format", "yml")
    assert result.exit_code == 0, result.stderr
    assert "compiled architectures are not in the matrix" not in result.stderr
    why = run_cli("matrix", "why", *SEED[:1], *SEED[2:])
    assert "has kernels for Quadro RTX 5000 (sm_75) (SASS for sm_70)" in why.stdout


def test_a_cuda_10_build_conda_forge_lists_no_row_for_is_installed_with_pip(
    shipped: Matrix,
) -> None:
    """TensorFlow 2.3.4 is a CUDA 10.1 build and conda.toml lists no conda-forge CUDA build
    of it: the conda command installs it with pip, never as an unlisted
    `tensorflow=2.3.4=cuda*` from conda-forge (emit.to_pip's CUDA < 11 rule)."""
    target = Target(
        os="linux",
        arch="x86_64",
        python="3.8",
        driver=parse_driver_version("470.82.01"),
        gpus=(parse_compute_capability("6.1"),),
    )
    result = plan(("tensorflow==2.3.4",), target, shipped)
    text = emit.emit_conda(result, facts=CondaFacts.of(shipped))
    assert "tensorflow=2.3.4" not in text
    assert "pip install tensorflow==2.3.4" in text
