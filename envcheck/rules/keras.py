"""An installed Keras that cannot work with the installed TensorFlow.

``compat.keras.keras_tensorflow_reason`` decides, from keras.toml: the TensorFlow range
a Keras 2.x release needs and the keras range a TensorFlow release's wheels require
(Keras 3 beside TensorFlow 2.15, standalone keras 2.3 beside tensorflow-gpu 1.14).
The fix is the resolver's plan for keras beside the installed TensorFlow.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from envcheck.model.finding import Category, Finding, Severity

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

KERAS_TENSORFLOW_CONFLICT = "keras-tensorflow-conflict"
PYTHON_UNSUPPORTED = "python-unsupported"


def check_keras(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    from envcheck.compat.keras import keras_tensorflow_reason

    keras = next((f for f in snapshot.frameworks if f.name == "keras" and f.version), None)
    if keras is not None and keras.version is not None:
        yield from _keras_python(keras.version, snapshot, matrix)
    tf = next((f for f in snapshot.frameworks if f.name == "tensorflow" and f.version), None)
    if keras is None or tf is None or keras.version is None or tf.version is None:
        return
    tf_version = tf.version.split("+")[0]
    conflict = keras_tensorflow_reason(keras.version, tf_version, matrix)
    if conflict is None:
        return
    yield Finding(
        KERAS_TENSORFLOW_CONFLICT,
        Category.MIXED_WHEELS,
        Severity.ERROR,
        f"keras {keras.version} does not work with the installed tensorflow {tf.version}",
        evidence=(
            f"keras {keras.version}",
            f"{tf.package or 'tensorflow'} {tf.version}",
            conflict.message,
        ),
        fix=_fix(tf_version, tf.package or "tensorflow", snapshot, matrix),
        sources=conflict.sources,
        framework="keras",
        reason=conflict.code,
    )


def _fix(tf_version: str, tf_package: str, snapshot: Snapshot, matrix: Matrix) -> str:
    """The resolver's keras for the installed TensorFlow release."""
    from envcheck.rules._facts import target_of
    from envcheck.rules._fix import plan_fix

    command = plan_fix(
        [f"{tf_package}=={tf_version}", "keras"],
        target_of(snapshot, matrix),
        snapshot,
        matrix,
        "keras",
    )
    if command:
        return f"Install the keras release that goes with this TensorFlow:\n  {command}"
    return (
        "Install the keras release the installed TensorFlow requires "
        f"(`envcheck plan {tf_package}=={tf_version} keras`)."
    )


def _keras_python(version: str, snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    """An installed keras whose Requires-Python excludes this Python (the judge's
    ``keras_verdict``). Installed anyway (``--ignore-requires-python``, a copied
    site-packages), so a risk, as for a framework outside its Pythons: a warning."""
    from envcheck.compat.keras import keras_release, keras_verdict
    from envcheck.rules._facts import target_of

    row = keras_release(matrix, version.split("+")[0])
    if row is None or snapshot.python.version is None:
        return
    verdict = keras_verdict(row, version.split("+")[0], target_of(snapshot, matrix))
    for reason in verdict.errors:
        yield Finding(
            PYTHON_UNSUPPORTED,
            Category.PYTHON_UNSUPPORTED,
            Severity.WARNING,
            f"keras {version} does not install on Python {snapshot.python.version}",
            evidence=(f"python.version = {snapshot.python.version}", reason.message),
            fix=(
                "Use a Python this keras release supports for this environment, or "
                f"install a keras release that supports it (`envcheck plan keras "
                f"--python-version {'.'.join(snapshot.python.version.split('.')[:2])}`)."
            ),
            sources=reason.sources,
            framework="keras",
            reason=reason.code,
        )
