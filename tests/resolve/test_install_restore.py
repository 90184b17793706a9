"""`envcheck install`: --installer pip|uv|conda, what the dry run prints is what runs,
and a restore point that restores (index URLs kept, added packages removed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.resolve.test_cli import snapshot_here  # noqa: F401 - fixture

BEFORE = "numpy==2.1.0\ntorch==2.13.0+cpu\ntorchvision==0.28.0+cpu\n"
AFTER = BEFORE.replace("+cpu", "+cu129") + "nvidia-cudnn-cu12==9.10.2.21\n"


def test_freeze_keeps_the_index_of_local_versions(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from envcheck.commands import install

    monkeypatch.setattr(install, "freeze_text", lambda python, installer="pip": BEFORE)
    path = install.record_freeze("/venv/bin/python", tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    # torch==2.13.0+cpu is only on the PyTorch cpu index: pip needs its URL to restore
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in lines
    assert lines.count("--extra-index-url https://download.pytorch.org/whl/cpu") == 1
    assert "torch==2.13.0+cpu" in lines and "numpy==2.1.0" in lines


def test_pip_reads_the_restore_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from envcheck.commands import install

    monkeypatch.setattr(install, "freeze_text", lambda python, installer="pip": BEFORE)
    path = install.record_freeze("/venv/bin/python", tmp_path)
    req_file = pytest.importorskip("pip._internal.req.req_file")
    parsed = list(req_file.parse_requirements(str(path), session=object()))
    assert sorted(p.requirement for p in parsed) == [
        "numpy==2.1.0",
        "torch==2.13.0+cpu",
        "torchvision==0.28.0+cpu",
    ]


def test_restore_removes_what_the_install_added(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from envcheck.commands import install

    monkeypatch.setattr(install, "freeze_text", lambda python, installer="pip": BEFORE)
    freeze = install.record_freeze("/venv/bin/python", tmp_path)
    monkeypatch.setattr(install, "freeze_text", lambda python, installer="pip": AFTER)
    added = install.record_added("/venv/bin/python", freeze)
    assert added is not None
    assert added.read_text(encoding="utf-8") == "nvidia-cudnn-cu12\n"
    reinstall = ["/venv/bin/python", "-m", "pip", "install", "--no-deps", "--force-reinstall"]
    assert install.restore_argvs("/venv/bin/python", freeze, added) == [
        ["/venv/bin/python", "-m", "pip", "uninstall", "--yes", "-r", str(added)],
        [*reinstall, "-r", str(freeze)],
    ]
    monkeypatch.setattr(install, "freeze_text", lambda python, installer="pip": BEFORE)
    assert install.record_added("/venv/bin/python", freeze) is None


def test_install_prints_the_full_restore(
    snapshot_here: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from envcheck.commands import install

    monkeypatch.setattr("platformdirs.user_cache_dir", lambda name: str(tmp_path))
    freezes = iter([BEFORE, AFTER])
    monkeypatch.setattr(install, "freeze_text", lambda python, installer="pip": next(freezes))
    monkeypatch.setattr(install, "run_streamed", lambda argv, timeout: 0)
    code, out, err = run_cli(
        "install", "torch==2.13.*", "--yes", "--json", "--python", "/venv/bin/python"
    )
    data = json.loads(out)
    (uninstall, reinstall) = data["restore_commands"]
    assert uninstall[:5] == ["/venv/bin/python", "-m", "pip", "uninstall", "--yes"]
    assert Path(uninstall[-1]).read_text(encoding="utf-8") == "nvidia-cudnn-cu12\n"
    assert reinstall[-2] == "-r" and "torch==2.13.0+cpu" in Path(reinstall[-1]).read_text()
    assert "to restore the environment: /venv/bin/python -m pip uninstall --yes -r" in err


def test_conda_dry_run_shows_what_runs(
    snapshot_here: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CONDA_EXE", "/opt/conda/bin/conda")
    code, out, err = run_cli(
        "install", "torch", "--conda", "--dry-run", "--json", "--python", "/env/bin/python"
    )
    assert code == 0, err
    commands = json.loads(out)["commands"]
    shown = [line for line in err.splitlines() if not line.startswith(("#", "warning:"))]
    import shlex

    # the text printed is exactly the argv lists that a real run executes
    assert [shlex.split(line) for line in shown] == commands
    assert commands[0][:3] == ["/opt/conda/bin/conda", "install", "--yes"]
    assert "create" not in err


def test_installer_uv_runs_uv_pip(
    snapshot_here: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from envcheck.commands import install

    monkeypatch.setattr(install, "uv_binary", lambda python: "/usr/bin/uv")
    code, out, err = run_cli(
        "install", "torch==2.13.*", "--installer", "uv", "--dry-run", "--python", "/v/bin/python"
    )
    assert code == 0, err
    assert "/usr/bin/uv pip install --python /v/bin/python torch==2.13.0 --index-url" in out
    code, _, err = run_cli("install", "torch", "--installer", "uv", "--conda", "--dry-run")
    assert code == 2 and "contradicts" in err


def test_uv_dry_run_without_uv_shows_the_commands(
    snapshot_here: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from envcheck.commands import install
    from envcheck.errors import EnvcheckError

    def missing(python: str) -> str:
        raise EnvcheckError("uv is not installed (pip install uv), or use --installer pip")

    monkeypatch.setattr(install, "uv_binary", missing)
    argv = ["install", "torch==2.13.*", "--installer", "uv", "--python", "/v/bin/python"]
    # A dry run previews what would run, and says what the real run lacks.
    code, out, err = run_cli(*argv, "--dry-run")
    assert code == 0, err
    assert "\nuv pip install --python /v/bin/python torch==2.13.0" in out
    assert "warning: uv is not installed (pip install uv); the real run needs it" in err
    # The real run refuses before touching anything.
    code, _, err = run_cli(*argv, "--yes")
    assert code == 2 and "uv is not installed" in err
