"""Facts an error message states about the machine it came from (pure).

A pasted log often says more than its error line: the interpreter's banner, the
``pip install`` command that failed, a ``CUDA_VISIBLE_DEVICES=...`` prefix, a
Windows path, the CUDA version the driver supports ("found version 11040"), the
GPU and its compute capability, the architectures the installed PyTorch was
compiled for. ``extract`` reads those facts and ``overlay`` lays them over a
snapshot (or an empty one), so ``explain`` judges them with the doctor's own
rules instead of rules of its own. They describe the process that failed, so
they are labelled "from the message" wherever they are shown.

The patterns are data: the ``[[fact]]`` rows of ``signatures/facts.toml``, looked
up here by id (``fact_patterns``), with the comments on where each wording comes
from. Every pattern is anchored to a short window and runs on bounded lines, so a
hostile log stays linear.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from envcheck.explain.catalogue import fact_patterns
from envcheck.model._fields import frozen_map
from envcheck.model.snapshot import (
    FROM_MESSAGE,
    LIB_NOT_LOADABLE,
    Driver,
    Framework,
    Gpu,
    Library,
    Snapshot,
)
from envcheck.model.versions import parse_compute_capability, parse_driver_version

if TYPE_CHECKING:
    from envcheck.matrix import Matrix

MAX_LINES = 5000
MAX_LINE = 4096

_SMI_Q_WINDOW = 4
"""How many lines below an ``nvidia-smi -q`` driver line its CUDA line (fact
``smi-q-cuda``) is looked for, so a stray "CUDA Version: 12.1" in a log is not taken
for the driver's."""
_ORT_GPU_PROVIDERS = ("CUDAExecutionProvider", "TensorrtExecutionProvider")


