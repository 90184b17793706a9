"""scripts/update_matrix.py's keras / jax-plugins / torch-releases reports, fed
recorded PyPI data (no network)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from envcheck.matrix import Matrix, bundled_dir, load_matrix_from
from tests.matrix.test_update_script import load_script

DRIFT = Path(__file__).parents[1] / "fixtures" / "pages" / "drift"
URL = "https://pypi.org/project"


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script()


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix_from(bundled_dir())


@pytest.fixture(scope="module")
def requires() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DRIFT / "requires.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def releases() -> dict[str, Any]:
    page = json.loads((DRIFT / "torch-releases.json").read_text(encoding="utf-8"))
    return dict(page["releases"])


def test_requirement_reads_both_metadata_spellings(script: ModuleType) -> None:
    lines = ["keras (<2.16,>=2.15.0)", "keras-preprocessing (>=1.1)", "tf-keras >=2.16"]
    assert script.requirement(lines, "keras", None) == "<2.16,>=2.15.0"
    assert script.requirement(["keras >=3.0.0"], "keras", None) == ">=3.0.0"
    assert script.requirement(["keras"], "keras", None) == ""
    assert script.requirement(["numpy"], "keras", None) is None


def test_requirement_keeps_extras_apart(script: ModuleType) -> None:
    lines = [
        "jax-cuda12-plugin ==0.4.30 ; extra == 'cuda12_local'",
        "jax-cuda12-plugin[with_cuda] <=0.4.30,>=0.4.30 ; extra == 'cuda12'",
    ]
    assert script.requirement(lines, "jax-cuda12-plugin", "cuda12") == "<=0.4.30,>=0.4.30"
    assert script.requirement(lines, "jax_cuda12_plugin", "cuda12-local") == "==0.4.30"
    assert script.requirement(lines, "jax-cuda12-plugin", None) is None


def test_recorded_tf_keras_pins_agree_with_keras_toml(
    script: ModuleType, shipped: Matrix, requires: dict[str, Any]
) -> None:
    assert script.keras_drift(shipped, requires["tensorflow"], URL) == []


def test_a_changed_keras_pin_is_reported(
    script: ModuleType, shipped: Matrix, requires: dict[str, Any]
) -> None:
    pins = tuple(
        dataclasses.replace(p, keras=">=2.15") if "2.15.1" in p.tensorflow else p
        for p in shipped.keras_pins
    )
    (finding,) = script.keras_drift(
        dataclasses.replace(shipped, keras_pins=pins), requires["tensorflow"], URL
    )
    assert (finding.check, finding.subject) == ("keras", "tensorflow 2.15.1")
    assert (finding.matrix, finding.upstream) == (">=2.15", "<2.16,>=2.15.0")
    assert finding.where.startswith("keras.toml:")


def test_a_tf_release_without_a_pin_row_is_reported(
    script: ModuleType, shipped: Matrix, requires: dict[str, Any]
) -> None:
    pins = tuple(p for p in shipped.keras_pins if "2.16.1" not in p.tensorflow)
    found = script.keras_drift(
        dataclasses.replace(shipped, keras_pins=pins), requires["tensorflow"], URL
    )
    assert [(f.subject, f.matrix, f.upstream) for f in found] == [
        ("tensorflow 2.16.1", None, ">=3.0.0")
    ]


def test_unreadable_releases_are_skipped(script: ModuleType, shipped: Matrix) -> None:
    assert script.keras_drift(shipped, {"2.15.1": None}, URL) == []


def test_recorded_jax_plugin_pins_match_their_release(
    script: ModuleType, shipped: Matrix, requires: dict[str, Any]
) -> None:
    assert script.jax_plugin_drift(shipped, requires["jax"], URL) == []


def test_a_plugin_pinned_to_another_release_or_missing_is_reported(
    script: ModuleType, shipped: Matrix, requires: dict[str, Any]
) -> None:
    moved = [
        line.replace('<=0.7.0,>=0.7.0; extra == "cuda12"', '==0.6.2; extra == "cuda12"')
        for line in requires["jax"]["0.7.0"]
    ]
    dropped = [line for line in requires["jax"]["0.4.30"] if "'cuda12'" not in line]
    found = script.jax_plugin_drift(shipped, {"0.7.0": moved, "0.4.30": dropped}, URL)
    got = sorted((f.subject, f.upstream) for f in found)
    assert got == [
        ("jax[cuda12] 0.4.30", None),
        ("jax[cuda12] 0.7.0", "jax-cuda12-plugin==0.6.2"),
    ]


def test_every_recorded_torch_release_is_in_torch_toml(
    script: ModuleType, shipped: Matrix, releases: dict[str, Any]
) -> None:
    assert script.torch_release_drift(shipped, releases, URL) == []


def test_a_new_final_torch_release_is_reported_pre_releases_and_yanked_ones_not(
    script: ModuleType, shipped: Matrix, releases: dict[str, Any]
) -> None:
    more = dict(releases)
    more["2.16.0"] = [{"filename": "torch-2.16.0-cp312-cp312-win_amd64.whl", "yanked": False}]
    more["2.17.0rc1"] = [{"filename": "torch-2.17.0rc1.tar.gz", "yanked": False}]
    more["2.16.1"] = [{"filename": "torch-2.16.1.tar.gz", "yanked": True}]
    more["2.16.2"] = []
    found = script.torch_release_drift(shipped, more, URL)
    assert [(f.check, f.subject, f.upstream) for f in found] == [
        ("torch-releases", "torch 2.16.0", "2.16.0")
    ]
    assert found[0].url == f"{URL}/torch/2.16.0/"


class _Page:
    def __init__(self, status: int, body: Any = None) -> None:
        self.status_code, self._body = status, body

    def json(self) -> Any:
        return self._body

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise OSError(self.status_code)


class _Session:
    """Answers the JSON API from the recorded fixtures; everything else is 404."""

    def __init__(self, requires: dict[str, Any], releases: dict[str, Any]) -> None:
        self.requires, self.releases, self.urls = requires, releases, []  # type: ignore[var-annotated]

    def get(self, url: str, **_: Any) -> _Page:
        self.urls.append(url)
        parts = url.rstrip("/").split("/")
        if parts[-2:] == ["torch", "json"]:
            return _Page(200, {"releases": self.releases})
        name, version = parts[-3], parts[-2]
        lines = self.requires.get(name, {}).get(version)
        if lines is None:
            return _Page(404)
        return _Page(200, {"info": {"requires_dist": lines}})


def test_find_findings_reads_only_what_the_checks_need(
    script: ModuleType, shipped: Matrix, requires: dict[str, Any], releases: dict[str, Any]
) -> None:
    session = _Session(requires, releases)
    logged: list[str] = []
    found = script.find_findings(
        shipped,
        ["torch-releases"],
        ["torch"],
        session,
        "https://pypi.org/pypi",
        None,
        logged.append,
    )
    assert found == [] and logged == []
    assert session.urls == ["https://pypi.org/pypi/torch/json"]


def test_find_findings_logs_unreadable_releases_and_goes_on(
    script: ModuleType, shipped: Matrix, requires: dict[str, Any], releases: dict[str, Any]
) -> None:
    session = _Session(requires, releases)
    logged: list[str] = []
    found = script.find_findings(
        shipped,
        ["keras"],
        ["tensorflow"],
        session,
        "https://pypi.org/pypi",
        None,
        logged.append,
        "2.14.0",
    )
    assert found == []
    assert logged == ["tensorflow 2.14.0: no JSON page, wheel or sdist; not checked"]
