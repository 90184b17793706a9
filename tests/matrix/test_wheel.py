"""The wheel carries the matrix and the signature catalogue inside the package, and
an installed copy loads them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


@pytest.mark.slow
@pytest.mark.real_machine
def test_wheel_ships_the_matrix_and_an_installed_copy_loads_it(tmp_path: Path) -> None:
    pytest.importorskip("hatchling", reason="building the wheel needs hatchling")
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",  # pip never asks an index (nor PyPI for its own version)
            "--quiet",
            "-w",
            str(dist),
            str(ROOT),
        ],
        check=True,
    )
    (wheel,) = dist.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    shipped = sorted(n.rsplit("/", 1)[1] for n in names if n.startswith("envcheck/_matrices/"))
    expected = sorted(p.name for p in (ROOT / "matrices").glob("*.toml"))
    assert set(expected) <= set(shipped)
    assert "envcheck/schemas/matrix-1.schema.json" in names
    assert not any(n.startswith("matrices/") for n in names)
    shipped_sigs = sorted(
        n.rsplit("/", 1)[1] for n in names if n.startswith("envcheck/_signatures/")
    )
    expected_sigs = sorted(p.name for p in (ROOT / "signatures").glob("*.toml"))
    assert set(expected_sigs) <= set(shipped_sigs)
    assert "index.toml" in shipped_sigs
    assert "facts.toml" in shipped_sigs
    assert not any(n.startswith("signatures/") for n in names)

    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
    )
    probe = (
        "import json, envcheck.matrix as m\n"
        "from envcheck.explain import catalogue, explain\n"
        "from envcheck.explain.signatures import SIGNATURES\n"
        "x = m.load_matrix()\n"
        "r = explain('RuntimeError: Found no NVIDIA driver on your system.')\n"
        "print(json.dumps({'file': m.__file__, 'location': x.location,"
        " 'files': sorted(x.file_versions), 'gpus': len(x.gpus),"
        " 'torch': len(x.framework_builds('torch')),"
        " 'signatures_dir': str(catalogue.bundled_dir()),"
        " 'signatures': [s.id for s in SIGNATURES],"
        " 'explained': [f.id for f in r.findings]}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVCHECK_")}
    env.update(PYTHONPATH=str(site), XDG_CACHE_HOME=str(tmp_path / "cache"))
    out = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    doc = json.loads(out.stdout)
    assert doc["file"].startswith(str(site))
    assert doc["location"] == str(site / "envcheck" / "_matrices")
    assert doc["files"] == sorted(p.stem for p in (ROOT / "matrices").glob("*.toml"))
    assert doc["gpus"] > 100
    assert doc["torch"] > 50
    assert doc["signatures_dir"] == str(site / "envcheck" / "_signatures")
    from envcheck.explain.signatures import SIGNATURES

    assert doc["signatures"] == [s.id for s in SIGNATURES]
    assert doc["explained"][0] == "torch-found-no-nvidia-driver"
    # The second run reads the compiled cache and gives the same answer.
    again = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(again.stdout) == doc
    assert list((tmp_path / "cache" / "envcheck" / "compiled").glob("matrix-*.pickle"))
    assert list((tmp_path / "cache" / "envcheck" / "compiled").glob("signatures-*.marshal"))
