"""The one selector: a name, an extra, a local label and a patch release the matrix
lacks mean the same builds to plan, `matrix why`, check and the doctor (issue 27)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from envcheck.check.check import check_pins
from envcheck.check.model import Environment, Project
from envcheck.check.parse_requirements import parse_requirements
from envcheck.compat import judge as J
from envcheck.compat.candidate import pip_candidates
from envcheck.compat.select import Intent, Request, select
from envcheck.compat.target import target_from_flags
from envcheck.doctor import diagnose
from envcheck.model.snapshot import Snapshot
from envcheck.resolve.plan import plan
from envcheck.why import explain_specs


def _unlisted_patch(matrix: Any, framework: str) -> tuple[str, str]:
    """The next patch of the newest release (torch 2.15.1 beside 2.15.0): a release
    the matrix lacks but cannot rule out. (The issue's torch 2.10.1 is proven absent:
    2.11.0 is listed and no 2.10 patch is, and PyPI has none; see below.)"""
    from envcheck.model.versions import release_key

    newest = max(matrix.releases(framework), key=release_key)
    major, minor, patch = (int(p) for p in newest.split(".")[:3])
    version = f"{major}.{minor}.{patch + 1}"
    assert version not in matrix.releases(framework)
    return version, newest


def test_a_release_the_matrix_proves_absent_is_refused_by_every_command(matrix: Any) -> None:
    """torch 2.10.1 never existed (PyPI lists 2.10.0, then 2.11.0): no command may
    plan or accept it, whatever the patch rule says (issues 26 and 27)."""
    assert matrix.patch_rule("torch", "2.10.1") is not None
    target = replace(
        target_from_flags(matrix, driver="575.51.03", gpus=("RTX 4090",)), os="linux", arch="x86_64"
    )
    pin = "torch==2.10.1+cu126"
    assert select(matrix, Request("torch", "torch", "==2.10.1")).pairs == ()
    assert not explain_specs((pin,), target, matrix).works
    assert not plan((pin,), target, matrix).ok
    assert "EC108" in _check_problems(pin + "\n", target, matrix)
    assert "unknown-framework-version" in _doctor("2.10.1", "cu126", target, matrix)


def test_a_patch_release_the_matrix_lacks_is_inferred_by_the_data_rule(matrix: Any) -> None:
    version, by = _unlisted_patch(matrix, "torch")
    rule = matrix.patch_rule("torch", version)
    assert rule is not None
    found = select(matrix, Request("torch", "torch", f"=={version}"))
    assert found.pairs
    assert found.inferred is not None
    assert found.inferred.by == by
    assert {b for b, _ in found.pairs} == set(matrix.builds_for("torch", by))
    assert all(v == version for _, v in found.pairs)


def test_without_a_rule_a_patch_release_is_unknown(matrix: Any) -> None:
    version, _ = _unlisted_patch(matrix, "torch")
    bare = replace(matrix, patch_rules=())
    assert select(bare, Request("torch", "torch", f"=={version}")).pairs == ()
    assert pip_candidates(bare, "torch", version, "linux-x86_64") == ()
    target = target_from_flags(matrix, driver="575.51.03", gpus=("RTX 4090",))
    assert not explain_specs((f"torch=={version}",), target, bare).works
    assert not plan((f"torch=={version}",), target, bare).ok


def test_names_and_extras_are_read_one_way(matrix: Any) -> None:
    # A distribution pinned means that distribution; plan may answer the main name
    # with another distribution of the framework.
    pin = select(matrix, Request("tensorflow", "TensorFlow_GPU", "==1.15.5"))
    assert pin.pairs
    assert {b.package for b, _ in pin.pairs} == {"tensorflow-gpu"}
    chosen = select(matrix, Request("tensorflow", "tensorflow", "==1.15.5", intent=Intent.CHOOSE))
    assert {"tensorflow", "tensorflow-gpu"} <= {b.package for b, _ in chosen.pairs}
    # pip ignores an extra the distribution lacks; `matrix why` says it knows no such build.
    assert select(matrix, Request("jax", "jax", "==0.4.30", extras=("cuda99",))).pairs
    asked = select(matrix, Request("jax", "jax", "==0.4.30", extras=("cuda99",), intent=Intent.ASK))
    assert asked.pairs == ()
    assert asked.releases_matched
    # A local label names the variant.
    local = select(matrix, Request("torch", "torch", "==2.3.0+cu118"))
    assert {b.variant for b, _ in local.pairs} == {"cu118"}


def _check_problems(text: str, target: Any, matrix: Any) -> set[str]:
    parsed = parse_requirements(text, "r.txt")
    env = Environment("r.txt", parsed.pins, parsed.indexes)
    return {p.code for p in check_pins(Project(("r.txt",), (env,)), target, matrix).problems}


def _doctor(version: str, variant: str, target: Any, matrix: Any) -> set[str]:
    snap = Snapshot.from_json(
        {
            "schema": "envcheck.snapshot/1",
            "platform": {"os": "linux", "arch": "x86_64"},
            "driver": {"version": target.driver.raw},
            "gpus": [{"index": 0, "compute_capability": str(cc)} for cc in target.gpus],
            "frameworks": [
                {"name": "torch", "version": f"{version}+{variant}", "variant": variant}
            ],
        }
    )
    return {f.id for f in diagnose(snap, matrix).findings}


@pytest.mark.parametrize("rules", ["with the rule", "without"])
def test_every_command_treats_an_unlisted_patch_release_alike(matrix: Any, rules: str) -> None:
    """The next patch of the newest release: inferred everywhere with the rule, unknown
    everywhere without it."""
    version, by = _unlisted_patch(matrix, "torch")
    m = matrix if rules == "with the rule" else replace(matrix, patch_rules=())
    target = replace(
        target_from_flags(m, driver="595.45.04", gpus=("RTX 4090",)), os="linux", arch="x86_64"
    )
    variant = next(
        b.variant
        for b in m.builds_for("torch", by)
        if b.variant.startswith("cu") and "linux-x86_64" in b.platforms
    )
    pin = f"torch=={version}+{variant}"
    why = explain_specs((pin,), target, m)
    planned = plan((pin,), target, m)
    problems = _check_problems(pin + "\n", target, m)
    found = _doctor(version, variant, target, m)
    if rules == "with the rule":
        assert why.works
        assert planned.ok, planned.unsatisfiable
        assert planned.picks[0].version == version
        assert any("judged by the builds of" in w for w in planned.warnings)
        assert not problems & {"EC106", "EC201"}, problems
        assert "unknown-framework-version" not in found
        (option,) = why.results[0].options
        assert any("judged by the builds of" in r.message for r in option.reasons)
    else:
        assert not why.works
        assert not planned.ok
        assert "EC201" in problems
        assert "unknown-framework-version" in found


def test_the_inferred_verdict_cites_the_rule(matrix: Any) -> None:
    version, _ = _unlisted_patch(matrix, "torch")
    (c, *_) = pip_candidates(matrix, "torch", version, "linux-x86_64")
    target = target_from_flags(matrix, driver="575.51.03", gpus=("RTX 4090",))
    verdict = J.judge(c, target, matrix)
    (reason,) = verdict.of(J.INFERRED_RELEASE)
    assert reason.inferred
    assert reason.sources == (matrix.patch_rule("torch", version).origin.cite(),)
