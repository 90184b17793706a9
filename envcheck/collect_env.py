"""Read the text ``python -m torch.utils.collect_env`` prints into a Snapshot.

This is what users paste into bug reports; turning it into a snapshot lets a
maintainer run ``envcheck doctor --from-collect-env FILE`` on someone else's
machine. ``parse_collect_env`` is pure (the caller reads the file).

Every PyTorch era is accepted: the 1.x layout ("Is debug build: No",
"Is CUDA available: Yes"), the 2.x layout (Python platform, CUDA_MODULE_LOADING,
a CPU section), Windows, WSL2, ROCm and reports without torch ("N/A"). Reports
that end early give a partial snapshot with a note in ``errors``. The GPU's
compute capability is left unknown: the doctor looks it up by name.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Optional

from envcheck.detect.driver import parse_nvidia_smi_cuda_version, parse_nvidia_smi_driver_version
from envcheck.detect.platform import is_wsl_kernel, normalise_machine
from envcheck.errors import InputError
from envcheck.model.snapshot import (
    CudaToolkit,
    Driver,
    Framework,
    Gpu,
    Library,
    Platform,
    ProbeError,
    PythonInfo,
    Snapshot,
)
from envcheck.model.versions import parse_cuda_version, parse_driver_version

SOURCE = "collect_env"
PROBE = "collect_env"
MAX_GPUS = 256
MAX_PACKAGES = 5000
MAX_VALUE_CHARS = 300

# The "Key: value" lines collect_env prints, by the name this module uses.
_KEYS = {
    "PyTorch version": "torch",
    "Is debug build": "debug",
    "CUDA used to build PyTorch": "torch_cuda",
    "ROCM used to build PyTorch": "torch_rocm",
    "OS": "os",
    "GCC version": "gcc",
    "Clang version": "clang",
    "CMake version": "cmake",
    "Libc version": "libc",
    "Python version": "python",
    "Python platform": "python_platform",
    "Is CUDA available": "cuda_available",
    "CUDA runtime version": "cuda_runtime",
    "CUDA_MODULE_LOADING set to": "module_loading",
    "GPU models and configuration": "gpus",
    "Nvidia driver version": "driver",
    "cuDNN version": "cudnn",
    "NCCL version": "nccl",
    "HIP runtime version": "hip",
    "MIOpen runtime version": "miopen",
    "Is XNNPACK available": "xnnpack",
    "Is XPU available": "xpu",
    "Versions of relevant libraries": "libraries",
    "Version of relevant libraries": "libraries",
    "GPU topology": "topology",
    "CPU": "cpu",
}
_KEY_RE = re.compile(
    r"^(" + "|".join(re.escape(k) for k in _KEYS) + r")(?:\s*[:\uff1a](?:\s*(.*)|)|\s+(\S.*))$",
    re.IGNORECASE,
)
"""A key, then ``: value``; hand-copied reports also lose the colon, change the
key's case or use a full-width colon."""
_BARE_KEY_RE = re.compile(
    r"^(Versions of relevant libraries|Version of relevant libraries"
    r"|GPU models and configuration|GPU topology)$",
    re.IGNORECASE,
)
"""A block key alone on its line: vLLM's collect_env prints "Versions of relevant
libraries" as a section title between rules of '='."""
_RULE = re.compile(r"^[=\-]{3,}$")
"""A section rule (vLLM's layout frames each section with a line of '=')."""
_QUOTE_PREFIX = re.compile(r"^\s*(?:>[ \t]?)+")
"""Markdown or e-mail quoting: "> PyTorch version: ..." (nested: "> > ")."""
_COMPOSE_PREFIX = re.compile(r"^([A-Za-z0-9][\w.-]*)\s*\|")
"""docker compose logs: "app-1  | PyTorch version: ..."."""
_STAMP_PREFIX = re.compile(r"^\d{4}-\d\d-\d\d[T ][\d:.,]+Z?\s")
"""Timestamped logs: "2024-03-11T17:05:11.375399470Z PyTorch version: ..."."""
_TORCH_KEY = re.compile(r"PyTorch version", re.IGNORECASE)
_MIG_LINE = re.compile(r"^MIG\s+\S+\s+Device\s+\d+\s*[:\uff1a]?.*$")
"""nvidia-smi -L lists the MIG instances of a GPU under it ("  MIG 3g.20gb Device 0:")."""
_SMI_LINE = re.compile(
    r"NVIDIA-SMI\s{1,40}\S{1,40}\s{1,40}(?:KMD|Driver) Version:"
    r"|^\s{0,8}(?:KMD|Driver|CUDA|CUDA UMD) Version\s+:\s{0,8}\d"
)
"""An nvidia-smi header pasted beside the report: the table's first line, or the
``-q`` version lines (aligned colon). From R610 on they say "KMD Version" and
"CUDA UMD Version" (https://docs.nvidia.com/deploy/nvidia-smi/index.html)."""
_KEY_OF = {k.lower(): v for k, v in _KEYS.items()}
# Keys that open a block of following lines (until a blank line or the next key).
_BLOCKS = {"gpus", "cudnn", "libraries", "topology", "cpu"}
_UNKNOWN = {"", "n/a", "none", "could not collect", "no cuda", "unknown"}
_GPU_LINE = re.compile(r"^GPU (\d{1,4})\s*[:\uff1a]\s*(.+)$")
_GPU_UUID = re.compile(r"\s*\(UUID:\s*(GPU-[0-9A-Fa-f-]+)\)\s*$")
"""``nvidia-smi -L`` appends "(UUID: GPU-...)" to a GPU's name; older collect_env
versions print it as is."""
_EMPHASIS = re.compile(r"^(?:\*\*|__|\*)(?=\S)|(?<=\S)(?:\*\*|__|\*)$")
"""Markdown emphasis a reporter put around a line to point at it ("**Is CUDA
available: No**", or only an opening "**")."""
_CUDNN_PATH = re.compile(
    r"(?:^|[/\\])(?:lib)?cudnn(_[a-z_]+?)?(?:64_(\d+)\.dll|\.so\.(\d+(?:\.\d+)*))$",
    re.IGNORECASE,
)
"""libcudnn.so.8.9.2 / cudnn64_8.dll, and the per-part libraries cuDNN 8 and 9
split into (libcudnn_ops_infer.so.8.9.2, cudnn_ops_train64_8.dll, cudnn_graph64_9.dll):
Windows reports often list only one of those."""
_PIP_LINE = re.compile(r"^\[(pip3?|conda)\]\s+(.*)$")
_PIP_REQ = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")
_CONDA_ROW = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s+(\S+)(?:\s+\S+)*$")
_VERSION = re.compile(r"^\d+(?:\.\d+){0,3}$")
_OS_ARCH = re.compile(r"\((x86_64|aarch64|arm64|AMD64|ppc64le|s390x)\)\s*$")
_DISTRO = re.compile(
    r"^(Ubuntu|Debian GNU/Linux|Debian|CentOS Linux|CentOS Stream|CentOS|Red Hat Enterprise Linux"
    r"|Rocky Linux|AlmaLinux|Fedora Linux|Fedora|Amazon Linux|openSUSE Leap|SUSE Linux Enterprise"
    r" Server|Arch Linux|Linux Mint|Pop!_OS|Oracle Linux Server)\b\s*(?:release\s+)?([\d.]+)?",
    re.IGNORECASE,
)
_DISTRO_IDS = {
    "debian gnu/linux": "debian",
    "centos linux": "centos",
    "centos stream": "centos",
    "red hat enterprise linux": "rhel",
    "rocky linux": "rocky",
    "fedora linux": "fedora",
    "amazon linux": "amzn",
    "opensuse leap": "opensuse-leap",
    "suse linux enterprise server": "sles",
    "arch linux": "arch",
    "linux mint": "linuxmint",
    "pop!_os": "pop",
    "oracle linux server": "ol",
}


