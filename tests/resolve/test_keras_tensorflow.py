"""Keras with TensorFlow, against the shipped matrix (keras.toml, tensorflow.toml).

The case envcheck was born from: Windows 10, Quadro RTX 5000 (driver 431.86), Python
3.6, tensorflow-gpu 1.14.0 with multi-backend keras 2.2.5 (CUDA 10.0, cuDNN 7.4).
"""

from __future__ import annotations

import pytest

from envcheck.compat.target import Target, target_from_flags
from envcheck.matrix import load_matrix
from envcheck.resolve.plan import plan


def _picks(result: object) -> dict[str, str]:
    return {p.package: str(p.version) for p in result.picks}  # type: ignore[attr-defined]


def test_tensorflow_gpu_1_14_with_multi_backend_keras_on_windows() -> None:
    matrix = load_matrix()
    target = target_from_flags(
        matrix, driver="431.86", gpus=("Quadro RTX 5000",), os_name="windows", python="3.6"
    )
    result = plan(["tensorflow-gpu==1.14.0", "keras==2.2.5"], target, matrix)
    assert result.ok, result.unsatisfiable
    assert _picks(result) == {"tensorflow-gpu": "1.14.0", "keras": "2.2.5"}


def test_multi_backend_keras_refuses_tensorflow_2() -> None:
    # keras 2.2.5 supports TensorFlow 1 only (2.3.0 is the first with TF 2.0).
    result = plan(
        ["keras==2.2.5", "tensorflow==2.0.0"], Target(os="linux", python="3.7"), load_matrix()
    )
    assert result.unsatisfiable is not None
    assert "tensorflow<2.0" in result.unsatisfiable.message


def test_multi_backend_keras_alone_needs_no_tensorflow() -> None:
    # theano and cntk are backends too: keras 2.2.5 alone is planned without TensorFlow.
    result = plan(["keras==2.2.5"], Target(os="linux", python="3.6"), load_matrix())
    assert result.ok, result.unsatisfiable
    assert _picks(result) == {"keras": "2.2.5"}


def test_tf_only_keras_2_4_needs_tensorflow() -> None:
    result = plan(["keras==2.4.3"], Target(os="linux", python="3.8"), load_matrix())
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
def test_keras_release_for_a_tensorflow(requests: tuple[str, ...], keras: str) -> None:
    result = plan(list(requests), Target(os="linux", python="3.7"), load_matrix())
    assert result.ok, result.unsatisfiable
    assert _picks(result)["keras"] == keras