@dataclass(frozen=True)
class MessageFacts:
    """What the text says; None/empty where it says nothing."""

    python: Optional[str] = None
    os: Optional[str] = None
    pins: tuple[tuple[str, str], ...] = ()
    """(distribution, version) of frameworks a ``pip install`` line asks for."""
    env: tuple[tuple[str, str], ...] = ()
    """Environment assignments the failing command made."""
    driver: Optional[str] = None
    """The driver version (nvidia-smi's table)."""
    driver_cuda: Optional[str] = None
    """The highest CUDA the driver supports (``11.4``)."""
    gpus: tuple[tuple[str, str], ...] = ()
    """(name, compute capability ``12.0``) of GPUs the message names."""
    torch_archs: Optional[str] = None
    """``sm_50,sm_60,...``: what the failing PyTorch says it was compiled for."""
    cudnn_loaded: Optional[str] = None
    """The cuDNN version the failing process loaded (``8.0.5``)."""
    cudnn_compiled: Optional[str] = None
    """The cuDNN version its framework was compiled with (``8.1.0``)."""
    cudnn_framework: Optional[str] = None
    """``jax``, ``tensorflow``, ``torch`` or ``paddle`` when the message says which
    framework printed it."""
    cudnn_unloadable: tuple[str, ...] = ()
    """cuDNN majors (``8``) whose library the failing process could not open."""
    cuda_unloadable: tuple[tuple[str, str], ...] = ()
    """(library, CUDA version its soname names: ``cublaslt``, ``11``) of CUDA runtime
    libraries the failing process could not open."""
    gpu_names: tuple[str, ...] = ()
    """NVIDIA GPUs the prose names without a compute capability; ``known_gpus``
    keeps those the matrix resolves."""
    container: Optional[str] = None
    """``docker`` when the text is a container session started without GPU flags."""
    packages: tuple[str, ...] = ()
    """Distributions the message says are installed (CuPy's duplicate list)."""
    jax: bool = False
    """The text shows JAX or its XLA (frames, paths, calls)."""
    cuda_loaded: tuple[tuple[str, str], ...] = ()
    """(library, CUDA version its soname names) of CUDA runtime libraries the failing
    process did open."""
    wsl1_kernel: Optional[str] = None
    """A WSL 1 kernel release the text shows (``4.4.0-19041-Microsoft``)."""
    installed: tuple[tuple[str, str], ...] = ()
    """(distribution, version) pip says it installed ("Successfully installed ...")."""
    ort_cpu_providers: tuple[str, ...] = ()
    """An onnxruntime provider list the text prints that has no CUDA or TensorRT
    provider (``['AzureExecutionProvider', 'CPUExecutionProvider']``): the installed
    onnxruntime has no GPU build. Lists printed as the providers a session fell back
    to ("Applied providers") are not this fact."""
    other_gpus: tuple[str, ...] = ()
    """GPUs of another vendor than NVIDIA the text names (``AMD Radeon RX 7900 XTX``)."""
    shown: tuple[tuple[str, str], ...] = ()
    """(distribution, version) of frameworks the text shows installed: a printed
    ``__version__``, a "PyTorch version: X" line, a ``pip list`` row."""
    pip_index: Optional[str] = None
    """The index pip was pointed at ("Looking in indexes: URL", ``--index-url URL``); of
    several, PyTorch's own."""
    no_gpu_said: Optional[str] = None
    """The words in which the text says the machine has no GPU ("a CPU only computer",
    "my laptop has no NVIDIA GPU")."""

    def cuda_needed(self) -> tuple[str, ...]:
        """The CUDA versions the failing build needs, as the sonames it opened or could
        not open name them (``11.0``, ``12``), highest first."""
        seen = {v for _n, v in (*self.cuda_unloadable, *self.cuda_loaded)}
        return tuple(sorted(seen, key=lambda v: tuple(int(x) for x in v.split(".")), reverse=True))

    def __bool__(self) -> bool:
        return bool(
            self.python
            or self.os
            or self.pins
            or self.env
            or self.driver
            or self.driver_cuda
            or self.gpus
            or self.torch_archs
            or self.cudnn_loaded
            or self.cudnn_unloadable
            or self.cuda_unloadable
            or self.gpu_names
            or self.container
            or self.packages
            or self.wsl1_kernel
            or self.ort_cpu_providers
            or self.installed
            or self.other_gpus
            or self.shown
            or self.no_gpu_said
            or self.pip_index
        )

    def lines(self) -> tuple[str, ...]:
        """The facts, one per line, for a finding's evidence."""
        out = []
        if self.python:
            out.append(f"from the message: Python {self.python}")
        if self.os:
            out.append(f"from the message: {self.os} paths")
        if self.container:
            out.append(f"from the message: a {self.container} container without GPU flags")
        if self.wsl1_kernel:
            out.append(f"from the message: kernel {self.wsl1_kernel} (WSL 1)")
        if self.installed:
            shown = ", ".join(f"{n} {v}" for n, v in self.installed[:8])
            more = f" and {len(self.installed) - 8} more" if len(self.installed) > 8 else ""
            out.append(f"from the message: pip installed {shown}{more}")
        if self.ort_cpu_providers:
            out.append(
                "from the message: onnxruntime providers " + ", ".join(self.ort_cpu_providers)
            )
        out.extend(f"from the message: pip install {n}=={v}" for n, v in self.pins)
        out.extend(f"from the message: {n} {v} installed" for n, v in self.shown)
        out.extend(f"from the message: {k}={v!r}" for k, v in self.env)
        if self.driver:
            out.append(f"from the message: driver {self.driver}")
        if self.driver_cuda:
            out.append(f"from the message: the driver supports CUDA up to {self.driver_cuda}")
        out.extend(f"from the message: GPU {n} (compute capability {cc})" for n, cc in self.gpus)
        out.extend(f"from the message: GPU {n}" for n in self.gpu_names)
        out.extend(f"from the message: {n} (not an NVIDIA GPU)" for n in self.other_gpus)
        if self.no_gpu_said:
            out.append(f"from the message: {self.no_gpu_said!r} (no GPU)")
        if self.packages:
            out.append("from the message: installed " + ", ".join(self.packages))
        if self.torch_archs:
            out.append(
                "from the message: the installed PyTorch was compiled for "
                + self.torch_archs.replace(",", ", ")
            )
        if self.cudnn_loaded:
            out.append(
                f"from the message: loaded cuDNN {self.cudnn_loaded}, "
                f"built with {self.cudnn_compiled}"
            )
        out.extend(
            f"from the message: the process could not load cuDNN {major} (libcudnn.so.{major})"
            for major in self.cudnn_unloadable
        )
        out.extend(
            f"from the message: the process could not load the CUDA {version} {name} library"
            for name, version in self.cuda_unloadable
        )
        return tuple(out)