def is_collect_env(text: str) -> bool:
    """Whether ``text`` looks like collect_env output (cheap check)."""
    return _count_keys(_unprefixed(text.splitlines())) >= 3


def _unprefixed(lines: list[str]) -> list[str]:
    """The lines without a prefix that every line of a pasted report carries.

    Reports quoted in a reply ("> "), copied from docker compose logs ("app-1  | ")
    or from timestamped logs keep that prefix on every line. The text before the
    first "PyTorch version" decides: when it has one of those shapes, that shape
    (the same compose service name) is removed from the start of every line.
    """
    for line in lines[:400]:
        m = _TORCH_KEY.search(line)
        if m is None:
            continue
        prefix = line[: m.start()]
        if not prefix.strip():
            return lines
        strip: Optional[re.Pattern[str]] = None
        if _QUOTE_PREFIX.fullmatch(prefix.rstrip()):
            strip = _QUOTE_PREFIX
        elif _STAMP_PREFIX.fullmatch(prefix):
            strip = _STAMP_PREFIX
        else:
            cm = _COMPOSE_PREFIX.fullmatch(prefix.rstrip())
            if cm:
                strip = re.compile(r"^" + re.escape(cm.group(1)) + r"\s*\|")
        if strip is None:
            return lines
        return [strip.sub("", ln, count=1) for ln in lines]
    return lines


