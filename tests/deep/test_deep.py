"""--deep: child output parsing, judging results, and the real child script."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from envcheck.deep import (
    DEEP_FAILED,
    DEEP_TIMEOUT,
    H2D_BANDWIDTH_LOW,
    NO_ACCELERATION,
    SMOKE_SCRIPT,
    deep_findings,
    parse_smoke_output,
    run_deep,
)
from envcheck.detect.system import CommandResult, run_command
from envcheck.matrix import Matrix
from envcheck.model.snapshot import Framework, Gpu, Snapshot

GOOD = {
    "framework": "torch",
    "ok": True,
    "checks": [
        {"name": "cuda_available", "ok": True, "detail": "torch.cuda.is_available()"},
        {"name": "acceleration", "ok": True, "detail": "training step 2.1 ms vs 80 ms (38x)"},
    ],
    "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "capability": "9.0"}],
    "metrics": {"h2d_gbps": 52.3, "train_step_speedup": 38.1},
    "seconds": 4.2,
}


def result(stdout: str = "", returncode: int = 0, **kw: object) -> CommandResult:
    return CommandResult(returncode, stdout, str(kw.pop("stderr", "")), **kw)  # type: ignore[arg-type]


def snap_with(gpus: Sequence[Gpu] = ()) -> Snapshot:
    return Snapshot(gpus=tuple(gpus), frameworks=(Framework(name="torch", version="2.5.1"),))


def test_parse_good_output_takes_last_json_line() -> None:
    out = "some framework chatter\n{not json\n" + json.dumps(GOOD) + "\n"
    r = parse_smoke_output("torch", result(out))
    assert r.ok
    assert r.metrics["h2d_gbps"] == 52.3
    assert r.devices[0]["capability"] == "9.0"
    assert "38x" in r.summary


def test_parse_segfault() -> None:
    r = parse_smoke_output("torch", result("", returncode=-11, stderr="Segmentation fault"))
    assert not r.ok
    assert r.error == "crashed with signal 11"
    assert "Segmentation fault" in r.output_tail


def test_parse_timeout() -> None:
    r = parse_smoke_output("jax", CommandResult(None, timed_out=True, error="timed out after 5s"))
    assert r.timed_out and not r.ok


def test_parse_garbage_and_missing_interpreter() -> None:
    assert parse_smoke_output("torch", result("\x00garbage")).error == (
        "exited with status 0 without a result"
    )
    missing = CommandResult(None, error="not found")
    assert parse_smoke_output("torch", missing).error == "not found"


def test_findings_for_failed_timed_out_and_slow(mini_matrix: Matrix) -> None:
    failed = {
        **GOOD,
        "ok": False,
        "checks": [{"name": "cuda_available", "ok": False, "detail": "torch.cuda.is_available()"}],
    }
    slow = {
        **GOOD,
        "ok": False,
        "checks": [{"name": "acceleration", "ok": False, "detail": "1.1x"}],
        "metrics": {"h2d_gbps": 3.0},
    }
    results = [
        parse_smoke_output("torch", result(json.dumps(failed))),
        parse_smoke_output("jax", CommandResult(None, timed_out=True)),
        parse_smoke_output("cupy", result(json.dumps(slow))),
    ]
    gpu = Gpu(index=0, name="H100", pcie_generation=5, pcie_width=16)
    ids = [f.id for f in deep_findings(results, snap_with([gpu]), mini_matrix)]
    assert ids == [DEEP_FAILED, DEEP_TIMEOUT, NO_ACCELERATION, H2D_BANDWIDTH_LOW]


def test_good_result_gives_no_findings(mini_matrix: Matrix) -> None:
    r = parse_smoke_output("torch", result(json.dumps(GOOD)))
    gpu = Gpu(index=0, name="H100", pcie_generation=5, pcie_width=16)
    assert deep_findings([r], snap_with([gpu]), mini_matrix) == ()


def test_run_deep_runs_one_child_per_framework() -> None:
    calls: list[tuple[str, ...]] = []

    def fake(argv: Sequence[str], timeout: float) -> CommandResult:
        calls.append(tuple(argv))
        assert timeout == 42
        return result(json.dumps({**GOOD, "framework": argv[-1]}))

    snap = Snapshot(
        frameworks=(
            Framework(name="torch"),
            Framework(name="keras"),
            Framework(name="jax"),
            Framework(name="torch"),
        )
    )
    started: list[str] = []
    out = run_deep(snap, python="/env/bin/python", timeout=42, on_start=started.append, runner=fake)
    assert [r.framework for r in out] == ["torch", "jax"]
    assert started == ["torch", "jax"]
    assert calls[0] == ("/env/bin/python", "-I", str(SMOKE_SCRIPT), "torch")


@pytest.mark.real_machine
def test_real_child_reports_a_missing_framework_as_a_result() -> None:
    """The script runs under a real interpreter and turns ImportError into JSON."""
    outcome = run_command((sys.executable, "-I", str(SMOKE_SCRIPT), "paddle"), timeout=60)
    r = parse_smoke_output("paddle", outcome)
    assert not r.ok
    assert r.error is not None and r.error.startswith(("ModuleNotFoundError", "ImportError"))


def test_cpu_only_builds_are_skipped_not_failed(mini_matrix: Matrix) -> None:
    def never(argv: Sequence[str], timeout: float) -> CommandResult:
        raise AssertionError("a CPU-only build must not be smoke-tested")

    snap = Snapshot(frameworks=(Framework(name="torch", version="2.13.0+cpu", cpu_only=True),))
    (r,) = run_deep(snap, runner=never)
    assert r.skipped == "CPU-only build"
    assert r.to_json()["skipped"] == "CPU-only build"
    assert deep_findings([r], snap, mini_matrix) == ()


def test_device_bandwidth_compared_with_the_datasheet(mini_matrix: Matrix) -> None:
    import dataclasses

    h100 = next(g for g in mini_matrix.gpus if g.name == "H100")
    matrix = dataclasses.replace(
        mini_matrix, gpus=(dataclasses.replace(h100, memory_bandwidth_gbs=3350.0),)
    )
    snap = snap_with([Gpu(index=0, name="NVIDIA H100 80GB HBM3")])
    slow = parse_smoke_output("torch", result(json.dumps({**GOOD, "metrics": {"d2d_gbps": 900.0}})))
    fast = parse_smoke_output(
        "torch", result(json.dumps({**GOOD, "metrics": {"d2d_gbps": 2800.0}}))
    )
    assert [f.id for f in deep_findings([slow], snap, matrix)] == ["deep-device-bandwidth-low"]
    assert deep_findings([fast], snap, matrix) == ()
    # No datasheet figure in the matrix: nothing to compare, no finding.
    unknown = dataclasses.replace(
        mini_matrix, gpus=(dataclasses.replace(h100, memory_bandwidth_gbs=None),)
    )
    assert deep_findings([slow], snap, unknown) == ()


def test_device_bandwidth_from_nvml_bus_width_and_clock(mini_matrix: Matrix) -> None:
    from envcheck.deep import peak_memory_bandwidth_gbs

    # RTX 4090 as NVML reports it: 384-bit bus, 10501 MHz max memory clock.
    assert round(peak_memory_bandwidth_gbs(384, 10501)) == 1008
    gpu = Gpu(index=0, name="Mystery GPU", memory_bus_width=384, memory_clock_max_mhz=10501)
    snap = snap_with([gpu])
    slow = parse_smoke_output("torch", result(json.dumps({**GOOD, "metrics": {"d2d_gbps": 300.0}})))
    ok = parse_smoke_output("torch", result(json.dumps({**GOOD, "metrics": {"d2d_gbps": 850.0}})))
    (finding,) = deep_findings([slow], snap, mini_matrix)
    assert finding.id == "deep-device-bandwidth-low"
    assert "1008 GB/s" in finding.title
    assert deep_findings([ok], snap, mini_matrix) == ()


# A stand-in for tensorflow-gpu 1.14 in graph mode (the case envcheck was born from:
# tf.test.gpu_device_name() and a GPU-vs-CPU timing), with a GPU that is 40 times
# faster than the CPU. Each op keeps the device it was placed on, so the timing
# only comes out right if the CPU side really ran on the CPU.
_FAKE_TF1 = """
import time
__version__ = "1.14.0"
_where = ["/cpu:0"]

