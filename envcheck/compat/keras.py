"""Whether a Keras release and a TensorFlow release can be installed together.

Two facts decide, both in keras.toml: the TensorFlow range a Keras 2.x release
needs (``[[release]] tensorflow``), and the keras range a TensorFlow release's
wheels require (``[[tensorflow_pin]]``, its Requires-Dist: pip refuses any other
keras beside it). Pure: used by the planner and by ``check``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import KerasRelease, Origin


@functools.lru_cache(maxsize=256)
def _specifier(text: str) -> SpecifierSet:
    from packaging.specifiers import SpecifierSet

    return SpecifierSet(text)


def keras_release(matrix: Matrix, version: str) -> Optional[KerasRelease]:
    return next((r for r in matrix.keras_releases if version in r.versions), None)


def keras_with_tensorflow(
    keras: str, tensorflow: str, matrix: Matrix
) -> Optional[tuple[str, Origin]]:
    """Why keras ``keras`` cannot go with tensorflow ``tensorflow`` (and the row
    that says so); None when nothing in the matrix forbids the pair."""
    from packaging.specifiers import InvalidSpecifier

    row = keras_release(matrix, keras)
    try:
        if (
            row is not None
            and row.tensorflow
            and not _specifier(row.tensorflow).contains(tensorflow, prereleases=True)
        ):
            return f"keras {keras} needs tensorflow{row.tensorflow}", row.origin
        pin = next((p for p in matrix.keras_pins if tensorflow in p.tensorflow), None)
        if pin is not None and not _specifier(pin.keras).contains(keras, prereleases=True):
            return f"tensorflow {tensorflow} requires keras{pin.keras}", pin.origin
    except InvalidSpecifier:  # the loader validates specifiers; an old cache may not
        return None
    return None