def _key_match(stripped: str) -> Optional[re.Match[str]]:
    """The key line ``stripped`` is, if any (markdown emphasis around it removed)."""
    if stripped[:1] == "*" or stripped[-1:] == "*" or "__" in (stripped[:2], stripped[-2:]):
        stripped = _EMPHASIS.sub("", stripped).strip()
    return _KEY_RE.match(stripped)


def _count_keys(lines: list[str]) -> int:
    seen = set()
    for line in lines[:400]:
        m = _key_match(line.strip())
        if m:
            seen.add(m.group(1).lower())
    return len(seen)


def _clean(value: Optional[str]) -> Optional[str]:
    """Strip, bound the length, and map collect_env's "unknown" words to None."""
    if value is None:
        return None
    value = "".join(ch for ch in value if ch.isprintable()).strip()[:MAX_VALUE_CHARS]
    return None if value.lower() in _UNKNOWN else value


class _Report:
    """The key/value lines and blocks of one report, with line numbers."""

    def __init__(self) -> None:
        self.values: dict[str, tuple[int, str]] = {}
        self.blocks: dict[str, list[tuple[int, str]]] = {}
        self.last_line = 0


def _split(lines: list[str], path: str) -> _Report:
    report = _Report()
    block: Optional[str] = None
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        stripped = line.strip()
        if _RULE.match(stripped):
            continue
        m = _key_match(stripped) or _BARE_KEY_RE.match(stripped)
        if m:
            name = _KEY_OF[m.group(1).lower()]
            given = None
            if m.re is _KEY_RE:
                given = m.group(2) if m.group(2) is not None else m.group(3)
            if name == "torch" and "torch" in report.values:
                raise InputError(
                    path,
                    number,
                    "a second collect_env report starts here; pass one report at a time",
                )
            report.values[name] = (number, given or "")
            report.last_line = number
            block = name if name in _BLOCKS else None
            if block is not None:
                report.blocks.setdefault(block, [])
                if given:
                    report.blocks[block].append((number, given))
            continue
        if block is None:
            continue
        if not stripped:
            # A blank line ends a block, except right after "GPU models and configuration:".
            if report.blocks.get(block):
                block = None
            continue
        report.blocks[block].append((number, stripped))
        report.last_line = number
    return report


