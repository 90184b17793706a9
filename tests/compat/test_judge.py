"""The one judge: verdicts, inference over unknown facts, and agreement between commands.

Uses the shipped matrix: the cases are the ones issue 12 found answered differently
by different commands.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, replace
from typing import Any, Optional

import pytest

from envcheck.check.check import check_pins
from envcheck.check.model import Environment, Project
from envcheck.check.parse_requirements import parse_requirements
from envcheck.compat import judge as J
from envcheck.compat.candidate import candidates_for_installed, from_build, pip_candidates
from envcheck.compat.target import Target, target_from_flags, target_from_snapshot
from envcheck.doctor import diagnose
from envcheck.model.snapshot import Snapshot
from envcheck.model.versions import ComputeCapability
from envcheck.resolve.plan import plan
from envcheck.why import explain_specs


def flags(matrix: Any, **kw: Any) -> Target:
    gpus = kw.pop("gpus", ())
    return target_from_flags(matrix, gpus=tuple(gpus), **kw)


def snapshot(**parts: Any) -> Snapshot:
    data: dict[str, Any] = {
        "schema": "envcheck.snapshot/1",
        "platform": {"os": "linux", "arch": "x86_64"},
    }
    data.update(parts)
    return Snapshot.from_json(data)


def test_kepler_on_a_driver_branch_that_dropped_it_fails_everywhere(matrix: Any) -> None:
    # torch 2.3.0+cu118 on a K80 with driver 535: the 535 branch has no Kepler support.
    target = flags(matrix, driver="535.104.05", gpus=["3.7"])
    build = next(b for b in matrix.builds_for("torch", "2.3.0") if b.variant == "cu118")
    verdict = J.judge(from_build(build, "2.3.0"), target, matrix)
    assert verdict.status is J.Status.FAILS
    assert [r.code for r in verdict.errors] == [J.GPU_DROPPED]
    assert "470" in verdict.errors[0].message
    # plan reads the +cu118 local label and refuses with the same reason
    result = plan(("torch==2.3.0+cu118",), target, matrix)
    assert not result.ok
    assert result.unsatisfiable is not None
    assert "not supported by driver 535.104.05 (branch 535)" in result.unsatisfiable.message
    why = explain_specs(("torch==2.3.0+cu118",), target, matrix)
    assert not why.works


def test_a_local_label_is_read_by_plan(matrix: Any) -> None:
    target = flags(matrix, driver="550.54.15", gpus=["RTX 4090"])
    result = plan(("torch==2.3.0+cu118",), target, matrix)
    assert result.ok, result.unsatisfiable
    (pick,) = result.picks
    assert (pick.version, pick.variant) == ("2.3.0", "cu118")


def test_a_toolkit_that_cannot_emit_the_gpu_arch_is_no_unknown(matrix: Any) -> None:
    # CUDA 12.6's nvcc has no sm_120 target, and torch 2.6.0's other variants carry no
    # PTX: its cu126 build cannot run on an RTX 5080, though its arch list is unknown.
    target = flags(matrix, driver="575.51.03", gpus=["RTX 5080"])
    build = next(b for b in matrix.builds_for("torch", "2.6.0") if b.variant == "cu126")
    assert build.archs is None
    verdict = J.judge(from_build(build, "2.6.0"), target, matrix)
    assert verdict.status is J.Status.FAILS
    (reason,) = verdict.errors
    assert reason.inferred
    assert "cannot compile for sm_120" in reason.message
    assert not plan(("torch==2.6.0",), target, matrix).ok


def test_siblings_bound_an_unknown_arch_list(matrix: Any) -> None:
    # 2.7.1 cu118 does not record its archs; every 2.7.1 sibling whose CUDA can emit
    # sm_75 carries it, so the judge infers native code for a T4 and plan picks it
    # over the older 2.5.1 it chose while unknown lists counted as worse.
    target = flags(matrix, driver="470.256.02", gpus=["T4"], python="3.11")
    result = plan(("torch",), target, matrix)
    assert result.ok
    assert (result.picks[0].version, result.picks[0].variant) == ("2.7.1", "cu118")


def test_explicit_requests_are_honoured_never_swapped(matrix: Any) -> None:
    a100 = flags(matrix, driver="580.65.06", gpus=["A100"])
    result = plan(("jax[cuda13]",), a100, matrix)
    assert result.ok
    assert result.picks[0].extra == "cuda13"
    v100 = flags(matrix, driver="580.65.06", gpus=["Tesla V100-SXM2-16GB"])
    refused = plan(("jax[cuda13]",), v100, matrix)
    assert refused.unsatisfiable is not None
    assert "no kernels for" in refused.unsatisfiable.message
    assert "sm_70" in refused.unsatisfiable.message
    cpu = plan(("tensorflow-cpu",), a100, matrix)
    assert cpu.ok
    assert cpu.picks[0].package == "tensorflow-cpu"
    assert "and-cuda" not in (cpu.picks[0].extra or "")


def test_no_nvidia_gpu_plans_cpu_builds(matrix: Any) -> None:
    target = flags(matrix, gpus=["none"])
    assert target.nvidia is False
    result = plan(("torch",), target, matrix)
    assert result.ok
    assert result.picks[0].variant == "cpu"
    # The same from a detected snapshot whose driver probe found nothing.
    snap = snapshot(probes=["platform", "driver"])
    assert target_from_snapshot(snap).nvidia is False
    assert plan(("torch",), target_from_snapshot(snap, matrix), matrix).picks[0].variant == "cpu"
    # A hand-written snapshot that records no probe knows nothing of the GPU.
    assert target_from_snapshot(snapshot()).nvidia is None


def test_a_bare_version_stands_for_what_pip_installs(matrix: Any) -> None:
    # torch 1.7.1 with no build facts, driver 418.87: plain pip serves cu102 on Linux,
    # which needs driver 440.33. The cu92 build would run, but it needs +cu92.
    pool = pip_candidates(matrix, "torch", "1.7.1", "linux-x86_64")
    assert pool
    assert [c.variant for c in pool] == ["cu102"]
    snap = snapshot(
        driver={"version": "418.87"},
        frameworks=[{"name": "torch", "version": "1.7.1"}],
        python={"version": "3.8.10"},
    )
    found = {f.id: f for f in diagnose(snap, matrix).findings}
    assert "driver-too-old" in found, sorted(found)
    assert "pip installs for that version" in " ".join(found["driver-too-old"].evidence)


def test_installed_facts_narrow_the_candidates(matrix: Any) -> None:
    from envcheck.model.snapshot import Framework

    fw = Framework(name="torch", version="2.5.1+cu124", cuda_version="12.4", variant="cu124")
    (c,) = candidates_for_installed(fw, matrix, "linux-x86_64")
    assert c.variant == "cu124"
    own = Framework(
        name="tensorflow",
        version="2.13.1",
        cuda_version="11.8",
        build={"cuda_compute_capabilities": "sm_35,sm_50,sm_60,sm_70,sm_75,compute_80"},
    )
    got = candidates_for_installed(own, matrix, "linux-x86_64")
    assert got
    assert all(c.archs_from == "the installed build_info.py" for c in got)
    # A GTX 680 (sm_30) has no kernels in that list: the doctor and why agree.
    target = flags(matrix, driver="470.256.02", gpus=["3.0"])
    assert all(J.judge(c, target, matrix).status is J.Status.FAILS for c in got)


# -- agreement: why, plan, check and doctor give the same verdict -------------------

_TARGETS = (
    {"driver": "418.67", "gpus": ["3.7"]},
    {"driver": "470.256.02", "gpus": ["7.5"]},
    {"driver": "535.104.05", "gpus": ["8.0"]},
    {"driver": "535.104.05", "gpus": ["3.7"]},
    {"driver": "550.54.15", "gpus": ["8.9"]},
    {"driver": "575.51.03", "gpus": ["12.0"]},
    {"driver": "580.65.06", "gpus": ["9.0"]},
)


def _grid(matrix: Any) -> list[tuple[Any, str, dict[str, Any]]]:
    """Every torch CUDA build served by an index or PyPI (one version per row) × targets."""
    rows = [
        b
        for b in matrix.framework_builds("torch")
        if b.cuda is not None
        and not b.withdrawn
        and "linux-x86_64" in b.platforms
        and (b.index_url is not None or b.pypi_default)
    ]
    return [(b, b.versions[-1], t) for b, t in itertools.product(rows, _TARGETS)]


def _doctor_fails(build: Any, version: str, target: Target, matrix: Any) -> bool:
    snap = snapshot(
        driver={"version": target.driver.raw if target.driver else None},
        gpus=[{"index": 0, "compute_capability": str(cc)} for cc in target.gpus],
        frameworks=[
            {
                "name": "torch",
                "version": f"{version}+{build.variant}",
                "cuda_version": str(build.cuda),
                "variant": build.variant,
                "cpu_only": False,
            }
        ],
    )
    # Every error the doctor reports about the build counts (the doctor reads every
    # reason of every verdict: a PTX-only path the driver cannot JIT is one too).
    # A GPU the driver dropped is a finding about the GPU, not the build.
    return any(
        f.id == "gpu-dropped-by-driver" or (f.severity.value == "error" and f.framework == "torch")
        for f in diagnose(snap, matrix).findings
    )


def _check_fails(build: Any, version: str, target: Target, matrix: Any) -> bool:
    text = f"torch=={version}+{build.variant}\n"
    if build.index_url:
        text = f"--index-url {build.index_url}\n" + text
    parsed = parse_requirements(text, "r.txt")
    env = Environment("r.txt", parsed.pins, parsed.indexes)
    report = check_pins(Project(("r.txt",), (env,)), target, matrix)
    return any(p.code == "EC106" for p in report.problems)


def test_why_plan_check_and_doctor_agree_over_the_grid(matrix: Any) -> None:
    disagreements: list[str] = []
    grid = _grid(matrix)
    assert len(grid) > 300
    for build, version, spec in grid:
        target = replace(flags(matrix, **spec), os="linux", arch="x86_64")
        verdict = J.judge(from_build(build, version), target, matrix)
        fails = verdict.status is J.Status.FAILS
        pin = f"torch=={version}+{build.variant}"
        answers: dict[str, Optional[bool]] = {
            "judge": fails,
            "why": not explain_specs((pin,), target, matrix).works,
            "plan": not plan((pin,), target, matrix).ok,
            "check": _check_fails(build, version, target, matrix),
            "doctor": _doctor_fails(build, version, target, matrix),
        }
        if len(set(answers.values())) > 1:
            disagreements.append(f"{pin} on {target.describe()}: {answers}")
    assert not disagreements, "\n".join(disagreements[:20])


def test_why_says_cannot_tell_where_the_judge_cannot(matrix: Any) -> None:
    """A build whose compiled architectures are unknown, on a given GPU: the judge
    says unknown, and `matrix why` says "cannot tell" (exit 0: nothing rules it
    out), not "works"."""
    from envcheck.render.why import render_why
    from tests.conftest import with_unconfirmed_paddle

    unknown, newer = with_unconfirmed_paddle(matrix)
    target = flags(unknown, driver="580.65.06", gpus=["A100"], python="3.12", os_name="linux")

    verdict = J.judge(from_build(newer, "9.9.0"), target, unknown)
    assert verdict.status is J.Status.UNKNOWN
    result = explain_specs(("paddlepaddle-gpu==9.9.0",), target, unknown)
    (spec,) = result.results
    assert [o.status for o in spec.options] == ["unknown"]
    assert spec.status == "unknown"
    assert result.works and not result.confirmed
    doc = result.to_json()
    assert (doc["works"], doc["confirmed"]) == (True, False)
    assert doc["results"][0]["options"][0]["status"] == "unknown"
    text = render_why(result)
    assert "paddlepaddle-gpu==9.9.0: cannot tell" in text
    assert "? paddlepaddle-gpu 9.9.0" in text
    assert "cannot confirm it works here" in text

    # Without the GPU nothing is open: the same build works.
    plain = flags(unknown, driver="580.65.06", python="3.12", os_name="linux")
    result = explain_specs(("paddlepaddle-gpu==9.9.0",), plain, unknown)
    assert result.confirmed and result.results[0].status == "works"


# -- agreement on the disagreements issue 27 lists ------------------------------------


@pytest.mark.parametrize(("python", "fails"), [("3.9", True), ("3.11", False)])
def test_keras_requires_python_is_one_judgement(matrix: Any, python: str, fails: bool) -> None:
    """keras 3.11.0's Requires-Python (>=3.10, from keras.toml) decides `matrix why`
    and plan alike."""
    from envcheck.compat.keras import keras_release, keras_verdict

    row = keras_release(matrix, "3.11.0")
    assert row is not None
    assert row.requires_python
    target = flags(matrix, python=python)
    verdict = keras_verdict(row, "3.11.0", target)
    assert (verdict.status is J.Status.FAILS) is fails
    parsed = parse_requirements("keras==3.11.0\n", "requirements.txt")
    env = Environment("requirements.txt", parsed.pins, parsed.indexes)
    checked = check_pins(Project(("requirements.txt",), (env,)), target, matrix)
    why = explain_specs(("keras==3.11.0",), target, matrix)
    answers = {
        "judge": verdict.status is J.Status.FAILS,
        "why": not why.works,
        "plan": not plan(("keras==3.11.0",), target, matrix).ok,
        "check": any(p.code == "EC106" for p in checked.problems),
    }
    assert set(answers.values()) == {fails}, answers
    # `matrix why` names the release asked for, not the row's other releases.
    assert [o.label for o in why.results[0].options] == ["keras 3.11.0"]
    # Installed anyway (--ignore-requires-python): the doctor warns, as for any framework
    # outside its Pythons.
    snap = snapshot(
        python={"version": f"{python}.4"},
        frameworks=[{"name": "keras", "version": "3.11.0", "package": "keras"}],
    )
    warned = [f for f in diagnose(snap, matrix).findings if f.id == "python-unsupported"]
    assert bool(warned) is fails
    assert all(f.severity.value == "warning" for f in warned)


def test_a_cpu_onnxruntime_with_no_cpu_only_fact_is_cpu_only_everywhere(matrix: Any) -> None:
    """onnxruntime 1.18.0 from the `onnxruntime` package on an RTX 4090, cpu_only not
    recorded: the judge's CPU-only reason reaches the doctor as it reaches why."""
    snap = snapshot(
        driver={"version": "550.54.15"},
        gpus=[{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
        frameworks=[{"name": "onnxruntime", "version": "1.18.0", "package": "onnxruntime"}],
    )
    target = target_from_snapshot(snap, matrix)
    (fw,) = snap.frameworks
    verdicts = J.judge_set(candidates_for_installed(fw, matrix, target.platform), target, matrix)
    assert verdicts.verdicts
    assert all(v.of(J.CPU_ONLY) for v in verdicts.verdicts)
    found = {f.id: f for f in diagnose(snap, matrix).findings}
    assert "cpu-only-build" in found, sorted(found)
    assert found["cpu-only-build"].severity.value == "error"
    assert not explain_specs(("onnxruntime==1.18.0",), target, matrix).works


def test_no_inference_crosses_a_variant_family_with_its_own_arch_policy(matrix: Any) -> None:
    """cu128/cu129 torch builds start at sm_70 (.ci/manywheel/build_cuda.sh, the
    [[arch_floor]] for CUDA >=12.8,<13): a GTX 1080 (sm_61) beside an RTX 5090 never
    gets one, and no unknown cu128/cu129 list is inferred from a cu126 sibling."""
    target = replace(
        flags(matrix, gpus=["GTX 1080", "RTX 5090"]), os="linux", arch="x86_64", python="3.12"
    )
    result = plan(("torch",), target, matrix)
    assert all(p.variant not in ("cu128", "cu129") for p in result.picks), result.picks
    row = next(b for b in matrix.builds_for("torch", "2.13.0") if b.variant == "cu129")
    # The recorded list (read from the build script) starts at the floor...
    assert row.archs is not None and min(row.archs) >= ComputeCapability(7, 0)
    # ...and a row of that family whose list is not recorded still fails on Pascal
    # by the floor alone, never by a list borrowed from a cu126 sibling.
    unknown = replace(row, archs=None, ptx=())
    pascal = flags(matrix, gpus=["GTX 1080"])
    verdict = J.judge(from_build(unknown, "2.13.0"), pascal, matrix)
    assert verdict.status is J.Status.FAILS
    assert any("CUDA >=12.8,<13" in r.message for r in verdict.errors)
    pin = "torch==2.13.0+cu129"
    assert not explain_specs((pin,), pascal, matrix).works
    assert not plan((pin,), pascal, matrix).ok


def test_ptx_only_from_a_toolkit_newer_than_the_driver_fails_everywhere(matrix: Any) -> None:
    """H100 + tensorflow 2.21 (CUDA 12.5, PTX for sm_90) on driver 550.54.15 (CUDA 12.4
    natively, 12.5 through minor-version compatibility): the driver cannot JIT that PTX.
    Two warnings before; one failure now, from every command."""
    target = replace(flags(matrix, driver="550.54.15", gpus=["H100"]), os="linux", arch="x86_64")
    rows = [b for b in matrix.builds_for("tensorflow", "2.21.0") if b.cuda is not None]
    assert rows
    for build in rows:
        verdict = J.judge(from_build(build, "2.21.0"), target, matrix)
        assert verdict.status is J.Status.FAILS
        assert [r.code for r in verdict.errors] == [J.GPU_ARCH_PTX]
    pin = "tensorflow[and-cuda]==2.21.0"
    assert not explain_specs(("tensorflow==2.21.0",), target, matrix).works
    assert not plan((pin,), target, matrix).ok
    parsed = parse_requirements(pin + "\n", "r.txt")
    env = Environment("r.txt", parsed.pins, parsed.indexes)
    problems = check_pins(Project(("r.txt",), (env,)), target, matrix).problems
    assert any(p.code == "EC106" for p in problems), problems
    snap = snapshot(
        driver={"version": "550.54.15"},
        gpus=[{"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}],
        frameworks=[
            {"name": "tensorflow", "version": "2.21.0", "cuda_version": "12.5", "cpu_only": False}
        ],
    )
    found = {f.id: f for f in diagnose(snap, matrix).findings}
    assert found["gpu-arch-ptx-only"].severity.value == "error"
    # Driver 555.42.02 runs CUDA 12.5 natively: the same PTX is JIT-compiled.
    newer = replace(target, driver=flags(matrix, driver="555.42.02").driver)
    assert all(J.judge(from_build(b, "2.21.0"), newer, matrix).runs for b in rows)


# -- the same disagreements through the commands themselves ----------------------------


@dataclass(frozen=True)
class _Case:
    """One question of issue 27, asked of every command that can answer it."""

    name: str
    flags: tuple[str, ...]
    """--driver/--gpu/--python-version for why, plan and check."""
    node: dict[str, Any]
    """The snapshot parts the doctor and the fleet see (a node of that machine)."""
    why: str
    plan: str
    pin: str
    fails: bool


_CASES = (
    _Case(
        # the next patch of the newest release: not ruled out, inferred by the rule
        "unlisted patch release",
        ("--driver", "595.45.04", "--gpu", "RTX 4090", "--os", "linux", "--arch", "x86_64"),
        {
            "driver": {"version": "595.45.04"},
            "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
            "frameworks": [
                {
                    "name": "torch",
                    "version": "2.15.1+cu130",
                    "cuda_version": "13.0",
                    "variant": "cu130",
                    "cpu_only": False,
                }
            ],
        },
        "torch==2.15.1+cu130",
        "torch==2.15.1+cu130",
        "--index-url https://download.pytorch.org/whl/cu130\ntorch==2.15.1",
        False,
    ),
    _Case(
        "PTX from a toolkit newer than the driver",
        ("--driver", "550.54.15", "--gpu", "H100", "--os", "linux", "--arch", "x86_64"),
        {
            "driver": {"version": "550.54.15"},
            "gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}],
            "frameworks": [
                {
                    "name": "tensorflow",
                    "version": "2.21.0",
                    "cuda_version": "12.5",
                    "cpu_only": False,
                }
            ],
        },
        "tensorflow==2.21.0",
        "tensorflow[and-cuda]==2.21.0",
        "tensorflow[and-cuda]==2.21.0",
        True,
    ),
    _Case(
        "cu129 on Pascal",
        ("--driver", "575.51.03", "--gpu", "GTX 1080", "--os", "linux", "--arch", "x86_64"),
        {
            "driver": {"version": "575.51.03"},
            "gpus": [{"index": 0, "name": "NVIDIA GeForce GTX 1080", "compute_capability": "6.1"}],
            "frameworks": [
                {
                    "name": "torch",
                    "version": "2.13.0+cu129",
                    "cuda_version": "12.9",
                    "variant": "cu129",
                    "cpu_only": False,
                }
            ],
        },
        "torch==2.13.0+cu129",
        "torch==2.13.0+cu129",
        "--index-url https://download.pytorch.org/whl/cu129\ntorch==2.13.0",
        True,
    ),
    _Case(
        "CPU onnxruntime, cpu_only not recorded",
        ("--driver", "550.54.15", "--gpu", "RTX 4090", "--os", "linux", "--arch", "x86_64"),
        {
            "driver": {"version": "550.54.15"},
            "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
            "frameworks": [{"name": "onnxruntime", "version": "1.18.0", "package": "onnxruntime"}],
        },
        "onnxruntime==1.18.0",
        "onnxruntime==1.18.0",
        "onnxruntime==1.18.0",
        True,
    ),
)


def _node(case: _Case) -> dict[str, Any]:
    return {
        "schema": "envcheck.snapshot/1",
        "platform": {"os": "linux", "arch": "x86_64"},
        "python": {"version": "3.12.3"},
        "probes": ["platform", "driver", "gpus", "frameworks"],
        **case.node,
    }


def _plan_answer(case: _Case, result: Any) -> int:
    """1 where plan refuses the pinned build: it exits 1, or (asked for a framework's
    main name) it answers with another of its distributions, saying so (onnxruntime
    -> onnxruntime-gpu)."""
    import json

    if result.exit_code != 0:
        return int(result.exit_code)
    picks = json.loads(result.stdout)["picks"]
    asked = case.plan.split("=")[0].split("[")[0]
    return 0 if picks and picks[0]["package"] == asked else 1


@pytest.mark.parametrize("case", _CASES, ids=lambda c: c.name)
def test_every_command_gives_one_answer(case: _Case, tmp_path: Any) -> None:
    """`matrix why`, `plan`, `check`, `doctor --snapshot` and `fleet report` (over a
    node of that machine, --all-nodes) fail or pass together."""
    import json

    from tests.conftest import run_cli

    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(_node(case)))
    fleet = tmp_path / "fleet.jsonl"
    record = {
        "schema": "envcheck.fleet/1",
        "node": "node0",
        "job_id": "1",
        "status": "ok",
        "snapshot": _node(case),
    }
    fleet.write_text(json.dumps(record) + "\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "requirements.txt").write_text(case.pin + "\n")
    py = ("--python-version", "3.12")
    answers = {
        "why": run_cli("matrix", "why", case.why, *case.flags, *py).exit_code,
        "plan": _plan_answer(case, run_cli("plan", case.plan, *case.flags, *py, "--json")),
        "check": run_cli("check", str(project), *case.flags, *py).exit_code,
        "doctor": run_cli("doctor", "--snapshot", str(snap)).exit_code,
        "fleet": run_cli(
            "fleet", "report", str(fleet), "--all-nodes", "--require", case.plan
        ).exit_code,
    }
    expected = 1 if case.fails else 0
    assert answers == dict.fromkeys(answers, expected), answers


def test_fleet_of_pascal_and_blackwell_gets_no_cu128_or_cu129(matrix: Any) -> None:
    """The fleet's shared environment is a plan over the union target: a GTX 1080 node
    and an RTX 5090 node get no cu128/cu129 build (they start at sm_70), as plan does."""
    from envcheck.fleet.records import read_json_lines
    from envcheck.fleet.report import build_report

    lines = []
    for i, (name, cc) in enumerate((("NVIDIA GeForce GTX 1080", "6.1"), ("RTX 5090", "12.0"))):
        node = {
            "schema": "envcheck.snapshot/1",
            "platform": {"os": "linux", "arch": "x86_64"},
            "python": {"version": "3.12.3"},
            "driver": {"version": "575.51.03"},
            "gpus": [{"index": 0, "name": name, "compute_capability": cc}],
        }
        record = {"schema": "envcheck.fleet/1", "node": f"n{i}", "status": "ok", "snapshot": node}
        lines.append(json.dumps(record))
    report = build_report(read_json_lines(lines, "fleet.jsonl"), matrix, requirements=("torch",))
    (env,) = report.environments
    assert env.plan is not None
    assert all(p.variant not in ("cu128", "cu129") for p in env.plan.picks), env.plan.picks
    alone = plan(("torch",), env.target, matrix)
    assert [(p.version, p.variant) for p in alone.picks] == [
        (p.version, p.variant) for p in env.plan.picks
    ]


@pytest.mark.parametrize(
    ("version", "gpu"),
    [("1.4.0", "NVIDIA GeForce RTX 3090"), ("1.7.1", "NVIDIA GeForce RTX 4090")],
)
def test_an_unknown_platform_is_judged_by_the_gpu_builds(
    matrix: Any, version: str, gpu: str
) -> None:
    """Platform not recorded: torch's candidates are its Linux/Windows CUDA wheel and its
    macOS CPU one. They fail for different reasons (no kernels; no CUDA at all), so no
    reason is shared by all; the GPU builds' reason is the finding (it was dropped)."""
    from envcheck.explain import explain

    snap = snapshot(
        python={"version": "3.7.9"},
        driver={"version": "550.54.15"},
        gpus=[{"index": 0, "name": gpu}],
        frameworks=[{"name": "torch", "version": version, "package": "torch"}],
    )
    errors = {f.id for f in diagnose(snap, matrix).findings if f.severity.value == "error"}
    assert "gpu-arch-unsupported" in errors
    message = (
        "Python 3.7.9 (default, Jan  1 2024, 00:00:00)\n"
        f"I have a {gpu}\n"
        f"$ pip install torch=={version}\n"
        f"Successfully installed torch-{version}\n"
    )
    first = explain(message, None, matrix).findings[0]
    assert (first.id, first.severity.value) == ("gpu-arch-unsupported", "error")


def _paddle_snapshot(driver: str, gpu: str, cc: str, os_name: str = "linux") -> Snapshot:
    """paddlepaddle-gpu 3.0.0b0 installed, its CUDA not read: the cu118 or the cu123 build."""
    return snapshot(
        platform={"os": os_name, "arch": "x86_64"},
        python={"version": "3.11.9"},
        driver={"version": driver},
        gpus=[{"index": 0, "name": gpu, "compute_capability": cc}],
        frameworks=[
            {
                "name": "paddle",
                "version": "3.0.0b0",
                "package": "paddlepaddle-gpu",
                "cpu_only": False,
            }
        ],
    )


def test_system_cuda_libraries_of_a_major_that_never_reached_the_gpu_fail(matrix: Any) -> None:
    """A build loading the system's CUDA libraries may load a newer minor's, so its own
    release decides nothing while a release of its major compiles for the GPU; CUDA 11.x
    never compiled for sm_120 (12.8 first), so a cu118 build cannot run on an RTX 5090."""
    from envcheck.compat.candidate import candidates_for_installed

    snap = _paddle_snapshot("580.65.06", "NVIDIA GeForce RTX 5090", "12.0")
    target = target_from_snapshot(snap, matrix)
    by_variant = {
        c.variant: J.judge(c, target, matrix)
        for c in candidates_for_installed(snap.frameworks[0], matrix, target.platform)
    }
    assert by_variant["cu118"].status is J.Status.FAILS
    assert "CUDA 11.x libraries" in by_variant["cu118"].errors[0].message
    assert by_variant["cu123"].status is not J.Status.FAILS  # a 12.8+ cuBLAS may be loaded
    # CUDA 11.8 compiles for sm_90: nothing certain on an H100.
    hopper = _paddle_snapshot("580.65.06", "NVIDIA H100 80GB HBM3", "9.0")
    t2 = target_from_snapshot(hopper, matrix)
    cu118 = next(
        c
        for c in candidates_for_installed(hopper.frameworks[0], matrix, t2.platform)
        if c.variant == "cu118"
    )
    assert J.judge(cu118, t2, matrix).status is not J.Status.FAILS


def test_every_build_failing_for_its_own_reason_is_still_a_finding(matrix: Any) -> None:
    """cu118 cannot reach sm_120 and cu123 needs a newer driver than 450: no reason is
    shared, yet no build runs; the finding says so and names the other build's reason."""
    snap = _paddle_snapshot("450.80.02", "NVIDIA GeForce RTX 5090", "12.0")
    errors = [f for f in diagnose(snap, matrix).findings if f.severity.value == "error"]
    assert [f.id for f in errors] == ["gpu-arch-unsupported"]
    evidence = " ".join(errors[0].evidence)
    assert "no CUDA version or variant was recorded" in evidence
    assert "cu123" in evidence and "was built with CUDA" not in evidence


def test_a_build_that_may_run_beside_one_that_fails_is_undecided(matrix: Any) -> None:
    """Driver 580 runs both builds; cu118 cannot reach sm_120, cu123's kernels for it are
    not known: which is installed decides, so a warning, not an error."""
    snap = _paddle_snapshot("580.65.06", "NVIDIA GeForce RTX 5090", "12.0")
    found = {f.id: f.severity.value for f in diagnose(snap, matrix).findings}
    assert found.get("build-undecided") == "warning"
    assert "gpu-arch-unsupported" not in found


def test_an_undecided_variant_built_for_two_platforms_names_them(matrix: Any) -> None:
    """Platform not shown: onnxruntime-gpu 1.23.0's cu12 wheel for Linux (no sm_120) and
    for Windows (its archs not read) carry one label; the evidence tells them apart."""
    from envcheck.explain import explain

    message = (
        "| NVIDIA-SMI 580.65.06   Driver Version: 580.65.06   CUDA Version: 13.0 |\n"
        "I have a NVIDIA GeForce RTX 5090\n"
        "Successfully installed onnxruntime-gpu-1.23.0\n"
    )
    found = next(f for f in explain(message, None, matrix).findings if f.id == "build-undecided")
    evidence = "\n".join(found.evidence)
    assert "(cu12) for windows-x86_64" in evidence and "(cu12) for linux-x86_64" in evidence
