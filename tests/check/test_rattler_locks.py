"""pixi.lock and conda-lock files read by rattler: every format version rattler
knows, environments x platforms, lines of the entries, refusals as one EC001."""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.check.parse_lock import parse_lock
from envcheck.errors import InputError
from tests.conftest import run_cli

# Lock format 5 (``kind: conda`` entries), two environments, two platforms.
PIXI_LOCK_V5 = """\
version: 5
environments:
  default:
    channels:
    - url: https://conda.anaconda.org/conda-forge/
    packages:
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/noarch/cuda-version-11.8-h70ddcb2_3.conda
      - conda: https://conda.anaconda.org/conda-forge/linux-64/python-3.11.9-hb806964_0_cpython.conda
  gpu:
    channels:
    - url: https://conda.anaconda.org/conda-forge/
    packages:
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/noarch/cuda-version-12.4-h3060b56_3.conda
      - conda: https://conda.anaconda.org/conda-forge/linux-64/python-3.11.9-hb806964_0_cpython.conda
      win-64:
      - conda: https://conda.anaconda.org/conda-forge/noarch/cuda-version-12.4-h3060b56_3.conda
packages:
- kind: conda
  name: cuda-version
  version: '11.8'
  build: h70ddcb2_3
  subdir: noarch
  url: https://conda.anaconda.org/conda-forge/noarch/cuda-version-11.8-h70ddcb2_3.conda
  sha256: a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1
  md5: 1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a
  constrains:
  - cudatoolkit 11.8|11.8.*
  license: LicenseRef-NVIDIA-End-User-License-Agreement
  size: 21043
  timestamp: 1709765911943
- kind: conda
  name: cuda-version
  version: '12.4'
  build: h3060b56_3
  subdir: noarch
  url: https://conda.anaconda.org/conda-forge/noarch/cuda-version-12.4-h3060b56_3.conda
  sha256: b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2
  md5: 2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b
  license: LicenseRef-NVIDIA-End-User-License-Agreement
  size: 21238
  timestamp: 1709765911943
- kind: conda
  name: python
  version: 3.11.9
  build: hb806964_0_cpython
  subdir: linux-64
  url: https://conda.anaconda.org/conda-forge/linux-64/python-3.11.9-hb806964_0_cpython.conda
  sha256: c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3
  md5: 3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c
  depends:
  - bzip2 >=1.0.8,<2.0a0
  license: Python-2.0
  size: 30884494
  timestamp: 1713553104915
"""

CONDA_LOCK_TWO_PLATFORMS = """\
version: 1
metadata:
  channels:
  - url: conda-forge
  platforms:
  - linux-64
  - win-64
package:
- name: cuda-version
  version: '11.8'
  manager: conda
  platform: linux-64
  url: https://conda.anaconda.org/conda-forge/noarch/cuda-version-11.8-h70ddcb2_3.conda
  hash:
    md5: 1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a
- name: cuda-version
  version: '11.8'
  manager: conda
  platform: win-64
  url: https://conda.anaconda.org/conda-forge/noarch/cuda-version-11.8-h70ddcb2_3.conda
  hash:
    md5: 1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a
- name: cupy-cuda12x
  version: 13.3.0
  manager: pip
  platform: win-64
  url: https://files.pythonhosted.org/packages/cupy_cuda12x-13.3.0-cp311-cp311-win_amd64.whl
  hash:
    sha256: c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3
"""


def _pins(text: str, kind: str) -> list[tuple[str, list[tuple[str, str, str, object]]]]:
    return [
        (name, [(p.name, p.specifier, p.source, p.location.line) for p in part.pins])
        for name, part in parse_lock(text, "x.lock", kind)
    ]


def test_pixi_lock_format_5_environments_and_platforms() -> None:
    assert _pins(PIXI_LOCK_V5, "pixi-lock") == [
        (
            "x.lock default linux-64",
            [("cuda-version", "==11.8", "conda", 20), ("python", "==3.11.9", "conda", 44)],
        ),
        (
            "x.lock gpu linux-64",
            [("cuda-version", "==12.4", "conda", 33), ("python", "==3.11.9", "conda", 44)],
        ),
        ("x.lock gpu win-64", [("cuda-version", "==12.4", "conda", 33)]),
    ]
    default = parse_lock(PIXI_LOCK_V5, "x.lock", "pixi-lock")[0][1]
    assert [(b.specifier, b.location.line) for b in default.python] == [("==3.11.*", 44)]


def test_conda_lock_entries_per_platform_keep_their_own_line() -> None:
    assert _pins(CONDA_LOCK_TWO_PLATFORMS, "conda-lock") == [
        ("x.lock linux-64", [("cuda-version", "==11.8", "conda", 9)]),
        (
            "x.lock win-64",
            [("cuda-version", "==11.8", "conda", 16), ("cupy-cuda12x", "==13.3.0", "pip", 23)],
        ),
    ]


@pytest.mark.usefixtures("check_matrix_env")
def test_pixi_lock_environment_with_two_cuda_majors_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "conda-lock.yml").write_text(CONDA_LOCK_TWO_PLATFORMS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check")
    assert "Traceback" not in out + err
    # On win-64, cupy-cuda12x (CUDA 12) sits beside cuda-version 11.8; linux-64 is clean.
    assert out.splitlines()[0] == (
        "conda-lock.yml:16: EC104 cuda-version=11.8 gives CUDA 11, but cupy-cuda12x==13.3.0"
        " (conda-lock.yml:23) is built for CUDA 12"
    )
    assert code == 1


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        (
            "version: 99\nenvironments: {}\npackages: []\n",
            None,
            "found newer lockfile format version 99",
        ),
        (
            PIXI_LOCK_V5.replace("h3060b56_3.conda\n  sha256", "h3060b56_4.conda\n  sha256"),
            None,
            "refers to a package that does not exist",
        ),
        (
            PIXI_LOCK_V5.replace("md5: 1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a", "md5: 12"),
            None,
            "invalid type: integer `12`, expected a hex-encoded digest",
        ),
        ("environments: {}\npackages: []\n", None, "missing `version` field"),
        ("packages: [\n", 2, "invalid YAML"),
    ],
)
def test_lockfiles_rattler_refuses_are_one_line_input_errors(
    text: str, line: object, why: str
) -> None:
    with pytest.raises(InputError) as info:
        parse_lock(text, "pixi.lock", "pixi-lock")
    assert (info.value.path, info.value.line) == ("pixi.lock", line)
    assert why in info.value.message
    assert "\n" not in str(info.value)


@pytest.mark.usefixtures("check_matrix_env")
def test_refused_lockfile_through_the_cli_is_ec001(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pixi.lock").write_text("version: 99\nenvironments: {}\npackages: []\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check")
    assert "Traceback" not in out + err
    assert out.splitlines()[0].startswith(
        "pixi.lock: EC001 invalid lockfile: found newer lockfile format version 99"
    )
    assert code == 2