def extract(text: str) -> MessageFacts:
    """Read the facts of ``text`` (first MAX_LINES lines, MAX_LINE chars each)."""
    from envcheck import names

    fact = fact_patterns()
    gpu_patterns = (fact["gpu-sm"], fact["gpu-found"], fact["gpu-tf"])
    python: Optional[str] = None
    os_name: Optional[str] = None
    pins: dict[str, tuple[str, str]] = {}
    env: dict[str, str] = {}
    driver: Optional[str] = None
    driver_cuda: Optional[str] = None
    smi_q_line = -_SMI_Q_WINDOW - 1
    gpus: dict[str, tuple[str, str]] = {}
    prose_gpus: dict[str, None] = {}
    other_gpus: dict[str, None] = {}
    shown: dict[str, str] = {}
    prose_shown: dict[str, str] = {}
    asked_version: Optional[str] = None
    archs: Optional[str] = None
    cudnn: Optional[tuple[str, str]] = None
    cudnn_by: Optional[str] = None
    unloadable: dict[str, None] = {}
    cuda_unloadable: dict[tuple[str, str], None] = {}
    container = False
    gpu_flag = False
    macos = False
    linux = False
    packages: tuple[str, ...] = ()
    listing = 0
    libcuda_driver: Optional[str] = None
    prose_driver: Optional[str] = None
    no_gpu_said: Optional[str] = None
    pip_index: Optional[str] = None
    jax = False
    cuda_loaded: dict[tuple[str, str], None] = {}
    wsl1_kernel: Optional[str] = None
    ort_cpu: tuple[str, ...] = ()
    installed: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines()):
        if number >= MAX_LINES:
            break
        line = raw[:MAX_LINE]
        if python is None:
            m = fact["python-banner"].match(line) or fact["python-site-path"].search(line)
            if m:
                python = m.group(1)
            else:
                w = fact["python-windows-dir"].search(line)
                if w:
                    python = f"{w.group(1)}.{w.group(2)}"
        if os_name is None and (
            fact["windows-drive-path"].search(line) or fact["windows-dll"].search(line)
        ):
            os_name = "windows"
        container = container or fact["container-session"].search(line) is not None
        if "Successfully installed" in line:
            done = fact["pip-installed"].match(line)
            for word in done.group(1).split()[:200] if done else ():
                nv = fact["name-version"].match(word)
                if nv is not None:
                    installed.setdefault(names.canonical(nv.group(1)), nv.group(2))
        if not ort_cpu and "ExecutionProvider'" in line and "pplied providers" not in line:
            o = fact["ort-providers"].search(line)
            if o is not None:
                listed = (o.group(1), *fact["ort-provider-name"].findall(o.group(2)))
                if not any(n in _ORT_GPU_PROVIDERS for n in listed):
                    ort_cpu = listed
        if wsl1_kernel is None and "Microsoft" in line:
            k = fact["wsl1-kernel"].search(line)
            wsl1_kernel = k.group(1) if k else None
        gpu_flag = gpu_flag or fact["docker-gpu-flag"].search(line) is not None
        macos = (
            macos
            or fact["macos"].search(line) is not None
            or fact["macos-prose"].search(line) is not None
        )
        linux = linux or fact["linux"].search(line) is not None
        p = fact["pip-install"].search(line)
        if p:
            for word in p.group(1).replace('"', " ").replace("'", " ").split()[:50]:
                pin = fact["pip-pin"].match(word)
                fw = names.framework_of(pin.group(1), aliases=False) if pin else None
                if pin and fw:
                    pins.setdefault(fw, (names.canonical(pin.group(1)), pin.group(2)))
        for m in (
            *fact["env-assignment"].finditer(line),
            *fact["python-env-assignment"].finditer(line),
        ):
            env[m.group(1)] = m.group(2).strip("\"'")
        if driver_cuda is None:
            d = fact["torch-driver-cuda"].search(line)
            if d:
                number_ = int(d.group(1))
                driver_cuda = f"{number_ // 1000}.{number_ % 1000 // 10}"
        if driver is None:
            d = fact["smi-driver"].search(line)
            if d and parse_driver_version(d.group(2)) is not None:
                driver = d.group(2)
                driver_cuda = driver_cuda or d.group(3)
                if d.group(1):
                    smi_q_line = number
            else:
                said = fact["driver-reported"].search(line)
                version = (said.group(1) or said.group(2) or said.group(3)) if said else None
                if version and parse_driver_version(version) is not None:
                    stated = version.removesuffix(".0") if version.count(".") == 2 else version
                    if said and "libcuda reported" in said.group(0):
                        # The user-space library's; the kernel module's, when stated, wins.
                        libcuda_driver = libcuda_driver or stated
                    else:
                        driver = stated
                elif prose_driver is None:
                    pd = fact["driver-prose"].search(line)
                    if pd and parse_driver_version(pd.group(1)) is not None:
                        prose_driver = pd.group(1)
        elif driver_cuda is None and 0 < number - smi_q_line <= _SMI_Q_WINDOW:
            q = fact["smi-q-cuda"].match(line)
            if q:
                driver_cuda = q.group(1)
        for g in gpu_patterns:
            for gm in g.finditer(line):
                cc = parse_compute_capability(gm.group(2))
                name = gm.group(1).strip()
                if cc is not None and len(gpus) < 16:
                    gpus.setdefault(name, (name, f"{cc.major}.{cc.minor}"))
        named: list[tuple[int, int]] = []
        for gm in fact["gpu-prose"].finditer(line):
            named.append(gm.span())
            if len(prose_gpus) < 4:
                prose_gpus[" ".join((gm.group(1) + gm.group(2)).split())] = None
        for gm in fact["gpu-prose-datacenter"].finditer(line):
            # "Tesla V100-SXM2-16GB" is one GPU, whichever pattern names it first.
            start, end = gm.span(1)
            if len(prose_gpus) < 4 and not any(s < end and start < e for s, e in named):
                prose_gpus[" ".join(gm.group(1).split())] = None
        if asked_version is not None and line.strip():
            out_line = fact["version-output-line"].match(line)
            if out_line:
                shown.setdefault(asked_version, out_line.group(1))
            asked_version = None
        attr = fact["version-attribute-shown"].search(line)
        if attr:
            dist = "torch" if attr.group(1) == "torch" else "tensorflow"
            if attr.group(2):
                shown.setdefault(dist, attr.group(2))
            elif dist not in shown:
                asked_version = dist
        token = fact["version-token-shown"].search(line)
        if token:
            shown.setdefault(token.group(1), token.group(2))
        prose = fact["version-prose"].search(line)
        if prose:
            dist = prose.group(1).lower()
            prose_shown.setdefault("torch" if dist == "pytorch" else dist, prose.group(2))
        stated = fact["version-stated"].match(line) or fact["pip-list-row"].match(line)
        if stated:
            dist = stated.group(1).lower().replace(" ", "")
            shown.setdefault("torch" if dist == "pytorch" else dist, stated.group(2))
        if pip_index is None and ("Looking in indexes" in line or "index-url" in line):
            pi = fact["pip-index"].search(line)
            if pi:
                urls = [u.strip().rstrip("/") for u in (pi.group(1) or pi.group(2)).split(",")]
                # PyTorch's own index when the list has one (it is what a +cuXYZ needs).
                pip_index = next((u for u in urls if "download.pytorch.org" in u), urls[0])
        if no_gpu_said is None:
            said_none = fact["no-gpu-prose"].search(line)
            no_gpu_said = said_none.group(0) if said_none else None
        for gm in fact["gpu-other-vendor"].finditer(line):
            if len(other_gpus) < 4:
                other_gpus[" ".join(gm.group(1).split())] = None
        if archs is None:
            a = fact["torch-archs"].search(line)
            if a:
                archs = ",".join(a.group(1).split())
        if cudnn is None:
            c = fact["cudnn-loaded"].search(line)
            if c:
                cudnn = (_cudnn_version(c.group(1)), _cudnn_version(c.group(2)))
            t = fact["torch-cudnn"].search(line)
            if t and t.group(1):
                cudnn = (".".join(t.group(4, 5, 6)), ".".join(t.group(1, 2, 3)))
                cudnn_by = "torch"
            elif t:
                cudnn = (_cudnn_version(t.group(8)), _cudnn_version(t.group(7)))
                cudnn_by = "torch"
            pd = fact["paddle-cudnn"].search(line)
            if pd:
                cudnn = (pd.group(2), pd.group(1))
                cudnn_by = "paddle"
        for u in fact["cudnn-unloadable"].finditer(line):
            if len(unloadable) < 4:
                unloadable[next(g for g in u.groups() if g)] = None
        for u in fact["cuda-unloadable"].finditer(line):
            if len(cuda_unloadable) < 4:
                cuda_unloadable[_cuda_soname(*(g for g in u.groups() if g))] = None
        if fact["cupy-duplicates"].search(line):
            listing = 6
        elif listing and not packages:
            listing -= 1
            found = fact["cupy-list"].match(
                line.split(") ", 1)[-1] if line.startswith("(") else line
            )
            if found:
                packages = tuple(p.strip() for p in found.group(1).split(","))
        for u in fact["cuda-loaded"].finditer(line):
            if len(cuda_loaded) < 4:
                cuda_loaded[_cuda_soname(*(g for g in u.groups() if g))] = None
        if not jax and fact["jax-shown"].search(line):
            jax = True
        if cudnn_by is None:
            if fact["jax-shown"].search(line):
                cudnn_by = "jax"
            elif fact["tensorflow-shown"].search(line):
                cudnn_by = "tensorflow"
    if os_name is None and macos:
        os_name = "darwin"
    elif os_name is None and linux:
        os_name = "linux"
    driver = driver or libcuda_driver or prose_driver
    return MessageFacts(
        python,
        os_name,
        tuple(pins.values()),
        tuple(sorted(env.items())),
        driver,
        driver_cuda,
        tuple(gpus.values()),
        archs,
        cudnn[0] if cudnn else None,
        cudnn[1] if cudnn else None,
        cudnn_by if cudnn else None,
        tuple(unloadable),
        tuple(cuda_unloadable),
        () if gpus else tuple(prose_gpus),
        "docker" if container and not gpu_flag else None,
        packages,
        jax,
        tuple(cuda_loaded),
        wsl1_kernel,
        tuple(installed.items()),
        ort_cpu,
        tuple(other_gpus),
        tuple({**prose_shown, **shown}.items()),
        pip_index,
        no_gpu_said,
    )


