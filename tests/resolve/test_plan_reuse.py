"""One report asks the resolver for the same fix several times: a plan already made
for the same requests, target and matrix is reused, never one of another matrix."""

from __future__ import annotations

from typing import Any

from envcheck.compat.target import Target
from envcheck.model.versions import parse_compute_capability, parse_driver_version
from envcheck.resolve import fix


def _target() -> Target:
    return Target(
        os="linux",
        arch="x86_64",
        driver=parse_driver_version("550.54.14"),
        gpus=(parse_compute_capability("8.9"),),
        python="3.11",
        nvidia=True,
    )


def test_the_same_question_is_answered_by_the_same_plan(matrix: Any) -> None:
    first = fix._try_plan(["torch"], _target(), matrix)
    assert first is not None
    assert fix._try_plan(["torch"], _target(), matrix) is first


def test_another_matrix_or_request_is_planned_anew(matrix: Any, mini_matrix: Any) -> None:
    ours = fix._try_plan(["torch"], _target(), matrix)
    other = fix._try_plan(["torch"], _target(), mini_matrix)
    assert other is not ours
    assert fix._try_plan(["tensorflow"], _target(), matrix) is not ours
