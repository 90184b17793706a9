"""Whether a Keras release and a TensorFlow release can be installed together.

Two facts decide, both in keras.toml: the TensorFlow range a Keras 2.x release
needs (``[[release]] tensorflow``), and the keras range a TensorFlow release's
wheels require (``[[tensorflow_pin]]``, its Requires-Dist: pip refuses any other
keras beside it). ``keras_verdict`` judges a release against the target's Python
(``python`` and ``requires_python``) for plan and ``matrix why`` alike. Pure: used
by the planner, ``matrix why`` and ``check``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

    from envcheck.compat.judge import Reason, Verdict
    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import KerasRelease, Origin


KERAS_TENSORFLOW = "keras_tensorflow"
"""Reason code: a keras release and a TensorFlow release that cannot be installed together."""


@functools.lru_cache(maxsize=256)
def _specifier(text: str) -> SpecifierSet:
    from packaging.specifiers import SpecifierSet

    return SpecifierSet(text)


def keras_release(matrix: Matrix, version: str) -> Optional[KerasRelease]:
    return next((r for r in matrix.keras_releases if version in r.versions), None)


def keras_tensorflow_reason(keras: str, tensorflow: str, matrix: Matrix) -> Optional[Reason]:
    """The error that keras ``keras`` cannot go with tensorflow ``tensorflow`` (citing
    the row that says so); None when nothing in the matrix forbids the pair."""
    from packaging.specifiers import InvalidSpecifier

    from envcheck.compat.judge import Level, Reason
    from envcheck.model.finding import Category

    row = keras_release(matrix, keras)
    why: Optional[tuple[str, Origin]] = None
    try:
        if (
            row is not None
            and row.tensorflow
            and not _specifier(row.tensorflow).contains(tensorflow, prereleases=True)
        ):
            why = f"keras {keras} needs tensorflow{row.tensorflow}", row.origin
        else:
            pin = next((p for p in matrix.keras_pins if tensorflow in p.tensorflow), None)
            if pin is not None and not _specifier(pin.keras).contains(keras, prereleases=True):
                why = f"tensorflow {tensorflow} requires keras{pin.keras}", pin.origin
    except InvalidSpecifier:  # the loader validates specifiers; an old cache may not
        return None
    if why is None:
        return None
    return Reason(KERAS_TENSORFLOW, Level.ERROR, Category.MIXED_WHEELS, why[0], (why[1].cite(),))


def keras_releases_reason(
    keras: Sequence[str], tensorflow: Sequence[str], matrix: Matrix
) -> Optional[Reason]:
    """The error when every keras release in ``keras`` conflicts with every TensorFlow
    release in ``tensorflow`` (said for the newest of each, the pair pip tries first);
    None when some pair goes together or either side is empty."""
    from envcheck.model.versions import release_key

    if not keras or not tensorflow:
        return None
    if any(keras_tensorflow_reason(k, t, matrix) is None for k in keras for t in tensorflow):
        return None
    return keras_tensorflow_reason(
        max(keras, key=release_key), max(tensorflow, key=release_key), matrix
    )


def keras_verdict(row: KerasRelease, version: str, target: Target) -> Verdict:
    """Whether keras ``version`` (of ``row``) installs and runs on ``target``'s Python.

    Two facts decide: the Pythons the release was tested with (``python``) and its
    Requires-Python (``requires_python``), which pip enforces. Keras is pure Python,
    so no GPU fact applies; the TensorFlow it needs is judged beside it
    (``keras_tensorflow_reason``)."""
    from envcheck.compat.candidate import Candidate
    from envcheck.compat.judge import PYTHON, Level, Reason, Status, Verdict, python_reason
    from envcheck.model.finding import Category

    cite = (row.origin.cite(),)
    reasons: list[Reason] = []
    py = target.python
    if py is not None and row.python:
        reasons.append(python_reason(f"keras {version}", tuple(row.python), py, cite))
    if py is not None and row.requires_python:
        if _specifier(row.requires_python).contains(py, prereleases=True):
            reasons.append(
                Reason(
                    PYTHON,
                    Level.OK,
                    Category.OTHER,
                    f"Python {py} satisfies its Requires-Python {row.requires_python}",
                    cite,
                )
            )
        else:
            reasons.append(
                Reason(
                    PYTHON,
                    Level.ERROR,
                    Category.PYTHON_UNSUPPORTED,
                    f"keras {version} requires Python {row.requires_python}: pip refuses "
                    f"it on Python {py}",
                    cite,
                )
            )
    failed = any(r.level is Level.ERROR for r in reasons)
    candidate = Candidate(framework="keras", version=version, package="keras", cpu_only=True)
    return Verdict(candidate, Status.FAILS if failed else Status.RUNS, tuple(reasons))
