"""A snapshot value the flag parser would refuse is said, not silently dropped (issue 26:
``"driver": {"version": "abc"}`` gave "no errors found" where ``--driver abc`` is refused)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envcheck.model.snapshot import UNREADABLE_VALUE_PROBE, Snapshot
from tests.conftest import run_cli


def _load(driver: dict[str, str], gpus: list[dict[str, str]]) -> Snapshot:
    return Snapshot.from_json({"schema": "envcheck.snapshot/1", "driver": driver, "gpus": gpus})


def test_unreadable_values_become_unknown_and_are_recorded() -> None:
    s = _load(
        {"version": "abc", "cuda_version": "twelve"},
        [{"name": "NVIDIA A100", "compute_capability": "x.y"}],
    )
    assert (s.driver.version, s.driver.cuda_version, s.gpus[0].compute_capability) == (
        None,
        None,
        None,
    )
    assert [(e.probe, e.message) for e in s.errors] == [
        (
            UNREADABLE_VALUE_PROBE,
            "driver.version 'abc' is not a driver version; treated as unknown",
        ),
        (
            UNREADABLE_VALUE_PROBE,
            "driver.cuda_version 'twelve' is not a CUDA version; treated as unknown",
        ),
        (
            UNREADABLE_VALUE_PROBE,
            "gpus[0].compute_capability 'x.y' is not a compute capability; treated as unknown",
        ),
    ]


def test_readable_values_are_kept_as_written() -> None:
    s = _load({"version": "535.104.05", "cuda_version": "12.2"}, [{"compute_capability": "8.9"}])
    assert (s.driver.version, s.gpus[0].compute_capability, s.errors) == ("535.104.05", "8.9", ())


def test_a_long_value_is_cut_in_the_message() -> None:
    (error,) = _load({"version": "x" * 100_000}, []).errors
    assert error.message is not None and len(error.message) < 200


def test_the_doctor_warns_about_them(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps({"schema": "envcheck.snapshot/1", "driver": {"version": "abc"}}),
        encoding="utf-8",
    )
    result = run_cli("doctor", "--json", "--snapshot", str(path))
    ids = {f["id"]: f for f in result.json()["findings"]}
    finding = ids["snapshot-unreadable-value"]
    assert finding["severity"] == "warning"
    assert finding["evidence"] == [
        "driver.version 'abc' is not a driver version; treated as unknown"
    ]
    assert "probe-failed" not in ids


@pytest.mark.parametrize("value", ["abc", "9999.x"])
def test_the_flag_refuses_what_the_snapshot_warns_about(value: str) -> None:
    assert _load({"version": value}, []).errors
    code, _, err = run_cli("plan", "torch", "--driver", value)
    assert code == 2
    assert "cannot read driver version" in err
