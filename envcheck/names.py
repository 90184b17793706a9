"""One vocabulary for the names users and tools write for the frameworks.

Every command maps a distribution name, a conda package name or a word a user
typed (``pytorch``, ``tf``, ``paddlepaddle-gpu``, ``cupy-cuda12x``) to the
matrix's framework key through this module, so that ``plan``, ``check``,
``matrix why``, ``explain`` and the doctor agree on what a name means. Names are
compared in PEP 503 normal form (``packaging.utils.canonicalize_name``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Optional

from packaging.utils import canonicalize_name

# The matrix's framework keys, and the pip distributions that install each.
DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "tensorflow": ("tensorflow", "tensorflow-gpu", "tensorflow-cpu"),
    "jax": ("jax", "jaxlib"),
    "cupy": ("cupy",),
    "onnxruntime": ("onnxruntime", "onnxruntime-gpu"),
    "paddle": ("paddlepaddle", "paddlepaddle-gpu"),
    "keras": ("keras",),
}
# Distributions that install the same import package (their files overlap): with two
# of them installed, one overwrote the other's files, and uninstalling either removes
# files the other needs (ONNX Runtime's install page: install only one of its
# packages per environment).
SHARED_MODULE: dict[str, tuple[str, ...]] = {
    "tensorflow": ("tensorflow", "tensorflow-gpu", "tensorflow-cpu"),
    "onnxruntime": ("onnxruntime", "onnxruntime-gpu"),
    "paddle": ("paddlepaddle", "paddlepaddle-gpu"),
}
SHARED_MODULE_SOURCES: dict[str, str] = {
    # Each says the distributions of one framework overwrite each other's files.
    "tensorflow": "https://github.com/tensorflow/tensorflow/blob/v2.10.0/tensorflow/tools/pip_package/setup.py",
    "onnxruntime": "https://github.com/microsoft/onnxruntime/issues/7748",
    "paddle": "https://github.com/PaddlePaddle/docs/blob/f2d79492a44bdbd7fe67fa3af625e0f898f94899/docs/install/pip/linux-pip_en.md",
    "cupy": "https://github.com/cupy/cupy/blob/main/cupy/_environment.py",
}
"""Where each group's one-package-at-a-time rule is read: TensorFlow's setup.py names every
variant's project but installs the same ``tensorflow`` package; ONNX Runtime's maintainers
(#7748) and PaddlePaddle's install guide say to keep one variant; CuPy warns at import
when several of its distributions are installed."""
# Words users type that are no distribution's name.
_ALIASES = {"pytorch": "torch", "tf": "tensorflow", "paddle": "paddle"}
# conda package names (defaults, conda-forge, the pytorch channel).
CONDA_NAMES = {
    "pytorch": "torch",
    "tensorflow": "tensorflow",
    "tensorflow-gpu": "tensorflow",
    "jaxlib": "jax",
    "jax": "jax",
    "cupy": "cupy",
    "onnxruntime": "onnxruntime",
    "paddlepaddle-gpu": "paddle",
    "paddlepaddle": "paddle",
    "keras": "keras",
}
# Packages released in lockstep with a framework (planned beside it).
COMPANIONS: dict[str, tuple[str, ...]] = {"torch": ("torchvision", "torchaudio")}
# The distribution that installs a framework's GPU build by default.
GPU_PACKAGE = {
    "torch": "torch",
    "tensorflow": "tensorflow",
    "jax": "jax",
    "cupy": "cupy",
    "onnxruntime": "onnxruntime-gpu",
    "paddle": "paddlepaddle-gpu",
    "keras": "keras",
}
# Names that mean "this framework" rather than one of its distributions: a plan
# may answer them with another distribution (tensorflow -> tensorflow-gpu for
# 1.x) and says so. Other names (tensorflow-gpu, cupy-cuda12x) are honoured.
MAIN_NAMES = frozenset(
    {"torch", "pytorch", "tensorflow", "tf", "jax", "jaxlib", "cupy", "onnxruntime"}
    | {"paddle", "paddlepaddle"}
)
_CUPY_WHEEL = re.compile(r"^cupy-cuda(\d+)(x?)$")
_NVIDIA_WHEEL = re.compile(r"^nvidia-([a-z0-9-]+?)-cu(\d+)$")

_PIP: dict[str, str] = {d: fw for fw, dists in DISTRIBUTIONS.items() for d in dists}


def canonical(name: str) -> str:
    """The PEP 503 normal form of a distribution name (``Paddle_Paddle`` -> ``paddle-paddle``)."""
    return str(canonicalize_name(name))


def framework_of(name: str, *, conda: bool = False, aliases: bool = True) -> Optional[str]:
    """The matrix framework a distribution (or, with ``conda``, a conda package)
    name installs; None for other names. ``aliases`` also accepts the words
    users type (``pytorch``, ``tf``)."""
    key = canonical(name)
    if conda:
        return CONDA_NAMES.get(key)
    if key in _PIP:
        return _PIP[key]
    if _CUPY_WHEEL.match(key):
        return "cupy"
    if aliases:
        return _ALIASES.get(key)
    return None


def companion_of(name: str) -> Optional[str]:
    """The framework a companion package (torchvision) is released with."""
    key = canonical(name)
    for fw, names in COMPANIONS.items():
        if key in names:
            return fw
    return None


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'torch'?)`` when ``name`` is a near spelling of one of
    ``candidates`` (``difflib``), else ``""``."""
    import difflib

    wanted = canonicalize_name(name[:100])
    close = difflib.get_close_matches(wanted, sorted(set(candidates)), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close and close[0] != wanted else ""


def known_names() -> list[str]:
    """Every name ``framework_of`` accepts, for error messages."""
    return sorted(set(_PIP) | set(_ALIASES) | {c for cs in COMPANIONS.values() for c in cs})


def nvidia_wheel(name: str) -> Optional[tuple[str, int]]:
    """(component, CUDA major) of an NVIDIA CUDA wheel's name (``nvidia-cudnn-cu12`` ->
    ``("cudnn", 12)``); None for any other name."""
    m = _NVIDIA_WHEEL.match(name.lower())
    return None if m is None else (m.group(1), int(m.group(2)))


def cupy_wheel_cuda_major(name: str) -> Optional[int]:
    """The CUDA major a ``cupy-cudaXXX`` wheel is built for: ``cupy-cuda12x`` -> 12 (one
    wheel per major), ``cupy-cuda102`` -> 10 and ``cupy-cuda92`` -> 9 (the last digit is
    the minor); None for any other name."""
    m = _CUPY_WHEEL.match(name.lower())
    if m is None:
        return None
    digits, per_major = m.groups()
    if per_major or len(digits) == 1:
        return int(digits)
    return int(digits[:-1])