def known_gpus(facts: MessageFacts, matrix: Matrix) -> MessageFacts:
    """``facts`` keeping only the prose GPU names the matrix resolves (a row, a laptop
    variant of one, or a name sold on several chips): a model number alone is no GPU."""
    known: dict[str, str] = {}
    for n in facts.gpu_names:
        shared = matrix.gpu_shared(n)
        hit = matrix.gpu_match(n) if shared is None else None
        if shared is not None:
            model = shared.name
        elif hit is not None and hit.model is not None:
            model = hit.model.name
        else:
            continue
        # "A100" and "A100-SXM4-40GB" in one text are one model named twice, not two GPUs.
        known.setdefault(model, n)
    return dataclasses.replace(facts, gpu_names=tuple(known.values()))


def _cuda_soname(name: str, number: str) -> tuple[str, str]:
    """(library, CUDA version) from a soname's number: ``11.0`` and ``12`` as they are;
    a Windows DLL's ``110`` is 11.0, ``101`` 10.1, ``92`` 9.2, but ``12`` is CUDA 12."""
    if "." not in number and (len(number) == 3 or (len(number) == 2 and int(number) >= 20)):
        number = f"{number[:-1]}.{number[-1]}"
    return name.lower(), number


def _cudnn_version(text: str) -> str:
    """TF 1.x printed cuDNN 7.0.5 as 7005 (major * 1000 + minor * 100 + patch)."""
    if text.isdigit() and len(text) >= 4:
        number = int(text)
        return f"{number // 1000}.{number % 1000 // 100}.{number % 100}"
    return text