class _Device:
    def __init__(self, name): self.name = name
    def __enter__(self): _where.append(self.name)
    def __exit__(self, *a): _where.pop()

class _Op:
    def __init__(self, n, cost):
        self.n, self.cost, self.device = n, cost, _where[-1]

def device(name): return _Device(name)
def random_normal(shape): return _Op(shape[0], 0)
def Variable(op): return op
def matmul(a, b): return _Op(a.n, a.n ** 3)
def reduce_sum(op): return op
def global_variables_initializer(): return _Op(0, 0)
def ConfigProto(**kw): return kw

class _Out:
    shape = (512, 512)

class Session:
    def __init__(self, config=None): pass
    def __enter__(self): return self
    def __exit__(self, *a): pass
    def run(self, op):
        per_flop = 1e-12 if "gpu" in op.device else 40e-12
        time.sleep(op.cost * per_flop)
        return _Out()

class test:
    @staticmethod
    def gpu_device_name(): return "/device:GPU:0"
"""

_FAKE_DEVICE_LIB = """
class _D:
    def __init__(self, t): self.device_type = t
def list_local_devices(): return [_D("CPU"), _D("GPU")]
"""


@pytest.mark.real_machine
def test_tensorflow_1_graph_mode_smoke_test_checks_device_name_and_timing(tmp_path: Path) -> None:
    import subprocess

    pkg = tmp_path / "tensorflow"
    (pkg / "python" / "client").mkdir(parents=True)
    (pkg / "__init__.py").write_text(_FAKE_TF1)
    (pkg / "python" / "__init__.py").write_text("")
    (pkg / "python" / "client" / "__init__.py").write_text("")
    (pkg / "python" / "client" / "device_lib.py").write_text(_FAKE_DEVICE_LIB)
    done = subprocess.run(
        [sys.executable, str(SMOKE_SCRIPT), "tensorflow"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    r = parse_smoke_output("tensorflow", CommandResult(done.returncode, done.stdout, done.stderr))
    assert r.ok, (r.error, done.stderr[-2000:])
    checks = {c["name"]: c for c in r.checks}
    assert checks["gpu_device_name"]["detail"] == "tf.test.gpu_device_name() = '/device:GPU:0'"
    assert checks["matmul"]["ok"]
    assert "on GPU vs" in checks["acceleration"]["detail"]
    # 2048^3 multiply-adds at 1e-12 s vs 40e-12 s each: the CPU side ran on the CPU.
    assert 20 < r.metrics["matmul_speedup"] < 60