def parse_collect_env(text: str, path: str = "<collect_env>") -> Snapshot:
    """Parse collect_env output into a snapshot (``source = "collect_env"``).

    Raises InputError ("not the output of torch.utils.collect_env") when the text
    is something else; a report that ends early gives a partial snapshot.
    """
    lines = _unprefixed(text.splitlines())
    if _count_keys(lines) < 3:
        raise InputError(
            path,
            None,
            "not the output of torch.utils.collect_env (expected lines such as "
            "'PyTorch version:' and 'CUDA used to build PyTorch:')",
        )
    report = _split(lines, path)
    errors: list[ProbeError] = []

    value = _ValueFn(report.values)
    platform = _platform(value("os"), value("python_platform"), value("libc"))
    if platform.arch is None and "(AMD64)" in (value("python") or ""):
        platform = dataclasses.replace(platform, arch="x86_64")
    python = PythonInfo(version=_python_version(value("python")))
    driver = _driver(report, value, path, errors, _smi_header(lines))
    gpus = _gpus(report, value("torch_rocm"), path, errors)
    driver_probed = _driver_probed(report, driver, gpus)
    if not driver_probed and "driver" in report.values:
        errors.append(
            ProbeError(
                PROBE,
                f"{path}:{report.values['driver'][0]}: no driver version beside listed GPUs "
                "(collect_env reads nvidia-smi's 'Driver Version:', which R610+ drivers print "
                "as 'KMD Version:'); the driver version is unknown",
            )
        )
    toolkits = _toolkits(value("cuda_runtime"))
    libraries = _libraries(report, value("nccl"))
    packages, conda_packages = _packages(report, path, errors)
    frameworks = _frameworks(value, libraries)
    env: dict[str, str] = {}
    loading = value("module_loading")
    if loading:
        env["CUDA_MODULE_LOADING"] = loading
    # 'Is CUDA available: False' on a CUDA build is judged by the doctor's
    # framework-reports-no-cuda rule (it is a fact of the report, not a parse error).
    if "libraries" not in report.values:
        errors.append(
            ProbeError(
                PROBE,
                f"{path}: the report ends at line {report.last_line} before 'Versions of "
                "relevant libraries'; facts after that line are unknown",
            )
        )
    from envcheck import __version__

    return Snapshot(
        platform=platform,
        python=python,
        driver=driver,
        gpus=gpus,
        cuda_toolkits=toolkits,
        libraries=libraries,
        packages=packages,
        conda_packages=conda_packages,
        frameworks=frameworks,
        env=env,
        errors=tuple(errors),
        envcheck_version=__version__,
        source=SOURCE,
        # collect_env asked nvidia-smi: its "Could not collect" / "No CUDA" is an
        # observed absence; a report without the line leaves the driver unknown.
        probes=("driver",) if driver_probed else (),
    )


def _platform(
    os_text: Optional[str], python_platform: Optional[str], libc: Optional[str]
) -> Platform:
    os_name: Optional[str] = None
    arch: Optional[str] = None
    distro: Optional[str] = None
    distro_version: Optional[str] = None
    kernel: Optional[str] = None
    glibc: Optional[str] = None
    wsl: Optional[bool] = None
    if os_text:
        low = os_text.lower()
        if "windows" in low:
            os_name = "windows"
        elif low.startswith(("mac", "darwin")):
            os_name = "darwin"
        elif "linux" in low or _DISTRO.match(os_text):
            os_name = "linux"
        am = _OS_ARCH.search(os_text)
        if am:
            arch = am.group(1)
        dm = _DISTRO.match(os_text)
        if dm:
            name = dm.group(1).lower()
            distro = _DISTRO_IDS.get(name, name.split()[0])
            distro_version = dm.group(2)
            if distro_version and distro in ("ubuntu",):
                distro_version = ".".join(distro_version.split(".")[:2])
    if python_platform:
        pm = re.match(
            r"^(Linux|Windows|macOS|Darwin)-(.+?)(?:-with-(glibc|libc)([\d.]+))?$", python_platform
        )
        if pm:
            system, rest = pm.group(1), pm.group(2)
            if os_name is None:
                os_name = {"Linux": "linux", "Windows": "windows"}.get(system, "darwin")
            if system == "Linux":
                km = re.match(r"^(.*?)-(x86_64|aarch64|ppc64le|s390x)$", rest)
                kernel = km.group(1) if km else rest
                if km and arch is None:
                    arch = km.group(2)
            if pm.group(3) == "glibc":
                glibc = pm.group(4)
    if libc:
        lm = re.match(r"^glibc-([\d.]+)$", libc)
        if lm:
            glibc = lm.group(1)
    if kernel:
        wsl = is_wsl_kernel(kernel) if os_name == "linux" else wsl
    arch = normalise_machine(arch) if arch else arch
    return Platform(
        os=os_name,
        arch=arch,
        distro=distro,
        distro_version=distro_version,
        kernel=kernel,
        glibc=glibc,
        wsl=wsl,
    )


