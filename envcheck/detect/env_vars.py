"""Probe: the environment variables that decide what CUDA sees.

An empty value is recorded too: ``CUDA_VISIBLE_DEVICES=""`` hides every GPU.
``PATH`` is reduced to the entries that mention CUDA, cuDNN or NVIDIA.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from envcheck.detect.context import Context
from envcheck.detect.system import System

NAMES = (
    "CUDA_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES",
    "NVIDIA_DRIVER_CAPABILITIES",
    "NVIDIA_REQUIRE_CUDA",
    "LD_LIBRARY_PATH",
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_ROOT",
    "CUDNN_PATH",
    "XLA_FLAGS",
    "JAX_PLATFORMS",
    "JAX_PLATFORM_NAME",
    "PYTORCH_CUDA_ALLOC_CONF",
    "CUDA_LAUNCH_BLOCKING",
    "CUDA_MODULE_LOADING",
    "CUDA_DEVICE_ORDER",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "VIRTUAL_ENV",
)
PREFIXES = ("XLA_PYTHON_CLIENT_", "CUDA_PATH_V", "NCCL_")
# TensorFlow's variables only: Terraform also uses TF_ (TF_VAR_*, TF_TOKEN_* hold
# secrets) and none of that belongs in a snapshot people share.
_TF_RE = re.compile(
    r"^TF_(CPP_|FORCE_GPU|GPU_|ENABLE_|XLA_|CUDA|CUDNN|USE_|NUM_|DETERMINISTIC|DISABLE_"
    r"|AUTOTUNE|NEED_|TENSORRT|ROCM)"
)
_SECRET_RE = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_?KEY", re.IGNORECASE)
_GPU_PATH_RE = re.compile(r"cuda|cudnn|nvidia", re.IGNORECASE)


def select_env(env: Mapping[str, str], windows: bool = False) -> dict[str, str]:
    """The variables that matter, from a full environment (pure)."""
    out = {name: env[name] for name in NAMES if name in env}
    for name, value in env.items():
        if (name.startswith(PREFIXES) or _TF_RE.match(name)) and not _SECRET_RE.search(name):
            out[name] = value
    path = env.get("PATH") if not windows else env.get("PATH", env.get("Path"))
    if path:
        sep = ";" if windows else ":"
        entries = [p for p in path.split(sep) if _GPU_PATH_RE.search(p)]
        if entries:
            out["PATH"] = sep.join(entries)
    return out


def probe_env_vars(system: System, ctx: Context) -> None:
    ctx.env = select_env(system.env, windows=system.platform == "win32")
