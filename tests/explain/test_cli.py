"""`envcheck explain` through the CLI: inputs, exit codes, JSON, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

from .conftest import MINI

ERROR = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
OLD_DRIVER = {
    "schema": "envcheck.snapshot/1",
    "platform": {"os": "linux", "arch": "x86_64"},
    "driver": {"version": "470.182.03"},
    "gpus": [{"index": 0, "name": "NVIDIA A100-SXM4-80GB"}],
    "frameworks": [
        {
            "name": "torch",
            "version": "2.5.1+cu124",
            "cuda_version": "12.4",
            "cpu_only": False,
            "package": "torch",
            "variant": "cu124",
        }
    ],
}
MATRIX_ENV = {"ENVCHECK_MATRIX": str(MINI)}


def test_error_text_as_argument_exits_1() -> None:
    code, out, err = run_cli("explain", "--no-detect", ERROR)
    assert code == 1
    assert "[no-kernel-image]" in out
    assert "line 1: " + ERROR in out
    assert "fix: " in out
    assert "source: https://github.com/NVIDIA/cuml/issues/2315" in out
    assert err == ""


def test_unquoted_words_are_joined() -> None:
    code, out, _ = run_cli("explain", "--no-detect", "CUDA", "out", "of", "memory")
    assert code == 1
    assert "[cuda-out-of-memory]" in out


def test_nothing_recognised_exits_0_and_says_so() -> None:
    code, out, _ = run_cli("explain", "--no-detect", "ValueError: shapes do not match")
    assert code == 0
    assert "No known CUDA/cuDNN/driver error was recognised" in out
    assert "does not mean the setup is healthy" in out


def test_log_file_and_stdin(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text("epoch 1\nepoch 2\n" + ERROR + "\n", encoding="utf-8")
    code, out, _ = run_cli("explain", "--no-detect", str(log))
    assert code == 1
    assert "line 3: " in out
    code, out, _ = run_cli("explain", "--no-detect", "-", input="CUDNN_STATUS_NOT_INITIALIZED\n")
    assert code == 1
    assert "[cudnn-not-initialized]" in out


def test_json_output() -> None:
    code, out, _ = run_cli("explain", "--no-detect", "--json", ERROR)
    assert code == 1
    data = json.loads(out)
    assert data["schema"] == "envcheck.explain/1"
    assert data["recognised"] is True
    assert data["snapshot_used"] is False
    (match,) = data["matches"]
    assert match["id"] == "no-kernel-image"
    assert match["lines"] == [{"line": 1, "text": ERROR}]
    assert match["category"] == "gpu_arch_unsupported"
    assert match["root_cause"] is None
    (finding,) = data["findings"]
    assert set(finding) >= {"id", "category", "severity", "title", "evidence", "fix"}


def test_snapshot_gives_the_root_cause(tmp_path: Path) -> None:
    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(OLD_DRIVER), encoding="utf-8")
    code, out, _ = run_cli(
        "explain",
        "--snapshot",
        str(snap),
        "--json",
        "CUDA driver version is insufficient for CUDA runtime version",
        env=MATRIX_ENV,
    )
    assert code == 1
    (match,) = json.loads(out)["matches"]
    assert match["root_cause"] == "Driver 470.182.03 is too old for torch 2.5.1+cu124 (CUDA 12.4)"
    code, out, _ = run_cli(
        "explain",
        "--snapshot",
        str(snap),
        "CUDA driver version is insufficient for CUDA runtime version",
        env=MATRIX_ENV,
    )
    assert "root cause: driver 470.182.03 is too old" in out.lower()


def test_collect_env_report_explained_alone() -> None:
    report = Path(__file__).parents[1] / "fixtures" / "collect_env"
    path = report / "torch-2.1-cu121-driver-470-warning-truncated.txt"
    code, out, _ = run_cli("explain", "--no-detect", str(path))
    assert code == 1
    assert "[torch-driver-too-old]" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("explain", "--no-detect", "/nonexistent/dir/train.log"), "input file not found"),
        (("explain", "--no-detect", "./missing.log"), "input file not found"),
        (("explain", "--snapshot", "/nonexistent/snap.json", ERROR), "snapshot file not found"),
    ],
)
def test_unreadable_input_is_one_line_exit_2(args: tuple[str, ...], message: str) -> None:
    code, out, err = run_cli(*args)
    assert code == 2
    assert out == ""
    assert err.startswith("envcheck: error: ")
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_binary_and_huge_files(tmp_path: Path) -> None:
    binary = tmp_path / "core.log"
    binary.write_bytes(b"\x7fELF\x00\x00" * 100)
    code, _, err = run_cli("explain", "--no-detect", str(binary))
    assert code == 2
    assert err.strip() == f"envcheck: error: {binary}: input file is binary, not text"
    latin = tmp_path / "latin.log"
    latin.write_bytes(b"ok\n\xe9t\xe9\n")
    code, _, err = run_cli("explain", "--no-detect", str(latin))
    assert code == 2
    assert err.strip() == f"envcheck: error: {latin}:2: not valid UTF-8 text"


def test_bad_snapshot_is_one_line(tmp_path: Path) -> None:
    snap = tmp_path / "snap.json"
    snap.write_text("{not json", encoding="utf-8")
    code, _, err = run_cli("explain", "--snapshot", str(snap), ERROR)
    assert code == 2
    assert err.startswith(f"envcheck: error: {snap}:1: invalid JSON")


def test_usage_errors() -> None:
    code, _, err = run_cli("explain", "--no-detect")
    assert code == 2
    code, _, err = run_cli("explain", "--no-detect", "--snapshot", "x.json", ERROR)
    assert code == 2
    assert "--snapshot and --no-detect cannot be used together" in err
    code, _, err = run_cli("explain", "--snapshot", "x.json", "--from-collect-env", "r.txt", ERROR)
    assert code == 2
    assert "--snapshot and --from-collect-env cannot be used together" in err


def test_help_documents_exit_codes() -> None:
    code, out, _ = run_cli("explain", "--help")
    assert code == 0
    assert "Exit codes: 0 nothing recognised as an error" in out
    assert "1 at least one error signature recognised" in out
    code, out, _ = run_cli("--help")
    assert "explain" in out


def test_log_explained_against_a_users_collect_env_report() -> None:
    report = Path(__file__).parents[1] / "fixtures" / "collect_env"
    path = report / "torch-2.1-cu121-driver-470-warning-truncated.txt"
    code, out, _ = run_cli(
        "explain", "--from-collect-env", str(path), "--json", str(path), env=MATRIX_ENV
    )
    assert code == 1
    data = json.loads(out)
    assert data["snapshot_used"] is True
    (match,) = data["matches"]
    assert match["id"] == "torch-driver-too-old"
    assert match["root_cause"] == (
        "Driver supporting CUDA up to 11.4 is too old for torch 2.1.0+cu121 (CUDA 12.1)"
    )


def test_not_a_collect_env_report(tmp_path: Path) -> None:
    bogus = tmp_path / "report.txt"
    bogus.write_text("just some notes\n", encoding="utf-8")
    code, _, err = run_cli("explain", "--from-collect-env", str(bogus), ERROR)
    assert code == 2
    assert err.strip() == (
        f"envcheck: error: {bogus}: not the output of torch.utils.collect_env (expected lines "
        "such as 'PyTorch version:' and 'CUDA used to build PyTorch:')"
    )


def test_a_one_line_message_longer_than_a_file_name_is_text_not_a_path() -> None:
    # Most real PyTorch messages are one line over 255 bytes: Path.exists() raises
    # ENAMETOOLONG on them, which crashed explain with "File name too long".
    message = (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device. "
        "CUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect. For debugging consider passing "
        "CUDA_LAUNCH_BLOCKING=1. Compile with TORCH_USE_CUDA_DSA to enable device-side assertions."
    )
    assert len(message.encode()) > 255
    code, out, err = run_cli("explain", "--no-detect", message)
    assert "no-kernel-image" in out, err
    assert "internal error" not in err
    assert code == 1


@pytest.mark.parametrize(
    "text",
    [
        # a finding the facts re-read (pip on a Mac), one added before the match (a GPU of
        # another vendor), and a match as recognised
        (
            "Running it on a Mac M1\nERROR: Could not find a version that satisfies the "
            "requirement torch==2.1.2+cu118 (from versions: 2.0.0, 2.1.2, 2.2.0)"
        ),
        "My laptop has Intel UHD Graphics 620\nAssertionError: Torch not compiled with CUDA enabled",
        ERROR,
    ],
)
def test_the_text_output_names_first_the_cause_json_names_first(text: str) -> None:
    _code, data, _err = run_cli("explain", "--no-detect", "--json", text)
    first = json.loads(data)["findings"][0]
    _code, out, _err = run_cli("explain", "--no-detect", text)
    head = out.splitlines()[0]
    assert first["title"] in head and f"[{first['id']}]" in head, (head, first["title"])
