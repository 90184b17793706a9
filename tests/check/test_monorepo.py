"""``check`` over a repository: every project found, each with its own declaration."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli

CU118_TORCH_28 = "--index-url https://download.pytorch.org/whl/cu118\ntorch==2.8.0\n"
EC103 = (
    "services/api/requirements.txt:2: EC103 torch==2.8.0: https://download.pytorch.org/whl/cu118"
)


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _monorepo(root: Path) -> None:
    _write(root, "README.md", "demo\n")
    _write(root, "services/api/requirements.txt", CU118_TORCH_28)
    _write(root, "services/web/requirements.txt", "flask==3.0.0\n")
    # Never projects: virtual environments, hidden directories, node_modules.
    _write(root, ".venv/lib/requirements.txt", "torch==2.8.0+cu118\n")
    _write(root, "node_modules/x/requirements.txt", "torch==2.8.0+cu118\n")
    _write(root, ".hidden/requirements.txt", "torch==2.8.0+cu118\n")


@pytest.mark.usefixtures("check_matrix_env")
def test_monorepo_projects_are_found_from_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _monorepo(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check")
    assert code == 1, out + err
    lines = out.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(EC103)
    assert lines[1:] == [
        "envcheck check: read services/api/requirements.txt, services/web/requirements.txt",
        "envcheck check: 2 files checked, 1 problem",
    ]


@pytest.mark.usefixtures("check_matrix_env")
def test_given_files_check_the_projects_they_belong_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _monorepo(tmp_path)
    _write(tmp_path, "services/api/requirements/gpu.txt", "numpy\n")
    monkeypatch.chdir(tmp_path)
    # pre-commit passes the changed files: a file under requirements/ belongs to
    # services/api, whose requirements.txt is checked with it.
    code, out, _ = run_cli("check", "services/api/requirements/gpu.txt")
    assert code == 1
    assert out.splitlines()[0].startswith(EC103)
    assert out.splitlines()[-1] == "envcheck check: 2 files checked, 1 problem"
    code, out, _ = run_cli("check", "services/web/requirements.txt")
    assert code == 0
    assert out == (
        "envcheck check: read services/web/requirements.txt\n"
        "envcheck check: 1 file checked, no problems\n"
    )
    code, out, _ = run_cli("check", "services")
    assert code == 1
    assert out.splitlines()[-1] == "envcheck check: 3 files checked, 1 problem"


@pytest.mark.usefixtures("check_matrix_env")
def test_tool_envcheck_applies_to_every_file_of_its_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(
        tmp_path,
        "ml/pyproject.toml",
        '[project]\nname = "ml"\n\n[tool.envcheck]\ngpus = ["sm_120"]\nplatforms = ["linux"]\n',
    )
    _write(tmp_path, "ml/requirements.txt", "torch==2.4.0\n")
    # Another project's declaration does not leak into this one.
    _write(tmp_path, "other/requirements.txt", "torch==2.4.0\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli("check")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(
        "ml/requirements.txt:1: EC106 torch==2.4.0 cannot serve linux/x86_64; sm_120"
        " (declared at ml/pyproject.toml:4)"
    )
    assert lines[1:] == [
        "envcheck check: read ml/requirements.txt, ml/pyproject.toml, other/requirements.txt",
        "envcheck check: 3 files checked, 1 problem",
    ]
