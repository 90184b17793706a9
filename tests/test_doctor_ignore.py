"""``doctor --strict`` says why it fails, and ``--ignore ID`` /
``[tool.envcheck.doctor] ignore`` accept a known finding without hiding others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.doctor_config import parse_doctor_ignores
from envcheck.errors import InputError
from envcheck.rules.env_vars import CUDA_VISIBLE_DEVICES_HIDES, NVIDIA_CAPABILITIES_NO_COMPUTE
from tests.conftest import entry_in_fresh_process, run_cli
from tests.test_cli import HEALTHY, validate_doctor_json, write

HIDDEN = {**HEALTHY, "env": {"CUDA_VISIBLE_DEVICES": ""}}
"""A GPU machine with every GPU hidden: one error."""
WARNED = {**HEALTHY, "env": {"NVIDIA_DRIVER_CAPABILITIES": "utility"}}
"""A GPU machine with one warning."""
BOTH = {**HEALTHY, "env": {"CUDA_VISIBLE_DEVICES": "", "NVIDIA_DRIVER_CAPABILITIES": "utility"}}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory (no pyproject.toml above it is read: tmp)."""
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def test_strict_summary_says_warnings_were_found(project: Path) -> None:
    snap = write(project, WARNED)
    code, out, _ = run_cli("doctor", "--snapshot", snap)
    assert code == 0
    assert out.rstrip().splitlines()[-1].startswith("no errors found: 0 errors, 1 warning")
    code, out, _ = run_cli("doctor", "--snapshot", snap, "--strict")
    assert code == 1
    last = out.rstrip().splitlines()[-1]
    assert last.startswith("warnings found (--strict fails on them): 0 errors, 1 warning")
    code, out, _ = run_cli("doctor", "--snapshot", snap, "--strict", "--markdown")
    assert code == 1
    assert "**warnings found (--strict fails on them): 0 errors, 1 warning" in out


def test_ignore_accepts_one_finding_and_keeps_the_others(project: Path) -> None:
    snap = write(project, BOTH)
    code, out, _ = run_cli("doctor", "--snapshot", snap, "--ignore", CUDA_VISIBLE_DEVICES_HIDES)
    assert code == 0  # the error was accepted; the warning still shows
    findings, ignored = out.split("\nIgnored (--ignore, [tool.envcheck.doctor])\n")
    assert f"[{NVIDIA_CAPABILITIES_NO_COMPUTE}]" in findings
    assert f"[{CUDA_VISIBLE_DEVICES_HIDES}]" not in findings
    assert (
        f"ERROR CUDA_VISIBLE_DEVICES hides every GPU (it is empty)  [{CUDA_VISIBLE_DEVICES_HIDES}]"
        in ignored
    )
    assert (
        ignored.rstrip()
        .splitlines()[-1]
        .startswith("no errors found: 0 errors, 1 warning, 1 note, 1 ignored")
    )
    code, _, _ = run_cli(
        "doctor", "--snapshot", snap, "--ignore", CUDA_VISIBLE_DEVICES_HIDES, "--strict"
    )
    assert code == 1  # --strict still fails on the warning nobody accepted


