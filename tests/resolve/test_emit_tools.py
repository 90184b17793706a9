"""uv and pixi outputs, proved by the real tools where they install from PyPI.

``uv lock --offline`` reads the emitted pyproject.toml against local indexes of
metadata-only stub wheels (tests/resolve/stubwheels.py): the PyTorch index URL in
the output is swapped for a local one holding only the ``+cuXYZ`` builds, so the
lock proves that ``explicit = true`` + ``[tool.uv.sources]`` send torch there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

from envcheck.resolve import emit
from envcheck.resolve.plan import Plan, plan
from tests.resolve.stubwheels import write_simple_index, write_stub_wheel
from tests.resolve.test_plan import ADA, T4, machine

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9/3.10
    import tomli as tomllib

HERE_PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"


def uv_binary() -> Optional[str]:
    """The uv of the test extras (installed beside this interpreter), or one on PATH."""
    beside = Path(sys.executable).parent / ("uv.exe" if os.name == "nt" else "uv")
    if beside.is_file():
        return str(beside)
    return shutil.which("uv")


def test_uv_output_is_a_pyproject(matrix: Any) -> None:
    p = plan(("torch", "torchaudio<2.12"), machine("537.13", T4, os="windows"), matrix)
    doc = tomllib.loads(emit.emit_uv(p))
    assert doc["project"]["dependencies"] == ["torch==2.11.0", "torchaudio==2.11.0"]
    assert doc["tool"]["uv"]["index"] == [
        {"name": "pytorch-cu128", "url": "https://download.pytorch.org/whl/cu128", "explicit": True}
    ]
    assert doc["tool"]["uv"]["sources"] == {
        "torch": {"index": "pytorch-cu128"},
        "torchaudio": {"index": "pytorch-cu128"},
    }
    assert doc["tool"]["uv"]["environments"] == [
        "sys_platform == 'win32' and platform_machine == 'AMD64'"
    ]


def test_uv_find_links_become_a_flat_index(combo_matrix: Any) -> None:
    p = plan(("jax==0.4.20",), machine("525.60.13", ADA, python="3.11"), combo_matrix)
    doc = tomllib.loads(emit.emit_uv(p))
    (index,) = doc["tool"]["uv"]["index"]
    assert index["format"] == "flat" and "explicit" not in index
    assert index["url"] == "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"
    assert doc["project"]["requires-python"] == "==3.11.*"


def _stub_indexes(p: Plan, root: Path) -> tuple[str, dict[str, str]]:
    """(default index URL, {emitted index URL: local index URL}) serving the picks."""
    from envcheck.resolve.emit import _uses_index

    pypi: list[Path] = []
    per_index: dict[str, list[Path]] = {}
    for pick in p.picks:
        assert pick.version is not None
        extras = {pick.extra: []} if pick.extra else None
        if _uses_index(pick, p):
            assert pick.index_url is not None
            version = f"{pick.version}+{pick.variant}"
            wheel = write_stub_wheel(root / "wheels-index", pick.package, version, extras=extras)
            per_index.setdefault(pick.index_url, []).append(wheel)
            # PyPI has the same release too: the lock must not take it from there.
            pypi.append(write_stub_wheel(root / "wheels", pick.package, pick.version))
        else:
            pypi.append(
                write_stub_wheel(root / "wheels", pick.package, pick.version, extras=extras)
            )
    default = write_simple_index(root / "pypi", pypi)
    local = {
        url: write_simple_index(root / f"index{n}", wheels)
        for n, (url, wheels) in enumerate(per_index.items())
    }
    return default, local


@pytest.mark.real_machine
def test_uv_lock_offline_accepts_the_output(matrix: Any, tmp_path: Path) -> None:
    uv = uv_binary()
    if uv is None:
        pytest.skip("uv is not installed (pip install -e '.[test]' installs it)")
    target = machine("550.54.15", ADA, python=HERE_PYTHON)
    p = plan(("torch", "torchvision"), target, matrix)
    assert p.ok, p.unsatisfiable
    assert any(emit._uses_index(pick, p) for pick in p.picks), "want a PyTorch index"
    default, local = _stub_indexes(p, tmp_path)
    text = emit.emit_uv(p)
    for url, here in local.items():
        text = text.replace(_quoted(url), _quoted(here))
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("UV_")}
    env["UV_CACHE_DIR"] = str(tmp_path / "uv-cache")
    done = subprocess.run(
        [
            uv,
            "lock",
            "--offline",
            "--no-python-downloads",
            "--python",
            sys.executable,
            "--default-index",
            default,
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lock = tomllib.loads((project / "uv.lock").read_text(encoding="utf-8"))
    got = {pkg["name"]: pkg for pkg in lock["package"]}
    for pick in p.picks:
        entry = got[pick.package]
        if emit._uses_index(pick, p):
            assert entry["version"] == f"{pick.version}+{pick.variant}"
            # uv writes a local registry as a path: the PyTorch index, not PyPI's copy
            registry = entry["source"]["registry"]
            assert local[pick.index_url or ""].endswith(registry.replace(os.sep, "/")), registry
        else:
            assert entry["version"] == pick.version


def _quoted(text: str) -> str:
    return f'"{text}"'


def test_pixi_output(matrix: Any, combo_matrix: Any) -> None:
    p = plan(("torch", "torchaudio<2.12"), machine("537.13", T4, os="windows"), matrix)
    doc = tomllib.loads(emit.emit_pixi(p))
    assert doc["workspace"]["platforms"] == ["win-64"]
    assert doc["workspace"]["channels"] == ["conda-forge"]
    # driver 537.13 runs CUDA 12.2 natively; the cu128 wheels run there by minor-version
    # compatibility, so pixi must not ask for more than the driver has.
    assert doc["system-requirements"] == {"cuda": "12.2"}
    assert doc["pypi-dependencies"]["torch"] == {
        "version": "==2.11.0",
        "index": "https://download.pytorch.org/whl/cu128",
    }
    jax = plan(("jax==0.4.20",), machine("525.60.13", ADA, python="3.11"), combo_matrix)
    doc = tomllib.loads(emit.emit_pixi(jax))
    assert doc["dependencies"] == {"python": "3.11.*"}
    assert doc["pypi-dependencies"]["jax"] == {"version": "==0.4.20", "extras": ["cuda11_pip"]}
    assert doc["pypi-options"]["find-links"] == [
        {"url": "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"}
    ]


@pytest.mark.real_machine
def test_pixi_parses_with_pixi_itself(matrix: Any, tmp_path: Path) -> None:
    pixi = shutil.which("pixi")
    if pixi is None:
        pytest.skip(
            "pixi is not installable from PyPI (the 'pixi' distribution there is an"
            " unrelated program); install pixi to run this check"
        )
    p = plan(("torch",), machine("550.54.15", ADA, python="3.12"), matrix)
    (tmp_path / "pixi.toml").write_text(emit.emit_pixi(p), encoding="utf-8")
    done = subprocess.run(
        [pixi, "info", "--manifest-path", str(tmp_path / "pixi.toml")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
