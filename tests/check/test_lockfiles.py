"""Poetry projects, lockfiles (uv, poetry, pixi, conda-lock), pixi environments, conda CUDA pins."""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.check.parse_poetry import poetry_to_pep440
from tests.conftest import run_cli

NO_CU118 = "has no 2.8.0; it was published for cu126, cu128, cu129, cpu, rocm6.4"
NO_CU118_BUILD = (
    "no cu118 build of 2.8.0 was published (variants: cu126, cu128, cu129, cpu, rocm6.4)"
)

POETRY = """\
[tool.poetry]
name = "demo"
version = "0.1.0"

[tool.poetry.dependencies]
python = "^3.10"
torch = { version = "2.8.0", source = "pytorch" }
numpy = "^1.26"

[tool.poetry.group.gpu.dependencies]
tensorflow = { version = "2.16.1", extras = ["and-cuda"] }
cupy-cuda11x = "^13.0"

[[tool.poetry.source]]
name = "pytorch"
url = "https://download.pytorch.org/whl/cu118"
priority = "explicit"
"""

UV_LOCK = """\
version = 1
requires-python = ">=3.10"

[[package]]
name = "demo"
version = "0.1.0"
source = { virtual = "." }

[[package]]
name = "numpy"
version = "2.1.0"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "torch"
version = "2.8.0+cu118"
source = { registry = "https://download.pytorch.org/whl/cu118" }
"""

POETRY_LOCK = """\
[[package]]
name = "numpy"
version = "2.1.0"
optional = false
python-versions = ">=3.10"
files = []

[[package]]
name = "torch"
version = "2.8.0"
optional = false
python-versions = ">=3.9"
files = []

[package.source]
type = "legacy"
url = "https://download.pytorch.org/whl/cu118"
reference = "pytorch"

[metadata]
lock-version = "2.0"
"""

TORCH_WHL = (
    "https://download.pytorch.org/whl/cu118/torch-2.8.0%2Bcu118-cp311-cp311-linux_x86_64.whl"
)
PIXI_LOCK = f"""\
version: 6
environments:
  default:
    channels:
    - url: https://conda.anaconda.org/conda-forge/
    packages:
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/linux-64/python-3.11.9-hb806964_0_cpython.conda
      - pypi: {TORCH_WHL}
packages:
- conda: https://conda.anaconda.org/conda-forge/linux-64/python-3.11.9-hb806964_0_cpython.conda
  sha256: 5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b
- pypi: {TORCH_WHL}
  name: torch
  version: 2.8.0+cu118
"""

CONDA_LOCK = """\
version: 1
metadata:
  channels:
  - url: conda-forge
  platforms:
  - linux-64
package:
- name: pytorch-cuda
  version: '11.8'
  manager: conda
  platform: linux-64
  url: https://conda.anaconda.org/pytorch/noarch/pytorch-cuda-11.8-h7e8668a_5.tar.bz2
  hash:
    md5: 4f7a1f3e6d0c2b8a9e5d7c1b3a2f0e9d
- name: cudatoolkit
  version: 11.3.1
  manager: conda
  platform: linux-64
  url: https://conda.anaconda.org/conda-forge/linux-64/cudatoolkit-11.3.1-h9edb442_10.tar.bz2
  hash:
    md5: 9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b
"""


def _check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check")
    assert "Traceback" not in out + err
    return [*out.splitlines(), f"exit {code}"]


@pytest.mark.parametrize(
    ("poetry", "pep440"),
    [
        ("^1.2.3", ">=1.2.3,<2"),
        ("^0.2.3", ">=0.2.3,<0.3"),
        ("^0.0.3", ">=0.0.3,<0.0.4"),
        ("~1.2.3", ">=1.2.3,<1.3"),
        ("~1", ">=1,<2"),
        ("2.1.0", "==2.1.0"),
        ("2.1.*", "==2.1.*"),
        ("2.1.0+cu118", "==2.1.0+cu118"),
        (">=2.1, <2.3", ">=2.1,<2.3"),
        (">=2.1 <2.3", ">=2.1,<2.3"),
        ("~=2.1", "~=2.1"),
        ("*", ""),
        ("^1.0 || ^2.0", None),
    ],
)
def test_poetry_constraints(poetry: str, pep440: str) -> None:
    assert poetry_to_pep440(poetry) == pep440


