"""Probe: framework builds, read from their files and distribution names.

Nothing here imports a framework: importing torch or TensorFlow takes seconds
and can crash in the driver. Instead:

* torch: ``torch/version.py`` (``__version__``, ``cuda``, ``hip``, ``git_version``);
* TensorFlow: ``tensorflow/python/platform/build_info.py`` (a ``build_info``
  dict from 2.3, module constants in 1.x), and which distribution provides it;
* JAX: jax/jaxlib versions and the ``jax-cudaNN-plugin``/``-pjrt`` distributions
  (or a ``+cudaNN`` local version of old jaxlib wheels);
* CuPy: the ``cupy-cudaXYZ``/``cupy-cudaNNx`` distribution name;
* ONNX Runtime: ``onnxruntime/capi/build_and_package_info.py`` and the
  distribution (onnxruntime-gpu vs onnxruntime);
* PaddlePaddle: ``paddle/version/__init__.py`` (``paddle/version.py`` before 2.5);
* Keras: the distribution version; Caffe: ``caffe/__init__.py`` when present.

Python files are parsed with ``ast`` (never executed) by ``parse_py_constants``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from envcheck.detect.context import Context
from envcheck.detect.system import System
from envcheck.model.snapshot import Framework

if TYPE_CHECKING:
    import ast

PROBE = "frameworks"
MAX_FILE = 256 * 1024

TF_DISTS = (
    "tensorflow",
    "tensorflow-gpu",
    "tensorflow-cpu",
    "tensorflow-intel",
    "tensorflow-macos",
    "tf-nightly",
    "tf-nightly-gpu",
    "tensorflow-aarch64",
)
ORT_DISTS = ("onnxruntime-gpu", "onnxruntime", "onnxruntime-directml", "onnxruntime-openvino")
PADDLE_DISTS = ("paddlepaddle-gpu", "paddlepaddle")
_CUPY_RE = re.compile(r"^cupy-cuda(\d+)(x?)$")
_JAX_PLUGIN_RE = re.compile(r"^jax-cuda(\d+)-(plugin|pjrt)$")


def parse_py_constants(text: str) -> Optional[dict[str, Any]]:
    """Module-level ``NAME = <literal>`` assignments of a Python file.

    Returns None when the text is not valid Python. Values that are not
    literals (calls, names) are skipped. ``build_info = dict(...)``-style calls
    with literal keyword or pair arguments are understood too.
    """
    import ast  # only when a framework's version file is read

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    out: dict[str, Any] = {}
    for node in tree.body:
        targets: list[ast.expr] = []
        value: Optional[ast.expr] = None
        if isinstance(node, ast.Assign):
            targets, value = list(node.targets), node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        if value is None:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                literal = _literal(value)
                if literal is not _SKIP:
                    out[target.id] = literal
    return out


_SKIP = object()


def _literal(node: ast.expr) -> Any:
    import ast

    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    # dict([('k', 'v'), ...]) or dict(k='v') as older generators wrote it
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("dict", "OrderedDict"):
        result: dict[str, Any] = {}
        try:
            if node.args:
                for key, val in ast.literal_eval(node.args[0]):
                    result[str(key)] = val
            for kw in node.keywords:
                if kw.arg is not None:
                    result[kw.arg] = ast.literal_eval(kw.value)
        except (ValueError, TypeError, SyntaxError):
            return _SKIP
        return result
    return _SKIP


def normalise_cuda(value: Any) -> Optional[str]:
    """``'12.4'`` → 12.4; Windows TF's ``'64_112'`` → 11.2; ``'False'``/None → None."""
    if value is None or value is False:
        return None
    text = str(value).strip()
    if not text or text.lower() in ("false", "none", "0"):
        return None
    text = text.removeprefix("64_")
    if re.match(r"^\d+\.\d+", text):
        return ".".join(text.split(".")[:2])
    if re.match(r"^\d{2,3}$", text):  # 112 → 11.2, 100 → 10.0, 92 → 9.2
        return f"{text[:-1]}.{text[-1]}"
    return None


def normalise_cudnn(value: Any) -> Optional[str]:
    """``'8'``, ``'64_8'``, ``'8.9.1'`` → the same without Windows' ``64_`` prefix."""
    if value is None or value is False:
        return None
    text = str(value).strip().removeprefix("64_")
    if not text or text.lower() in ("false", "none") or not text[0].isdigit():
        return None
    return text


def parse_torch_version_py(text: str) -> Optional[dict[str, Any]]:
    """Facts of ``torch/version.py``; None when it is not a torch version file."""
    consts = parse_py_constants(text)
    if not consts or not isinstance(consts.get("__version__"), str):
        return None
    return consts