def _python_version(text: Optional[str]) -> Optional[str]:
    if not text:
        return None
    m = re.match(r"^(\d+\.\d+(?:\.\d+)?)", text)
    return m.group(1) if m else None


def _smi_header(lines: list[str]) -> tuple[Optional[str], Optional[str]]:
    """(driver version, highest CUDA) from an nvidia-smi header pasted with the report."""
    header = "\n".join(line for line in lines[:5000] if _SMI_LINE.search(line[:400]))
    return parse_nvidia_smi_driver_version(header), parse_nvidia_smi_cuda_version(header)


def _driver(
    report: _Report,
    value: _ValueFn,
    path: str,
    errors: list[ProbeError],
    smi: tuple[Optional[str], Optional[str]],
) -> Driver:
    smi_driver, smi_cuda = smi
    raw = value("driver")
    if raw is not None and parse_driver_version(raw) is None:
        line = report.values["driver"][0]
        errors.append(ProbeError(PROBE, f"{path}:{line}: unrecognised driver version {raw!r}"))
        raw = None
    if raw is None:
        if smi_driver is None:
            return Driver()
        return Driver(version=smi_driver, cuda_version=smi_cuda, source=SOURCE)
    # The pasted header's CUDA belongs to this driver only when it names the same one.
    cuda = smi_cuda if smi_driver in (None, raw) else None
    return Driver(version=raw, cuda_version=cuda, source=SOURCE)


def _driver_probed(report: _Report, driver: Driver, gpus: tuple[Gpu, ...]) -> bool:
    """Whether the report's driver facts are an observation (an absent driver is then
    observed absent). collect_env reads the driver with ``Driver Version: (.*?) `` from
    plain nvidia-smi (torch/utils/collect_env.py, get_nvidia_driver_version), which
    R610+ drivers no longer print ("KMD Version:"): "Could not collect" beside GPUs that
    ``nvidia-smi -L`` listed says nothing about the driver."""
    if "driver" not in report.values:
        return False
    return driver.version is not None or not gpus


def _gpus(
    report: _Report, rocm: Optional[str], path: str, errors: list[ProbeError]
) -> tuple[Gpu, ...]:
    gpus: list[Gpu] = []
    for number, line in report.blocks.get("gpus", []):
        m = _GPU_LINE.match(line)
        if m is None and _MIG_LINE.match(line):
            # A MIG instance of the GPU listed above it: that GPU runs in MIG mode.
            if gpus:
                gpus[-1] = dataclasses.replace(gpus[-1], mig_mode="Enabled")
            continue
        if m is None:
            if _clean(line) is not None and rocm is None:
                errors.append(
                    ProbeError(PROBE, f"{path}:{number}: unrecognised GPU line {line[:80]!r}")
                )
            # ROCm builds print the AMD device name without "GPU n:"; envcheck's
            # GPU model is NVIDIA-only, so AMD devices are not recorded.
            continue
        if len(gpus) >= MAX_GPUS:
            errors.append(ProbeError(PROBE, f"{path}:{number}: more than {MAX_GPUS} GPUs listed"))
            break
        raw_name = m.group(2)
        um = _GPU_UUID.search(raw_name)
        uuid = um.group(1) if um else None
        if um:
            raw_name = raw_name[: um.start()]
        gpus.append(Gpu(index=int(m.group(1)), name=_clean(raw_name), uuid=uuid))
    return tuple(gpus)


def _toolkits(runtime: Optional[str]) -> tuple[CudaToolkit, ...]:
    if runtime is None or parse_cuda_version(runtime) is None:
        return ()
    return (CudaToolkit(version=runtime, source=SOURCE),)


