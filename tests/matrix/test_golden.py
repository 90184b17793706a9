"""Whole outputs of `matrix show` and `matrix why` on the fixture matrix (golden files)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import pytest

from tests.conftest import run_cli

MINI = Path(__file__).parents[1] / "fixtures" / "matrix-mini"


@pytest.fixture
def mini_env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    from envcheck.matrix import clear_cache

    clear_cache()
    return {"ENVCHECK_MATRIX": str(MINI), "COLUMNS": "120"}


def normalise(text: str) -> str:
    # The mini matrix links the shipped cuda/cudnn/gpus files, whose data_version
    # moves with every data edit; the golden files pin the output, not the date.
    text = re.sub(r"\b1/\d{4}-\d{2}-\d{2}\b", "1/<data-version>", text)
    return text.replace(str(MINI), "<matrix-mini>")


def test_show_torch_golden(mini_env: dict[str, str], golden: Callable[[str, str], None]) -> None:
    code, out, err = run_cli("matrix", "show", "torch", env=mini_env)
    assert (code, err) == (0, "")
    golden("matrix-show-torch.txt", normalise(out))


def test_show_cuda_driver_12_golden(
    mini_env: dict[str, str], golden: Callable[[str, str], None]
) -> None:
    code, out, _ = run_cli("matrix", "show", "cuda_driver", "--version", "12", env=mini_env)
    assert code == 0
    golden("matrix-show-cuda_driver-12.txt", normalise(out))


def test_why_golden(mini_env: dict[str, str], golden: Callable[[str, str], None]) -> None:
    code, out, _ = run_cli(
        "matrix",
        "why",
        "torch==2.5.1",
        "cuda==12.4",
        "--driver",
        "535.104.05",
        "--gpu",
        "sm_89",
        "--python-version",
        "3.12",
        "--os",
        "linux",
        env=mini_env,
    )
    assert code == 0
    golden("matrix-why-torch-2.5.1.txt", normalise(out))


def test_why_json_golden(mini_env: dict[str, str], golden: Callable[[str, str], None]) -> None:
    code, out, _ = run_cli(
        "matrix", "why", "torch==2.5.1+cu124", "--driver", "470.82.01", "--json", env=mini_env
    )
    assert code == 1
    golden("matrix-why-old-driver.json", normalise(out))


@pytest.mark.network
def test_update_shows_progress_when_forced_to_a_terminal(httpserver: object) -> None:
    import hashlib
    import json

    from envcheck.matrix.load import DOMAINS

    files = {p.name: p.read_bytes() for p in MINI.glob("*.toml")}
    for domain in DOMAINS:  # a bundle must hold every domain: empty ones for the rest
        files.setdefault(f"{domain}.toml", b'schema_version = 1\ndata_version = "2026-11-22"\n')
    manifest = {
        "schema": "envcheck.matrix-bundle/1",
        "schema_version": 1,
        "data_version": "2027-01-15",
        "files": {
            n: {"sha256": hashlib.sha256(b).hexdigest(), "size": len(b)} for n, b in files.items()
        },
    }
    server = httpserver  # pytest_httpserver.HTTPServer
    server.expect_request("/m/manifest.json").respond_with_data(json.dumps(manifest))  # type: ignore[attr-defined]
    for name, body in files.items():
        server.expect_request(f"/m/{name}").respond_with_data(body)  # type: ignore[attr-defined]
    url = server.url_for("/m/manifest.json")  # type: ignore[attr-defined]
    # The fixture's data is older than the shipped matrix: a deliberate downgrade.
    code, out, err = run_cli("--color", "matrix", "update", "--url", str(url), "--allow-downgrade")
    assert code == 0, err
    assert "cuda_driver.toml" in err  # the progress bar names each file
    code, out, err = run_cli("matrix", "update", "--url", str(url))
    assert code == 0, err
    assert err == ""  # not a terminal: no progress
