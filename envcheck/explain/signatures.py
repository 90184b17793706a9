"""Known CUDA / cuDNN / driver / NVML error signatures: data, not code.

Each row names one error message family, the frameworks that print it, what it
usually means and what to do. ``source`` points at a public issue where users
hit exactly this text (or an official page describing it), so a reviewer can
check the reading; ``emitted_by`` names the file whose text the pattern mirrors
(``owner/repo:path@commit``). Titles, causes and fixes are ours.

Rows are matched line by line with ``re.search`` (case-sensitive unless the
pattern says otherwise). A row may ``supersede`` more generic rows: when both
match the same line, only the specific one is reported.

Named groups are facts the explainer uses to build a concrete root cause:
``sm`` (a GPU architecture), ``lib`` (a shared library), ``major`` (its major
version), ``loaded``/``compiled`` (cuDNN versions), ``found``/``built``
(versions JAX or PyTorch compares), ``code`` (an error code name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from re import Pattern

from envcheck.model.finding import Category, Severity

# Which root-cause analysis applies to a signature (see envcheck.explain.core).
DRIVER = "driver"
ARCH = "arch"
CPU_BUILD = "cpu_build"
CUDNN = "cudnn"
CUDA_LIB = "cuda_lib"
NVML = "nvml"
NO_DRIVER = "no_driver"
NO_GPU = "no_gpu"
ENV_VAR = "env_var"
MEMORY = "memory"
BF16 = "bf16"
COMPANION = "companion"
CUDNN_HANDLE = "cudnn_handle"
NONE = ""
ANALYSES = (
    DRIVER, ARCH, CPU_BUILD, CUDNN, CUDA_LIB, NVML, NO_DRIVER, NO_GPU, ENV_VAR, MEMORY, BF16,
    COMPANION, CUDNN_HANDLE,
)  # fmt: skip
"""The analyses a row may name (``analysis``; NONE is written by leaving it out)."""

ALL_FRAMEWORKS = ("torch", "tensorflow", "jax", "onnxruntime", "cupy", "paddle")


@dataclass(frozen=True)
class Signature:
    """One recognisable error message and what it means."""

    id: str
    regex: str
    frameworks: tuple[str, ...]
    category: Category
    title: str
    cause: str
    fix: str
    source: str
    severity: Severity = Severity.ERROR
    analysis: str = NONE
    """Which snapshot facts explain it (DRIVER, ARCH, ...); empty for none."""
    supersedes: tuple[str, ...] = ()
    """Ids of more generic signatures this one hides on the same line."""
    emitted_by: str = ""
    """The source file that prints the message, ``owner/repo:path@commit`` (empty
    for rows written before this field; new rows name it)."""
    explains: tuple[str, ...] = ()
    """Ids of symptom signatures this cause produces: when both are in the text, this
    one is named first (a kernel-stated reason before the nvidia-smi failure it causes)."""
    pattern: Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pattern", re.compile(self.regex))


_FROM_REPORTS: tuple[Signature, ...] = (
    # -- driver too old for the CUDA runtime --------------------------------------
    Signature(
        id="cuda-driver-insufficient",
        regex=r"CUDA driver version is insufficient for CUDA runtime version"
        r"|cudaErrorInsufficientDriver|CUDA_ERROR_INSUFFICIENT_DRIVER",
        frameworks=ALL_FRAMEWORKS,
        category=Category.DRIVER_TOO_OLD,
        title="The NVIDIA driver is older than the CUDA runtime the program was built with",
        cause="Every CUDA runtime needs a minimum driver. The framework (or a library it "
        "bundles) ships a newer CUDA runtime than the installed driver supports, or no "
        "driver is loaded at all (containers without GPU access report the same code).",
        fix="Upgrade the NVIDIA driver to at least the version the runtime needs, or install "
        "a framework build made for a CUDA the driver supports (`envcheck plan` with the "
        "framework's name gives the command for this machine).",
        source="https://github.com/NVIDIA/nvidia-docker/issues/498",
        analysis=DRIVER,
    ),
    Signature(
        id="torch-driver-too-old",
        regex=r"(?i:NVIDIA driver on your system is too old)(?: \(found version (?P<found>\d+)\))?",
        frameworks=("torch",),
        category=Category.DRIVER_TOO_OLD,
        title="PyTorch found a driver older than its CUDA build needs",
        cause="PyTorch compares the CUDA version the driver supports (the number it prints, "
        "e.g. 11040 = CUDA 11.4) with the CUDA it was compiled for, and refuses the GPU.",
        fix="Upgrade the driver, or install the PyTorch build for a CUDA the driver supports (`envcheck plan torch` gives the command for this machine).",
        source="https://github.com/pytorch/pytorch/issues/112553",
        analysis=DRIVER,
        supersedes=("cudagetdevicecount-unexpected",),
    ),
    Signature(
        id="cuda-unsupported-ptx",
        regex=r"CUDA_ERROR_UNSUPPORTED_PTX_VERSION|cudaErrorUnsupportedPtxVersion"
        r"|the provided PTX was compiled with an unsupported toolchain",
        frameworks=ALL_FRAMEWORKS,
        category=Category.DRIVER_TOO_OLD,
        title="PTX code was generated by a newer CUDA than the driver can compile",
        cause="The driver JIT-compiles PTX, and it only understands PTX from CUDA releases up "
        "to its own version. Code built with a newer toolkit (or Triton's bundled ptxas) "
        "cannot be loaded by an older driver.",
        fix="Upgrade the NVIDIA driver to one that supports the CUDA version that produced the "
        "PTX, or rebuild with the toolkit that matches the driver.",
        source="https://github.com/NVIDIA/FasterTransformer/issues/551",
        analysis=DRIVER,
    ),
    # The NGC containers' entrypoint (triton-inference-server/server nvidia_entrypoint.sh at
    # b6d0fcd, the same check in every NGC framework image): the host driver is older
    # than the container's CUDA needs and forward compatibility could not make up for it.
    Signature(
        id="ngc-container-driver-too-old",
        regex=r"This container was built for NVIDIA Driver Release (?P<built>\d{3}(?:\.\d{1,3})?) "
        r"or later",
        frameworks=(),
        category=Category.DRIVER_TOO_OLD,
        title="The host's NVIDIA driver is older than the container's CUDA needs",
        cause="Each NGC container is built on one CUDA release and names the driver branch "
        "it needs; on an older host driver the compatibility package only helps data-center "
        "GPUs, so CUDA fails to start.",
        fix="Upgrade the host driver to the release the banner names, or use an older "
        "container release built for a CUDA the host driver supports.",
        source="https://github.com/NVIDIA/TensorRT-LLM/issues/23",
        analysis=DRIVER,
        explains=("cuda-no-device", "cuda-forward-compat-unsupported", "cuda-driver-insufficient"),
    ),
    # openxla/xla xla/service/gpu/nvptx_compiler.cc (the warning jaxlib 0.4.x prints from
    # external/xla): XLA compiles its kernels with a ptxas of a newer CUDA than the driver.
    Signature(
        id="xla-driver-older-than-ptxas",
        regex=r"The NVIDIA driver's CUDA version is (?P<found>\d{1,2}\.\d{1,2}) which is older "
        r"than the (?:ptxas CUDA|PTX compiler) version \((?P<built>\d{1,2}\.\d{1,2})",
        frameworks=("jax", "tensorflow"),
        category=Category.DRIVER_TOO_OLD,
        title="XLA compiles GPU kernels with a ptxas newer than the NVIDIA driver",
        cause="XLA turns its kernels into GPU code with the ptxas it finds (a CUDA toolkit or "
        "the nvidia-cuda-nvcc wheel); code from a newer ptxas than the driver's CUDA can "
        "fail to load ('no kernel image', unsupported PTX) or compile slowly.",
        fix="Upgrade the NVIDIA driver to one for the ptxas's CUDA, or put a ptxas of the "
        "driver's CUDA first on PATH.",
        source="https://github.com/jax-ml/jax/issues/19821",
        analysis=DRIVER,
        explains=("no-kernel-image", "cuda-unsupported-ptx", "jax-cuda-backend-failed"),
    ),
    Signature(
        id="cuda-call-requires-newer-driver",
        regex=r"cudaErrorCallRequiresNewerDriver|CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"
        r"|API call is not supported in the installed CUDA driver",
        frameworks=ALL_FRAMEWORKS,
        category=Category.DRIVER_TOO_OLD,
        title="A CUDA API call needs a newer driver than the one installed",
        cause="The program runs through CUDA minor-version compatibility on an older driver "
        "and calls an API that only newer drivers implement.",
        fix="Upgrade the NVIDIA driver to the branch that matches the CUDA runtime, or use a "
        "framework build for an older CUDA.",
        source="https://github.com/argonne-lcf/THAPI/issues/71",
        analysis=DRIVER,
    ),
    Signature(
        id="cuda-forward-compat-unsupported",
        regex=r"forward compatibility was attempted on non supported HW"
        r"|cudaErrorCompatNotSupportedOnDevice|CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"
        r"|[Ee]rror 804\b",
        frameworks=ALL_FRAMEWORKS,
        category=Category.DRIVER_TOO_OLD,
        title="CUDA forward compatibility was tried on a GPU that does not support it",
        cause="A cuda-compat libcuda (from a CUDA container image or the cuda-compat package) "
        "was loaded to run a newer CUDA on an older driver. Forward compatibility only works "
        "on data-center GPUs; on GeForce/RTX cards it fails. A driver upgraded without a "
        "reboot can produce the same error.",
        fix="Upgrade the host driver so no compat library is needed (or reboot after an "
        "upgrade); remove cuda-compat from LD_LIBRARY_PATH, or use an image built for a "
        "CUDA the host driver supports.",
        source="https://github.com/SYSTRAN/faster-whisper/issues/653",
        analysis=DRIVER,
        supersedes=("cudagetdevicecount-unexpected",),
    ),
    # -- no driver / no GPU -------------------------------------------------------
    Signature(
        id="no-nvidia-driver",
        regex=r"Found no NVIDIA driver on your system"
        r"|kernel driver does not appear to be running on this host",
        frameworks=("torch", "tensorflow"),
        category=Category.NO_DRIVER,
        title="No NVIDIA kernel driver is loaded",
        cause="The framework could not reach the NVIDIA kernel module: no driver installed, "
        "the module is not loaded (e.g. after a kernel update), or a container was started "
        "without GPU access.",
        fix="Check `nvidia-smi`. Install the NVIDIA driver (or reinstall it for the running "
        "kernel); in Docker start the container with `--gpus all` and the NVIDIA Container "
        "Toolkit.",
        source="https://github.com/facebookresearch/detectron2/issues/3105",
        analysis=NO_DRIVER,
    ),
    Signature(
        id="nvidia-smi-no-driver",
        regex=r"NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver",
        frameworks=(),
        category=Category.NO_DRIVER,
        title="nvidia-smi cannot talk to the NVIDIA kernel driver",
        cause="The user-space tools are installed but the kernel module is not loaded: often "
        "a kernel update without a DKMS rebuild, Secure Boot blocking the unsigned module, "
        "or nouveau holding the GPU.",
        fix="Reinstall the driver for the running kernel (e.g. `sudo apt install "
        "--reinstall nvidia-driver-<branch>` or `sudo dkms autoinstall`), check "
        "`dmesg | grep -i nvrm` and Secure Boot, then reboot.",
        source="https://github.com/NVIDIA/nvidia-docker/issues/988",
        analysis=NO_DRIVER,
    ),
    # -- the kernel module's own reasons ------------------------------------------
    # Printed by the resource manager of the NVIDIA driver (both kernel-module flavours)
    # when the GPU belongs to a legacy branch; the legacy table lives in the closed part
    # (nv-kernel.o_binary), the open tree's osapi.c prints the sibling texts below.
    Signature(
        id="nvrm-gpu-on-legacy-branch",
        regex=r"The NVIDIA (?P<gpu>[^\n]{1,80}?) GPU installed in this system(?: is|>)?\s{1,4}"
        r"supported through the NVIDIA (?P<branch>\d{2,3}(?:\.\d{1,3})?)\.xx Legacy drivers"
        r"(?:[^\n]{0,200}?The (?P<driver>\d{2,3}\.\d{1,3}(?:\.\d{1,3})?) NVIDIA driver will ignore)?",
        frameworks=(),
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="The installed driver branch no longer drives this GPU (a legacy branch does)",
        cause="NVIDIA moves older GPUs to a legacy driver branch; newer branches ignore them, "
        "so the module loads but drives no GPU and every CUDA program and nvidia-smi fail.",
        fix="Install the legacy branch the kernel names (e.g. nvidia-driver-470 or "
        "nvidiaPackages.legacy_580) and a CUDA/framework build that branch supports.",
        source="https://github.com/NixOS/nixos-hardware/issues/1880",
        explains=("nvidia-smi-no-driver", "no-nvidia-driver", "cuda-no-device"),
    ),
    # NVIDIA/open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osapi.c (595.45.04,
    # df1c9a3): a GPU without a GSP (before Turing) cannot be driven by the open module.
    Signature(
        id="nvrm-open-module-no-gsp",
        regex=r"installed in this (?:vGPU host )?system is not supported by\s{1,4}open\s{1,4}"
        r"nvidia\.ko(?: because it does not include the required GPU\s{1,4}System Processor)?",
        frameworks=(),
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="The open NVIDIA kernel module cannot drive this GPU (it has no GSP)",
        cause="The open kernel module runs the driver on the GPU System Processor, which "
        "only Turing and newer GPUs have; an older GPU is left without a driver.",
        fix="Install the proprietary kernel module of the same driver release (e.g. the "
        "non -open package, or `kernel` instead of `kernel-open`), or a legacy branch the "
        "GPU is supported by.",
        source="https://github.com/NVIDIA/open-gpu-kernel-modules/issues/696",
        explains=("nvidia-smi-no-driver", "no-nvidia-driver", "cuda-no-device"),
    ),
    # NVIDIA/open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c (515.43.04):
    # open modules before 545 refused GeForce/workstation GPUs without a module parameter.
    Signature(
        id="nvrm-open-module-datacenter-only",
        regex=r"Open nvidia\.ko is only ready for use on Data Center GPUs",
        frameworks=(),
        category=Category.NO_DRIVER,
        title="The open NVIDIA kernel module refused a non-data-center GPU",
        cause="Open kernel modules from 515 to 545 only initialise GeForce and workstation "
        "GPUs when NVreg_OpenRmEnableUnsupportedGpus=1 is set; without it no GPU is driven.",
        fix="Set `options nvidia NVreg_OpenRmEnableUnsupportedGpus=1` in /etc/modprobe.d, "
        "or install the proprietary module or a driver of 545 or later.",
        source="https://github.com/siderolabs/extensions/issues/114",
        explains=(
            "nvrm-rm-init-adapter-failed",
            "nvidia-smi-no-driver",
            "no-nvidia-driver",
            "cuda-no-device",
        ),
    ),
    # NVIDIA/open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c
    # ("RmInitAdapter failed! (0x%x:0x%x:%d)") and kernel-open/nvidia/nv.c
    # ("rm_init_adapter failed, device minor number %d"), 595.45.04.
    Signature(
        id="nvrm-rm-init-adapter-failed",
        regex=r"RmInitAdapter failed!? \((?P<code>0x[0-9a-fA-F]{1,8}:0x[0-9a-fA-F]{1,8}:\d{1,6})\)"
        r"|rm_init_adapter failed, device minor number",
        frameworks=(),
        category=Category.NO_DRIVER,
        title="The NVIDIA kernel module loaded but could not initialise the GPU",
        cause="The module is loaded, yet its resource manager failed to bring the GPU up "
        "(firmware, a GPU the module refuses, a platform it does not support, or a GPU "
        "fallen off the bus), so no GPU is usable.",
        fix="Read the NVRM lines just before this one in `sudo dmesg` (they usually say "
        "why); reinstall the driver for the running kernel and reboot.",
        source="https://github.com/NVIDIA/open-gpu-kernel-modules/issues/433",
        explains=("nvidia-smi-no-driver", "no-nvidia-driver", "cuda-no-device"),
    ),
    Signature(
        id="libcuda-missing",
        regex=r"(?P<lib>lib(?:cuda|nvidia-ml)\.so(?:\.1)?): cannot open shared object file"
        r"|Could not load dynamic library '(?P<lib2>libcuda\.so\.1)'"
        r"|Could not find cuda drivers on your machine"
        r"|Could not find '(?P<lib3>nvcuda\.dll)'",
        frameworks=ALL_FRAMEWORKS,
        category=Category.NO_DRIVER,
        title="The driver's user-space library (libcuda / libnvidia-ml) cannot be found",
        cause="libcuda.so.1 (nvcuda.dll on Windows) comes with the NVIDIA driver, not with CUDA "
        "or pip wheels. It is missing when no driver is installed, when a container runs "
        "without the NVIDIA runtime, or on WSL2 when /usr/lib/wsl/lib is not on the loader path.",
        fix="Install the NVIDIA driver (on WSL2: the Windows driver only) and make sure the "
        "container is started with `--gpus all`; on WSL2 check that /usr/lib/wsl/lib holds "
        "libcuda.so.1 and run `sudo ldconfig`.",
        source="https://github.com/ameli/manylinux-cuda/issues/5",
        analysis=NO_DRIVER,
        supersedes=("cuda-shared-library-missing",),
    ),
    Signature(
        id="cuda-no-device",
        regex=r"CUDA_ERROR_NO_DEVICE|cudaErrorNoDevice|no CUDA-capable device is detected",
        frameworks=ALL_FRAMEWORKS,
        category=Category.NO_GPU,
        title="CUDA sees no GPU",
        cause="The driver answered but reported zero devices: CUDA_VISIBLE_DEVICES hides "
        "them, the container has no GPU attached, the machine (or VM) has no NVIDIA GPU, or "
        "the GPU fell off the bus.",
        fix="Check `nvidia-smi -L` and `echo $CUDA_VISIBLE_DEVICES`; unset the variable or "
        "give valid indices; start containers with `--gpus all`.",
        source="https://github.com/tensorflow/tensorflow/issues/44869",
        analysis=NO_GPU,
    ),
    Signature(
        id="no-cuda-gpus-available",
        regex=r"No CUDA GPUs are available"
        r"|CUDA_VISIBLE_DEVICES[\"']?\]?\s*[=:]\s*(?:\"\"|''|[\"']?-1\b|NoDevFiles\b|$)",
        frameworks=("torch",),
        category=Category.ENV_VAR_HIDES_GPU,
        title="CUDA_VISIBLE_DEVICES (or the scheduler) hides every GPU",
        cause="PyTorch found CUDA but no visible device: CUDA_VISIBLE_DEVICES is empty, -1, "
        "or lists an index that does not exist on this machine (e.g. '1' on a one-GPU box).",
        fix="Unset CUDA_VISIBLE_DEVICES or set it to existing indices (`export "
        "CUDA_VISIBLE_DEVICES=0`); check scripts and job files that export it.",
        source="https://github.com/thuml/Time-Series-Library/issues/10",
        analysis=ENV_VAR,
        supersedes=("cuda-no-device",),
    ),
    Signature(
        id="cuda-devices-busy",
        regex=r"(?i:CUDA-capable devices?(?:\(s\))? (?:is/are|is|are) busy or unavailable)|cudaErrorDevicesUnavailable"
        r"|CUDA_ERROR_DEVICES_UNAVAILABLE",
        frameworks=ALL_FRAMEWORKS,
        category=Category.OTHER,
        title="Every GPU is busy or unavailable to this process",
        cause="The GPUs are in Exclusive-Process compute mode and already used by another "
        "process, or the GPU is in a bad state.",
        fix="Check `nvidia-smi` for the compute mode and other processes; set "
        "`nvidia-smi -c DEFAULT` (root) or wait for the other job.",
        source="https://github.com/microsoft/WSL/issues/5598",
    ),
    # -- cudaGetDeviceCount failures (torch) ---------------------------------------
    Signature(
        id="cudagetdevicecount-unexpected",
        regex=r"Unexpected error from cudaGetDeviceCount\(\)",
        frameworks=("torch",),
        category=Category.OTHER,
        title="CUDA initialisation failed inside PyTorch (cudaGetDeviceCount)",
        cause="PyTorch could not initialise CUDA and torch.cuda.is_available() returns False; "
        "the error number after 'Error' names the reason.",
        fix="Read the error number: 804 means forward compatibility on an unsupported GPU, "
        "802 a missing fabric manager, 803 a driver/library mismatch. Run `nvidia-smi` first.",
        source="https://github.com/hpcaitech/ColossalAI/issues/4381",
        analysis=DRIVER,
    ),
    Signature(
        id="cuda-system-not-initialized",
        regex=r"system not yet initialized|cudaErrorSystemNotReady|CUDA_ERROR_SYSTEM_NOT_READY"
        r"|[Ee]rror 802\b",
        frameworks=ALL_FRAMEWORKS,
        category=Category.OTHER,
        title="The GPU system is not ready (NVSwitch fabric manager not running)",
        cause="On NVSwitch systems (HGX/DGX A100, H100) CUDA waits for the fabric manager "
        "service; if it is not running or its version differs from the driver, every CUDA "
        "call fails with error 802.",
        fix="Install and start nvidia-fabricmanager of exactly the driver's version: "
        "`sudo systemctl enable --now nvidia-fabricmanager`.",
        source="https://github.com/haotian-liu/LLaVA/issues/683",
        supersedes=("cudagetdevicecount-unexpected",),
    ),
    Signature(
        id="torch-cuda-unknown-error",
        regex=r"CUDA unknown error - this may be due to an incorrectly set up environment",
        frameworks=("torch",),
        category=Category.NVML_MISMATCH,
        title="CUDA failed to initialise with an unknown error",
        cause="cuInit returned CUDA_ERROR_UNKNOWN: most often the driver was updated and the "
        "old kernel module is still loaded (no reboot), the nvidia_uvm module is not loaded "
        "(after suspend/resume), or the device nodes are not accessible.",
        fix="Reboot after a driver update; otherwise reload the UVM module (`sudo rmmod "
        "nvidia_uvm && sudo modprobe nvidia_uvm`) and check `nvidia-smi` works.",
        source="https://github.com/pytorch/pytorch/issues/49081",
        analysis=NVML,
        supersedes=("cudagetdevicecount-unexpected",),
    ),
    Signature(
        id="cuda-system-driver-mismatch",
        regex=r"system has unsupported display driver / cuda driver combination"
        r"|cudaErrorSystemDriverMismatch|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH|[Ee]rror 803\b",
        frameworks=ALL_FRAMEWORKS,
        category=Category.NVML_MISMATCH,
        title="The loaded libcuda does not match the kernel driver",
        cause="The user-space driver library (libcuda) and the kernel module come from "
        "different driver versions: a driver update without reboot, or a second libcuda "
        "(e.g. cuda-compat, or one copied into a container image) found first.",
        fix="Reboot after a driver update; remove stray libcuda.so copies and cuda-compat "
        "from LD_LIBRARY_PATH so the driver's own library is used.",
        source="https://github.com/deepspeedai/DeepSpeed/issues/5392",
        analysis=NVML,
        supersedes=("cudagetdevicecount-unexpected",),
    ),
    Signature(
        id="nvml-driver-library-mismatch",
        regex=r"(?i:Failed to initialize NVML: Driver/library version mismatch)"
        r"|(?i:driver/library version mismatch)",
        frameworks=(),
        category=Category.NVML_MISMATCH,
        title="NVIDIA kernel module and user-space libraries have different versions",
        cause="The driver packages were upgraded (often by unattended upgrades) while the old "
        "kernel module is still loaded, so NVML refuses to talk to it.",
        fix="Reboot. Without a reboot: stop every GPU process and reload the modules "
        "(`sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia`). "
        "Pin the driver packages to avoid surprise upgrades.",
        source="https://github.com/mozilla/translations/issues/1167",
        analysis=NVML,
    ),
    Signature(
        id="nvml-unknown-error",
        regex=r"Failed to initialize NVML: Unknown Error",
        frameworks=(),
        category=Category.CONTAINER_NO_GPU,
        title="The container lost access to the GPU device files",
        cause="NVML cannot open /dev/nvidia*. In containers whose cgroups systemd manages, a "
        "`systemctl daemon-reload` on the host (or an automatic reload) removes the "
        "container's device permissions; a GPU that worked at start then fails. Outside "
        "containers the same text means the user may not open the device files.",
        fix="Recreate the container; to stop it recurring, follow NVIDIA's workaround for "
        "your runtime (create the /dev/char symlinks with `nvidia-ctk system "
        "create-dev-char-symlinks`, or use the cgroupfs cgroup driver). Outside containers "
        "check the permissions of /dev/nvidia*.",
        source="https://github.com/NVIDIA/nvidia-docker/issues/1730",
    ),
    # -- GPU architecture ---------------------------------------------------------
    Signature(
        id="torch-gpu-arch-not-compatible",
        regex=r"with CUDA capability sm_(?P<sm>\d+) is not compatible with the current "
        r"PyTorch installation",
        frameworks=("torch",),
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="The installed PyTorch has no kernels for this GPU's architecture",
        cause="PyTorch wheels contain machine code for a fixed list of architectures. New "
        "GPUs (e.g. sm_120 Blackwell) need a build for a new enough CUDA; old ones (Kepler, "
        "Maxwell) were dropped from recent builds.",
        fix="Install a PyTorch build whose architecture list includes this GPU (`envcheck plan torch` gives the command for this machine).",
        source="https://github.com/pytorch/pytorch/issues/150733",
        analysis=ARCH,
    ),
    Signature(
        id="torch-gpu-too-old",
        regex=r"which is of cuda capability (?P<cc>\d+\.\d+)"
        r"|PyTorch no longer supports this GPU because it is too old"
        r"|Minimum and Maximum cuda capability supported by this version of PyTorch",
        frameworks=("torch",),
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="This PyTorch build does not support the GPU's compute capability",
        cause="PyTorch checks each GPU's compute capability against the range its build "
        "was compiled for and warns when the GPU is outside it (old GPUs dropped from recent "
        "builds, or new GPUs an older build predates).",
        fix="Install a PyTorch build whose architecture list includes this GPU: an older "
        "release for an old GPU, a newer CUDA build for a new one (`envcheck plan torch "
        "--gpu NAME`).",
        source="https://github.com/pytorch/pytorch/issues/6515",
        analysis=ARCH,
    ),
    Signature(
        id="no-kernel-image",
        regex=r"(?i:no kernel image is available)"
        r"|cudaErrorNoKernelImageForDevice|CUDA_ERROR_NO_BINARY_FOR_GPU",
        frameworks=ALL_FRAMEWORKS,
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="The code has no kernels compiled for this GPU",
        cause="The binary (framework wheel or a compiled extension) was built without this "
        "GPU's compute capability and without PTX the driver could compile for it.",
        fix="Install a build that includes this GPU's architecture, or rebuild the extension "
        "with TORCH_CUDA_ARCH_LIST / -gencode set for it.",
        source="https://github.com/NVIDIA/cuml/issues/2315",
        analysis=ARCH,
    ),
    Signature(
        id="ptxas-unknown-gpu-arch",
        regex=r"(?:ptxas fatal\s*: Value '|Value '(?=sm_\d+[a-z]?' is not defined for option)"
        r"|(?i:unsupported gpu architecture) ')(?P<sm>(?:sm|compute)_\d+[a-z]?)'",
        frameworks=("tensorflow", "jax", "torch"),
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="The CUDA compiler in use (ptxas or nvcc) is too old for this GPU architecture",
        cause="A CUDA toolkit older than the GPU (on PATH or CUDA_HOME, or bundled with "
        "Triton/XLA) does not know its architecture: nvcc refuses the -gencode an extension "
        "build asks for, ptxas the code TensorFlow/JAX/Triton generate (TensorFlow then "
        "falls back to slower driver compilation; Triton fails).",
        fix="Use a CUDA toolkit that supports the GPU (first on PATH / in CUDA_HOME, or the "
        "nvidia-cuda-nvcc wheel of the framework's CUDA), or build for an architecture the "
        "toolkit knows (TORCH_CUDA_ARCH_LIST / CMAKE_CUDA_ARCHITECTURES) and rely on PTX.",
        source="https://github.com/tensorflow/tensorflow/issues/45590",
        analysis=ARCH,
    ),
    # -- CPU-only builds ----------------------------------------------------------
    Signature(
        id="torch-not-compiled-with-cuda",
        regex=r"Torch not compiled with CUDA enabled",
        frameworks=("torch",),
        category=Category.CPU_ONLY_BUILD,
        title="The installed PyTorch is a CPU-only build",
        cause="pip or conda installed a CPU build of PyTorch (the default on Windows and "
        "macOS from PyPI, or a `+cpu` wheel), so `.cuda()` cannot work.",
        fix="Uninstall it and install a CUDA build for your driver (`envcheck plan torch` gives the command for this machine).",
        source="https://github.com/pytorch/pytorch/issues/28111",
        analysis=CPU_BUILD,
    ),
    Signature(
        id="jaxlib-without-cuda",
        regex=r"An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is "
        r"not installed",
        frameworks=("jax",),
        category=Category.CPU_ONLY_BUILD,
        title="JAX is running on the CPU: no CUDA plugin is installed",
        cause="Plain `pip install jax` installs the CPU jaxlib only; GPU support is a separate "
        "plugin (jax-cuda12-plugin).",
        fix="Install JAX's CUDA variant, the jax extra of your CUDA major (`envcheck plan jax` gives the command for this machine; Linux only).",
        source="https://github.com/jax-ml/jax/issues/29068",
        analysis=CPU_BUILD,
    ),
    Signature(
        id="onnxruntime-cuda-provider-missing",
        regex=r"Specified provider 'CUDAExecutionProvider' is not in available provider names",
        frameworks=("onnxruntime",),
        category=Category.CPU_ONLY_BUILD,
        title="onnxruntime has no CUDA execution provider (CPU package installed)",
        cause="The `onnxruntime` package is CPU-only; the CUDA provider ships in "
        "`onnxruntime-gpu`. With both installed, the CPU one can shadow the GPU one.",
        fix="Uninstall both onnxruntime and onnxruntime-gpu, then install the onnxruntime-gpu build for your CUDA and cuDNN (`envcheck plan onnxruntime-gpu` gives the command for this machine).",
        source="https://github.com/microsoft/Olive/issues/2085",
        analysis=CPU_BUILD,
    ),
    # -- missing CUDA libraries ---------------------------------------------------
    Signature(
        id="onnxruntime-cuda-provider-load-failed",
        regex=r"Failed to load library (?:\S*/)?libonnxruntime_providers_(?:cuda|tensorrt)\.so "
        r"with error: (?P<lib>[\w.+-]+\.so(?:\.[\d.]+)?)",
        frameworks=("onnxruntime",),
        category=Category.CUDA_RUNTIME_MISSING,
        title="onnxruntime-gpu cannot load its CUDA provider: a CUDA/cuDNN library is missing",
        cause="onnxruntime-gpu does not bundle CUDA or cuDNN; each release is built for one "
        "CUDA major and one cuDNN major and loads them from the system (or from nvidia-* "
        "wheels). A .so.11 name means a CUDA 11 build on a CUDA 12 system, and so on.",
        fix="Install the onnxruntime-gpu build for your CUDA major (see the ONNX Runtime CUDA "
        "requirements table), or install the matching nvidia-cublas/nvidia-cudnn wheels "
        "(importing torch first also preloads them).",
        source="https://github.com/microsoft/onnxruntime/issues/21684",
        analysis=CUDA_LIB,
        supersedes=("cuda-shared-library-missing", "onnxruntime-cuda-provider-create-failed"),
    ),
    Signature(
        id="onnxruntime-cuda-provider-create-failed",
        regex=r"Failed to create CUDAExecutionProvider",
        frameworks=("onnxruntime",),
        category=Category.CUDA_RUNTIME_MISSING,
        title="onnxruntime-gpu could not create the CUDA provider and fell back to the CPU",
        cause="The CUDA provider library loaded but one of its dependencies (CUDA, cuDNN) is "
        "missing or of the wrong major; the session silently runs on the CPU.",
        fix="Check the lines before this one for the missing library; install the CUDA and "
        "cuDNN majors your onnxruntime-gpu version requires.",
        source="https://github.com/PaddlePaddle/PaddleNLP/issues/8195",
        analysis=CUDA_LIB,
    ),
    Signature(
        id="onnxruntime-cuda-provider-dll-dependency",
        regex=r"(?i:LoadLibrary failed with error 126)"
        r"(?:(?!(?i:LoadLibrary failed with error 126))[^\n]){0,400}?onnxruntime_providers_cuda\.dll"
        r"|onnxruntime_providers_cuda\.dll(?:(?!onnxruntime_providers_cuda\.dll)[^\n]){0,400}?"
        r"(?i:LoadLibrary failed|error 126)",
        frameworks=("onnxruntime",),
        category=Category.CUDNN_MISMATCH,
        title="onnxruntime-gpu's CUDA provider DLL cannot load a cuDNN or CUDA DLL it needs",
        cause="Error 126 means a DLL the provider depends on is missing from the DLL search "
        "path. onnxruntime-gpu does not bundle cuDNN or CUDA: each release needs one cuDNN major "
        "and one CUDA major. cuDNN is the usual culprit on Windows: it is not added to PATH by "
        "an installer, and a cuDNN of the other major (or torch's bundled copy of it, loaded "
        "first) does not satisfy it.",
        fix="Install the CUDA and cuDNN majors your onnxruntime-gpu release was built for (`envcheck matrix show onnxruntime`; a toolkit of another CUDA major does not serve it) and add their bin directories to PATH, or the NVIDIA cuDNN wheel of that major and `import torch` (of a build with the same cuDNN major) before onnxruntime.",
        source="https://github.com/microsoft/onnxruntime/issues/11826",
        supersedes=("onnxruntime-cuda-provider-create-failed",),
    ),
    Signature(
        id="cupy-nvrtc-missing",
        regex=r"(?P<lib>libnvrtc(?:-builtins)?\.so(?:\.[\d.]+)?): cannot open shared object file"
        r"|failed to open libnvrtc-builtins|nvrtc: error: failed to load builtins",
        frameworks=("cupy",),
        category=Category.CUDA_RUNTIME_MISSING,
        title="NVRTC (CUDA's runtime compiler) cannot be loaded",
        cause="CuPy compiles kernels at run time with NVRTC. cupy-cudaXXx wheels do not "
        "bundle it; it comes from a CUDA toolkit or the nvidia-cuda-nvrtc wheel of the same "
        "CUDA major.",
        fix="Install NVIDIA's NVRTC wheel of the CUDA major your cupy-cudaXXx package names, or the CUDA toolkit with its lib64 on LD_LIBRARY_PATH.",
        source="https://github.com/NVIDIA/cuml/issues/7314",
        analysis=CUDA_LIB,
        supersedes=("cuda-shared-library-missing",),
    ),
    Signature(
        id="cupy-cuda-runtime-error",
        regex=r"cupy(?:_backends)?\.cuda\.(?:api\.)?runtime\.CUDARuntimeError: (?P<code>cuda\w+)",
        frameworks=("cupy",),
        category=Category.OTHER,
        title="CuPy got an error from the CUDA runtime",
        cause="CuPy reports the CUDA runtime's error name; the name says which problem it is "
        "(no device, insufficient driver, out of memory, ...).",
        fix="See the finding for the error name; check that the cupy-cudaXXx package matches "
        "the CUDA major the driver supports (`python -c 'import cupy; cupy.show_config()'`).",
        source="https://github.com/cupy/cupy/issues/2549",
        analysis=DRIVER,
    ),
    Signature(
        id="tf-dlopen-cuda-library",
        regex=r"Could not load dynamic library '(?P<lib>lib(?:cudart|cublas|cublasLt|cufft|"
        r"curand|cusolver|cusparse|nvinfer|nvinfer_plugin|nvrtc)\w{0,40}\.so(?:\.[\d.]+)?)'"
        r"|Could not (?:load dynamic library|find) '(?P<lib2>(?:cudart|cublas|cublasLt|cufft|curand|"
        r"cusolver|cusparse|nvrtc)64_\d+(?:_\d+)?\.dll)'",
        frameworks=("tensorflow",),
        category=Category.CUDA_RUNTIME_MISSING,
        title="TensorFlow cannot find a CUDA library of the version it was built for",
        cause="TensorFlow (before 2.14, or without the [and-cuda] extra) loads CUDA from the "
        "system by exact soname; the installed toolkit is missing or of another version.",
        fix="Install the CUDA libraries the TensorFlow release was built for where it loads them from (`envcheck doctor` or `envcheck plan tensorflow` gives the commands for this machine: the and-cuda extra where the release has one, else the exact CUDA it was tested with on LD_LIBRARY_PATH, or on PATH on Windows).",
        source="https://github.com/tensorflow/tensorflow/issues/60854",
        analysis=CUDA_LIB,
    ),
    Signature(
        id="tf-dlopen-cudnn",
        regex=r"Could not load dynamic library '(?P<lib>libcudnn\w{0,40}\.so\.(?P<major>\d+))'"
        r"|Could not load dynamic library '(?P<lib2>cudnn(?:_\w{1,40})?64_(?P<major2>\d+)\.dll)'"
        # tensorflow/python/platform/self_check.py (TF 1.x on Windows) before importing.
        r"|Could not find '(?P<lib3>cudnn64_(?P<major3>\d+)\.dll)'",
        frameworks=("tensorflow",),
        category=Category.CUDNN_MISMATCH,
        title="TensorFlow cannot find the cuDNN major it was built for",
        cause="TensorFlow loads cuDNN by major version (libcudnn.so.8, .so.9); none is on the "
        "loader path, or only another major is installed.",
        fix="Install the cuDNN major TensorFlow needs where it loads it from (`envcheck doctor` "
        "gives the command for this machine): a folder on PATH for a Windows DLL (TensorFlow's "
        "Windows GPU builds search PATH only), the loader path (LD_LIBRARY_PATH, ld.so.cache) on Linux.",
        source="https://github.com/tensorflow/tensorflow/issues/45200",
        analysis=CUDNN,
        supersedes=("cudnn-shared-library-missing",),
    ),
    Signature(
        id="tf-cannot-dlopen-gpu-libraries",
        regex=r"Cannot dlopen some GPU libraries",
        frameworks=("tensorflow",),
        category=Category.CUDA_RUNTIME_MISSING,
        title="TensorFlow could not load all of its GPU libraries",
        cause="One or more CUDA/cuDNN libraries TensorFlow needs failed to load (the lines "
        "before this one name them), so TensorFlow will not use the GPU.",
        fix="Install the missing libraries (`envcheck doctor` gives the commands for this machine); native Windows has no TensorFlow GPU builds after the last one the matrix lists (`envcheck matrix show tensorflow`).",
        source="https://github.com/tensorflow/tensorflow/issues/34287",
        analysis=CUDA_LIB,
    ),
    Signature(
        id="tf-skipping-gpu-devices",
        regex=r"Skipping registering GPU devices",
        frameworks=("tensorflow",),
        category=Category.CUDA_RUNTIME_MISSING,
        title="TensorFlow runs without the GPU",
        cause="TensorFlow skipped every GPU because a required CUDA or cuDNN library could not "
        "be loaded, or the installed build has no GPU support for this platform.",
        fix="Look for 'Could not load dynamic library' lines above; `python -c \"import "
        'tensorflow as tf; print(tf.sysconfig.get_build_info())"` shows the CUDA/cuDNN it '
        "expects.",
        source="https://github.com/tensorflow/tensorflow/issues/62994",
        analysis=CUDA_LIB,
    ),
    Signature(
        id="cuda-shared-library-missing",
        # One loader failure in each of its forms: glibc's elf/dl-load.c ("cannot open shared
        # object file", after "error while loading shared libraries: " for a program),
        # CTranslate2's src/cuda/cublas_stub.cc and nccl_stub.cc (v4.8.1: "Library <name> is
        # not found or cannot be loaded"), and CPython's Modules/_ctypes/callproc.c on
        # Windows ("Could not find module '<path>' (or one of its dependencies)"). The
        # library's CUDA major, where its name carries one, is read by explain.facts.
        regex=r"(?P<lib>lib(?:cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvJitLink|"
        r"nvToolsExt|cupti|nccl|nvinfer|nvonnxparser|nvparsers|nvrtc|nvjpeg|npp[a-z]{1,8}|"
        r"cufile)\w{0,40}[.,]so(?:\.(?P<major>\d+)[\d.]*)?): cannot open shared object file"
        r"|Library (?P<lib2>(?:cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvJitLink|"
        r"nccl|nvinfer|nvrtc)\w{0,20}?64_(?P<major2>\d+)\w{0,8}\.dll) is not found or cannot be "
        r"loaded"
        r"|Could not find module '[^'\n]{0,300}?(?P<lib3>(?:cudart|cublas|cublasLt|cufft|curand|"
        r"cusolver|cusparse|nvJitLink|nccl|nvinfer|nvrtc)\w{0,20}?64_(?P<major3>\d+)\w{0,8}"
        r"\.dll|lib(?:cudart|cublas|cublasLt|nvrtc|nvinfer)\w{0,20}\.so[\d.]{0,12})' "
        r"\(or one of its dependencies\)",
        frameworks=ALL_FRAMEWORKS,
        category=Category.CUDA_RUNTIME_MISSING,
        title="A CUDA runtime library is missing",
        cause="A compiled package links against a CUDA library of a specific major (the .so "
        "number) that is not installed or not on the loader path; often a package built for "
        "CUDA 11 on a CUDA 12 system, or the reverse.",
        fix="Install the package build for your CUDA major, or the nvidia-*-cuXX wheel that "
        "provides the library, or add the toolkit's lib64 directory to LD_LIBRARY_PATH.",
        source="https://github.com/CannyLab/tsne-cuda/issues/126",
        analysis=CUDA_LIB,
    ),
    # -- cuDNN ----------------------------------------------------------------------
    Signature(
        id="cudnn-sublibrary-load-failed",
        regex=r"Could not load library (?P<lib>(?:lib)?cudnn_\w+?(?:\.so\.|64_)(?P<major>\d+)(?:\.dll)?)"
        r"|Unable to load any of \{(?P<lib2>libcudnn\w{0,40}\.so\.(?P<major2>\d+))"
        r"|Error loading \"[^\"]{0,300}?(?P<lib3>cudnn\w{0,40}64_(?P<major3>\d+)\.dll)\" or one of",
        frameworks=("torch", "onnxruntime", "tensorflow"),
        category=Category.CUDNN_MISMATCH,
        title="A cuDNN sub-library (or one of its dependencies) cannot be loaded",
        cause="cuDNN 8/9 is split into several libraries loaded lazily at the first "
        "convolution. One is missing, of another major, or its own dependency (libcuda, "
        "libcublas, libnvrtc, named after 'Error:') cannot be found.",
        fix="Install the complete cuDNN of the major the framework needs and make sure the dependency named after 'Error:' is on the loader path (on WSL2, /usr/lib/wsl/lib for libcuda).",
        source="https://github.com/open-mmlab/mmdetection3d/issues/2132",
        analysis=CUDNN,
        supersedes=("cudnn-shared-library-missing",),
    ),
    Signature(
        id="cudnn-loader-cuda-library-missing",
        regex=r"Could not load library (?P<lib>lib(?:cublasLt|cublas|nvrtc)\.so\.(?P<major>\d+))\. "
        r"Error: (?:lib(?:cublasLt|cublas|nvrtc)\.so\.\d+): cannot open shared object file",
        frameworks=ALL_FRAMEWORKS,
        category=Category.CUDNN_MISMATCH,
        title="cuDNN was built for another CUDA major than the one installed",
        cause="This is cuDNN's own loader: the cuDNN on the loader path is the build for "
        "CUDA N (the .so number of the library it asks for), and CUDA N's cuBLAS/NVRTC is "
        "not there. cuDNN 8 and 9 ship one build per CUDA major; the one installed does not "
        "match the CUDA the framework uses.",
        fix="Install the cuDNN build for the CUDA major your framework uses (the NVIDIA wheel or distribution package built for that CUDA major), or that CUDA major's libraries if the framework itself is a build for it.",
        source="https://github.com/tensorflow/tensorflow/issues/61326",
        analysis=CUDNN,
        supersedes=("cuda-shared-library-missing",),
    ),
    Signature(
        id="cudnn-shared-library-missing",
        regex=r"(?P<lib>libcudnn\w{0,40}\.so(?:\.(?P<major>\d+))?[\d.]{0,20})"
        r": cannot open shared object file"
        r"|(?P<lib2>cudnn(?:_\w{1,40})?64_(?P<major2>\d+)\.dll)(?:'| was| is)? not found"
        # CTranslate2's and CPython ctypes' wordings (see cuda-shared-library-missing).
        r"|Could not find module '[^'\n]{0,300}?(?P<lib3>cudnn(?:_\w{1,40})?64_(?P<major3>\d+)"
        r"\.dll)' \(or one of its dependencies\)",
        frameworks=ALL_FRAMEWORKS,
        category=Category.CUDNN_MISMATCH,
        title="A cuDNN library of the needed major version cannot be loaded",
        cause="The program (or a library it loads) was built against one cuDNN major "
        "(libcudnn*.so.8, .so.9, cudnn64_8.dll) and that major is not installed or not on "
        "the loader path; often only the other major is present.",
        fix="Install the cuDNN major the program needs (`envcheck doctor` gives the command for this machine) and put its directory on LD_LIBRARY_PATH (PATH on Windows).",
        source="https://github.com/jianchang512/stt/issues/76",
        analysis=CUDNN,
    ),
    Signature(
        id="cudnn-status-version-mismatch",
        regex=r"CUDNN_STATUS_(?:SUBLIBRARY_)?VERSION_MISMATCH",
        frameworks=("torch", "tensorflow", "paddle", "onnxruntime"),
        category=Category.CUDNN_MISMATCH,
        title="cuDNN libraries of different versions were loaded together",
        cause="cuDNN checks that its sub-libraries and the version the caller was built "
        "for agree; two cuDNN installs (system and pip wheel, or conda) were mixed.",
        fix="Keep one cuDNN: remove the older copy from LD_LIBRARY_PATH or reinstall the "
        "framework's own nvidia-cudnn wheel.",
        source="https://github.com/tensorflow/tensorflow/issues/60913",
        analysis=CUDNN,
    ),
    Signature(
        id="cudnn-status-arch-mismatch",
        regex=r"CUDNN_STATUS_ARCH_MISMATCH",
        frameworks=("torch", "tensorflow", "paddle", "onnxruntime"),
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="The cuDNN in use does not support this GPU's architecture",
        cause="cuDNN refuses GPUs below the compute capability it was built for (e.g. "
        "Kepler with recent cuDNN 8.x/9.x).",
        fix="Use a cuDNN (and framework build) that still supports the GPU, or a newer GPU.",
        source="https://github.com/jax-ml/jax/issues/15361",
        analysis=ARCH,
    ),
    Signature(
        id="cudnn-version-mismatch",
        regex=r"Loaded runtime CuDNN library: (?P<loaded>\d+(?:\.\d+)*)"
        r"(?: \(compatibility version \d+\))? but source was compiled with:? (?P<compiled>\d+(?:\.\d+)*)"
        r"|cuDNN version (?:incompatibility|mismatch): PyTorch was compiled",
        frameworks=("tensorflow", "jax", "torch"),
        category=Category.CUDNN_MISMATCH,
        title="The cuDNN found at run time does not match the one the framework was built with",
        cause="The framework needs cuDNN of the same major and at least its minor (TensorFlow's "
        "1.x the same minor, PyTorch before 1.12 the same version); another copy (system "
        "package, conda env, or an earlier LD_LIBRARY_PATH entry) was loaded.",
        fix="Upgrade cuDNN to at least the compiled version (`envcheck doctor` gives the command for this machine), or remove the older copy from LD_LIBRARY_PATH.",
        source="https://github.com/tensorflow/tensorflow/issues/58986",
        analysis=CUDNN,
        supersedes=("dnn-library-not-found",),
    ),
    Signature(
        id="dnn-library-not-found",
        regex=r"DNN library is not found|DNN library initialization failed",
        frameworks=("tensorflow", "jax"),
        category=Category.CUDNN_MISMATCH,
        title="TensorFlow/JAX could not initialise cuDNN",
        cause="cuDNN is missing, of the wrong version (see 'Loaded runtime CuDNN library' "
        "lines) or failed to initialise, so convolutions cannot run.",
        fix="Install the cuDNN version the framework was built with (`envcheck doctor` gives the command for this machine) and remove older copies from LD_LIBRARY_PATH.",
        source="https://github.com/tensorflow/tensorflow/issues/55468",
        analysis=CUDNN,
    ),
    Signature(
        id="cudnn-not-initialized",
        regex=r"CUDNN_STATUS_NOT_INITIALIZED",
        frameworks=("torch", "tensorflow", "paddle"),
        category=Category.CUDNN_MISMATCH,
        title="cuDNN failed to initialise",
        cause="Usually cuDNN could not allocate its workspace because GPU memory is full, or "
        "the cuDNN loaded does not match the CUDA/driver (e.g. a system cuDNN shadowing the "
        "framework's own copy).",
        fix="Free GPU memory (smaller batch, other processes) and check for a second cuDNN on "
        "LD_LIBRARY_PATH; reinstall the framework build for your CUDA.",
        source="https://github.com/NVIDIA/TensorRT/issues/2911",
        analysis=CUDNN,
    ),
    Signature(
        id="cudnn-execution-failed",
        regex=r"CUDNN_STATUS_EXECUTION_FAILED",
        frameworks=("torch", "tensorflow", "paddle"),
        category=Category.CUDNN_MISMATCH,
        title="A cuDNN kernel failed to run on the GPU",
        cause="The cuDNN kernel launch failed: often out of GPU memory, a cuDNN/CUDA build "
        "without kernels for this GPU, or an earlier asynchronous CUDA error.",
        fix="Rerun with CUDA_LAUNCH_BLOCKING=1 to find the real failing call; reduce the "
        "batch size; check that the framework build supports this GPU.",
        source="https://github.com/pytorch/pytorch/issues/32881",
        analysis=CUDNN,
    ),
    Signature(
        id="paddle-cudnn-not-loaded",
        regex=r"Cannot load cudnn shared library",
        frameworks=("paddle",),
        category=Category.CUDNN_MISMATCH,
        title="PaddlePaddle cannot load cuDNN",
        cause="paddlepaddle-gpu loads cuDNN from the system; it is not installed, not on "
        "LD_LIBRARY_PATH, or of a major the wheel was not built for.",
        fix="Install the cuDNN major your paddlepaddle-gpu build needs and add its directory "
        "to LD_LIBRARY_PATH (or use the Paddle docker image / conda package).",
        source="https://github.com/PaddlePaddle/Paddle/issues/35608",
        analysis=CUDNN,
    ),
    # -- JAX ------------------------------------------------------------------------
    Signature(
        id="jax-cudnn-outdated",
        regex=r"Outdated cuDNN installation found"
        r"|Found cuDNN version (?P<found>\d+), but JAX was built against version (?P<built>\d+)"
        r"|Unable to load cuDNN",
        frameworks=("jax",),
        category=Category.CUDNN_MISMATCH,
        title="JAX found a cuDNN older than the one it was built against",
        cause="jaxlib checks the cuDNN it loads; an older system or conda cuDNN was found "
        "before the one from the nvidia-cudnn wheel.",
        fix="Reinstall JAX with pip-provided CUDA (`envcheck plan jax` gives the command for this machine) and remove older cuDNN directories from LD_LIBRARY_PATH.",
        source="https://github.com/rgommers/pixi-dev-scipystack/issues/1",
        analysis=CUDNN,
        supersedes=("jax-cuda-backend-failed",),
    ),
    Signature(
        id="jax-pjrt-api-mismatch",
        regex=r"Mismatched PJRT plugin PJRT API version",
        frameworks=("jax",),
        category=Category.MIXED_WHEELS,
        title="The JAX CUDA plugin was built for another jaxlib release",
        cause="jax-cuda12-plugin / jax-cuda12-pjrt (or the cuda13 ones) must be the same "
        "release as jaxlib; the plugin speaks a different PJRT API version.",
        fix="Reinstall jax, jaxlib and the CUDA plugin together at one version (`envcheck plan jax` gives the command for this machine), and remove stray jax-cuda*-plugin packages.",
        source="https://github.com/jax-ml/jax/issues/22416",
        supersedes=("jax-cuda-backend-failed",),
    ),
    Signature(
        id="torchvision-ops-mismatch",
        regex=r"Couldn't load custom C\+\+ ops\. This can happen if your PyTorch and "
        r"torchvision versions are incompatible",
        frameworks=("torch",),
        category=Category.MIXED_WHEELS,
        title="torchvision does not match the installed PyTorch",
        cause="torchvision's compiled operators link against one exact PyTorch release and "
        "CUDA variant; a torchvision from another release (or another index) cannot load them.",
        fix="Install torch and torchvision together from one index at matching versions "
        "(`envcheck plan torch torchvision`).",
        source="https://github.com/pytorch/vision/issues/4222",
    ),
    Signature(
        id="symbol-version-not-defined",
        regex=r"symbol \w+ version (?P<lib>lib[\w.+-]+?\.so(?:\.[\d.]+)?) not defined in file "
        r"lib[\w.+-]+ with link time reference",
        frameworks=ALL_FRAMEWORKS,
        category=Category.LIB_PATH_CONFLICT,
        title="Two copies of a CUDA library are mixed in one process",
        cause="A library was loaded from one place and its companion (cuBLAS and cuBLASLt, "
        "cuDNN's sub-libraries) from another of a different release; the loader finds a "
        "symbol version one expects missing in the other.",
        fix="Load both from one install: remove the other copy's directory from "
        "LD_LIBRARY_PATH, or reinstall the nvidia-*/conda packages so they come from one source.",
        source="https://github.com/microsoft/onnxruntime/issues/8594",
    ),
    Signature(
        id="jax-cuda-backend-failed",
        regex=r"CUDA backend failed to initialize|Unable to initialize backend 'cuda'"
        r"|Backend 'cuda' failed to initialize",
        frameworks=("jax",),
        category=Category.CUDA_RUNTIME_MISSING,
        title="JAX could not start its CUDA backend and fell back to the CPU",
        cause="A CUDA component JAX needs is missing or older than the one it was built "
        "against (the text after the colon names it), or the driver is too old.",
        fix="Use pip-provided CUDA (`envcheck plan jax` gives the command for this machine), unset LD_LIBRARY_PATH entries that point at older CUDA, and check the driver version.",
        source="https://github.com/jax-ml/jax/issues/20722",
        analysis=DRIVER,
    ),
    Signature(
        id="torch-windows-dll-dependency",
        regex=r"Error loading \"[^\"]{0,300}?torch\\lib\\(?!cudnn)(?P<lib>\w{1,60}\.dll)\" or one of",
        frameworks=("torch",),
        category=Category.OTHER,
        title="Windows cannot load a DLL of the PyTorch package",
        cause="The DLL is there but something it links against is not: most often the "
        "Microsoft Visual C++ Redistributable (vcruntime140_1.dll, msvcp140.dll, "
        "libomp140.x86_64.dll). WinError 127 instead means an older copy of a dependency "
        "was found first on PATH.",
        fix="Install the latest Microsoft Visual C++ Redistributable (x64); if that does not "
        "help, remove other CUDA/cuDNN directories from PATH and reinstall torch in a fresh "
        "environment.",
        source="https://github.com/pytorch/pytorch/issues/129568",
    ),
    Signature(
        id="cublas-arch-mismatch",
        regex=r"CUBLAS_STATUS_ARCH_MISMATCH",
        frameworks=("torch", "tensorflow", "cupy", "jax"),
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="The cuBLAS routine needs a newer GPU architecture",
        cause="cuBLAS refuses a routine the GPU's compute capability lacks (cublasGemmEx and "
        "tensor-op paths need 5.0 or newer), or the cuBLAS in use was not built for the GPU.",
        fix="Run on a GPU the library supports, or use a framework/library build for this "
        "GPU (`envcheck plan <framework> --gpu NAME`).",
        source="https://github.com/NVIDIA/DeepLearningExamples/issues/147",
    ),
    Signature(
        id="torch-extension-unknown-arch",
        regex=r"Unknown CUDA arch \((?P<sm>[\d.]{1,8})(?:\+PTX)?[^)]{0,40}\) or GPU not supported",
        frameworks=("torch",),
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="The installed PyTorch is too old to build extensions for this GPU",
        cause="torch.utils.cpp_extension only knows the architectures of its own release: it "
        "refuses a GPU (or a TORCH_CUDA_ARCH_LIST entry) newer than that release.",
        fix="Install a PyTorch release (and CUDA toolkit) that supports the GPU, or set TORCH_CUDA_ARCH_LIST to architectures this release knows (the +PTX form of the newest one it lists).",
        source="https://github.com/OpenBMB/BMTrain/issues/83",
    ),
    Signature(
        id="torch-extension-cuda-mismatch",
        regex=r"The detected CUDA version \([\d.]{1,10}\) mismatches the version that was "
        r"used to compile"
        r"|Installed CUDA version [\d.]{1,10} does not match the version torch was compiled with"
        r"|Cuda extensions are being compiled with a version of Cuda that does not match",
        frameworks=("torch",),
        category=Category.LIB_PATH_CONFLICT,
        title="The CUDA toolkit found for building an extension is not PyTorch's CUDA",
        cause="torch.utils.cpp_extension compiles with the toolkit in CUDA_HOME (or the nvcc "
        "on PATH), whose major version differs from the CUDA the installed torch was built "
        "with.",
        fix="Point CUDA_HOME at a toolkit of torch's CUDA major (python -c \"import torch; print(torch.version.cuda)\"), or install the torch build for the local toolkit's CUDA (`envcheck plan torch` lists the builds).",
        source="https://github.com/ByungKwanLee/MoAI/issues/7",
    ),
    Signature(
        id="jax-jaxlib-version-mismatch",
        regex=r"jaxlib version \S{1,20} is newer than and incompatible with jax version"
        r"|jaxlib is version \S{1,20}, but this version of jax requires version",
        frameworks=("jax",),
        category=Category.MIXED_WHEELS,
        title="jax and jaxlib are of releases that do not go together",
        cause="jax checks at import that jaxlib (and the CUDA plugin) is within the range "
        "it was released with; one of the two was upgraded or pinned without the other.",
        fix="Install jax and jaxlib from one release (`envcheck plan jax` gives the command for this machine).",
        source="https://github.com/jax-ml/jax/issues/17638",
    ),
    Signature(
        id="cuda-invalid-device-ordinal",
        regex=r"invalid device ordinal|cudaErrorInvalidDevice\b|CUDA_ERROR_INVALID_DEVICE\b",
        frameworks=ALL_FRAMEWORKS,
        category=Category.ENV_VAR_HIDES_GPU,
        title="The program asks for a GPU index this process cannot see",
        cause="A device index (cuda:1, --gpu 1, one process per GPU) is at least the number "
        "of visible GPUs: the machine has fewer GPUs, or CUDA_VISIBLE_DEVICES leaves fewer "
        "visible (indices are renumbered from 0 inside the process).",
        fix="Use indices below `torch.cuda.device_count()`; match --nproc_per_node and device "
        "ids to the GPUs CUDA_VISIBLE_DEVICES lists.",
        source="https://github.com/wenwenyu/PICK-pytorch/issues/14",
        analysis=ENV_VAR,
    ),
    Signature(
        id="cuda-home-not-set",
        regex=r"CUDA_HOME environment variable is not set"
        r"|CUDA_HOME does not exist, unable to compile CUDA op",
        frameworks=("torch",),
        category=Category.CUDA_RUNTIME_MISSING,
        title="No CUDA toolkit (nvcc) was found to build a CUDA extension",
        cause="Building a PyTorch CUDA extension needs nvcc from a CUDA toolkit; none is in "
        "CUDA_HOME/CUDA_PATH or on PATH (wheels and conda's cudatoolkit ship the runtime "
        "only, not the compiler).",
        fix="Install a CUDA toolkit of torch's CUDA major (or conda's cuda-nvcc / the "
        "nvidia-cuda-nvcc wheel) and set CUDA_HOME to it, or install a prebuilt wheel of "
        "the extension.",
        source="https://github.com/CSAILVision/gandissect/issues/19",
    ),
    # cupy/cupy cupy/_environment.py (v14.0.0rc1-1244-g6b6d956, the duplicate-installation
    # check since cupy#5032): more than one distribution provides the cupy package.
    Signature(
        id="cupy-multiple-packages",
        regex=r"CuPy may not function correctly because multiple CuPy packages are installed",
        frameworks=("cupy",),
        category=Category.MIXED_WHEELS,
        title="Several CuPy distributions are installed over one cupy package",
        cause="cupy (a source build) and the cupy-cudaXXx wheels all install the same import "
        "package; with two of them the files of one overwrite the other's, often of "
        "another CUDA major.",
        fix="pip uninstall every CuPy distribution the warning lists (and `conda uninstall "
        "cupy` for a conda one), then install the one wheel for your CUDA major.",
        source="https://github.com/amazon-braket/amazon-braket-examples/pull/903",
    ),
    Signature(
        id="cupy-not-correctly-installed",
        regex=r"CuPy is not correctly installed",
        frameworks=("cupy",),
        category=Category.CUDA_RUNTIME_MISSING,
        title="CuPy cannot load its CUDA libraries",
        cause="The CuPy package is built for a CUDA major that is not installed here (a "
        "cupy-cudaXXX wheel or conda cudatoolkit of another version), or two CuPy packages "
        "are installed; the 'original error' line names what failed to load.",
        fix="Install the one CuPy package for the CUDA major you have (cupy-cudaNNx) and only one of them (`pip list | grep -i cupy`).",
        source="https://github.com/cupy/cupy/issues/5211",
    ),
    Signature(
        id="cublas-not-initialized",
        regex=r"CUBLAS_STATUS_NOT_INITIALIZED",
        frameworks=("torch", "tensorflow", "cupy", "jax"),
        category=Category.OTHER,
        title="cuBLAS could not initialise (usually GPU memory is exhausted)",
        cause="cublasCreate failed. In almost every reported case the GPU had too little "
        "free memory for the cuBLAS workspace (this process, another one, or TensorFlow "
        "reserving everything); less often the cuBLAS loaded does not match the CUDA "
        "runtime or driver.",
        fix="Free GPU memory (smaller batch, stop other GPU processes, TF memory growth); "
        "if memory is free, check that only one CUDA/cuBLAS version is on the loader path.",
        source="https://github.com/EleutherAI/lm-evaluation-harness/issues/1689",
        analysis=MEMORY,
    ),
    Signature(
        id="cuda-library-undefined-versioned-symbol",
        regex=r"(?i:undefined symbol): (?P<code>__nvJitLink\w{1,80}|\w{1,120}), version "
        r"(?P<lib>lib(?:nvJitLink|cu\w{1,30}|nv\w{1,30})\.so\.\d+)",
        frameworks=ALL_FRAMEWORKS,
        category=Category.LIB_PATH_CONFLICT,
        title="An older copy of a CUDA library was loaded before the one the package needs",
        cause="A library from the pip nvidia-* wheels (e.g. libcusparse) needs a symbol "
        "version that only a newer libnvJitLink/libcu* provides, but an older copy of that "
        "library (a system CUDA toolkit, conda, or LD_LIBRARY_PATH) was found first.",
        fix="Put the wheel's own library first or remove the older toolkit from "
        'LD_LIBRARY_PATH, e.g. `export LD_LIBRARY_PATH=$(python -c "import site; '
        "print(site.getsitepackages()[0] + '/nvidia/nvjitlink/lib')\"):$LD_LIBRARY_PATH`.",
        source="https://github.com/pytorch/pytorch/issues/111469",
    ),
    Signature(
        id="jax-no-gpu-falling-back",
        regex=r"No GPU/TPU found, falling back to CPU",
        frameworks=("jax",),
        category=Category.CPU_ONLY_BUILD,
        title="JAX found no GPU backend and runs on the CPU",
        cause="Only the CPU jaxlib is installed (plain `pip install jax`), or the CUDA plugin "
        "failed to load (the lines above, with TF_CPP_MIN_LOG_LEVEL=0, say why).",
        fix="Install JAX's CUDA variant (`envcheck plan jax` gives the command for this machine; Linux only); if it is installed, rerun with TF_CPP_MIN_LOG_LEVEL=0 to see why CUDA did not load.",
        source="https://github.com/kuprel/min-dalle/issues/22",
        analysis=CPU_BUILD,
    ),
    # -- containers ------------------------------------------------------------------
    Signature(
        id="docker-no-gpu-device-driver",
        regex=r"could not select device driver \S{0,40} ?with capabilities: \[\["
        r"|unknown or invalid runtime name: nvidia",
        frameworks=(),
        category=Category.CONTAINER_NO_GPU,
        title="Docker cannot give the container a GPU: no NVIDIA runtime is set up",
        cause="`--gpus` (or a compose `driver: nvidia` reservation) needs the NVIDIA "
        "Container Toolkit registered with Docker; it is not installed, Docker was not "
        "restarted after installing it, or Docker is a snap/rootless install that cannot "
        "use it.",
        fix="Install nvidia-container-toolkit, run `sudo nvidia-ctk runtime configure "
        "--runtime=docker` and `sudo systemctl restart docker`; avoid the snap Docker.",
        source="https://github.com/NVIDIA/nvidia-docker/issues/1642",
    ),
    Signature(
        id="container-started-without-gpu",
        regex=r"The NVIDIA Driver was not detected\.\s{0,4}GPU functionality will not be "
        r"available",
        frameworks=(),
        category=Category.CONTAINER_NO_GPU,
        title="The CUDA container was started without GPU access",
        cause="NVIDIA's CUDA images print this when no driver is mounted into the container: "
        "it was started without `--gpus all` (or without the NVIDIA runtime).",
        fix="Start it with `docker run --gpus all ...` after installing the NVIDIA Container "
        "Toolkit on the host; in compose, reserve the GPU device.",
        source="https://github.com/prs-eth/PanopticSegForLargeScalePointCloud/issues/20",
    ),
    # -- packaging ------------------------------------------------------------------
    Signature(
        id="pip-no-framework-wheel",
        regex=r"(?:No matching distribution found for|Could not find a version that satisfies "
        r"the requirement) (?P<lib>torch|tensorflow|jaxlib|"
        r"tensorflow-gpu|onnxruntime-gpu|paddlepaddle-gpu|cupy-cuda\w{1,10})\b",
        frameworks=("torch", "tensorflow", "jax", "onnxruntime", "paddle", "cupy"),
        category=Category.PYTHON_UNSUPPORTED,
        title="pip found no wheel of the framework for this Python",
        cause="Framework wheels exist only for certain Python versions (and only 64-bit "
        "Python); an interpreter that is too new, too old or 32-bit sees none ('from "
        "versions: none'), or only versions other than the pinned one.",
        fix="Use a 64-bit Python the framework release supports (see its install page), or "
        "pin a framework version that has wheels for this Python.",
        source="https://github.com/zeyad-mansour/lunar/issues/95",
    ),
    # -- runtime failures that are not (usually) configuration ---------------------
    Signature(
        id="cuda-out-of-memory",
        regex=r"(?i:CUDA out of memory|CUDA error: out of memory)|OutOfMemoryError: CUDA"
        r"|CUDA_ERROR_OUT_OF_MEMORY|[Ee]rror 2: out of memory"
        r"|cudaErrorMemoryAllocation|RESOURCE_EXHAUSTED: Out of memory",
        frameworks=ALL_FRAMEWORKS,
        category=Category.OTHER,
        title="The GPU ran out of memory",
        cause="The model, batch or cached allocations need more GPU memory than is free; "
        "other processes on the same GPU count too.",
        fix="Reduce the batch size or sequence length, use mixed precision, free other GPU "
        "processes (`nvidia-smi`); in PyTorch try "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation.",
        source="https://github.com/pytorch/pytorch/issues/16417",
        analysis=MEMORY,
    ),
    Signature(
        id="cublas-alloc-failed",
        regex=r"CUBLAS_STATUS_ALLOC_FAILED",
        frameworks=("torch", "tensorflow"),
        category=Category.OTHER,
        title="cuBLAS could not allocate GPU memory for its handle",
        cause="Almost always GPU memory is exhausted (by this process, another one, or "
        "TensorFlow reserving all memory up front) when cuBLAS initialises.",
        fix="Free GPU memory or reduce the batch size; in TensorFlow enable memory growth "
        "(tf.config.experimental.set_memory_growth).",
        source="https://github.com/QwenLM/Qwen3/issues/873",
        analysis=MEMORY,
    ),
    Signature(
        id="cublas-not-supported",
        regex=r"CUBLAS_STATUS_NOT_SUPPORTED",
        frameworks=("torch", "tensorflow"),
        category=Category.CAPABILITY,
        title="cuBLAS does not support this operation on this GPU / driver",
        cause="The requested matrix product is not available here: bfloat16 or FP8 on a GPU "
        "older than Ampere/Hopper, or a cuBLAS newer than the driver supports.",
        fix="Use float16/float32 instead of bfloat16 on pre-Ampere GPUs; upgrade the driver "
        "if the framework's CUDA is newer than the driver's.",
        source="https://github.com/nota-github/AIC2024_Track1_Nota/issues/7",
        analysis=BF16,
    ),
    Signature(
        id="cuda-illegal-memory-access",
        regex=r"an illegal memory access was encountered|cudaErrorIllegalAddress"
        r"|CUDA_ERROR_ILLEGAL_ADDRESS",
        frameworks=ALL_FRAMEWORKS,
        category=Category.OTHER,
        title="A GPU kernel accessed invalid memory",
        cause="A kernel read or wrote outside its buffers: a bug in a custom/compiled "
        "extension, a tensor on the wrong device, or a library bug. Because CUDA errors are "
        "asynchronous the reported line may be wrong.",
        fix="Rerun with CUDA_LAUNCH_BLOCKING=1 (and compute-sanitizer) to find the kernel; "
        "update the framework; the environment itself is usually fine.",
        source="https://github.com/rwth-i6/returnn/issues/1577",
    ),
    Signature(
        id="cuda-device-side-assert",
        regex=r"device-side assert triggered|cudaErrorAssert\b|CUDA_ERROR_ASSERT\b",
        frameworks=("torch",),
        category=Category.OTHER,
        title="A GPU kernel hit an assertion (usually an index out of range)",
        cause="An index is out of bounds inside a GPU kernel, typically a class label >= the "
        "number of classes or an embedding index >= the vocabulary size. It is a bug in the "
        "inputs or the code, not in the CUDA setup.",
        fix="Run the same code on the CPU (or with CUDA_LAUNCH_BLOCKING=1) to get a readable "
        "error; check label and index ranges.",
        source="https://github.com/pytorch/pytorch/issues/74079",
    ),
    Signature(
        id="nccl-unhandled-system-error",
        regex=r"NCCL (?:error|Error|failure)\b(?:(?!NCCL (?:error|Error|failure)\b).)*unhandled "
        r"system error|ncclSystemError"
        r"|NCCL Error 2: unhandled system error",
        frameworks=("torch", "paddle", "jax"),
        category=Category.OTHER,
        title="NCCL failed on a system call (shared memory, network or device)",
        cause="Multi-GPU communication failed outside NCCL itself: too little shared memory "
        "in a container (/dev/shm), a blocked or wrong network interface, InfiniBand setup, "
        "or a GPU/driver problem.",
        fix="Rerun with NCCL_DEBUG=INFO to see the failing call; in Docker use --ipc=host or "
        "a larger --shm-size; set NCCL_SOCKET_IFNAME to the right interface.",
        source="https://github.com/NVIDIA/nccl/issues/207",
    ),
    Signature(
        id="nccl-shared-memory",
        regex=r"NCCL WARN Call to posix_fallocate failed|Error while creating shared memory "
        r"segment|ncclShmOpen",
        frameworks=("torch", "paddle", "jax"),
        category=Category.OTHER,
        title="NCCL could not create its shared-memory segment (/dev/shm is too small)",
        cause="NCCL (2.7 and newer) passes data between GPUs of one machine through /dev/shm; "
        "a container's default /dev/shm (64 MB in Docker) runs out.",
        fix="Start the container with --ipc=host or a larger --shm-size (e.g. --shm-size=1g; "
        "Kubernetes: an emptyDir volume with medium Memory on /dev/shm), or set "
        "NCCL_SHM_DISABLE=1 at some speed cost.",
        source="https://github.com/NVIDIA/nccl/issues/342",
        supersedes=("nccl-unhandled-system-error",),
    ),
    Signature(
        id="paddle-cudnn-version-mismatch",
        regex=r"The installed Paddle is compiled with CUDNN (?P<compiled>\d{1,2}\.\d{1,2}), but "
        r"CUDNN version in your machine is (?P<loaded>\d{1,2}\.\d{1,2})",
        frameworks=("paddle",),
        category=Category.CUDNN_MISMATCH,
        title="PaddlePaddle loaded an older cuDNN than the one it was built with",
        cause="paddlepaddle-gpu loads cuDNN from the system and compares its version with the "
        "one the wheel was compiled with; the copy found first on the loader path is older "
        "(often another copy: a conda environment's, the CUDA toolkit directory's, or the "
        "version an older install page named). Operators then fail with CUDNN_STATUS_* errors.",
        fix="Install the cuDNN version named after 'compiled with' (`python -c \"import paddle; "
        'print(paddle.version.cudnn())"`) and put its directory first on LD_LIBRARY_PATH '
        "(PATH on Windows), or remove the older copy.",
        source="https://github.com/PaddlePaddle/Paddle/issues/24327",
        analysis=CUDNN,
    ),
    Signature(
        id="nvrtc-unknown-gpu-arch",
        regex=r"nvrtc: error: invalid value for --gpu-architecture",
        frameworks=("cupy", "torch"),
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="The CUDA version that compiles kernels at run time does not know this GPU",
        cause="CuPy (and PyTorch's JIT fuser) compile kernels at run time with NVRTC for the "
        "GPU's compute_XX. That "
        "CUDA's NVRTC does not accept it: the GPU is newer than the CUDA release, or older than "
        "the oldest architecture that CUDA release still supports (`envcheck matrix show "
        "cuda_arch`), or the CuPy release is older than the GPU.",
        fix="Use a CUDA release that supports the GPU's compute capability, with the package "
        "built for it (a cupy-cudaXXx wheel, a torch cuXXX build; `envcheck plan cupy --gpu "
        "<name>` picks one).",
        source="https://github.com/cupy/cupy/issues/973",
        analysis=ARCH,
    ),
    Signature(
        id="flash-attn-ampere-only",
        regex=r"FlashAttention only supports Ampere GPUs or newer",
        frameworks=("torch",),
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="FlashAttention 2 has no kernels for this GPU (it needs Ampere, sm_80, or newer)",
        cause="flash-attn 2.x is compiled for compute capability 8.0 and newer only; Turing "
        "(T4, RTX 20xx, Quadro RTX), Volta (V100) and older GPUs are refused, even when a "
        "model merely asks for attn_implementation='flash_attention_2'.",
        fix="Turn FlashAttention off for this GPU (attn_implementation='sdpa' or 'eager', or "
        "the program's use_flash_attn option), or run on an Ampere or newer GPU.",
        source="https://github.com/Dao-AILab/flash-attention/issues/762",
    ),
    Signature(
        id="xformers-without-cuda",
        regex=r"xFormers wasn't build with CUDA support",
        frameworks=("torch",),
        category=Category.MIXED_WHEELS,
        title="xformers cannot use its CUDA kernels: it was built for another torch",
        cause="Each xformers wheel is built against one torch release and CUDA variant; with "
        "another torch installed (pip upgraded torch, or the cuXXX variants differ) its C++/"
        "CUDA extension does not load and every attention operator reports no CUDA support.",
        fix="Install the xformers release built for the installed torch from the same index as that torch (the --index-url of `envcheck plan torch`), or uninstall xformers where the program does not need it.",
        source="https://github.com/kijai/ComfyUI-DepthAnythingV2/issues/27",
    ),
    Signature(
        id="bitsandbytes-windows-unsupported",
        regex=r"argument of type 'WindowsPath' is not iterable"
        r"|[A-Za-z]:\\(?:(?![A-Za-z]:\\)[^\n]){0,300}\\bitsandbytes\\libbitsandbytes_cpu\.so\b",
        frameworks=("torch",),
        category=Category.PLATFORM_UNSUPPORTED,
        title="This bitsandbytes release has no Windows CUDA build",
        cause="bitsandbytes before 0.43 shipped Linux libraries only (.so); on Windows its CUDA "
        "setup finds no libcudart.so, falls back to the CPU library and then fails on a "
        "Windows path. The 'compiled without GPU support' warning comes from the same setup.",
        fix="Install a bitsandbytes release with official Windows wheels (`pip install -U bitsandbytes`) and remove community Windows forks.",
        source="https://github.com/bitsandbytes-foundation/bitsandbytes/issues/32",
    ),
    Signature(
        id="cudnn-zlib-missing",
        regex=r"(?:locate|load library) zlibwapi\.dll",
        frameworks=ALL_FRAMEWORKS,
        category=Category.CUDNN_MISMATCH,
        title="cuDNN 8 on Windows cannot load zlibwapi.dll, the zlib library it needs",
        cause="cuDNN 8 for Windows loads zlib from zlibwapi.dll, which NVIDIA's cuDNN 8 "
        "install guide has users install separately; it is not on PATH (or, with error "
        "code 193, a 32-bit copy was found).",
        fix="Put a 64-bit zlibwapi.dll in a directory on PATH, such as the CUDA toolkit's bin "
        "directory, as NVIDIA's cuDNN 8 install guide for Windows describes.",
        source="https://github.com/AlexeyAB/darknet/issues/8551",
    ),
)


# Rows that mirror the text of the file that prints it (``emitted_by``); the
# ``source`` is a public report of the same text.
# A C++ symbol in torch's own namespaces (torch::, c10::, at::, caffe2::), plain
# or const-qualified (_ZNK), as the dynamic loader prints it.
_TORCH_SYMBOL = r"_ZN(?:K|St)?(?:5torch|3c10|2at|6caffe2)\w{0,200}"
# torch's own libraries (torch/_C.so, torch/lib/libtorch_cuda.so): the path ends in
# them right before the loader's message. Which companion a .so belongs to is read
# from its path by the explainer (envcheck.explain.core._companion), so the patterns
# start at their own literal text and stay cheap on long logs.
_TORCH_OWN_SO = r"[/\\]torch[/\\](?:lib[/\\])?[\w.+-]{1,80}\.(?:so|pyd)[\w.]{0,20}: "

EMITTED: tuple[Signature, ...] = (
    Signature(
        id="companion-torch-abi-mismatch",
        regex=r"(?i:undefined symbol): " + _TORCH_SYMBOL,
        frameworks=("torch",),
        category=Category.MIXED_WHEELS,
        title="A package's compiled extension was built for another PyTorch release",
        cause="The dynamic loader cannot find a torch/c10/at C++ symbol the extension links "
        "against: PyTorch's C++ ABI changes between releases, so an extension built for one "
        "torch release (or CUDA variant) does not load beside another.",
        fix="Install the build of that package made for the installed torch (its wheel index "
        "for your torch and CUDA, e.g. data.pyg.org/whl/torch-X+cuYYY.html for PyG, or the "
        "same PyTorch index for torchvision/torchaudio), or rebuild it against this torch.",
        source="https://github.com/rusty1s/pytorch_cluster/issues/100",
        emitted_by="bminor/glibc:elf/dl-lookup.c@557a76a9a9a454c586f2b5a8c7a94bf7901547df",
        analysis=COMPANION,
        supersedes=("cuda-library-undefined-versioned-symbol",),
    ),
    Signature(
        id="torch-own-abi-mismatch",
        regex=_TORCH_OWN_SO + r"(?i:undefined symbol): " + _TORCH_SYMBOL,
        frameworks=("torch",),
        category=Category.MIXED_WHEELS,
        title="PyTorch's own libraries come from different releases",
        cause="One of torch's own libraries misses a torch/c10 symbol another one needs: two "
        "torch installs were mixed (a pip torch over a conda one, an interrupted upgrade), or "
        "an older libtorch/libc10 on LD_LIBRARY_PATH was loaded first.",
        fix="Uninstall torch completely (pip and conda) and install one build in a fresh "
        "environment; remove other libtorch/libc10 directories from LD_LIBRARY_PATH.",
        source="https://github.com/pytorch/pytorch/issues/14087",
        emitted_by="bminor/glibc:elf/dl-lookup.c@557a76a9a9a454c586f2b5a8c7a94bf7901547df",
        supersedes=("companion-torch-abi-mismatch", "cuda-library-undefined-versioned-symbol"),
    ),
    # -- companion "built for" checks ----------------------------------------------
    Signature(
        id="xformers-built-for-cpu-torch",
        regex=r"PyTorch [\w.+]{1,40} with CUDA \d{1,6} \(you have (?P<found>[\w.]{1,40}\+cpu)\)",
        frameworks=("torch",),
        category=Category.CPU_ONLY_BUILD,
        title="xformers needs a CUDA PyTorch, and the installed PyTorch is a CPU-only build",
        cause="xformers compares the torch it was built for with the installed one; a "
        "'+cpu' torch means pip installed PyTorch's CPU build, so no CUDA package works.",
        fix="Install the CUDA build of PyTorch that xformers was built for (its "
        "'built for' line names the release and CUDA variant), from that variant's "
        "PyTorch index.",
        source="https://github.com/facebookresearch/xformers/issues/982",
        emitted_by="facebookresearch/xformers:xformers/_cpp_lib.py@0568e0d6e946497a915e49ddd10f7f3c90adba69",
        analysis=CPU_BUILD,
        supersedes=("xformers-built-for-other-torch",),
    ),
    Signature(
        id="xformers-built-for-other-torch",
        regex=r"PyTorch (?P<built>[\w.+]{1,40}) with CUDA (?P<cuda>\d{1,6}|None) "
        r"\(you have (?P<found>[\w.+]{1,40})\)"
        r"|xFormers was built for a different version of PyTorch",
        frameworks=("torch",),
        category=Category.MIXED_WHEELS,
        title="xformers was built for another PyTorch release or CUDA variant",
        cause="Each xformers wheel is built against one torch release and CUDA variant and "
        "prints both when its C++/CUDA extension does not load beside the installed torch.",
        fix="Install the xformers release built for the installed torch, from the same "
        "PyTorch index (the same CUDA variant) as torch.",
        source="https://github.com/deforum/deforum-stable-diffusion/issues/377",
        emitted_by="facebookresearch/xformers:xformers/_cpp_lib.py@0568e0d6e946497a915e49ddd10f7f3c90adba69",
    ),
    Signature(
        id="xformers-cannot-load-extensions",
        regex=r"xFormers can.t load C\+\+/CUDA extensions",
        frameworks=("torch",),
        category=Category.MIXED_WHEELS,
        severity=Severity.WARNING,
        title="xformers could not load its C++/CUDA extension",
        cause="xformers warns and runs without its kernels; the 'built for' line after it "
        "says which torch it expected.",
        fix="Read the 'built for' line: install the xformers build for the installed torch, "
        "or the torch build xformers was made for.",
        source="https://github.com/facebookresearch/xformers/issues/1241",
        emitted_by="facebookresearch/xformers:xformers/_cpp_lib.py@0568e0d6e946497a915e49ddd10f7f3c90adba69",
    ),
    Signature(
        id="companion-cuda-version-check",
        regex=r"Detected that PyTorch and (?P<lib>torch[_-]?\w{0,30}) were compiled with "
        r"different CUDA (?:major )?versions"
        r"(?:\. PyTorch has CUDA [Vv]ersion ?[=]? ?(?P<found>\d{1,2}\.\d{1,2}) and "
        r"\w{1,40} has CUDA [Vv]ersion ?[=]? ?(?P<built>\d{1,2}\.\d{1,2}))?",
        frameworks=("torch",),
        category=Category.MIXED_WHEELS,
        title="A torch companion package was built for another CUDA than the installed torch",
        cause="torchvision and the PyG extensions (torch_scatter, torch_sparse, ...) compare "
        "the CUDA they were compiled with against torch.version.cuda at import; they differ "
        "(a wheel from another index, a CPU wheel showing CUDA 0.0, or a source build with a "
        "local toolkit of another version).",
        fix="Reinstall the package from the index of the installed torch's variant (PyG: "
        "https://data.pyg.org/whl/torch-X+cuYYY.html; torchvision: the PyTorch index of "
        "the same cuYYY), or build it with a toolkit of torch's CUDA.",
        source="https://github.com/rusty1s/pytorch_sparse/issues/86",
        emitted_by="rusty1s/pytorch_sparse:torch_sparse/__init__.py@000b1ac55aafc4d06e0a2cc94507883708a161bc",
        analysis=COMPANION,
    ),
    Signature(
        id="companion-operator-missing",
        regex=r"No such operator (?P<lib>(?!aten::|prim::)[a-z_]{2,40})::\w{1,80}"
        r"|operator (?P<lib2>(?!aten::|prim::)[a-z_]{2,40})::\w{1,80} does not exist",
        frameworks=("torch",),
        category=Category.MIXED_WHEELS,
        title="A companion package's operators are not registered with the installed torch",
        cause="torchvision (and other torch extensions) register their C++ operators with "
        "torch's dispatcher when their compiled library loads; when it was built for another "
        "torch release or variant the library does not load and the operator is missing.",
        fix="Install torch and the package together, from one index at matching versions "
        "(torchvision's metadata pins the torch release it was built for).",
        source="https://github.com/pytorch/pytorch/issues/122494",
        emitted_by="pytorch/pytorch:torch/csrc/utils/python_dispatch.cpp@013c4267012d1742f2fe5b23e1c93c52026f8bb9",
        analysis=COMPANION,
    ),
    # -- driver / kernel module mismatch ----------------------------------------------
    Signature(
        id="nvrm-api-mismatch",
        regex=r"API mismatch: the client (?:'[^']{0,60}' \(pid \d{1,8}\)\s?)?"
        r"(?:has the version (?P<client>\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)"
        r"(?:, but (?:NVRM: )?this kernel module has (?:NVRM: )?the version "
        r"(?P<kernel>\d{2,4}\.\d{1,3}(?:\.\d{1,3})?))?)?",
        frameworks=(),
        category=Category.NVML_MISMATCH,
        title="The NVIDIA kernel module and the user-space driver have different versions",
        cause="The kernel module refuses a client library of another driver version: the "
        "driver packages were upgraded while the old module stays loaded, or two driver "
        "installs (distribution packages and the .run installer) are mixed.",
        fix="Reboot after a driver upgrade; otherwise remove the second driver install so "
        "that the module and libraries come from one version.",
        source="https://github.com/negativo17/nvidia-driver/issues/43",
        emitted_by="NVIDIA/open-gpu-kernel-modules:kernel-open/nvidia/nv.c@30e15d79de62e8955eb8b77a6e292ab9b87f52b0",
        analysis=NVML,
    ),
    Signature(
        id="tf-kernel-dso-version-mismatch",
        regex=r"kernel version (?P<kernel>\d{2,4}\.\d{1,3}(?:\.\d{1,3})?) does not match DSO "
        r"version (?P<client>\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)",
        frameworks=("tensorflow", "jax"),
        category=Category.NVML_MISMATCH,
        title="The loaded NVIDIA kernel module is not the version of the libcuda in use",
        cause="TensorFlow's CUDA diagnostics compare /proc/driver/nvidia/version (the kernel "
        "module) with the libcuda it loaded (the DSO); they differ after an upgrade "
        "without a reboot, or when a second libcuda (a container image's, a Linux driver "
        "installed inside WSL2) is found first.",
        fix="Reboot after a driver upgrade; remove stray libcuda.so copies from the loader "
        "path (in WSL2 keep only /usr/lib/wsl/lib's).",
        source="https://github.com/saharmor/dalle-playground/issues/104",
        emitted_by="tensorflow/tensorflow:tensorflow/stream_executor/cuda/cuda_diagnostics.cc@31365feecf57902ad5de5e1e40dda5b932cab81a",
        analysis=NVML,
    ),
    Signature(
        id="nvml-lib-rm-version-mismatch",
        regex=r"NVML_ERROR_LIB_RM_VERSION_MISMATCH|NVMLError_LibRmVersionMismatch"
        r"|RM has detected an NVML/RM version mismatch",
        frameworks=(),
        category=Category.NVML_MISMATCH,
        title="NVML and the NVIDIA kernel module (RM) have different versions",
        cause="NVML (libnvidia-ml) returned NVML_ERROR_LIB_RM_VERSION_MISMATCH: the "
        "user-space library was upgraded while the old kernel module is still loaded.",
        fix="Reboot (or unload and reload the nvidia modules with no GPU process running).",
        source="https://github.com/rapidsai/dask-cuda/issues/949",
        emitted_by="gpuopenanalytics/pynvml:pynvml/nvml.py@405c6f9989228325bbeb46c34cf77d6f35a305f7",
        analysis=NVML,
    ),
    Signature(
        id="nvml-library-not-found",
        regex=r"NVML Shared Library Not Found|NVMLError_LibraryNotFound",
        frameworks=(),
        category=Category.NO_DRIVER,
        title="NVML (libnvidia-ml, part of the NVIDIA driver) cannot be loaded",
        cause="pynvml could not open libnvidia-ml, which only the NVIDIA driver installs: no "
        "driver, a container without the NVIDIA runtime, or a machine with no NVIDIA GPU "
        "(macOS never has one).",
        fix="Install the NVIDIA driver (or start the container with `--gpus all`); on a "
        "machine without an NVIDIA GPU turn GPU monitoring off.",
        source="https://github.com/wookayin/gpustat/issues/90",
        emitted_by="gpuopenanalytics/pynvml:pynvml/nvml.py@405c6f9989228325bbeb46c34cf77d6f35a305f7",
        analysis=NO_DRIVER,
    ),
    # -- GPU too old for the build -------------------------------------------------
    Signature(
        id="tf-gpu-below-minimum-capability",
        regex=r"Ignoring (?:visible )?gpu device \([^\n]{0,200}?\) with Cuda compute capability "
        r"(?P<cc>\d{1,2}\.\d)\. The minimum required Cuda capability is (?P<min>\d{1,2}\.\d)",
        frameworks=("tensorflow",),
        category=Category.GPU_ARCH_UNSUPPORTED,
        title="TensorFlow ignores the GPU: its compute capability is below the build's minimum",
        cause="Each TensorFlow binary is compiled for compute capabilities from a minimum up "
        "(3.5 for TF 1.x and early 2.x, higher in later releases) and skips older GPUs.",
        fix="Use a TensorFlow release whose builds still include this GPU, build TensorFlow "
        "from source for its compute capability, or run on a newer GPU.",
        source="https://github.com/tensorflow/tensorflow/issues/46653",
        emitted_by="tensorflow/tensorflow:tensorflow/core/common_runtime/gpu/gpu_device.cc@637eae5b82bba256600fe421c8dc8c019e18162c",
        analysis=ARCH,
    ),
    # -- build ran without a GPU -----------------------------------------------------
    Signature(
        id="cpp-extension-no-cuda-runtime",
        regex=r"No CUDA runtime is found, using CUDA_HOME=",
        frameworks=("torch",),
        category=Category.NO_GPU,
        severity=Severity.WARNING,
        title="The extension build ran where PyTorch sees no GPU",
        cause="torch.utils.cpp_extension prints this when CUDA_HOME exists but "
        "torch.cuda.is_available() is False: a `docker build` (no GPU during builds), a "
        "container started without `--gpus`, or a login node without GPUs.",
        fix="Build where a GPU is visible (`docker run --gpus all ...`, a GPU node), or set "
        "TORCH_CUDA_ARCH_LIST (and FORCE_CUDA=1 where the package reads it) so the build "
        "does not need one.",
        source="https://github.com/Thinklab-SJTU/ThinkMatch/issues/51",
        emitted_by="pytorch/pytorch:torch/utils/cpp_extension.py@26e792905bbc588fde825ef283503389673ecae1",
        analysis=NO_GPU,
    ),
    # -- cuDNN (TensorFlow) ------------------------------------------------------------
    Signature(
        id="tf-cudnn-handle-failed",
        regex=r"Could not create cudnn handle: (?P<code>CUDNN_STATUS_\w{1,40})"
        r"|Failed to get convolution algorithm\. This is probably because cuDNN failed to "
        r"initialize",
        frameworks=("tensorflow", "jax"),
        category=Category.OTHER,
        title="cuDNN could not start (usually the GPU memory is already taken)",
        cause="cudnnCreate failed when the first convolution ran. TensorFlow reserves nearly "
        "all GPU memory up front, so cuDNN's own allocation fails (the usual case); less "
        "often the cuDNN loaded does not match the build (a 'Loaded runtime CuDNN library' "
        "line says so).",
        fix="Enable memory growth (tf.config.experimental.set_memory_growth(gpu, True), or "
        "TF_FORCE_GPU_ALLOW_GROWTH=true) and stop other GPU processes; if a 'Loaded runtime "
        "CuDNN library' line is present, install the cuDNN it was compiled with.",
        source="https://github.com/tensorflow/tensorflow/issues/24496",
        emitted_by="tensorflow/tensorflow:tensorflow/stream_executor/cuda/cuda_dnn.cc@2790a04f02d0eb5dd441c676a0cc5328d362084b",
        analysis=CUDNN_HANDLE,
    ),
    Signature(
        id="tf-native-runtime-load-failed",
        regex=r"Failed to load the native TensorFlow runtime",
        frameworks=("tensorflow",),
        category=Category.CUDA_RUNTIME_MISSING,
        title="TensorFlow's native library could not be loaded",
        cause="_pywrap_tensorflow_internal failed to load: on Windows a DLL it links is "
        "missing from the DLL search path (tensorflow-gpu's CUDA and cuDNN of the exact "
        "version it was built for, or the MSVC runtime), or the CPU lacks AVX.",
        fix="Install the CUDA and cuDNN versions the TensorFlow release was tested with and "
        "add their bin directories to PATH, install the latest MSVC redistributable, or use "
        "a build for this CPU.",
        source="https://github.com/tensorflow/tensorflow/issues/14686",
        emitted_by="tensorflow/tensorflow:tensorflow/python/pywrap_tensorflow.py@b1fb6997953ff50b59faf79af9183f94475cf762",
        analysis=CUDA_LIB,
    ),
)

SIGNATURES: tuple[Signature, ...] = _FROM_REPORTS + EMITTED


def by_id() -> dict[str, Signature]:
    return {s.id: s for s in SIGNATURES}
