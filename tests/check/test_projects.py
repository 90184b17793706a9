"""Whole-output tests: each fixture project's ``envcheck check`` against expected-check.txt."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.conftest import PROJECTS
from tests.conftest import run_cli

CASES = sorted(p.name for p in PROJECTS.iterdir() if p.is_dir() and not p.name.startswith("_"))


def _transcript(exit_code: int, stdout: str, stderr: str) -> str:
    return f"exit: {exit_code}\n--- stdout\n{stdout}--- stderr\n{stderr}"


@pytest.mark.usefixtures("check_matrix_env")
@pytest.mark.parametrize("case", CASES)
def test_project(
    case: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = PROJECTS / case
    before = {
        p: p.stat().st_mtime_ns
        for p in root.rglob("*")
        if p.is_file() and p.name != "expected-check.txt"
    }
    monkeypatch.chdir(root)
    code, out, err = run_cli("check")
    actual = _transcript(code, out, err)
    expected_file = root / "expected-check.txt"
    if request.config.getoption("--update-golden"):
        expected_file.write_text(actual, encoding="utf-8")
    assert actual == expected_file.read_text(encoding="utf-8")
    assert "Traceback" not in actual
    # Never modifies files.
    assert {p: p.stat().st_mtime_ns for p in before} == before


def test_expected_exit_codes() -> None:
    """The fixture set covers every outcome: clean, problems, unreadable input."""
    codes = {}
    for case in CASES:
        first = (PROJECTS / case / "expected-check.txt").read_text(encoding="utf-8").splitlines()[0]
        codes[case] = first
    assert codes["healthy"] == "exit: 0"
    for case in ("pytorch-research", "tf1-legacy", "conda-multi", "uv-project"):
        assert codes[case] == "exit: 1", case
    for case in ("broken-toml", "broken-yaml", "include-loop", "missing-include", "binary-file"):
        assert codes[case] == "exit: 2", case


@pytest.mark.usefixtures("check_matrix_env")
def test_paths_given_explicitly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PROJECTS)
    # A file checks the whole project it belongs to: the pyproject.toml beside it too.
    code, out, err = run_cli("check", "pytorch-research/requirements.txt", "healthy")
    assert code == 1
    assert out.splitlines() == [
        (
            "pytorch-research/pyproject.toml:4: EC105 requires-python >=3.8 allows Python 3.8,"
            " which torch==2.8.0 (pytorch-research/pyproject.toml:6) does not support"
            " (Python 3.9 to 3.13)"
        ),
        (
            "pytorch-research/requirements.txt:5: EC103 torch==2.8.0:"
            " https://download.pytorch.org/whl/cu118"
            " (from pytorch-research/requirements.txt:2) has no 2.8.0;"
            " it was published for cu126, cu128, cu129, cpu, rocm6.4"
        ),
        "envcheck check: read healthy/requirements.txt, healthy/environment.yml, healthy/pyproject.toml, pytorch-research/requirements-dev.txt, pytorch-research/requirements.txt, pytorch-research/pyproject.toml",
        "envcheck check: 6 files checked, 2 problems",
    ]
    assert err == ""


@pytest.mark.usefixtures("check_matrix_env")
def test_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PROJECTS / "uv-project")
    result = run_cli("check", "--json")
    assert result.exit_code == 1
    data = result.json()
    assert data["schema"] == "envcheck.check/1"
    assert data["files"] == ["pyproject.toml"]
    assert data["summary"] == {"errors": 1, "warnings": 0, "unreadable": 0}
    (problem,) = data["problems"]
    assert problem["code"] == "EC106"
    assert problem["name"] == "target-unserved"
    assert (problem["path"], problem["line"], problem["severity"]) == ("pyproject.toml", 6, "error")
    assert "sm_120" in problem["message"]


@pytest.mark.usefixtures("check_matrix_env")
def test_json_unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PROJECTS / "broken-yaml")
    result = run_cli("check", "--json")
    assert result.exit_code == 2
    (problem,) = result.json()["problems"]
    assert (problem["code"], problem["line"], problem["severity"]) == ("EC001", 6, "unreadable")


@pytest.mark.usefixtures("check_matrix_env")
def test_missing_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check", "nope.txt")
    assert code == 2
    # Every diagnostic goes to stdout: `envcheck check > report.txt` keeps them all.
    assert out.splitlines()[0] == "nope.txt: EC001 dependency file not found"
    assert err == ""


@pytest.mark.usefixtures("check_matrix_env")
def test_enormous_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "requirements.txt").write_text("numpy\n" * 1_000_000, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check")
    assert code == 2
    assert out.splitlines()[0] == "requirements.txt: EC001 dependency file is larger than 4 MiB"


@pytest.mark.usefixtures("check_matrix_env")
def test_no_files_is_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing to check is said (EC204), not passed as "no problems"; a warning: exit 0."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check")
    assert (code, err) == (0, "")
    first, summary = out.splitlines()
    assert first.startswith(".: EC204 warning: no dependency files found")
    assert summary == "envcheck check: 0 files checked, 1 warning"
    (tmp_path / "empty").mkdir()
    result = run_cli("check", "--json", "empty")
    (problem,) = result.json()["problems"]
    assert (result.exit_code, problem["path"], problem["code"]) == (0, "empty", "EC204")
    assert (
        run_cli("check", "--ignore", "EC204").stdout
        == "envcheck check: 0 files checked, no problems\n"
    )


def test_bundled_matrix_flags_the_cu118_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped matrix knows torch 2.8 was never on the cu118 index."""
    monkeypatch.chdir(PROJECTS / "pytorch-research")
    code, out, err = run_cli("check", "requirements.txt")
    assert code == 1
    assert "requirements.txt:5: EC103 torch==2.8.0: https://download.pytorch.org/whl/cu118" in out