def _libraries(report: _Report, nccl: Optional[str]) -> tuple[Library, ...]:
    libs: list[Library] = []
    seen: set[str] = set()
    for _number, line in report.blocks.get("cudnn", []):
        entry = line.strip()
        if entry.lower().startswith("probably one of the following"):
            continue
        if _VERSION.match(entry):
            libs.append(Library(name="cudnn", version=entry, source=SOURCE))
            continue
        m = _CUDNN_PATH.search(entry)
        if m is None or entry in seen:
            continue
        seen.add(entry)
        version = m.group(3) or m.group(2)
        if m.group(1) and any(lib.version == version for lib in libs):
            continue  # another part of a cuDNN already recorded
        libs.append(Library(name="cudnn", version=version, path=entry, source=SOURCE))
    if nccl and _VERSION.match(nccl):
        libs.append(Library(name="nccl", version=nccl, source=SOURCE))
    return tuple(libs)


def _packages(
    report: _Report, path: str, errors: list[ProbeError]
) -> tuple[dict[str, str], dict[str, str]]:
    pip: dict[str, str] = {}
    conda: dict[str, str] = {}
    for number, line in report.blocks.get("libraries", []):
        m = _PIP_LINE.match(line)
        if m is None:
            continue
        kind, rest = m.group(1), m.group(2).strip()
        if _clean(rest) is None:
            continue
        if len(pip) + len(conda) >= MAX_PACKAGES:
            errors.append(ProbeError(PROBE, f"{path}:{number}: more than {MAX_PACKAGES} packages"))
            break
        if kind == "conda":
            cm = _CONDA_ROW.match(rest)
            if cm:
                conda[cm.group(1).lower()] = cm.group(2)
            continue
        pm = _PIP_REQ.match(rest)
        if pm:
            pip[pm.group(1).lower().replace("_", "-")] = pm.group(2)
    return pip, conda


def _frameworks(value: _ValueFn, libraries: tuple[Library, ...]) -> tuple[Framework, ...]:
    version = value("torch")
    if version is None:
        return ()
    build: dict[str, str] = {}
    for key, name in (
        ("debug", "is_debug_build"),
        ("cuda_available", "is_cuda_available"),
        ("hip", "hip_runtime_version"),
        ("miopen", "miopen_runtime_version"),
    ):
        v = value(key)
        if v is not None:
            build[name] = {"yes": "True", "no": "False"}.get(v.lower(), v)
    cuda_text = value("torch_cuda")
    rocm = value("torch_rocm")
    cuda = parse_cuda_version(cuda_text) if cuda_text else None
    local = version.split("+", 1)[1] if "+" in version else ""
    variant: Optional[str] = None
    if re.match(r"^(cu\d+|cpu|rocm[\d.]+|xpu)$", local):
        variant = local
    elif cuda is not None:
        variant = cuda.tag
    elif rocm:
        variant = "rocm" + ".".join(rocm.split(".")[:2])
    raw_cuda_item = value("torch_cuda")
    cpu_only: Optional[bool]
    if cuda is not None or rocm:
        cpu_only = False
    elif variant == "cpu" or (
        raw_cuda_item is None
        and _said_none(value, "torch_cuda")
        and build.get("is_cuda_available") != "True"
    ):
        cpu_only = True
        variant = variant or "cpu"
    else:
        cpu_only = None
    return (
        Framework(
            name="torch",
            version=version,
            cuda_version=str(cuda) if cuda is not None else None,
            cpu_only=cpu_only,
            package="torch",
            variant=variant,
            rocm_version=rocm,
            build=build,
        ),
    )


def _said_none(value: _ValueFn, name: str) -> bool:
    """True when collect_env printed that torch's value is None (a CPU build):
    literally "None", or "Could not collect", which is what its report prints for
    every None; "N/A" means torch could not be imported."""
    return (value.raw(name) or "").lower() in ("none", "could not collect")


class _ValueFn:
    """Typed accessor: ``value(name)`` cleaned, ``value.raw(name)`` as printed."""

    def __init__(self, values: Mapping[str, tuple[int, str]]) -> None:
        self._values = values

    def __call__(self, name: str) -> Optional[str]:
        item = self._values.get(name)
        return _clean(item[1]) if item else None

    def raw(self, name: str) -> Optional[str]:
        item = self._values.get(name)
        return item[1].strip() if item else None