def overlay(snapshot: Optional[Snapshot], facts: MessageFacts) -> Snapshot:
    """``snapshot`` with the message's facts laid over it.

    The message describes the failing process, so what it states wins for this
    explain run: its environment assignments, the builds its pip command asks for,
    its driver facts (the whole driver record: a local driver version beside the
    message's "CUDA 11.4" would describe two machines at once), the GPUs it names
    and the architectures its PyTorch was compiled for. The interpreter and OS
    fill in only what the snapshot does not know.
    """
    from envcheck import names
    from envcheck.explain.core import MESSAGE_ONLY

    base = snapshot if snapshot is not None else Snapshot(source=MESSAGE_ONLY)
    python = base.python
    if facts.python and python.version is None:
        python = dataclasses.replace(python, version=facts.python)
    platform = base.platform
    if facts.os and platform.os is None:
        platform = dataclasses.replace(platform, os=facts.os)
    if facts.container and platform.container is None:
        platform = dataclasses.replace(platform, container=facts.container)
    if facts.installed:
        base = dataclasses.replace(
            base, packages=frozen_map({**base.packages, **dict(facts.installed)})
        )
    if facts.ort_cpu_providers and not any(f.name == "onnxruntime" for f in base.frameworks):
        # The process's onnxruntime offers no GPU provider: a CPU build, whatever its version.
        version = dict(facts.installed).get("onnxruntime")
        cpu = Framework(name="onnxruntime", version=version, package="onnxruntime", cpu_only=True)
        base = dataclasses.replace(base, frameworks=(*base.frameworks, cpu))
    if facts.wsl1_kernel and platform.wsl_version is None:
        platform = dataclasses.replace(
            platform, os="linux", wsl=True, wsl_version=1, kernel=facts.wsl1_kernel
        )
    frameworks = list(base.frameworks)
    for dist, version in facts.pins:
        fw_name = names.framework_of(dist, aliases=False)
        frameworks = [f for f in frameworks if f.name != fw_name]
        frameworks.append(_framework(fw_name or dist, dist, version))
    for dist, version in facts.shown:
        # What the text shows installed fills in a framework nothing else describes;
        # a detected one or the build a pip command asks for stays.
        fw_name = names.framework_of(dist, aliases=False)
        if not any(f.name == (fw_name or dist) for f in frameworks):
            frameworks.append(_framework(fw_name or dist, dist, version))
    for dist, version in facts.installed:
        # pip's "Successfully installed" names the framework's release last of all.
        fw_name = names.framework_of(dist, aliases=False)
        if fw_name is not None and not any(f.name == fw_name for f in frameworks):
            frameworks.append(_framework(fw_name, dist, version))
    if facts.torch_archs:
        frameworks = _with_archs(frameworks, facts.torch_archs)
    libraries = base.libraries
    if facts.cudnn_loaded and facts.cudnn_compiled:
        frameworks = _with_cudnn(frameworks, facts.cudnn_compiled, facts.cudnn_framework)
        loaded = Library(name="cudnn", version=facts.cudnn_loaded, source=FROM_MESSAGE)
        libraries = (loaded, *libraries)
    for major in facts.cudnn_unloadable:
        # Observed absent for that run: whatever is installed, the process could not
        # open a cuDNN of this major (LIB_NOT_LOADABLE).
        libraries = (*libraries, Library(name="cudnn", version=major, source=LIB_NOT_LOADABLE))
    for name, version in facts.cuda_unloadable:
        # Likewise a CUDA runtime library of the version its soname names; the doctor's
        # CUDA runtime rule judges it.
        libraries = (*libraries, Library(name=name, version=version, source=LIB_NOT_LOADABLE))
    env = {**base.env, **dict(facts.env)}
    packages = base.packages
    if facts.packages:
        packages = frozen_map(
            {**base.packages, **{p: base.packages.get(p) for p in facts.packages}}
        )
    driver = base.driver
    if facts.driver or facts.driver_cuda:
        driver = Driver(version=facts.driver, cuda_version=facts.driver_cuda, source=FROM_MESSAGE)
    gpus = base.gpus
    if facts.gpu_names and not gpus:
        # Named in prose: the capability is the matrix's, as for an nvidia-smi name.
        gpus = tuple(Gpu(index=i, name=name) for i, name in enumerate(facts.gpu_names))
    if facts.gpus:
        gpus = tuple(
            Gpu(index=i, name=name, compute_capability=cc)
            for i, (name, cc) in enumerate(facts.gpus)
        )
    return dataclasses.replace(
        base,
        platform=platform,
        python=python,
        driver=driver,
        gpus=gpus,
        frameworks=tuple(frameworks),
        libraries=libraries,
        env=env,
        packages=packages,
    )