def test_ignored_findings_are_in_the_json(project: Path) -> None:
    snap = write(project, BOTH)
    code, out, _ = run_cli(
        "doctor", "--snapshot", snap, "--json", "--ignore", CUDA_VISIBLE_DEVICES_HIDES,
        "--ignore", "no-such-finding",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    validate_doctor_json(data)
    assert data["summary"] == {"errors": 0, "warnings": 1, "info": 1, "ignored": 1}
    assert [f["id"] for f in data["ignored"]] == [CUDA_VISIBLE_DEVICES_HIDES]
    assert data["ignored"][0]["severity"] == "error"
    assert CUDA_VISIBLE_DEVICES_HIDES not in {f["id"] for f in data["findings"]}
    assert data["ignore"] == {
        "ids": [CUDA_VISIBLE_DEVICES_HIDES, "no-such-finding"],
        "unmatched": ["no-such-finding"],
    }
    code, out, _ = run_cli("doctor", "--snapshot", snap, "--ignore", "no-such-finding")
    assert code == 1
    assert "  no-such-finding: no such finding in this report" in out


def test_pyproject_ignore_is_read_from_the_project_and_its_parents(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "app"\n\n[tool.envcheck.doctor]\n'
        f'ignore = ["{CUDA_VISIBLE_DEVICES_HIDES}"]  # CPU runners\n',
        encoding="utf-8",
    )
    snap = write(project, HIDDEN)
    code, out, _ = run_cli("doctor", "--snapshot", snap, "--json")
    assert code == 0
    assert [f["id"] for f in json.loads(out)["ignored"]] == [CUDA_VISIBLE_DEVICES_HIDES]
    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    code, out, _ = run_cli("doctor", "--snapshot", snap, "--ignore", NVIDIA_CAPABILITIES_NO_COMPUTE)
    assert code == 0
    assert json.loads(run_cli("doctor", "--snapshot", snap, "--json").stdout)["ignore"]["ids"] == [
        CUDA_VISIBLE_DEVICES_HIDES
    ]
    assert "1 ignored" in out


def test_without_config_nothing_is_ignored(project: Path) -> None:
    (project / "pyproject.toml").write_text('[project]\nname = "app"\n', encoding="utf-8")
    code, out, _ = run_cli("doctor", "--snapshot", write(project, HIDDEN))
    assert code == 1
    assert "Ignored" not in out
    assert "ignored" not in out.rstrip().splitlines()[-1]


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ('[tool.envcheck.doctor]\nignore = "x"\n', 2, "must be a list"),
        ('[tool.envcheck.doctor]\nignore = [\n  "ok",\n  3,\n]\n', 2, "got int"),
        ('[tool.envcheck.doctor]\nignore = [\n  "ok",\n  "Not An Id",\n]\n', 4, "not a finding id"),
        ('[tool.envcheck]\nmin-driver = "535"\n\n[tool.envcheck.doctor]\nignores = []\n', 5, "unknown key 'ignores'"),
        ('[tool.envcheck]\ndoctor = "x"\n', 1, "must be a table"),
        ('[tool.envcheck.doctor]\nignore = ["a",, ]\n', 2, "invalid TOML"),
    ],
)  # fmt: skip
def test_bad_config_names_file_and_line(project: Path, text: str, line: int, what: str) -> None:
    path = project / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        parse_doctor_ignores(text, str(path))
    assert (info.value.path, info.value.line) == (str(path), line)
    assert what in info.value.message
    code, out, err = run_cli("doctor", "--snapshot", write(project, HEALTHY))
    assert code == 2
    assert out == ""
    assert err.startswith(f"envcheck: error: {path}:{line}: ")
    assert "Traceback" not in err


def test_bad_ignore_option_is_a_usage_error(project: Path) -> None:
    code, _, err = run_cli("doctor", "--snapshot", write(project, HEALTHY), "--ignore", "Bad Id")
    assert code == 2
    assert "--ignore" in err and "'Bad Id' is not a finding id" in err


def test_long_bad_value_is_cut_in_the_message(project: Path) -> None:
    text = f'[tool.envcheck.doctor]\nignore = ["{"X" * 100_000}"]\n'
    with pytest.raises(InputError) as info:
        parse_doctor_ignores(text, "pyproject.toml")
    assert len(str(info.value)) < 400


def test_check_accepts_the_doctor_table(project: Path) -> None:
    """``check`` reads [tool.envcheck] too: the doctor's table is not an unknown key there."""
    (project / "pyproject.toml").write_text(
        '[project]\nname = "app"\ndependencies = ["requests"]\n\n'
        '[tool.envcheck.doctor]\nignore = ["container-no-gpu"]\n',
        encoding="utf-8",
    )
    code, out, err = run_cli("check", str(project / "pyproject.toml"))
    assert "unknown key" not in out + err
    assert code == 0, out + err


def test_fast_doctor_json_path_reads_the_config(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``doctor --json`` without a terminal skips click (envcheck._entry): it
    reads the same configuration, here refusing a bad one before detecting."""
    from envcheck._entry import main

    (project / "pyproject.toml").write_text(
        '[tool.envcheck.doctor]\nignore = ["Bad"]\n', encoding="utf-8"
    )
    assert main(["doctor", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"envcheck: error: {project / 'pyproject.toml'}:2: ")


@pytest.mark.real_machine
def test_fast_doctor_json_path_lists_ignored_findings(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "pyproject.toml").write_text(
        f'[tool.envcheck.doctor]\nignore = ["{CUDA_VISIBLE_DEVICES_HIDES}"]\n', encoding="utf-8"
    )
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[1]))
    code, _clicked, out = entry_in_fresh_process("doctor", "--json")
    data = json.loads(out)
    assert [f["id"] for f in data["ignored"]] == [CUDA_VISIBLE_DEVICES_HIDES]
    assert CUDA_VISIBLE_DEVICES_HIDES not in {f["id"] for f in data["findings"]}
    assert code == (1 if data["summary"]["errors"] else 0)