@pytest.mark.usefixtures("check_matrix_env")
def test_target_flags_override_the_declaration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PROJECTS / "healthy")
    code, out, err = run_cli("check", "--gpu", "sm_120", "--os", "linux", "pyproject.toml")
    assert code == 1
    assert out.splitlines() == [
        (
            "pyproject.toml:5: EC106 torch>=2.5,<2.6 cannot serve linux; driver 550; sm_120"
            " (declared at pyproject.toml:7): torch 2.5.0 (cu124) has no kernels for sm_120"
            " (built for sm_50, sm_60, sm_70, sm_75, sm_80, sm_86, sm_90)"
        ),
        (
            "requirements.txt:2: EC106 torch==2.5.1 cannot serve linux; driver 550; sm_120"
            " (declared at pyproject.toml:7): torch 2.5.1 (cu124) has no kernels for sm_120"
            " (built for sm_50, sm_60, sm_70, sm_75, sm_80, sm_86, sm_90)"
        ),
        "envcheck check: read requirements.txt, environment.yml, pyproject.toml",
        "envcheck check: 3 files checked, 2 problems",
    ]
    assert run_cli("check", "--python-version", "3.8", "requirements.txt").exit_code == 1
    assert run_cli("check", "--gpu", "sm_89", "requirements.txt").exit_code == 0


@pytest.mark.usefixtures("check_matrix_env")
def test_bad_target_flag_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PROJECTS / "healthy")
    code, out, err = run_cli("check", "--driver", "banana")
    assert code == 2
    assert "cannot read driver version 'banana'" in err
    assert "Traceback" not in err


@pytest.mark.usefixtures("check_matrix_env")
def test_include_expands_environment_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "deps").mkdir()
    (tmp_path / "deps" / "gpu.txt").write_text("torch==2.4.0\n", encoding="utf-8")
    (tmp_path / "requirements.txt").write_text(
        "-r ${DEPS_DIR}/gpu.txt\ntensorflow[and-cuda]==2.16.1\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEPS_DIR", "deps")
    code, out, err = run_cli("check")
    assert code == 1
    assert out.splitlines()[0].startswith("requirements.txt:2: EC102 tensorflow[and-cuda]==2.16.1")
    assert "(deps/gpu.txt:1)" in out


@pytest.mark.usefixtures("check_matrix_env")
def test_conda_env_installing_the_project_sees_its_pins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "environment.yml").write_text(
        "dependencies:\n  - python=3.11\n  - cuda-version=11.8\n  - pip:\n      - -e .[tf]\n",
        encoding="utf-8",
    )
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\ndependencies = ["torch==2.4.0"]\n'
        '[project.optional-dependencies]\ntf = ["tensorflow-gpu==1.15.0"]\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("check", "environment.yml")
    assert code == 1
    assert out.splitlines() == [
        (
            "environment.yml:2: EC105 python=3.11 allows Python 3.11, but"
            " tensorflow-gpu==1.15.0 (pyproject.toml:5) supports Python 2.7 to 3.7"
        ),
        (
            "environment.yml:3: EC104 cuda-version=11.8 gives CUDA 11, but"
            " tensorflow-gpu==1.15.0 (pyproject.toml:5) is built for CUDA 10"
        ),
        (
            "pyproject.toml:5: EC101 tensorflow-gpu==1.15.0 needs CUDA 10, but"
            " torch==2.4.0 (pyproject.toml:3) needs CUDA 12; one environment cannot load both"
        ),
        (
            "pyproject.toml:5: EC102 tensorflow-gpu==1.15.0 needs cuDNN 7, but"
            " torch==2.4.0 (pyproject.toml:3) needs cuDNN 9; one environment cannot load both"
        ),
        "envcheck check: read environment.yml, pyproject.toml",
        "envcheck check: 2 files checked, 4 problems",
    ]