def torch_framework(
    consts: Mapping[str, Any], cudnn: Optional[str], path: Optional[str]
) -> Framework:
    version = str(consts["__version__"])
    cuda = normalise_cuda(consts.get("cuda"))
    hip = consts.get("hip")
    local = version.split("+", 1)[1] if "+" in version else None
    if local:
        variant: Optional[str] = local
    elif cuda:
        variant = "cu" + cuda.replace(".", "")
    elif hip:
        variant = f"rocm{hip}"
    else:
        variant = None
    build = {}
    for key in ("git_version", "debug", "hip"):
        if consts.get(key) is not None:
            build[key] = str(consts[key])
    return Framework(
        name="torch",
        version=version,
        cuda_version=cuda,
        cudnn_version=cudnn if cuda else None,
        cpu_only=cuda is None and not hip,
        package="torch",
        variant=variant,
        rocm_version=str(hip) if hip else None,
        path=path,
        build=build,
    )


def parse_tf_build_info(text: str) -> Optional[dict[str, Any]]:
    """TensorFlow build facts: the ``build_info`` dict (2.3+) or 1.x constants."""
    consts = parse_py_constants(text)
    if consts is None:
        return None
    info = consts.get("build_info")
    if isinstance(info, dict):
        return dict(info)
    legacy = {}
    for old, new in (
        ("cuda_version_number", "cuda_version"),
        ("cudnn_version_number", "cudnn_version"),
        ("is_cuda_build", "is_cuda_build"),
        ("is_rocm_build", "is_rocm_build"),
        ("msvcp_dll_name", "msvcp_dll_names"),
    ):
        if old in consts:
            legacy[new] = consts[old]
    return legacy


def tf_framework(
    dist: str, version: str, info: Optional[Mapping[str, Any]], path: Optional[str]
) -> Framework:
    info = info or {}
    cuda = normalise_cuda(info.get("cuda_version"))
    cudnn = normalise_cudnn(info.get("cudnn_version"))
    is_cuda = info.get("is_cuda_build")
    cpu_only: Optional[bool]
    if dist.endswith("-cpu") or is_cuda is False:
        cpu_only = True
    elif is_cuda is True or cuda is not None or dist.endswith("-gpu"):
        cpu_only = False  # tensorflow-gpu is the GPU distribution by name
    else:
        cpu_only = None  # no build_info read: the build is unknown, not CPU-only
    build = {}
    caps = info.get("cuda_compute_capabilities")
    if isinstance(caps, (list, tuple)):
        build["cuda_compute_capabilities"] = ",".join(str(c) for c in caps)
    for key in ("is_rocm_build", "is_tensorrt_build"):
        if key in info:
            build[key] = str(info[key])
    return Framework(
        name="tensorflow",
        version=version,
        cuda_version=None if cpu_only else cuda,
        cudnn_version=None if cpu_only else cudnn,
        cpu_only=cpu_only,
        package=dist,
        variant="cpu" if cpu_only else ("cu" + cuda.replace(".", "") if cuda else None),
        path=path,
        build=build,
    )


def jax_framework(packages: Mapping[str, str]) -> Optional[Framework]:
    version = packages.get("jax") or packages.get("jaxlib")
    if version is None:
        return None
    plugins = sorted(
        (int(m.group(1)), name) for name in packages for m in [_JAX_PLUGIN_RE.match(name)] if m
    )
    jaxlib = packages.get("jaxlib", "")
    build = {"jaxlib": jaxlib} if jaxlib else {}
    major: Optional[int] = plugins[-1][0] if plugins else None
    cudnn = None
    local = re.search(r"\+cuda(\d+)(?:\.cudnn(\d)(\d+))?", jaxlib)
    if major is None and local:
        major = int(local.group(1))
        if local.group(2):
            cudnn = f"{local.group(2)}.{local.group(3)}"
    if plugins:
        build["plugins"] = ",".join(name for _, name in plugins)
    if major is not None:
        build["cuda_major"] = str(major)
    return Framework(
        name="jax",
        version=version,
        cuda_version=None,
        cudnn_version=cudnn,
        cpu_only=major is None,
        package="jax",
        variant=f"cuda{major}" if major is not None else "cpu",
        build=build,
    )


def cupy_framework(packages: Mapping[str, str]) -> Optional[Framework]:
    for name, version in sorted(packages.items()):
        m = _CUPY_RE.match(name)
        if not m:
            continue
        digits, wildcard = m.group(1), m.group(2)
        if wildcard:
            cuda = None
            major = digits
        else:
            cuda = normalise_cuda(digits)
            major = cuda.split(".")[0] if cuda else digits
        return Framework(
            name="cupy",
            version=version,
            cuda_version=cuda,
            cpu_only=False,
            package=name,
            variant=f"cu{digits}{wildcard}",
            build={"cuda_major": major},
        )
    if "cupy" in packages:  # built from source against whatever CUDA was found
        return Framework(name="cupy", version=packages["cupy"], package="cupy", cpu_only=False)
    return None


