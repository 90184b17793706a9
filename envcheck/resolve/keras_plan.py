"""Keras beside the frameworks a plan chose: ``plan_keras``.

Keras is pure Python: a release fits when the target's Python can install it
(``compat.keras.keras_verdict``) and it goes with the TensorFlow the plan chose
(``compat.keras.keras_tensorflow_reason``, and the keras that TensorFlow's wheels
require). Pure; called by ``plan``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envcheck.compat.keras import keras_tensorflow_reason, keras_verdict
from envcheck.model.versions import release_key
from envcheck.resolve.plan import NO_RELEASE, PYTHON, _matches, _unpinned
from envcheck.resolve.plan_model import Decision, Pick, Unsatisfiable

if TYPE_CHECKING:
    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import KerasRelease
    from envcheck.resolve.plan import _Candidate, _Request


def plan_keras(req: _Request, chosen: dict[str, _Candidate], target: Target, matrix: Matrix) -> Any:
    """(Pick, Decision) for Keras, or Unsatisfiable."""
    rows = matrix.keras_releases
    if not rows:
        return _unpinned(req), Decision(
            "keras", f"the matrix has no Keras rows; {req.requirement} is passed on unpinned"
        )

    tf = chosen.get("tensorflow")
    # The keras the chosen TensorFlow itself requires (its Requires-Dist): pip enforces it.
    pin = None
    if tf is not None:
        pin = next((p for p in matrix.keras_pins if tf.version in p.tensorflow), None)
    found: list[tuple[tuple[Any, ...], str, KerasRelease]] = []
    reasons: list[str] = []
    cites: list[str] = []  # the row behind each reason

    def block(text: str, origin: Any) -> None:
        reasons.append(text)
        cites.append(origin.cite())

    for row in rows:
        for version in row.versions:
            if not _matches(req.requirement, version):
                continue
            verdict = keras_verdict(row, version, target)
            if verdict.errors:
                block(verdict.errors[0].message, row.origin)
                continue
            if row.tensorflow and tf is None:
                # Multi-backend Keras (2.0-2.3) runs on theano or cntk as well: the
                # TensorFlow range only binds when TensorFlow is planned with it.
                if any(b != "tensorflow" for b in row.backends):
                    found.append(((False, *release_key(version)), version, row))
                    continue
                block(f"keras {version} needs tensorflow{row.tensorflow}", row.origin)
                continue
            conflict = None if tf is None else keras_tensorflow_reason(version, tf.version, matrix)
            if conflict is not None:
                reasons.append(conflict.message)
                cites.extend(conflict.sources)
                continue
            # Prefer a release that names the chosen TensorFlow over one that does not.
            named = tf is not None and (row.tensorflow is not None or pin is not None)
            found.append(((named, *release_key(version)), version, row))
    if not found:
        return Unsatisfiable(
            "keras",
            PYTHON if any("Python" in r for r in reasons) else NO_RELEASE,
            f"no Keras release matches {req.requirement}" + (f" ({reasons[0]})" if reasons else ""),
            "relax the keras specifier or request tensorflow with it",
            tuple(cites[:1]) or tuple(r.origin.cite() for r in rows[:1]),
        )
    _, version, row = max(found, key=lambda t: t[0])
    pick = Pick("keras", "keras", version, source=row.origin.source)
    return pick, Decision(
        "keras",
        f"keras {version}: newest release matching {req.requirement.specifier or 'any version'}"
        + (f" that works with tensorflow {tf.version}" if tf and (row.tensorflow or pin) else ""),
        (row.origin.cite(),) + ((pin.origin.cite(),) if pin is not None else ()),
    )
