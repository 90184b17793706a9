"""Platform limits: macOS, releases without a GPU build for the platform (native
Windows TensorFlow after 2.10, JAX), WSL 1 and WSL2 driver placement."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Optional

from envcheck.model.finding import Category, Finding, Severity

if TYPE_CHECKING:
    from envcheck.compat.judge import Reason
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Framework, Snapshot

MACOS_NO_CUDA = "macos-no-cuda"
NO_GPU_BUILD_HERE = "no-gpu-build-for-platform"
WSL_LINUX_DRIVER = "wsl-linux-driver-installed"
WSL_NO_DRIVER = "wsl-no-windows-driver"
WSL1_NO_GPU = "wsl1-no-gpu"


def check_platform(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    p = snapshot.platform
    if p.os == "darwin":
        cuda_fws = [f for f in snapshot.frameworks if f.cuda_version]
        yield Finding(
            MACOS_NO_CUDA,
            Category.PLATFORM_UNSUPPORTED,
            Severity.ERROR if cuda_fws else Severity.INFO,
            "macOS has no NVIDIA CUDA support",
            evidence=("platform.os = darwin", *(f"{f.name} expects CUDA" for f in cuda_fws)),
            fix="Use Apple's Metal backends (PyTorch 'mps', tensorflow-metal, jax-metal), "
            "or a Linux machine with an NVIDIA GPU.",
        )
    if p.os == "windows":
        yield from _no_gpu_build_here(snapshot, matrix)
    if p.wsl:
        yield from _wsl(snapshot)


def _wsl(snapshot: Snapshot) -> Iterator[Finding]:
    from envcheck.compat.access import WSL1, WSL_NO_DXG, access_reasons

    p = snapshot.platform
    reasons = {r.code: r for r in access_reasons(p)}
    wsl1 = reasons.get(WSL1)
    if wsl1 is not None:
        # WSL 1 translates Linux calls without a Linux kernel: no GPU, whatever is installed.
        yield Finding(
            WSL1_NO_GPU,
            Category.PLATFORM_UNSUPPORTED,
            Severity.ERROR,
            "This distribution runs under WSL 1, which has no GPU access",
            evidence=("platform.wsl_version = 1", f"platform.kernel = {p.kernel}"),
            fix="Convert the distribution to WSL 2 from Windows: `wsl --set-version <distro> 2` "
            "(list them with `wsl -l -v`), with a current NVIDIA driver installed on Windows.",
            sources=wsl1.sources,
            reason=wsl1.code,
        )
        return
    linux_driver_libs = [
        lib
        for lib in snapshot.libraries
        if lib.name in ("libcuda", "nvidia-ml", "cuda")
        and lib.path
        and not lib.path.startswith("/usr/lib/wsl")
    ]
    if snapshot.driver.kernel_module_version or linux_driver_libs:
        yield Finding(
            WSL_LINUX_DRIVER,
            Category.PLATFORM_UNSUPPORTED,
            Severity.ERROR,
            "A Linux NVIDIA driver is installed inside WSL2",
            evidence=(
                *(
                    (f"kernel module {snapshot.driver.kernel_module_version}",)
                    if snapshot.driver.kernel_module_version
                    else ()
                ),
                *(f"{lib.name} at {lib.path}" for lib in linux_driver_libs),
            ),
            fix="Under WSL2 the driver comes from Windows (/usr/lib/wsl/lib). Remove "
            "the Linux driver packages inside WSL (e.g. sudo apt purge 'nvidia-driver-*' "
            "'libnvidia-*') and install only the Windows NVIDIA driver.",
            sources=("https://docs.nvidia.com/cuda/wsl-user-guide/index.html",),
        )
    elif snapshot.driver.version is None or WSL_NO_DXG in reasons:
        yield Finding(
            WSL_NO_DRIVER,
            Category.NO_DRIVER,
            Severity.ERROR,
            "WSL2 sees no NVIDIA driver",
            evidence=(
                "platform.wsl = true",
                f"driver.version = {snapshot.driver.version or 'unknown'}",
                *(("/dev/dxg is missing",) if WSL_NO_DXG in reasons else ()),
            ),
            fix="Install or update the NVIDIA driver on Windows (not inside WSL), then "
            "run `wsl --shutdown` and reopen the distribution.",
            sources=("https://docs.nvidia.com/cuda/wsl-user-guide/index.html",),
        )


def no_gpu_build_reason(fw: Framework, snapshot: Snapshot, matrix: Matrix) -> Optional[Reason]:
    """The judge's reason when ``fw``'s release has no GPU build for this platform."""
    from envcheck.compat.platform import gpu_platform_reason
    from envcheck.rules._facts import target_of

    platform = target_of(snapshot, matrix).platform
    if not (fw.name and fw.version and platform) or fw.name == "keras":
        return None
    return gpu_platform_reason(matrix, fw.name, fw.version, platform, fw.package)


def _no_gpu_build_here(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    for fw in snapshot.frameworks:
        reason = no_gpu_build_reason(fw, snapshot, matrix)
        if reason is None:
            continue
        yield Finding(
            NO_GPU_BUILD_HERE,
            Category.PLATFORM_UNSUPPORTED,
            Severity.ERROR if snapshot.gpus else Severity.WARNING,
            reason.message,
            evidence=(f"platform.os = {snapshot.platform.os}", f"{fw.name} {fw.version}"),
            fix=_wsl_or_native_fix(fw, snapshot, matrix),
            sources=reason.sources,
            framework=fw.name,
            reason=reason.code,
        )


def _wsl_or_native_fix(fw: Framework, snapshot: Snapshot, matrix: Matrix) -> str:
    """Use WSL2, or the resolver's plan for the newest release with native Windows GPU
    builds on this target (with the CUDA/cuDNN its wheel loads from PATH)."""
    from envcheck.rules._facts import target_of
    from envcheck.rules._fix import plan_fix

    name = fw.name or ""
    native = plan_fix([name], target_of(snapshot, matrix), snapshot, matrix, fw.package or name)
    wsl = f"Use WSL2 (`envcheck plan {name} --os wsl` gives the commands there)"
    if native:
        return f"{wsl}, or stay on native Windows with the newest GPU release:\n  {native}"
    return wsl + "."
