"""ruff-like lint UX: --select/--ignore, [tool.envcheck] select/ignore, per-line
suppression comments, --explain, --output-format, every diagnostic on stdout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

# One EC103 (cu118 has no torch 2.8.0) and one EC201 warning (unknown release).
REQS = "--index-url https://download.pytorch.org/whl/cu118\ntorch==2.8.0\ntensorflow==1.0.0\n"


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)


def _codes(out: str) -> list[str]:
    return [line.split(" ")[1] for line in out.splitlines() if ": EC" in line]


@pytest.mark.usefixtures("check_matrix_env")
def test_select_and_ignore_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, monkeypatch, {"requirements.txt": REQS})
    code, out, _ = run_cli("check")
    assert (code, _codes(out)) == (1, ["EC103", "EC201"])
    code, out, _ = run_cli("check", "--ignore", "EC103")
    assert (code, _codes(out)) == (0, ["EC201"])
    code, out, _ = run_cli("check", "--select", "EC2")
    assert (code, _codes(out)) == (0, ["EC201"])
    code, out, _ = run_cli("check", "--select", "EC1,EC2", "--ignore", "EC201")
    assert (code, _codes(out)) == (1, ["EC103"])
    # The more specific code wins over a prefix.
    code, out, _ = run_cli("check", "--ignore", "EC1", "--select", "EC103")
    assert (code, _codes(out)) == (1, ["EC103"])
    code, out, err = run_cli("check", "--select", "XX1")
    assert code == 2 and "is not a code" in err


@pytest.mark.usefixtures("check_matrix_env")
def test_select_and_ignore_in_tool_envcheck(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyproject = '[project]\nname = "p"\n\n[tool.envcheck]\nignore = ["EC103"]\n'
    _project(tmp_path, monkeypatch, {"requirements.txt": REQS, "pyproject.toml": pyproject})
    code, out, _ = run_cli("check")
    assert (code, _codes(out)) == (0, ["EC201"])
    # --select on the command line replaces the project's select; ignores add up.
    code, out, _ = run_cli("check", "--ignore", "EC201")
    assert (code, _codes(out)) == (0, [])
    _project(
        tmp_path,
        monkeypatch,
        {"pyproject.toml": '[project]\nname = "p"\n\n[tool.envcheck]\nselect = ["EC2"]\n'},
    )
    code, out, _ = run_cli("check")
    assert (code, _codes(out)) == (0, ["EC201"])
    bad = '[project]\nname = "p"\n\n[tool.envcheck]\nignore = ["nope"]\n'
    _project(tmp_path, monkeypatch, {"pyproject.toml": bad})
    code, out, _ = run_cli("check")
    assert code == 2
    assert out.splitlines()[0].startswith("pyproject.toml:5: EC001 [tool.envcheck] ignore:")


@pytest.mark.usefixtures("check_matrix_env")
@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {
                "requirements.txt": "--index-url https://download.pytorch.org/whl/cu118\n"
                "torch==2.8.0  # envcheck: ignore[EC103]\ntensorflow==1.0.0 # envcheck: ignore\n"
            },
            [],
        ),
        (
            {
                "requirements.txt": "--index-url https://download.pytorch.org/whl/cu118\n"
                "torch==2.8.0  # envcheck: ignore[EC201]\n"
            },
            ["EC103"],
        ),
        (
            {
                "pyproject.toml": '[project]\nname = "p"\ndependencies = [\n'
                '  "tensorflow==1.0.0",  # envcheck: ignore[EC201]\n  "tensorflow==0.0.1",\n]\n'
            },
            ["EC201"],
        ),
        (
            {"environment.yml": "dependencies:\n  - pytorch=0.0.1  # envcheck: ignore[EC2]\n"},
            [],
        ),
    ],
)
def test_suppression_comments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], expected: list[str]
) -> None:
    _project(tmp_path, monkeypatch, files)
    code, out, _ = run_cli("check")
    assert _codes(out) == expected


def test_explain() -> None:
    code, out, _ = run_cli("check", "--explain", "ec103")
    assert code == 0
    assert out.startswith("EC103 index-lacks-version\n")
    assert "# envcheck: ignore[EC103]" in out
    code, _, err = run_cli("check", "--explain", "EC999")
    assert code == 2 and "unknown code 'EC999'" in err


@pytest.mark.usefixtures("check_matrix_env")
def test_every_diagnostic_on_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(
        tmp_path,
        monkeypatch,
        {"requirements.txt": "-r missing.txt\n-r requirements.txt\n\x00", "pixi.toml": "[x"},
    )
    code, out, err = run_cli("check")
    assert code == 2
    assert err == ""
    assert "EC001" in out and "unreadable input" in out


@pytest.mark.usefixtures("check_matrix_env")
def test_output_formats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, monkeypatch, {"requirements.txt": REQS})
    code, out, _ = run_cli("check", "--output-format", "github")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(
        "::error file=requirements.txt,line=2,title=EC103 index-lacks-version::EC103 torch==2.8.0:"
    )
    assert lines[1].startswith(
        "::warning file=requirements.txt,line=3,title=EC201 unknown-version::EC201 tensorflow"
    )
    code, out, _ = run_cli("check", "--output-format", "sarif")
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("EC103", "error"),
        ("EC201", "warning"),
    ]
    region = results[0]["locations"][0]["physicalLocation"]
    assert region == {"artifactLocation": {"uri": "requirements.txt"}, "region": {"startLine": 2}}
    assert {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]} >= {"EC103", "EC201"}
    code, out, _ = run_cli("check", "--output-format", "json")
    assert json.loads(out)["schema"] == "envcheck.check/1"
    assert run_cli("check", "--json", "--output-format", "sarif").exit_code == 2
