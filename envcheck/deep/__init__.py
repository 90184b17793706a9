"""``doctor --deep``: GPU smoke tests in child processes of the target interpreter.

Each framework runs in its own child (a crash or a hang inside the driver only
takes that child down) with a time limit, as conda runs ``cuInit`` in a spawned
process. Results come back as JSON and are judged here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from envcheck.detect.python_env import TOO_OLD_PREFIX
from envcheck.model.finding import Category, Finding, Severity

if TYPE_CHECKING:
    from envcheck.detect.system import CommandResult
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

SMOKE_SCRIPT = Path(__file__).with_name("_smoke.py")
DEEP_FRAMEWORKS = ("torch", "tensorflow", "jax", "cupy", "onnxruntime", "paddle")

DEEP_FAILED = "deep-smoke-failed"
DEEP_TIMEOUT = "deep-timeout"
NO_ACCELERATION = "deep-no-acceleration"
H2D_BANDWIDTH_LOW = "deep-h2d-bandwidth-low"
DEVICE_BANDWIDTH_LOW = "deep-device-bandwidth-low"

# Usable PCIe bandwidth per lane and direction in GB/s after line encoding
# (8b/10b for Gen1-2, 128b/130b for Gen3-5, FLIT for Gen6), from the PCI-SIG
# specification summaries (https://pcisig.com/specifications).
PCIE_LANE_GBPS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


@dataclass(frozen=True)
class DeepResult:
    framework: str
    ok: bool
    checks: tuple[Mapping[str, Any], ...] = ()
    metrics: Mapping[str, Any] = field(default_factory=dict)
    devices: tuple[Mapping[str, Any], ...] = ()
    error: Optional[str] = None
    output_tail: str = ""
    timed_out: bool = False
    seconds: Optional[float] = None
    skipped: Optional[str] = None
    """Why the smoke test did not run (e.g. a CPU-only build)."""

    @property
    def stderr_tail(self) -> Optional[str]:
        """The end of a failed child's stderr (its traceback first, when it sent
        one) as the report shows it; None for a run that passed or was skipped."""
        if self.ok or self.skipped or not self.output_tail.strip():
            return None
        from envcheck.detect.system import output_tail

        return output_tail(self.output_tail)

    @property
    def summary(self) -> str:
        if self.skipped:
            return f"skipped: {self.skipped}"
        if self.timed_out:
            return "timed out"
        if self.error:
            return self.error.splitlines()[0][:200]
        done = [c.get("detail") or c.get("name") for c in self.checks if c.get("ok")]
        failed = [c.get("name") for c in self.checks if not c.get("ok")]
        if failed:
            return "failed: " + ", ".join(str(f) for f in failed)
        return "; ".join(str(d) for d in done[-3:])

    def to_json(self) -> dict[str, Any]:
        return {
            "framework": self.framework,
            "ok": self.ok,
            "summary": self.summary,
            "checks": [dict(c) for c in self.checks],
            "metrics": dict(self.metrics),
            "devices": [dict(d) for d in self.devices],
            "error": self.error,
            "timed_out": self.timed_out,
            "seconds": self.seconds,
            "skipped": self.skipped,
            "stderr_tail": self.stderr_tail,
        }


def parse_smoke_output(framework: str, result: CommandResult) -> DeepResult:
    """Turn a child's output into a DeepResult; never raises."""
    tail = (result.stderr or "")[-4000:]
    if result.timed_out:
        return DeepResult(framework, False, error="timed out", output_tail=tail, timed_out=True)
    data: Any = None
    for line in reversed((result.stdout or "").splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                data = json.loads(line)
            except ValueError:
                data = None
            break
    if not isinstance(data, dict):
        if result.returncode is not None and result.returncode < 0:
            why = f"crashed with signal {-result.returncode}"
        elif result.error:
            why = result.error
        else:
            why = f"exited with status {result.returncode} without a result"
            last = _last_line(tail)
            if last.startswith(TOO_OLD_PREFIX):
                why = last  # the script's own refusal of Python < 3.6
            elif last:
                why += f": {last[:200]}"
        return DeepResult(framework, False, error=why, output_tail=tail)
    checks = tuple(c for c in data.get("checks", []) if isinstance(c, dict))
    raw_metrics = data.get("metrics")
    metrics: dict[str, Any] = raw_metrics if isinstance(raw_metrics, dict) else {}
    error = data.get("error")
    if error and data.get("traceback"):
        tail = str(data["traceback"]) + "\n" + tail
    return DeepResult(
        framework=framework,
        ok=bool(data.get("ok")) and result.returncode == 0,
        checks=checks,
        metrics=metrics,
        devices=tuple(d for d in data.get("devices", []) if isinstance(d, dict)),
        error=str(error) if error else None,
        output_tail=tail,
        seconds=data.get("seconds") if isinstance(data.get("seconds"), (int, float)) else None,
    )


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run_deep(
    snapshot: Snapshot,
    python: Optional[str] = None,
    timeout: float = 180.0,
    on_start: Optional[Callable[[str], None]] = None,
    runner: Optional[Callable[[Sequence[str], float], CommandResult]] = None,
) -> tuple[DeepResult, ...]:
    """Run the smoke test of every installed framework; one child each."""
    from envcheck.detect.system import run_command

    run = runner or run_command
    exe = python or sys.executable
    names = []
    results = []
    for fw in snapshot.frameworks:
        if fw.name not in DEEP_FRAMEWORKS or fw.name in names:
            continue
        names.append(fw.name)
        if fw.cpu_only:
            # Nothing to prove on the GPU; the cpu-only-build rule judges this build.
            results.append(DeepResult(fw.name, True, skipped="CPU-only build"))
    for name in names:
        if any(r.framework == name for r in results):
            continue
        if on_start is not None:
            on_start(name)
        outcome = run((exe, "-I", str(SMOKE_SCRIPT), name), timeout)
        results.append(parse_smoke_output(name, outcome))
    return tuple(results)


def _expected_h2d(snapshot: Snapshot) -> Optional[float]:
    for g in snapshot.gpus[:1]:
        gen = g.pcie_max_generation or g.pcie_generation
        width = g.pcie_max_width or g.pcie_width
        if gen in PCIE_LANE_GBPS and width:
            return PCIE_LANE_GBPS[gen] * width
    return None


# Peak memory bandwidth from the interface width and the memory clock, as the
# CUDA samples' deviceQuery/bandwidthTest compute it: 2 transfers per clock
# (double data rate) x clock x bus width in bytes
# (https://github.com/NVIDIA/cuda-samples, Samples/1_Utilities/deviceQuery).
BANDWIDTH_FORMULA = (
    "https://github.com/NVIDIA/cuda-samples/tree/master/Samples/1_Utilities/deviceQuery"
)


def peak_memory_bandwidth_gbs(bus_width_bits: int, memory_clock_mhz: int) -> float:
    return 2.0 * memory_clock_mhz * 1e6 * (bus_width_bits / 8) / 1e9


def _expected_device_bandwidth(snapshot: Snapshot, matrix: Matrix) -> Optional[tuple[float, str]]:
    """(peak GB/s, source) of the first GPU: the matrix's datasheet figure, else
    what its NVML memory bus width and clock give; None when neither is known."""
    for g in snapshot.gpus[:1]:
        model = matrix.gpu(g.name) if g.name else None
        if model is not None and model.memory_bandwidth_gbs:
            return model.memory_bandwidth_gbs, model.origin.cite()
        if g.memory_bus_width and g.memory_clock_max_mhz:
            peak = peak_memory_bandwidth_gbs(g.memory_bus_width, g.memory_clock_max_mhz)
            return peak, BANDWIDTH_FORMULA
    return None


def deep_findings(
    results: Sequence[DeepResult], snapshot: Snapshot, matrix: Matrix
) -> tuple[Finding, ...]:
    """Judge smoke-test results; failures are matched against known error signatures."""
    out: list[Finding] = []
    for r in results:
        if r.timed_out:
            out.append(
                Finding(
                    DEEP_TIMEOUT,
                    Category.OTHER,
                    Severity.ERROR,
                    f"{r.framework} GPU smoke test did not finish in time",
                    evidence=(f"{r.framework}: timed out",),
                    fix="A hang in device initialisation usually means a driver problem; "
                    "check `nvidia-smi` and `dmesg` for Xid errors.",
                )
            )
            continue
        if not r.ok:
            failed = [c for c in r.checks if not c.get("ok")]
            evidence = [f"{c.get('name')}: {c.get('detail')}" for c in failed]
            if r.error:
                evidence.append(r.error.splitlines()[0][:300])
            out.extend(_explained(r, snapshot, matrix))
            only_accel = failed and all(c.get("name") == "acceleration" for c in failed)
            if only_accel and not r.error:
                out.append(
                    Finding(
                        NO_ACCELERATION,
                        Category.OTHER,
                        Severity.WARNING,
                        f"{r.framework}: the GPU was not faster than the CPU on the same "
                        "small workload",
                        evidence=tuple(evidence),
                        fix="Check that the GPU is not shared or throttled "
                        "(nvidia-smi -q -d PERFORMANCE) and that work really runs on it.",
                    )
                )
            else:
                out.append(
                    Finding(
                        DEEP_FAILED,
                        Category.OTHER,
                        Severity.ERROR,
                        f"{r.framework} cannot use the GPU (smoke test failed)",
                        evidence=tuple(evidence) or (r.summary,),
                        fix="The evidence above shows how the test failed; rerun with --json"
                        " for the full output.",
                    )
                )
        h2d = r.metrics.get("h2d_gbps")
        expected = _expected_h2d(snapshot)
        if isinstance(h2d, (int, float)) and expected and h2d < 0.5 * expected:
            out.append(
                Finding(
                    H2D_BANDWIDTH_LOW,
                    Category.CAPABILITY,
                    Severity.WARNING,
                    f"Host-to-device bandwidth {h2d:.1f} GB/s is under half of what the "
                    f"PCIe link allows ({expected:.1f} GB/s)",
                    evidence=(f"{r.framework}: h2d {h2d} GB/s (pinned memory)",),
                    fix="Check the slot's lane width and generation, NUMA placement "
                    "(numactl), and IOMMU settings.",
                )
            )
        d2d = r.metrics.get("d2d_gbps")
        spec = _expected_device_bandwidth(snapshot, matrix)
        if isinstance(d2d, (int, float)) and spec and d2d < 0.5 * spec[0]:
            out.append(
                Finding(
                    DEVICE_BANDWIDTH_LOW,
                    Category.CAPABILITY,
                    Severity.WARNING,
                    f"Device memory bandwidth {d2d:.0f} GB/s is under half of the GPU's "
                    f"{spec[0]:.0f} GB/s",
                    evidence=(f"{r.framework}: device-to-device copy {d2d} GB/s",),
                    fix="Check clocks and throttling (nvidia-smi -q -d CLOCK,PERFORMANCE), "
                    "other processes on the GPU, and ECC/memory errors.",
                    sources=(spec[1],),
                )
            )
    return tuple(out)


def _explained(r: DeepResult, snapshot: Snapshot, matrix: Matrix) -> list[Finding]:
    text = "\n".join(x for x in (r.error or "", r.output_tail) if x)
    if not text.strip():
        return []
    try:
        from envcheck.explain import explain_findings
    except ImportError:  # pragma: no cover - explain ships with envcheck
        return []
    try:
        return list(explain_findings(text, snapshot, matrix))
    except Exception:  # noqa: BLE001 - explaining must never break the doctor
        return []