def _with_archs(frameworks: list[Framework], archs: str) -> list[Framework]:
    """PyTorch's compiled architectures from the message on its torch (a torch of
    unknown version when no other fact names one)."""
    build = {"cuda_compute_capabilities": archs, "cuda_compute_capabilities_from": "the message"}
    torch = next((f for f in frameworks if f.name == "torch"), None)
    if torch is None:
        return [*frameworks, Framework(name="torch", package="torch", cpu_only=False, build=build)]
    merged = dataclasses.replace(
        torch,
        cpu_only=False if torch.cpu_only is None else torch.cpu_only,
        build={**torch.build, **build},
    )
    return [merged if f is torch else f for f in frameworks]


def _with_cudnn(
    frameworks: list[Framework], compiled: str, named: Optional[str]
) -> list[Framework]:
    """The cuDNN the message says the build was compiled with, on the framework that
    printed it: the one the message names, else the installed TensorFlow or JAX (when
    only one is), else TensorFlow (the message is its stream executor's, which JAX's
    XLA shares), of unknown version."""
    judged = ("tensorflow", "jax", named) if named in ("torch", "paddle") else ("tensorflow", "jax")
    users = [f for f in frameworks if f.name in judged and not f.cpu_only]
    chosen = next((f for f in users if f.name == named), None)
    if chosen is None and named is None and len(users) == 1:
        chosen = users[0]
    if chosen is None:
        # TensorFlow and JAX judge cuDNN alike; the label does not pretend to know which.
        from envcheck.names import GPU_PACKAGE

        package = GPU_PACKAGE.get(named, named) if named else "the framework"
        added = Framework(
            name=named or "tensorflow", package=package, cpu_only=False, cudnn_version=compiled
        )
        return [*frameworks, added]
    merged = dataclasses.replace(chosen, cpu_only=False, cudnn_version=compiled)
    return [merged if f is chosen else f for f in frameworks]


def _framework(name: str, package: str, version: str) -> Framework:
    local = version.split("+", 1)[1] if "+" in version else None
    cuda = None
    if local and fact_patterns()["pin-local-cuda"].fullmatch(local):
        digits = local[2:]
        cuda = f"{digits[:-1]}.{digits[-1]}"
    return Framework(
        name=name,
        version=version,
        package=package,
        variant=local,
        cuda_version=cuda,
        cpu_only=True if local == "cpu" else (False if cuda else None),
    )
