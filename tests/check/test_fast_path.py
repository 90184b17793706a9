"""``envcheck check [PATH...]`` (the pre-commit hook's call) runs without click and
prints what the click command prints, with the same exit code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import entry_in_fresh_process, run_cli

FILES = {
    "clean/requirements.txt": "--index-url https://download.pytorch.org/whl/cu126\ntorch==2.8.0\n",
    "clean/environment.yml": "dependencies:\n  - python=3.11\n  - pip\n  - cuda-version>=12\n",
    "broken/requirements.txt": "--index-url https://download.pytorch.org/whl/cu118\ntorch==2.8.0\n",
    "broken/environment.yml": "dependencies:\n  - conda-forge::pytorch=2.5.*=*cuda*\n",
    "bad/environment.yml": "dependencies:\n  - python>>=3\n",
    "bad/pyproject.toml": "[project\n",
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ENVCHECK_MATRIX", "bundled")
    return tmp_path


@pytest.mark.parametrize(
    "paths",
    [
        [],
        ["clean"],
        ["clean/requirements.txt"],
        ["broken/requirements.txt", "clean/environment.yml"],
        ["broken/environment.yml"],
        ["bad"],
        ["bad/pyproject.toml", "missing.txt"],
        ["bad/environment.yml"],
    ],
)
def test_fast_path_prints_what_the_cli_prints(
    tree: Path, paths: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from envcheck import _entry

    code = _entry.main(["check", *paths])
    fast = capsys.readouterr()
    assert (code, fast.out, fast.err) == tuple(run_cli("check", *paths))


def test_options_still_go_through_click(tree: Path) -> None:
    from envcheck import _entry

    assert _entry.main(["check", "--select", "EC1", "broken"]) == 1
    assert _entry.main(["check", "--bogus"]) == 2


@pytest.mark.real_machine
def test_check_with_paths_does_not_import_click(tree: Path) -> None:
    code, clicked, out = entry_in_fresh_process("check", "clean")
    assert (code, clicked) == (0, False)
    assert out == (
        "envcheck check: read clean/requirements.txt, clean/environment.yml\n"
        "envcheck check: 2 files checked, no problems\n"
    )
