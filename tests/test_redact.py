"""``--redact`` (issue 16 item 2): one policy, applied to every output."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from envcheck.redact import HOST, REDACTED, USER, Policy, is_secret_name, local_policy
from envcheck.snapshot_io import parse_snapshot_text, redact_snapshot
from tests.conftest import FIXTURES, run_cli

SECRET = "sk-live-1234567890abcdefXYZ"
FOREIGN = {
    "schema": "envcheck.snapshot/1",
    "platform": {"os": "linux", "arch": "x86_64"},
    "python": {"version": "3.11.9", "executable": "/home/bob/venvs/gpu/bin/python"},
    "driver": {"version": "550.54.14", "cuda_version": "12.4"},
    "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
    "env": {
        "HF_TOKEN": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
        "WANDB_API_KEY": "0123456789abcdef0123456789abcdef01234567",
        "NCCL_IB_AUTH_SECRET": "s3cr3t",
        "XLA_COORDINATOR_TOKEN": "tok-999",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCY",
        "MY_SERVICE_PASSWORD": "hunter2",
        "DB_CREDENTIALS_FILE": "/etc/creds.json",
        "GIT_AUTH": "abc",
        "MASTER_ADDR": "gpu-node-17.cluster.example.com",
        "NCCL_SOCKET_IFNAME": "eth0",
        "NCCL_COMM_ID": "10.1.2.3:29500",
        "LD_LIBRARY_PATH": "/scratch/bob/cuda-12.4/lib64:/home/bob/.local/lib",
        "CUDA_VISIBLE_DEVICES": "0,1",
        "USER": "bob",
        "PIP_EXTRA_INDEX_URL": "https://bob:pa55word@pypi.internal.example.com/simple",
    },
}
SECRETS = (
    "hf_AbCdEf",
    "0123456789abcdef0123",
    "s3cr3t",
    "tok-999",
    "wJalrXUtnFEMI",
    "hunter2",
    "pa55word",
    "creds.json",
    "gpu-node-17",
    "example.com",
    "10.1.2.3",
    "bob",
)


def assert_clean(text: str, *needles: str) -> None:
    for needle in (*SECRETS, *needles):
        assert needle not in text, f"{needle!r} leaked in:\n{text}"


# ------------------------------------------------------------------ the policy


@pytest.mark.parametrize(
    "name",
    [
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "WANDB_API_KEY",
        "OPENAI_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "DB_PASSWORD",
        "X_AUTH",
        "NCCL_IB_AUTH_SECRET",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "MY_CRED",
        "SSH_KEY",
        "TF_TOKEN_app_terraform_io",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "XLA_FLAGS", "TOKENIZERS_PARALLELISM", "PATH"],
)
def test_not_secret_names(name: str) -> None:
    assert not is_secret_name(name)


def test_env_values() -> None:
    policy = Policy().learn([], FOREIGN["env"])  # type: ignore[arg-type]
    env = policy.env(FOREIGN["env"])  # type: ignore[arg-type]
    assert env["HF_TOKEN"] == REDACTED
    assert env["MASTER_ADDR"] == HOST
    assert env["NCCL_COMM_ID"] == f"{HOST}:29500"
    assert env["CUDA_VISIBLE_DEVICES"] == "0,1"
    assert env["NCCL_SOCKET_IFNAME"] == "eth0"
    assert env["LD_LIBRARY_PATH"] == f"/scratch/{USER}/cuda-12.4/lib64:~/.local/lib"
    assert env["USER"] == USER
    assert_clean(json.dumps(env))


def test_free_text() -> None:
    policy = local_policy(home="/home/carol", user="carol", host="box17.lab.example.org")
    text = (
        "export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345\n"
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload\n"
        "pip install -i https://carol:pa55word@pypi.example.com/simple torch\n"
        '  File "/home/carol/proj/train.py", line 3\n'
        '  File "/data/carol/cache/x.py", line 9\n'
        "ssh carol@box17 said: token='abc def'\n"
        "ghp_0123456789abcdefghij0123456789 and sk-proj-0123456789abcdefgh\n"
    )
    out = policy.text(text)
    for needle in (
        "hf_AbC",
        "eyJhbGci",
        "pa55word",
        "carol",
        "box17",
        "abc def",
        "ghp_0",
        "sk-proj",
    ):
        assert needle not in out, out
    assert '"~/proj/train.py"' in out
    assert f"/data/{USER}/cache" in out


def test_generic_user_names_are_only_replaced_in_paths() -> None:
    policy = local_policy(home="/home/ubuntu", user="ubuntu", host="x")
    out = policy.text("OS: Ubuntu 22.04 (ubuntu) /data/ubuntu/x /home/ubuntu/y")
    assert out == f"OS: Ubuntu 22.04 (ubuntu) /data/{USER}/x ~/y"


def test_redaction_is_linear_on_hostile_text() -> None:
    policy = local_policy(home="/home/carol", user="carol", host="box17")
    for text in ("a" * 1_000_000, "a=" * 300_000, "x_TOKEN " * 100_000, "/home/" * 100_000):
        start = time.monotonic()
        policy.text(text)
        assert time.monotonic() - start < 5, text[:20]


# ------------------------------------------------------------------ snapshots


def test_a_snapshot_from_another_machine() -> None:
    snap = parse_snapshot_text(json.dumps(FOREIGN), "foreign.json")
    red = redact_snapshot(snap, home="/home/me", user="me")
    text = json.dumps(red.to_json())
    assert_clean(text)
    assert red.python.executable == "~/venvs/gpu/bin/python"
    assert red.env["CUDA_VISIBLE_DEVICES"] == "0,1"


@pytest.mark.parametrize("fmt", [(), ("--json",), ("--markdown",)])
def test_doctor_redacts_every_format(tmp_path: Path, fmt: tuple[str, ...]) -> None:
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(FOREIGN))
    code, out, err = run_cli("doctor", "--snapshot", str(path), "--redact", *fmt)
    assert code in (0, 1), err
    assert_clean(out + err)


def test_doctor_from_collect_env_redacts_the_pasted_report(tmp_path: Path) -> None:
    base = (FIXTURES / "collect_env" / "torch-2.9-h100-runpy-warning.txt").read_text()
    pasted = (
        "/data/alice/proj/train.py:3: UserWarning: CUDA initialization: slow\n"
        "HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345\n"
        + base.replace(
            "cuDNN version: Could not collect",
            "cuDNN version: /home/alice/miniconda3/lib/libcudnn.so.9.1.0",
        )
    )
    path = tmp_path / "collect_env.txt"
    path.write_text(pasted)
    for fmt in ((), ("--json",), ("--markdown",)):
        code, out, err = run_cli("doctor", "--from-collect-env", str(path), "--redact", *fmt)
        assert code in (0, 1), err
        assert "alice" not in out + err, out
        assert "hf_AbCdEf" not in out + err, out


def test_explain_redacts(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text(
        "HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345 python /home/alice/train.py\n"
        "OSError: libcudnn.so.9: cannot open shared object file: No such file or directory"
        " (/data/alice/env/lib)\n"
    )
    for fmt in ((), ("--json",)):
        code, out, err = run_cli("explain", str(log), "--no-detect", "--redact", *fmt)
        assert code in (0, 1), err
        assert "alice" not in out + err and "hf_AbCdEf" not in out + err, out


# ------------------------------------------- planted secrets (issue 26 item 7)

PLANTED = {
    **FOREIGN,
    "env": {
        **FOREIGN["env"],
        "NCCL_COMM_ID": "gpu-box-secret-42:29500",
        "NCCL_DEBUG_FILE": "/logs/nccl-gpu-box-secret-42.%p.log",
        "SLURM_SUBMIT_HOST": "login-secret-3.hpc.example.org",
        "TORCH_HOME": "/scratch/login-secret-3/cache",
    },
    "python": {**FOREIGN["python"], "prefix": "/nfs/gpu-box-secret-42/envs/gpu"},
}


def test_planted_hosts_in_nccl_variables_and_short_names_go() -> None:
    snap = parse_snapshot_text(json.dumps(PLANTED), "planted.json")
    red = redact_snapshot(snap, home="/home/me", user="me")
    text = json.dumps(red.to_json())
    assert_clean(text, "gpu-box-secret-42", "login-secret-3")
    assert red.env["NCCL_COMM_ID"] == f"{HOST}:29500"
    assert red.env["NCCL_DEBUG_FILE"].startswith("/logs/")


def test_addresses_in_pasted_log_text_go_and_versions_stay() -> None:
    policy = local_policy(home="/home/me", user="me", host="x")
    text = (
        "export MASTER_ADDR=10.11.12.13 MASTER_PORT=29500\n"
        "NCCL_COMM_ID=gpu-box-secret-42:29500 python train.py\n"
        "init_method=tcp://10.20.30.40:23456 connecting to 172.16.0.9:29400\n"
        "Loaded cuDNN version 8.9.7.29 with driver 535.104.05\n"
    )
    out = policy.text(text)
    for leaked in ("10.11.12.13", "10.20.30.40", "172.16.0.9", "gpu-box-secret-42"):
        assert leaked not in out, out
    assert "8.9.7.29" in out and "535.104.05" in out and "MASTER_PORT=29500" in out


def test_paths_under_a_symlinked_homes_real_path_go(tmp_path: Path) -> None:
    real = tmp_path / "disk2" / "alice"
    real.mkdir(parents=True)
    link = tmp_path / "home-alice"
    link.symlink_to(real)
    policy = local_policy(home=str(link), user="alice", host="x")
    out = policy.text(f"cache at {real}/.cache/torch and {link}/x")
    assert str(real) not in out and str(link) not in out
    assert "~/.cache/torch" in out