def ort_framework(
    dist: str, version: str, info: Optional[Mapping[str, Any]], path: Optional[str]
) -> Framework:
    info = info or {}
    gpu = dist == "onnxruntime-gpu" or str(info.get("package_name", "")) == "onnxruntime-gpu"
    cuda = normalise_cuda(info.get("cuda_version")) if gpu else None
    return Framework(
        name="onnxruntime",
        version=version,
        cuda_version=cuda,
        cudnn_version=normalise_cudnn(info.get("cudnn_version")) if gpu else None,
        cpu_only=not gpu,
        package=dist,
        variant=("cu" + cuda.replace(".", "")) if cuda else ("gpu" if gpu else "cpu"),
        path=path,
    )


def paddle_framework(
    dist: str, version: str, consts: Optional[Mapping[str, Any]], path: Optional[str]
) -> Framework:
    consts = consts or {}
    cuda = normalise_cuda(consts.get("cuda_version"))
    gpu = dist == "paddlepaddle-gpu" or cuda is not None
    build = {}
    for key in ("commit", "with_mkl", "istaged"):
        if consts.get(key) is not None:
            build[key] = str(consts[key])
    return Framework(
        name="paddle",
        version=str(consts.get("full_version") or version),
        cuda_version=cuda,
        cudnn_version=normalise_cudnn(consts.get("cudnn_version")) if cuda else None,
        cpu_only=not gpu,
        package=dist,
        # A GPU distribution whose CUDA was not read is an unknown variant, not "cpu".
        variant=("cu" + cuda.replace(".", "")) if cuda else (None if gpu else "cpu"),
        path=path,
        build=build,
    )


def _read(path: Path) -> Optional[str]:
    try:
        with path.open("rb") as fh:
            return fh.read(MAX_FILE).decode("utf-8", "replace")
    except OSError:
        return None


def _find(system: System, site_dirs: list[str], rel: str) -> Optional[tuple[str, str]]:
    """(machine path, text) of the first site dir that has ``rel``."""
    for site in site_dirs:
        text = _read(system.path(site) / rel)
        if text is not None:
            sep = "\\" if "\\" in site else "/"
            return site.rstrip("/\\") + sep + rel.replace("/", sep), text
    return None


def probe_frameworks(system: System, ctx: Context) -> None:
    packages = ctx.packages
    sites = ctx.site_dirs
    found: list[Framework] = []

    if "torch" in packages or _find(system, sites, "torch/version.py"):
        hit = _find(system, sites, "torch/version.py")
        consts = parse_torch_version_py(hit[1]) if hit else None
        if hit and consts is None:
            ctx.error(PROBE, f"{hit[0]}: not a readable torch version file")
        if consts is None and "torch" in packages:
            consts = {"__version__": packages["torch"]}
        if consts is not None:
            cudnn = next(
                (v for n, v in sorted(packages.items()) if re.match(r"^nvidia-cudnn-cu\d+$", n)),
                None,
            )
            found.append(torch_framework(consts, cudnn, hit[0] if hit else None))

    tf_dist = next((d for d in TF_DISTS if d in packages), None)
    if tf_dist is not None:
        hit = _find(system, sites, "tensorflow/python/platform/build_info.py")
        info = parse_tf_build_info(hit[1]) if hit else None
        if hit and info is None:
            ctx.error(PROBE, f"{hit[0]}: not a readable TensorFlow build_info.py")
        found.append(tf_framework(tf_dist, packages[tf_dist], info, hit[0] if hit else None))

    jax = jax_framework(packages)
    if jax is not None:
        found.append(jax)
    cupy = cupy_framework(packages)
    if cupy is not None:
        found.append(cupy)

    ort_dist = next((d for d in ORT_DISTS if d in packages), None)
    if ort_dist is not None:
        hit = _find(system, sites, "onnxruntime/capi/build_and_package_info.py")
        info = parse_py_constants(hit[1]) if hit else None
        found.append(ort_framework(ort_dist, packages[ort_dist], info, hit[0] if hit else None))

    paddle_dist = next((d for d in PADDLE_DISTS if d in packages), None)
    if paddle_dist is not None:
        hit = _find(system, sites, "paddle/version/__init__.py") or _find(
            system, sites, "paddle/version.py"
        )
        consts = parse_py_constants(hit[1]) if hit else None
        if hit and consts is None:
            ctx.error(PROBE, f"{hit[0]}: not a readable Paddle version file")
        found.append(
            paddle_framework(paddle_dist, packages[paddle_dist], consts, hit[0] if hit else None)
        )

    if "keras" in packages:
        found.append(Framework(name="keras", version=packages["keras"], package="keras"))
    caffe = _find(system, sites, "caffe/__init__.py")
    if caffe is not None:
        consts = parse_py_constants(caffe[1]) or {}
        version = consts.get("__version__")
        found.append(
            Framework(
                name="caffe",
                version=str(version) if version else None,
                package="caffe",
                path=caffe[0],
            )
        )
    ctx.frameworks = found
