"""Adversarial text shapes derived from the signature table (issue 26 item 1).

A regex goes quadratic when a line holds many starts of a partial match that
each run far before failing: ``NCCL error `` repeated against
``NCCL (?:error|Error|failure)\\b.*unhandled system error``, ``libcudart``
repeated against ``lib(?:cudart|...)\\w*\\.so``. The shapes here are read from
each signature's own parse tree, so a new signature is covered without a list
to keep: every literal anchor, and every prefix of a sample match that ends
where a literal part ends (right before a class, a repeat or a branch).

Used by ``tests/fuzz/test_growth*.py`` and ``scripts/bench_growth.py``, with
:func:`grows_linearly`, the one comparison of two timings the tests make.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from envcheck.explain.anchors import anchors_of
from envcheck.explain.signatures import SIGNATURES


def _sre() -> Any:
    try:
        return importlib.import_module("re._parser")
    except ImportError:
        return importlib.import_module("sre_parse")


def _samples(sre: Any, items: Iterable[tuple[Any, Any]]) -> Iterator[list[tuple[str, bool]]]:
    """Sample matches of a sequence as (piece, literal?) segments, one per branch choice."""
    out: list[list[tuple[str, bool]]] = [[]]
    for op, av in items:
        pieces: list[list[tuple[str, bool]]]
        if op is sre.LITERAL:
            pieces = [[(chr(av), True)]]
        elif op is sre.NOT_LITERAL:
            pieces = [[("x" if chr(av) != "x" else "y", False)]]
        elif op is sre.IN:
            pieces = [[(_class_char(sre, av), False)]]
        elif op is sre.ANY:
            pieces = [[("x", False)]]
        elif op is sre.SUBPATTERN:
            pieces = list(_samples(sre, list(av[-1])))
        elif op is sre.BRANCH:
            pieces = [seg for alt in av[1] for seg in _samples(sre, list(alt))]
        elif op in _repeats(sre):
            low, _high, body = av
            body_samples = list(_samples(sre, list(body)))[:1]
            pieces = [[(p, False) for p, _lit in body_samples[0]] * low or [("", False)]]
        else:  # AT, ASSERT, ASSERT_NOT, GROUPREF: nothing to write, but a boundary
            pieces = [[("", False)]]
        out = [seq + piece for seq in out for piece in pieces][:32]
    yield from out


def _repeats(sre: Any) -> tuple[Any, ...]:
    names = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
    return tuple(getattr(sre, n) for n in names if hasattr(sre, n))


def _class_char(sre: Any, av: Any) -> str:
    for op, val in av:
        if op is sre.LITERAL:
            return chr(val)
        if op is sre.RANGE:
            return chr(val[0])
        if op is sre.CATEGORY:
            return {"CATEGORY_DIGIT": "1", "CATEGORY_SPACE": " "}.get(str(val), "a")
    return "x"


def sample_matches(regex: str) -> list[str]:
    """Strings that (mostly) match ``regex``: one per choice of its branches."""
    sre = _sre()
    return ["".join(p for p, _lit in seg) for seg in _samples(sre, list(sre.parse(regex)))]


def partial_matches(regex: str) -> set[str]:
    """Pieces of the sample matches that start where a literal part starts and end
    where one ends (``NCCL error``, ``libcudart``, ``Could not load library 'lib``)."""
    sre = _sre()
    found: set[str] = set()
    for seg in _samples(sre, list(sre.parse(regex))):
        starts, ends = [], []
        offset = 0
        for i, (piece, literal) in enumerate(seg):
            before = seg[i - 1][1] if i else False
            after = seg[i + 1][1] if i + 1 < len(seg) else False
            if literal and not before:
                starts.append(offset)
            offset += len(piece)
            if literal and not after:
                ends.append(offset)
        text = "".join(p for p, _lit in seg)
        found.update(text[a:b] for a in starts for b in ends if b > a and text[a:b].strip())
    return found


def signature_keywords() -> dict[str, set[str]]:
    """Every keyword (anchor) and partial match of every signature, by signature id."""
    out: dict[str, set[str]] = {}
    for sig in SIGNATURES:
        words = set(anchors_of(sig.regex) or ())
        words |= {w for w in partial_matches(sig.regex) if w.strip()}
        out[sig.id] = words
    return out


def repeated(word: str, size: int, sep: str = "") -> str:
    """``word`` (then ``sep``) repeated to ``size`` characters: one long line or many."""
    unit = word + sep
    return (unit * (size // len(unit) + 1))[:size]


LINEAR_SLACK = 2.5
"""How far above linear a measured growth may be: a quadratic one is ten times
linear for a tenfold input."""
TIMER_FLOOR = 0.0002
"""Seconds below which a difference is timer noise on a shared machine."""


def best_time(fn: Callable[[], object], runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def grows_linearly(
    big: Callable[[], object], small: Callable[[], object], linear: float
) -> tuple[bool, str]:
    """Whether ``big`` costs at most LINEAR_SLACK times ``linear`` times ``small``
    (``linear``: the ratio a linear cost gives); measured again before a failure
    is believed."""
    t_big = t_small = 0.0
    for _ in range(3):
        t_big, t_small = best_time(big), best_time(small)
        if t_big <= LINEAR_SLACK * linear * t_small + TIMER_FLOOR:
            return True, ""
    return False, f"{t_big * 1000:.2f} ms against {t_small * 1000:.2f} ms"
