"""`envcheck plan`, `envcheck env` and `envcheck install` through main()."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9/3.10
    import tomli as tomllib

RTX5090_SNAPSHOT = str(FIXTURES / "snapshots" / "what-if-rtx5090-torch-cu126.json")
NEW_MACHINE = (
    "--driver",
    "580.65.06",
    "--gpu",
    "RTX 5090",
    "--os",
    "linux",
    "--python-version",
    "3.12",
)


def test_plan_pip_for_flags() -> None:
    code, out, err = run_cli("plan", "torch==2.14.*", "torchvision", *NEW_MACHINE)
    assert code == 0, err
    assert out.splitlines()[1:] == ["pip install torch==2.14.0 torchvision==0.29.0"]


def test_plan_from_snapshot() -> None:
    # 575.57.08 (CUDA 12.9) + RTX 5090 (sm_120) + Python 3.12: 2.14/2.13 x86 cu126 lack
    # sm_120, cu130 needs 580; 2.13.0 cu129 records sm_120 (its build script's list).
    code, out, err = run_cli("plan", "torch", "--snapshot", RTX5090_SNAPSHOT)
    assert code == 0, err
    assert "torch==2.13.0 --index-url https://download.pytorch.org/whl/cu129" in out


def test_plan_unsatisfiable_exits_1_naming_the_blocker() -> None:
    code, out, err = run_cli(
        "plan", "torch>=2", "--driver", "418.67", "--gpu", "Tesla K80", "--os", "linux"
    )
    assert code == 1
    assert out == ""
    assert "cannot plan torch (driver)" in err
    assert "driver 418.67 supports CUDA up to 10.1" in err
    assert "torch 1.8.1" in err


def test_plan_json_contract() -> None:
    code, out, _ = run_cli("plan", "torch==2.14.*", *NEW_MACHINE, "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["schema"] == "envcheck.plan/1"
    assert data["ok"] is True
    assert data["target"] == {
        "os": "linux",
        "arch": "x86_64",
        "driver": "580.65.06",
        "gpus": ["12.0"],
        "gpu_names": ["GeForce RTX 5090"],
        "python": "3.12",
    }
    assert data["picks"][0]["requirement"] == "torch==2.14.1"
    assert data["picks"][0]["variant"] == "cu130"
    assert data["decisions"][0]["subject"] == "target"


def test_plan_json_unsatisfiable_still_json() -> None:
    code, out, err = run_cli(
        "plan", "torch>=2", "--driver", "418.67", "--gpu", "sm_37", "--format", "json"
    )
    assert code == 1
    data = json.loads(out)
    assert data["ok"] is False
    assert data["unsatisfiable"]["constraint"] == "driver"
    assert "cannot plan" in err


def test_plan_explain_cites_sources() -> None:
    code, out, _ = run_cli("plan", "torch==2.14.*", *NEW_MACHINE, "--explain")
    assert code == 0
    assert "# torch: torch 2.14.1 (cu130" in out
    assert "#   source: https://" in out


@pytest.mark.parametrize("fmt", ["conda", "yml", "requirements", "uv", "poetry", "pixi"])
def test_plan_formats(fmt: str) -> None:
    code, out, _ = run_cli("plan", "torch==2.14.*", *NEW_MACHINE, "--format", fmt)
    assert code == 0
    assert "2.14.1" in out


def test_plan_poetry_with_explain_is_still_toml() -> None:
    code, out, _ = run_cli("plan", "torch==2.14.*", *NEW_MACHINE, "--format", "poetry", "--explain")
    assert code == 0
    assert out.startswith("# target: ") and "\n# torch: " in out
    doc = tomllib.loads(out)
    assert doc["project"]["dependencies"] == ["torch==2.14.1"]


def test_plan_json_wins_over_poetry() -> None:
    code, out, _ = run_cli("plan", "torch==2.14.*", *NEW_MACHINE, "--format", "poetry", "--json")
    assert code == 0
    assert json.loads(out)["schema"] == "envcheck.plan/1"


@pytest.mark.parametrize(
    "args",
    [
        ("plan", "numpy", *NEW_MACHINE),
        ("plan", "torch>>2", *NEW_MACHINE),
        ("plan", "torch", "--driver", "latest", "--os", "linux"),
        ("plan", "torch", "--gpu", "Voodoo 2", "--os", "linux"),
        ("plan", "torch", "--snapshot", "/nonexistent/snapshot.json"),
    ],
)
def test_plan_bad_input_exits_2_with_one_line(args: tuple[str, ...]) -> None:
    code, out, err = run_cli(*args)
    assert code == 2
    assert out == ""
    assert "Traceback" not in err


def test_env_writes_then_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "environment.yml"
    # 2.13 (not 2.14): matrices/conda.toml has conda-forge pytorch builds up to 2.13.0.
    code, _, err = run_cli("env", "torch==2.13.*", "-o", str(path), *NEW_MACHINE[:-2])
    assert code == 0, err
    import yaml

    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert "pytorch=2.13.0=cuda*" in doc["dependencies"]
    path.write_text("mine", encoding="utf-8")
    code, _, err = run_cli("env", "torch", "-o", str(path), *NEW_MACHINE[:-2])
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "--force" in err
    assert path.read_text(encoding="utf-8") == "mine"
    code, _, _ = run_cli("env", "torch", "-o", str(path), "--force", *NEW_MACHINE[:-2])
    assert code == 0
    assert "conda-forge" in path.read_text(encoding="utf-8")


def test_env_unsatisfiable_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "environment.yml"
    code, _, err = run_cli("env", "torch>=2", "-o", str(path), "--driver", "418.67")
    assert code == 1
    assert not path.exists()
    assert "driver" in err


# -- install (detection faked; no subprocess may run) ---------------------------------


@pytest.fixture
def snapshot_here(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Detection returns the RTX 5090 snapshot instead of reading this machine."""
    from envcheck.commands import _common
    from envcheck.snapshot_io import read_snapshot

    snap = read_snapshot(RTX5090_SNAPSHOT)
    monkeypatch.setattr(_common, "detect_snapshot", lambda obj, python: snap)
    return snap


