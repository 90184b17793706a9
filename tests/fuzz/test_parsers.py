"""Every parser, fed generated and mutated input: it parses, or it raises one
``InputError`` (a ``file:line: message`` line); nothing else, within the bound."""

from __future__ import annotations

import json
import re
from typing import Any, Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from envcheck.errors import InputError
from tests.fuzz.conftest import bounded, parser_settings
from tests.fuzz.strategies import inputs_for


def outcome(
    fn: Callable[[], Any],
    allowed: tuple[type[BaseException], ...] = (InputError,),
    size: int = 0,
) -> Any:
    """``fn()`` or the allowed exception it raised, within the time and memory
    bounds (``size``: the input's length, for the per-byte memory bound)."""
    with bounded(size):
        try:
            result = fn()
        except allowed as exc:
            result = exc
    if isinstance(result, InputError):
        assert "\n" not in str(result), str(result)  # one line
    return result


@parser_settings
@given(
    st.binary(max_size=2000) | inputs_for("log").map(lambda s: s.encode("utf-8", "surrogatepass"))
)
def test_decode(data: bytes) -> None:
    from envcheck.inputs import decode_text

    text = outcome(lambda: decode_text(data, "f.txt"), size=len(data))
    assert isinstance(text, (str, InputError))


@parser_settings
@given(inputs_for("json"))
def test_snapshot_json(text: str) -> None:
    from envcheck.snapshot_io import parse_snapshot_text

    snap = outcome(lambda: parse_snapshot_text(text, "s.json"), size=len(text))
    if not isinstance(snap, InputError):
        json.dumps(snap.to_json())  # whatever parsed must serialise back


@parser_settings
@given(inputs_for("json"))
def test_redacted_snapshot_round_trips(text: str) -> None:
    from envcheck.redact import local_policy
    from envcheck.snapshot_io import parse_snapshot_text, redact_snapshot

    snap = outcome(lambda: parse_snapshot_text(text, "s.json"), size=len(text))
    if not isinstance(snap, InputError):
        policy = local_policy(home="/home/alice", user="alice", host="box17")
        outcome(lambda: redact_snapshot(snap, policy=policy), (), size=len(text))


@parser_settings
@given(inputs_for("toml"))
def test_toml(text: str) -> None:
    from envcheck.inputs import parse_toml

    outcome(lambda: parse_toml(text, "x.toml"), size=len(text))


@parser_settings
@given(inputs_for("toml"), st.sampled_from(["gpus", "cuda_driver", "torch", "cudnn", "cuda_arch"]))
def test_matrix_domain(text: str, domain: str) -> None:
    from envcheck.matrix.load import read_domain

    outcome(lambda: read_domain(domain, text, f"{domain}.toml"), size=len(text))


@parser_settings
@given(inputs_for("toml"))
def test_pyproject(text: str) -> None:
    from envcheck.check.parse_pyproject import parse_pyproject

    outcome(lambda: parse_pyproject(text, "pyproject.toml"), size=len(text))


@parser_settings
@given(inputs_for("toml"))
def test_pixi(text: str) -> None:
    from envcheck.check.parse_pixi import parse_pixi

    outcome(lambda: parse_pixi(text, "pixi.toml"), size=len(text))


@parser_settings
@given(inputs_for("yaml"))
def test_environment_yml(text: str) -> None:
    from envcheck.check.parse_environment import parse_environment

    outcome(lambda: parse_environment(text, "environment.yml"), size=len(text))


@parser_settings
@given(inputs_for("requirements"))
def test_requirements(text: str) -> None:
    from envcheck.check.parse_requirements import parse_requirements

    outcome(lambda: parse_requirements(text, "requirements.txt"), size=len(text))


@parser_settings
@given(inputs_for("log"))
def test_collect_env(text: str) -> None:
    from envcheck.collect_env import parse_collect_env

    outcome(lambda: parse_collect_env(text, "collect_env.txt"), size=len(text))


@parser_settings
@given(inputs_for("log"))
def test_explain(text: str) -> None:
    from envcheck.explain import explain

    outcome(lambda: explain(text, None, None), (), size=len(text))


@parser_settings
@given(inputs_for("log"))
def test_redact_text(text: str) -> None:
    from envcheck.redact import local_policy

    policy = local_policy(home="/home/alice", user="alice", host="box17")
    out = outcome(lambda: policy.text(text), (), size=len(text))
    assert not re.search(r"(?<![A-Za-z0-9_-])alice(?![A-Za-z0-9_-])", out), out


@parser_settings
@given(st.text(max_size=60) | st.sampled_from(["9" * 5000, "12.4", "cu121", "sm_90a", "535.1.2"]))
def test_versions(text: str) -> None:
    from envcheck.model.versions import (
        parse_compute_capability,
        parse_cuda_version,
        parse_driver_version,
    )

    for parse in (parse_cuda_version, parse_compute_capability, parse_driver_version):
        outcome(lambda: parse(text), (), size=len(text))  # noqa: B023 - called at once


@parser_settings
@given(st.lists(inputs_for("requirements").map(lambda s: s[:200]), min_size=1, max_size=3))
def test_plan_requests(texts: list[str]) -> None:
    from envcheck.resolve.plan import parse_requests
    from envcheck.resolve.plan_model import PlanInputError

    outcome(lambda: parse_requests(texts), (PlanInputError,), size=sum(map(len, texts)))


@pytest.mark.parametrize("kind", ["json", "toml", "yaml"])
def test_the_strategies_produce_hostile_input(kind: str) -> None:
    """A guard on the suite itself: the generators reach deep and long inputs."""
    from hypothesis import find

    found = find(inputs_for(kind), lambda s: s.count("[") > 200 or s.count("{") > 200)
    assert len(found) > 200


def _allocate(mib: int) -> int:
    blob = [bytes(1024) for _ in range(mib * 1024)]
    return len(blob)


def test_the_memory_bound_bites() -> None:
    """A guard on the suite itself: an example that allocates past its bound
    fails; one that expands YAML aliases into 9**6 pins, as the
    issue's alias bomb did, is far past it; the gated parser is within it."""
    with pytest.raises(AssertionError, match="allocated 20"), bounded(10):
        _allocate(20)
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcde", "bcdef")
    )

    def expand(node: Any) -> list[str]:
        if isinstance(node, list):
            return [x for item in node for x in expand(item)]
        return [f"{node}==1.0"]  # a pin string per leaf, as a requirements list

    import yaml

    doc = yaml.safe_load(bomb)
    with pytest.raises(AssertionError, match="allocated"), bounded(len(bomb)):
        expand(doc["f"])
    from envcheck.check.parse_environment import parse_environment

    text = "dependencies:\n  - pip:\n" + "".join(f"    - {line}\n" for line in bomb.splitlines())
    outcome(lambda: parse_environment(bomb + text, "e.yml"), size=len(bomb))
