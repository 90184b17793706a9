"""The CLI contract: exit codes, JSON outputs, stdout/stderr split, no tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource

from envcheck.schemas import get_schema
from tests.conftest import run_cli

HEALTHY = {
    "schema": "envcheck.snapshot/1",
    "platform": {"os": "linux", "arch": "x86_64"},
    "python": {"version": "3.11.9"},
    "driver": {"version": "550.54.14", "cuda_version": "12.4"},
    "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
}
BROKEN = {
    **HEALTHY,
    "env": {"CUDA_VISIBLE_DEVICES": ""},
}


def write(tmp_path: Path, data: object, name: str = "snap.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def validate_doctor_json(data: dict) -> None:
    snapshot_schema = get_schema("snapshot-1")
    registry = Registry().with_resource(
        snapshot_schema["$id"], Resource.from_contents(snapshot_schema)
    )
    jsonschema.Draft202012Validator(get_schema("doctor-1"), registry=registry).validate(data)


def test_help_documents_exit_codes() -> None:
    code, out, _ = run_cli("--help")
    assert code == 0
    assert "Exit codes:" in out and "130" in out


def test_doctor_healthy_snapshot_exits_0(tmp_path: Path) -> None:
    code, out, err = run_cli("doctor", "--snapshot", write(tmp_path, HEALTHY))
    assert code == 0, err
    assert "no errors found" in out
    assert "RTX 4090" in out


def test_doctor_errors_exit_1(tmp_path: Path) -> None:
    code, out, _ = run_cli("doctor", "--snapshot", write(tmp_path, BROKEN))
    assert code == 1
    assert "CUDA_VISIBLE_DEVICES hides every GPU" in out


def test_doctor_strict_fails_on_warnings(tmp_path: Path) -> None:
    warn = {**HEALTHY, "env": {"NVIDIA_DRIVER_CAPABILITIES": "utility"}}
    path = write(tmp_path, warn)
    assert run_cli("doctor", "--snapshot", path).exit_code == 0
    assert run_cli("doctor", "--snapshot", path, "--strict").exit_code == 1


def test_doctor_json_contract(tmp_path: Path) -> None:
    code, out, _ = run_cli("doctor", "--json", "--snapshot", write(tmp_path, BROKEN))
    assert code == 1
    data = json.loads(out)
    validate_doctor_json(data)
    assert {"snapshot", "matrix_version", "findings"} <= set(data)
    finding = next(f for f in data["findings"] if f["id"] == "cuda-visible-devices-hides-gpus")
    assert finding["category"] == "env_var_hides_gpu"
    assert finding["severity"] == "error"
    assert set(finding) >= {"id", "category", "severity", "title", "evidence", "fix"}
    assert data["snapshot"]["env"] == {"CUDA_VISIBLE_DEVICES": ""}


def test_doctor_markdown(tmp_path: Path) -> None:
    code, out, _ = run_cli("doctor", "--markdown", "--snapshot", write(tmp_path, BROKEN))
    assert code == 1
    assert out.startswith("## envcheck doctor report")
    assert "| Driver | 550.54.14 |" in out
    assert "**ERROR** CUDA_VISIBLE_DEVICES hides every GPU" in out


def test_doctor_markdown_redacts_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/alice")
    snap = {**HEALTHY, "python": {"version": "3.11.9", "executable": "/home/alice/venv/bin/python"}}
    code, out, _ = run_cli("doctor", "--json", "--redact", "--snapshot", write(tmp_path, snap))
    assert code == 0
    assert "/home/alice" not in out
    assert json.loads(out)["snapshot"]["python"]["executable"] == "~/venv/bin/python"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "snap.json:1: invalid JSON"),
        ('{"schema": "envcheck.snapshot/9"}', "newer envcheck"),
        ('{"gpus": [{"index": "x"}]}', "gpus[0].index: expected an integer"),
        ("\x00\x01binary", "binary"),
    ],
)
def test_doctor_bad_snapshot_is_one_line_exit_2(tmp_path: Path, content: str, message: str) -> None:
    code, out, err = run_cli("doctor", "--snapshot", write(tmp_path, content))
    assert code == 2
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_doctor_missing_snapshot_file(tmp_path: Path) -> None:
    code, _, err = run_cli("doctor", "--snapshot", str(tmp_path / "nope.json"))
    assert code == 2
    assert "nope.json: snapshot file not found" in err


def test_doctor_snapshot_from_stdin() -> None:
    code, out, _ = run_cli("doctor", "--json", "--snapshot", "-", input=json.dumps(BROKEN))
    assert code == 1
    assert json.loads(out)["summary"]["errors"] >= 1


def test_json_and_markdown_are_exclusive(tmp_path: Path) -> None:
    code, _, err = run_cli("doctor", "--json", "--markdown", "--snapshot", write(tmp_path, HEALTHY))
    assert code == 2
    assert "cannot be used together" in err


def test_internal_error_is_one_line_with_debug_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import envcheck.doctor

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(envcheck.doctor, "diagnose", boom)
    code, _, err = run_cli("doctor", "--snapshot", write(tmp_path, HEALTHY))
    assert code == 2
    assert "internal error: RuntimeError: kaboom" in err
    assert "--debug" in err
    with pytest.raises(RuntimeError):
        run_cli("--debug", "doctor", "--snapshot", write(tmp_path, HEALTHY))