def test_install_dry_run_changes_nothing(snapshot_here: Any) -> None:
    code, out, err = run_cli("install", "torch", "--dry-run", "--python", "/venv/bin/python")
    assert code == 0, err
    assert "/venv/bin/python -m pip install torch==2.13.0 --index-url" in out


def test_install_dry_run_json(snapshot_here: Any) -> None:
    import json

    code, out, err = run_cli(
        "install", "torch", "--dry-run", "--json", "--python", "/venv/bin/python"
    )
    assert code == 0, err
    data = json.loads(out)  # stdout holds the JSON only; the pip command went to stderr
    assert data["schema"] == "envcheck.install/1"
    assert data["installed"] is False
    assert data["commands"][0][:4] == ["/venv/bin/python", "-m", "pip", "install"]
    assert "torch==2.13.0" in data["commands"][0]


def test_install_declined_changes_nothing(
    snapshot_here: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from envcheck.commands import install

    monkeypatch.setattr(install, "_stdin_is_terminal", lambda: True)
    code, _, err = run_cli("install", "torch", "--python", "/venv/bin/python", input="n\n")
    assert code == 0
    assert "nothing changed" in err


def test_install_without_a_terminal_asks_for_yes(snapshot_here: Any) -> None:
    # `envcheck install torch < /dev/null`: nobody can answer; exit 2, not 130.
    code, _, err = run_cli("install", "torch", "--python", "/venv/bin/python", input="")
    assert code == 2
    assert "stdin is not a terminal; pass --yes" in err


def test_install_unsatisfiable_exits_1(snapshot_here: Any) -> None:
    code, _, err = run_cli("install", "torch<2.6,>=2", "--yes", "--python", "/venv/bin/python")
    assert code == 1
    assert "sm_120" in err


def test_verify_install_compares_detection_with_plan(snapshot_here: Any) -> None:
    from envcheck.commands.install import verify_install
    from envcheck.compat.target import target_from_snapshot
    from envcheck.matrix import bundled_dir, load_matrix_from
    from envcheck.resolve.plan import plan

    matrix = load_matrix_from(bundled_dir())
    p = plan(("torch",), target_from_snapshot(snapshot_here, matrix), matrix)
    ok, lines = verify_install(p, snapshot_here)
    # The snapshot has torch 2.x cu126 installed, not the planned 2.11.0.
    assert not ok
    assert lines and "planned" in lines[0]


def test_restore_command_is_exact(tmp_path: Path) -> None:
    from envcheck.commands.install import restore_command

    freeze = tmp_path / "freeze 1.txt"
    assert restore_command("/venv/bin/python", freeze) == (
        f"/venv/bin/python -m pip install --no-deps --force-reinstall -r '{freeze}'"
    )


def test_install_yes_records_freeze_then_runs_pip(
    snapshot_here: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from envcheck.commands import install

    ran: list[list[str]] = []
    freeze = tmp_path / "freeze.txt"
    monkeypatch.setattr(install, "record_freeze", lambda python, directory, installer: freeze)
    monkeypatch.setattr(install, "record_added", lambda python, freeze, installer: None)
    monkeypatch.setattr(install, "run_streamed", lambda argv, timeout: ran.append(list(argv)) or 0)
    code, out, err = run_cli("install", "torch==2.13.*", "--yes", "--python", "/venv/bin/python")
    assert ran == [
        [
            "/venv/bin/python",
            "-m",
            "pip",
            "install",
            "torch==2.13.0",
            "--index-url",
            "https://download.pytorch.org/whl/cu129",
        ]
    ]
    assert (
        f"to restore them: /venv/bin/python -m pip install --no-deps --force-reinstall -r {freeze}"
        in err
    )
    # Detection (faked) still sees torch 2.6.0: the install is reported as not right.
    assert code == 1
    assert "torch: 2.6.0+cu126 installed, 2.13.0 planned" in out


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.real_machine
def test_install_keras_for_real(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end: a throwaway venv, `envcheck install keras --yes`, detection after.

    The real pip installs into the real venv, offline: the planned keras is a
    metadata-only stub wheel in a local directory (PIP_NO_INDEX, PIP_FIND_LINKS),
    pip's configuration files are ignored and every proxy is a closed port.
    Detection reads keras's distribution version, which the stub carries.
    """
    import os
    import subprocess
    import sys

    from tests.resolve.stubwheels import write_stub_wheel

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    bindir = "Scripts" if sys.platform == "win32" else "bin"
    python = venv / bindir / ("python.exe" if sys.platform == "win32" else "python")
    code, out, _ = run_cli("install", "keras", "--dry-run", "--json", "--python", str(python))
    assert code == 0, out
    (command,) = json.loads(out)["commands"]
    (pin,) = [a for a in command if a.startswith("keras==")]
    write_stub_wheel(tmp_path / "wheels", "keras", pin.split("==", 1)[1])
    for name in list(os.environ):
        if name.upper().startswith("PIP_") or name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "wheels"))
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9/")
    code, out, err = run_cli("install", "keras", "--yes", "--python", str(python))
    assert code == 0, err[-3000:]
    assert "to restore them:" in err
    assert "keras" in out and "as planned" in out
    done = subprocess.run(
        [str(python), "-m", "pip", "show", "keras"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0
    import platformdirs

    cache = Path(platformdirs.user_cache_dir("envcheck")) / "restore"
    freezes = list(cache.glob("freeze-*.txt"))
    assert len(freezes) == 1
    # the restore removes what the install added (keras and its dependencies)
    (added,) = cache.glob("added-*.txt")
    assert "keras" in added.read_text(encoding="utf-8").split()
    assert f"pip uninstall --yes -r {added}" in err


def test_install_conda_argvs(monkeypatch: pytest.MonkeyPatch) -> None:
    from envcheck.commands.install import conda_argvs
    from envcheck.matrix import bundled_dir, load_matrix_from
    from envcheck.resolve.plan import plan
    from tests.resolve.test_plan import RTX5090, machine

    monkeypatch.setenv("CONDA_EXE", "/opt/conda/bin/conda")
    p = plan(("torch==2.13.*",), machine("580.65.06", RTX5090), load_matrix_from(bundled_dir()))
    assert conda_argvs(p, "/env/bin/python") == [
        [
            "/opt/conda/bin/conda",
            "install",
            "--yes",
            "-c",
            "conda-forge",
            "--override-channels",
            "cuda-version=13.0",
            "pytorch=2.13.0=cuda*",
        ]
    ]


def test_install_conda_sends_torch_conda_forge_lacks_to_pip(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from envcheck.commands.install import conda_argvs
    from envcheck.matrix import bundled_dir, load_matrix_from
    from envcheck.resolve.plan import plan
    from tests.resolve.test_plan import RTX5090, machine

    monkeypatch.setenv("CONDA_EXE", "/opt/conda/bin/conda")
    p = plan(("torch==2.14.*",), machine("580.65.06", RTX5090), load_matrix_from(bundled_dir()))
    argvs = conda_argvs(p, "/env/bin/python")
    assert not any(a.startswith("pytorch") for a in argvs[0])
    assert argvs[1][-1].startswith("torch==2.14.")


@pytest.mark.parametrize("value", ["3", "three.twelve"])
def test_bad_python_version_is_a_usage_error(value: str) -> None:
    code, _, err = run_cli("plan", "torch", "--os", "linux", "--python-version", value)
    assert code == 2
    assert "Python version" in err


def test_plan_allow_cpu_on_macos() -> None:
    code, _, err = run_cli("plan", "torch==2.14.*", "--os", "macos", "--arch", "aarch64")
    assert code == 1
    assert "--allow-cpu" in err
    code, out, _ = run_cli(
        "plan", "torch==2.14.*", "--os", "macos", "--arch", "aarch64", "--allow-cpu"
    )
    assert code == 0
    # 2.14.1's macOS arm64 wheel on PyPI is the CPU (MPS) build: no index needed
    assert out.splitlines()[-1] == "pip install torch==2.14.1"


def test_plan_on_macos_means_apple_silicon_and_names_mps_not_nvidia() -> None:
    """--os macos without --arch is an Apple-silicon Mac (x86_64 Macs got their last
    torch wheels with 2.2.2); no NVIDIA driver advice is given for a Mac."""
    code, out, err = run_cli("plan", "torch", "--os", "macos", "--allow-cpu")
    assert code == 0, err
    assert out.splitlines()[0] == "# envcheck plan for macos/aarch64"
    assert "MPS" in err
    assert "--driver" not in err and "NVIDIA driver" not in err
    code, _, err = run_cli("plan", "torch", "--os", "macos")
    assert code == 1
    assert "--allow-cpu" in err and "MPS" in err
    assert "--driver" not in err


def test_an_intel_mac_gets_the_last_torch_with_x86_64_macos_wheels() -> None:
    # PyPI's macOS x86_64 torch wheels stop at 2.2.2 (torch.toml, macOS rows)
    code, out, err = run_cli("plan", "torch", "--os", "macos", "--arch", "x86_64", "--allow-cpu")
    assert code == 0, err
    assert out.splitlines()[-1] == "pip install torch==2.2.2"


def test_a_refusal_names_every_reason_the_newest_build_fails() -> None:
    """Python 3.8 and a GTX 670 (sm_30): the newest TensorFlow lacks both. Naming only
    the Python would send the user to a new interpreter and a second refusal."""
    code, _out, err = run_cli(
        "plan", "tensorflow", "--os", "linux", "--python-version", "3.8", "--gpu", "GeForce GTX 670"
    )
    assert code == 1
    assert "not 3.8" in err and "no kernels for GeForce GTX 670 (sm_30)" in err


def test_install_uninstalls_a_cpu_build_the_pin_would_keep(monkeypatch: pytest.MonkeyPatch) -> None:
    # pip keeps an installed torch 2.13.0+cpu for torch==2.13.0: it goes first.
    from dataclasses import replace

    from envcheck.commands import _common
    from envcheck.snapshot_io import read_snapshot

    snap = read_snapshot(RTX5090_SNAPSHOT)
    snap = replace(snap, packages={**snap.packages, "torch": "2.13.0+cpu"})
    monkeypatch.setattr(_common, "detect_snapshot", lambda obj, python: snap)
    code, out, err = run_cli("install", "torch==2.13.*", "--dry-run", "--python", "/v/bin/python")
    assert code == 0, err
    lines = [ln for ln in out.splitlines() if ln.startswith("/v/bin/python")]
    assert lines[0] == "/v/bin/python -m pip uninstall -y torch"
    assert lines[1].startswith("/v/bin/python -m pip install torch==2.13.0 --index-url")


@pytest.mark.real_machine
def test_python_is_an_interpreter_path_in_plan_env_and_why() -> None:
    """--python names an interpreter everywhere (its version is read from it); a
    bare version is refused with the option that takes one."""
    for argv in (
        ("plan", "torch", "--python", "3.11"),
        ("env", "torch", "-o", "-", "--python", "3.11"),
        ("matrix", "why", "torch==2.5.1", "--python", "3.11"),
    ):
        code, out, err = run_cli(*argv)
        assert code == 2, argv
        assert "--python-version 3.11" in out + err
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    code, out, err = run_cli("plan", "torch", "--os", "linux", "--python", sys.executable)
    assert code == 0, err
    assert f"Python {here}" in out
    code, out, err = run_cli("plan", "torch", "--python", sys.executable, "--python-version", "2.7")
    assert code != 0 and f"is Python {here}" in err
