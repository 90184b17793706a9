"""Keras with TensorFlow, against the shipped matrix (keras.toml, tensorflow.toml).

The case envcheck was born from: Windows 10, Quadro RTX 5000 (driver 431.86), Python
3.6, tensorflow-gpu 1.14.0 with multi-backend keras 2.2.5 (CUDA 10.0, cuDNN 7.4).
"""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.compat.target import Target, target_from_flags
from envcheck.resolve.plan import plan


def _picks(result: object) -> dict[str, str]:
    return {p.package: str(p.version) for p in result.picks}  # type: ignore[attr-defined]


def test_tensorflow_gpu_1_14_with_multi_backend_keras_on_windows(matrix: Any) -> None:
    target = target_from_flags(
        matrix, driver="431.86", gpus=("Quadro RTX 5000",), os_name="windows", python="3.6"
    )
    result = plan(["tensorflow-gpu==1.14.0", "keras==2.2.5"], target, matrix)
    assert result.ok, result.unsatisfiable
    assert _picks(result) == {"tensorflow-gpu": "1.14.0", "keras": "2.2.5"}


def test_multi_backend_keras_refuses_tensorflow_2(matrix: Any) -> None:
    # keras 2.2.5 supports TensorFlow 1 only (2.3.0 is the first with TF 2.0).
    result = plan(["keras==2.2.5", "tensorflow==2.0.0"], Target(os="linux", python="3.7"), matrix)
    assert result.unsatisfiable is not None
    assert "tensorflow<2.0" in result.unsatisfiable.message


def test_multi_backend_keras_alone_needs_no_tensorflow(matrix: Any) -> None:
    # theano and cntk are backends too: keras 2.2.5 alone is planned without TensorFlow.
    result = plan(["keras==2.2.5"], Target(os="linux", python="3.6"), matrix)
    assert result.ok, result.unsatisfiable
    assert _picks(result) == {"keras": "2.2.5"}


def test_tf_only_keras_2_4_needs_tensorflow(matrix: Any) -> None:
    result = plan(["keras==2.4.3"], Target(os="linux", python="3.8"), matrix)
    assert result.unsatisfiable is not None
    assert "needs tensorflow>=2.2" in result.unsatisfiable.message


@pytest.mark.parametrize(
    ("requests", "keras"),
    [
        (("tensorflow==1.15.0", "keras<2.4"), "2.3.1"),
        (("tensorflow==1.13.1", "keras<2.3"), "2.2.5"),
        (("tensorflow==2.3.0", "keras<2.6"), "2.4.3"),
    ],
)
def test_keras_release_for_a_tensorflow(requests: tuple[str, ...], keras: str, matrix: Any) -> None:
    result = plan(list(requests), Target(os="linux", python="3.7"), matrix)
    assert result.ok, result.unsatisfiable
    assert _picks(result)["keras"] == keras


# -- TensorFlow's own keras pins (Requires-Dist), keras.toml [[tensorflow_pin]] ----------


def test_tensorflow_2_15_refuses_keras_3(matrix: Any) -> None:
    # tensorflow 2.15 wheels: Requires-Dist keras<2.16,>=2.15.0.
    result = plan(["keras==3.0", "tensorflow==2.15"], Target(os="linux"), matrix)
    assert result.unsatisfiable is not None
    assert "requires keras<2.16,>=2.15.0" in result.unsatisfiable.message


@pytest.mark.parametrize(
    ("tensorflow", "python", "keras"),
    [
        ("2.15.1", "3.10", "2.15.0"),
        ("2.17.0", "3.10", "3.12.4"),  # keras>=3.2.0; 3.13+ needs Python 3.11
        ("2.6.0", "3.8", "2.6.0"),
        ("2.13.0", "3.9", "2.13.1"),  # there is no keras 2.13.0
    ],
)
def test_keras_follows_the_tensorflow_pin(
    tensorflow: str, python: str, keras: str, matrix: Any
) -> None:
    result = plan(["keras", f"tensorflow=={tensorflow}"], Target(os="linux", python=python), matrix)
    assert result.ok, result.unsatisfiable
    assert _picks(result)["keras"] == keras


def test_keras_rows_agree_with_the_tensorflow_pins(matrix: Any) -> None:
    """No keras row pairs itself with a TensorFlow release whose metadata forbids it."""
    from packaging.specifiers import SpecifierSet

    bad = []
    for pin in matrix.keras_pins:
        for tf in pin.tensorflow:
            for row in matrix.keras_releases:
                if row.tensorflow is None or tf not in SpecifierSet(row.tensorflow):
                    continue
                bad += [
                    (tf, v, pin.keras)
                    for v in row.versions
                    if not SpecifierSet(pin.keras).contains(v, prereleases=True)
                ]
    assert bad == []


def test_every_tensorflow_release_from_2_6_has_its_keras_pin(matrix: Any) -> None:
    from packaging.version import Version

    pinned = {v for pin in matrix.keras_pins for v in pin.tensorflow}
    releases = {
        v
        for b in matrix.framework_builds("tensorflow")
        if not b.withdrawn
        for v in b.versions
        if Version(v) >= Version("2.6")
    }
    assert releases - pinned == set()


# -- TensorFlow patch releases and tensorflow-gpu 2.x ----------------------------------


def test_last_native_windows_gpu_release_works() -> None:
    from tests.conftest import run_cli

    code, out, _ = run_cli("matrix", "why", "tensorflow==2.10.1", "--os", "windows")
    assert code == 0, out
    assert "tensorflow 2.10.1 (cu112): works" in out


def test_tensorflow_gpu_2x_releases_are_rows(matrix: Any) -> None:
    known = {
        v
        for b in matrix.framework_builds("tensorflow")
        if b.package == "tensorflow-gpu"
        for v in b.versions
    }
    for minor in range(13):
        assert f"2.{minor}.0" in known
    stub = [
        b
        for b in matrix.framework_builds("tensorflow")
        if b.package == "tensorflow-gpu" and "2.12.0" in b.versions
    ]
    assert [b.withdrawn for b in stub] == [True]