@pytest.mark.usefixtures("check_matrix_env")
def test_poetry_dependencies_groups_and_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _check(tmp_path, monkeypatch, {"pyproject.toml": POETRY})
    assert lines[0] == (
        "pyproject.toml:7: EC103 torch==2.8.0: https://download.pytorch.org/whl/cu118"
        f" (from pyproject.toml:16) {NO_CU118}"
    )
    assert lines[1].startswith(
        "pyproject.toml:12: EC101 cupy-cuda11x>=13.0,<14 needs CUDA 11, but"
        " tensorflow[and-cuda]==2.16.1 (pyproject.toml:11) needs CUDA 12"
    )
    assert lines[-1] == "exit 1"


@pytest.mark.usefixtures("check_matrix_env")
def test_poetry_python_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = '[tool.poetry.dependencies]\npython = "~3.8"\ntorch = "2.8.0"\n'
    lines = _check(tmp_path, monkeypatch, {"pyproject.toml": text})
    assert lines[0].startswith("pyproject.toml:2: EC105 python ~3.8 allows Python 3.8, but torch")
    assert lines[-1] == "exit 1"


@pytest.mark.usefixtures("check_matrix_env")
def test_uv_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _check(tmp_path, monkeypatch, {"uv.lock": UV_LOCK})
    assert lines == [
        f"uv.lock:15: EC103 torch==2.8.0+cu118: {NO_CU118_BUILD}",
        "envcheck check: read uv.lock",
        "envcheck check: 1 file checked, 1 problem",
        "exit 1",
    ]


@pytest.mark.usefixtures("check_matrix_env")
def test_poetry_lock_index_of_a_legacy_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = _check(tmp_path, monkeypatch, {"poetry.lock": POETRY_LOCK})
    assert lines[0] == (
        "poetry.lock:9: EC103 torch==2.8.0: https://download.pytorch.org/whl/cu118"
        f" (from poetry.lock:9) {NO_CU118}"
    )
    assert lines[-1] == "exit 1"
    fixed = POETRY_LOCK.replace("/cu118", "/cu128")
    assert _check(tmp_path, monkeypatch, {"poetry.lock": fixed})[-1] == "exit 0"


@pytest.mark.usefixtures("check_matrix_env")
def test_pixi_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _check(tmp_path, monkeypatch, {"pixi.lock": PIXI_LOCK})
    assert lines == [
        f"pixi.lock:13: EC103 torch==2.8.0+cu118: {NO_CU118_BUILD}",
        "envcheck check: read pixi.lock",
        "envcheck check: 1 file checked, 1 problem",
        "exit 1",
    ]


@pytest.mark.usefixtures("check_matrix_env")
def test_conda_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _check(tmp_path, monkeypatch, {"conda-lock.yml": CONDA_LOCK})
    assert lines == [
        (
            "conda-lock.yml:15: EC104 cudatoolkit=11.3.1 gives CUDA 11.3, but pytorch-cuda=11.8"
            " (conda-lock.yml:8) gives CUDA 11.8; one environment has one CUDA runtime"
        ),
        "envcheck check: read conda-lock.yml",
        "envcheck check: 1 file checked, 1 problem",
        "exit 1",
    ]


@pytest.mark.usefixtures("check_matrix_env")
def test_conda_cuda_pins_that_disagree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = "dependencies:\n  - pytorch-cuda=11.8\n  - cudatoolkit=11.3\n  - cuda-version=11\n"
    lines = _check(tmp_path, monkeypatch, {"environment.yml": env})
    assert lines == [
        (
            "environment.yml:3: EC104 cudatoolkit=11.3 gives CUDA 11.3, but pytorch-cuda=11.8"
            " (environment.yml:2) gives CUDA 11.8; one environment has one CUDA runtime"
        ),
        "envcheck check: read environment.yml",
        "envcheck check: 1 file checked, 1 problem",
        "exit 1",
    ]
    same = "dependencies:\n  - pytorch-cuda=11.8\n  - cudatoolkit=11.8\n"
    assert _check(tmp_path, monkeypatch, {"environment.yml": same})[-1] == "exit 0"


