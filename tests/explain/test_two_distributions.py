"""CuPy's duplicate-installation warning: the distributions it lists are judged by the
doctor's mixed-wheels rule."""

from __future__ import annotations

from envcheck.explain import explain
from envcheck.explain.facts import extract
from envcheck.matrix import Matrix
from envcheck.model.finding import Category

# cupy/_environment.py's warning as it reaches a notebook;
# https://github.com/rapidsai-community/rapidsai-csp-utils/pull/138
WARNING = """/usr/local/lib/python3.12/dist-packages/cupy/_environment.py:670: UserWarning:
--------------------------------------------------------------------------------

  CuPy may not function correctly because multiple CuPy packages are installed
  in your environment:

    cupy-cuda12x, cupy-cuda13x

  Follow these steps to resolve this issue:
"""


def test_listed_distributions_are_facts() -> None:
    assert extract(WARNING).packages == ("cupy-cuda12x", "cupy-cuda13x")
    # A log prefix on every line (a server's process tag) keeps the list readable.
    tagged = "".join(f"(Worker pid=7) {line}\n" for line in WARNING.splitlines())
    assert extract(tagged).packages == ("cupy-cuda12x", "cupy-cuda13x")


def test_two_cupy_wheels_are_mixed_wheels_first(matrix: Matrix) -> None:
    report = explain(WARNING, None, matrix)
    first = report.findings[0]
    assert (first.id, first.category) == ("cupy-multiple-packages", Category.MIXED_WHEELS)
    assert "CUDA 12: cupy-cuda12x" in first.evidence
    assert "CUDA 13: cupy-cuda13x" in first.evidence


def test_a_source_build_beside_a_wheel_is_named_too(matrix: Matrix) -> None:
    # cupy (source) and cupy-cuda11x: one major, still two distributions of one package.
    text = WARNING.replace("cupy-cuda12x, cupy-cuda13x", "cupy, cupy-cuda11x")
    assert extract(text).packages == ("cupy", "cupy-cuda11x")
    first = explain(text, None, matrix).findings[0]
    assert first.category == Category.MIXED_WHEELS


def test_a_list_elsewhere_is_no_fact() -> None:
    assert extract("cupy-cuda12x, cupy-cuda13x\n").packages == ()
