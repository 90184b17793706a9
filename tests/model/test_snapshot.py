from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from envcheck.errors import InputError
from envcheck.model.snapshot import (
    SCHEMA,
    CudaToolkit,
    Driver,
    Framework,
    Gpu,
    Platform,
    ProbeError,
    PythonInfo,
    Snapshot,
)
from envcheck.schemas import get_schema
from envcheck.snapshot_io import parse_snapshot_text, redact_snapshot, snapshot_to_text

SNAPSHOTS = sorted((Path(__file__).parents[1] / "fixtures" / "snapshots").glob("*.json"))


def full_snapshot() -> Snapshot:
    return Snapshot(
        platform=Platform(
            os="linux",
            arch="x86_64",
            distro="ubuntu",
            distro_version="22.04",
            kernel="6.5.0-41-generic",
            glibc="2.35",
            wsl=False,
            container=None,
        ),
        python=PythonInfo(
            version="3.11.9",
            implementation="CPython",
            executable="/home/alice/.venv/bin/python",
            prefix="/home/alice/.venv",
            env_kind="venv",
        ),
        driver=Driver(
            version="550.54.14",
            cuda_version="12.4",
            source="nvml",
            kernel_module_version="550.54.14",
            nvml_library_version="12.550.54.14",
        ),
        gpus=(
            Gpu(
                index=0,
                name="NVIDIA GeForce RTX 4090",
                uuid="GPU-1234",
                compute_capability="8.9",
                memory_total_mib=24564,
                mig_mode=None,
                pcie_generation=4,
                pcie_width=16,
            ),
        ),
        cuda_toolkits=(
            CudaToolkit(version="12.4.131", path="/usr/local/cuda-12.4", source="nvcc"),
        ),
        packages={"torch": "2.5.1+cu124", "nvidia-cudnn-cu12": "9.1.0.70"},
        frameworks=(
            Framework(
                name="torch",
                version="2.5.1+cu124",
                cuda_version="12.4",
                cudnn_version="9.1.0",
                cpu_only=False,
                package="torch",
                variant="cu124",
                build={"git_version": "a8d6afb"},
            ),
        ),
        env={"CUDA_VISIBLE_DEVICES": "0"},
        errors=(ProbeError(probe="toolkits", message="cannot read /opt/cuda"),),
        envcheck_version="0.1.0",
    )


def test_round_trip_is_exact() -> None:
    snap = full_snapshot()
    data = snap.to_json()
    assert data["schema"] == SCHEMA
    again = Snapshot.from_json(json.loads(json.dumps(data)))
    assert again == snap
    assert again.to_json() == data


def test_driver_version_keeps_leading_zeros() -> None:
    snap = Snapshot(driver=Driver(version="580.65.06"))
    assert json.loads(snapshot_to_text(snap))["driver"]["version"] == "580.65.06"


def test_partial_snapshot_loads_with_unknowns() -> None:
    snap = parse_snapshot_text('{"driver": {"version": "535.104.05"}, "gpus": [{"name": "T4"}]}')
    assert snap.driver.version == "535.104.05"
    assert snap.driver.cuda_version is None
    assert snap.gpus[0].name == "T4"
    assert snap.gpus[0].compute_capability is None
    assert snap.platform == Platform()
    assert snap.frameworks == ()


def test_newer_schema_is_refused_with_upgrade_hint() -> None:
    with pytest.raises(InputError, match=r"newer envcheck.*upgrade"):
        parse_snapshot_text('{"schema": "envcheck.snapshot/2"}', "snap.json")


def test_foreign_json_is_refused() -> None:
    with pytest.raises(InputError, match="not an envcheck snapshot"):
        parse_snapshot_text('{"schema": "something/1"}', "snap.json")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"gpus": [{"index": "zero"}]}', "gpus[0].index: expected an integer, got string"),
        ('{"gpus": {"name": "x"}}', "gpus: expected an array, got object"),
        ('{"platform": {"wsl": "yes"}}', "platform.wsl: expected a boolean"),
        ('{"packages": {"torch": 2}}', "packages.torch: expected a string"),
        ("[1, 2]", "a snapshot must be a JSON object"),
    ],
)
def test_wrong_types_name_the_json_path(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_snapshot_text(text, "snap.json")
    assert message in str(info.value)
    assert str(info.value).startswith("snap.json: ")


def test_invalid_json_names_file_and_line() -> None:
    with pytest.raises(InputError) as info:
        parse_snapshot_text('{\n  "driver": {\n    "version": 535\n  ,}\n}', "bad.json")
    assert str(info.value).startswith("bad.json:4: invalid JSON")


def test_mappings_are_read_only() -> None:
    snap = full_snapshot()
    with pytest.raises(TypeError):
        snap.packages["torch"] = "0"  # type: ignore[index]


def test_redact_replaces_home_and_user() -> None:
    snap = full_snapshot()
    red = redact_snapshot(snap, home="/home/alice", user="alice")
    assert red.python.executable == "~/.venv/bin/python"
    assert "alice" not in json.dumps(red.to_json())


def test_schema_accepts_full_and_partial_snapshots() -> None:
    schema = get_schema("snapshot-1")
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(full_snapshot().to_json(), schema)
    jsonschema.validate(Snapshot().to_json(), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"gpus": [{"index": "x"}]}, schema)


def test_schema_lists_every_model_field() -> None:
    """The shipped schema and the dataclasses must not drift apart."""
    schema = get_schema("snapshot-1")
    assert set(schema["properties"]) == {"schema"} | {n for n, _ in Snapshot._FIELDS}
    for cls in (Platform, PythonInfo, Driver, Gpu, CudaToolkit, Framework, ProbeError):
        assert set(schema["$defs"][cls.__name__]["properties"]) == {n for n, _ in cls._FIELDS}


@pytest.mark.parametrize("path", SNAPSHOTS, ids=[p.stem for p in SNAPSHOTS])
def test_fixture_snapshots_validate_and_load(path: Path) -> None:
    data = json.loads(path.read_text())
    jsonschema.validate(data, get_schema("snapshot-1"))
    Snapshot.from_json(data)


def test_null_package_version_is_unknown_not_refused() -> None:
    # The README: unknown facts are null. A package installed in an unknown version.
    snap = parse_snapshot_text('{"packages": {"torch": null, "numpy": "2.1.0"}}', "s.json")
    assert "torch" in snap.packages
    assert snap.packages["torch"] is None
    assert snap.packages["numpy"] == "2.1.0"
    again = parse_snapshot_text(snapshot_to_text(snap), "again.json")
    assert again.packages == snap.packages
    jsonschema.validate(snap.to_json(), get_schema("snapshot-1"))


def test_unknown_keys_are_reported_with_the_closest_known_key() -> None:
    snap = parse_snapshot_text(
        '{"gpu": [{"name": "T4"}], "driver": {"cuda_verison": "12.2"},'
        ' "gpus": [{"name": "T4", "cc": "7.5"}]}',
        "s.json",
    )
    messages = [e.message for e in snap.errors if e.probe == "snapshot"]
    assert messages == [
        "unknown key 'gpu' ignored (did you mean 'gpus'?)",
        "unknown key 'driver.cuda_verison' ignored (did you mean 'cuda_version'?)",
        "unknown key 'gpus[0].cc' ignored",
    ]


def test_a_clean_snapshot_has_no_unknown_key_errors() -> None:
    snap = parse_snapshot_text(snapshot_to_text(full_snapshot()), "s.json")
    assert not [e for e in snap.errors if e.probe == "snapshot"]