PIXI = """\
[workspace]
name = "demo"
channels = ["conda-forge"]
platforms = ["linux-64"]

[system-requirements]
cuda = "11.8"

[dependencies]
python = "3.11.*"

[feature.new.dependencies]
cuda-version = "12.4.*"

[feature.cpu.dependencies]
cuda-version = "12.4.*"

[environments]
gpu = ["new"]
cpu = {features = ["cpu"], no-default-feature = true}
"""


@pytest.mark.usefixtures("check_matrix_env")
def test_pixi_environments_and_system_requirements(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The gpu environment has the default feature's system-requirements; the cpu
    # environment leaves the default feature out, so nothing contradicts there.
    lines = _check(tmp_path, monkeypatch, {"pixi.toml": PIXI})
    assert lines == [
        (
            "pixi.toml:13: EC104 cuda-version 12.4.* gives CUDA 12.4, but [system-requirements]"
            " cuda = '11.8' (pixi.toml:7) declares a driver for CUDA 11.8; CUDA 12 needs a"
            " CUDA 12 driver"
        ),
        "envcheck check: read pixi.toml",
        "envcheck check: 1 file checked, 1 problem",
        "exit 1",
    ]
    # A newer driver runs an older CUDA runtime: the check passes, but a pin of an
    # older CUDA major than the declared machines is a warning (pixi would refuse
    # CUDA 11 machines this environment runs on; one of the two was not bumped).
    newer = PIXI.replace('cuda = "11.8"', 'cuda = "12.0"').replace("12.4.*", "11.8.*")
    lines = _check(tmp_path, monkeypatch, {"pixi.toml": newer})
    assert lines[-1] == "exit 0"
    assert lines[0].startswith(
        "pixi.toml:13: EC104 warning: cuda-version 11.8.* gives CUDA 11.8, but"
        " [system-requirements] cuda = '12.0' (pixi.toml:7) declares CUDA 12 machines"
    )
    same_major = PIXI.replace("12.4.*", "11.2.*")
    assert _check(tmp_path, monkeypatch, {"pixi.toml": same_major})[-2].endswith("no problems")


@pytest.mark.usefixtures("check_matrix_env")
def test_poetry_optional_dependencies_join_their_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (
        "[tool.poetry.dependencies]\n"
        'torch = "2.4.0"\n'
        'tensorflow = { version = "2.16.1", extras = ["and-cuda"], optional = true }\n'
        "\n[tool.poetry.extras]\n"
        'tf = ["tensorflow"]\n'
    )
    lines = _check(tmp_path, monkeypatch, {"pyproject.toml": text})
    assert lines[0].startswith(
        "pyproject.toml:3: EC102 tensorflow[and-cuda]==2.16.1 needs cuDNN 8, but torch==2.4.0"
        " (pyproject.toml:2) needs cuDNN 9"
    )
    # Without an extra naming it, an optional dependency is never installed.
    alone = text.replace('tf = ["tensorflow"]', "")
    assert _check(tmp_path, monkeypatch, {"pyproject.toml": alone})[-1] == "exit 0"


@pytest.mark.usefixtures("check_matrix_env")
def test_malformed_lockfiles_are_one_line_ec001(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = "version: 1\npackage:\n- name: x\n  v: " + "[" * 100 + "]" * 100 + "\n"
    lines = _check(
        tmp_path,
        monkeypatch,
        {"uv.lock": '[[package]\nname="x"\n', "pixi.lock": "packages: [\n", "conda-lock.yml": deep},
    )
    # The parsers' own wording (libyaml or pure Python, tomllib or tomli) is not
    # pinned here: only envcheck's file, line and code, and its own gate's text.
    assert lines[1].startswith("pixi.lock:") and "EC001 invalid YAML: " in lines[1]
    assert lines[2].startswith("uv.lock:1: EC001 invalid TOML: "), lines[2]
    assert [lines[0], *lines[3:]] == [
        "conda-lock.yml:4: EC001 invalid YAML: nested more than 64 deep",
        "envcheck check: read uv.lock, pixi.lock, conda-lock.yml",
        "envcheck check: 3 files checked, 3 unreadable inputs",
        "exit 2",
    ]
