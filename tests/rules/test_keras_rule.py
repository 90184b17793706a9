"""The doctor judges an installed keras against the installed TensorFlow (compat.keras)."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.compat.keras import KERAS_TENSORFLOW
from envcheck.doctor import diagnose
from envcheck.model.finding import Severity
from envcheck.model.snapshot import Snapshot


def _snap(keras: str, tf: str, package: str = "tensorflow", python: str = "3.10.12") -> Snapshot:
    return Snapshot.from_json(
        {
            "platform": {"os": "linux", "arch": "x86_64"},
            "python": {"version": python},
            "frameworks": [
                {"name": "tensorflow", "version": tf, "package": package},
                {"name": "keras", "version": keras, "package": "keras"},
            ],
        }
    )


def test_keras_3_beside_tensorflow_2_15(matrix: Any) -> None:
    found = {f.id: f for f in diagnose(_snap("3.3.3", "2.15.1"), matrix).findings}
    finding = found["keras-tensorflow-conflict"]
    assert finding.severity is Severity.ERROR
    assert finding.reason == KERAS_TENSORFLOW
    assert finding.sources
    assert any("requires keras" in e for e in finding.evidence)
    # The resolver's fix pins the keras that tensorflow 2.15's wheels require.
    assert "keras==2.15" in (finding.fix or "")


@pytest.mark.parametrize(
    ("keras", "tf", "package", "python"),
    [("2.15.0", "2.15.1", "tensorflow", "3.10.12"), ("2.2.5", "1.14.0", "tensorflow-gpu", "3.6.8")],
)
def test_pairs_that_go_together_raise_nothing(
    matrix: Any, keras: str, tf: str, package: str, python: str
) -> None:
    """The seed machine's pair (tensorflow-gpu 1.14 with keras 2.2.5) among them."""
    ids = {f.id for f in diagnose(_snap(keras, tf, package, python), matrix).findings}
    assert "keras-tensorflow-conflict" not in ids
