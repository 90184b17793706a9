"""Platform, environment-variable, interpreter and framework probes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

from envcheck.detect.context import Context
from envcheck.detect.env_vars import probe_env_vars, select_env
from envcheck.detect.frameworks import (
    jax_framework,
    normalise_cuda,
    parse_py_constants,
    parse_tf_build_info,
    parse_torch_version_py,
    probe_frameworks,
    torch_framework,
)
from envcheck.detect.platform import (
    is_wsl_kernel,
    parse_cgroup_container,
    parse_environ_container,
    parse_glibc_version,
    parse_os_release,
    probe_platform,
)
from envcheck.detect.python_env import (
    PYINFO_SCRIPT,
    parse_dist_dirname,
    parse_metadata_headers,
    parse_pyinfo,
    probe_python,
)
from envcheck.detect.system import CommandResult, System, run_command
from tests.conftest import write_tree

UBUNTU = """PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.4 LTS (Jammy Jellyfish)"
ID=ubuntu
ID_LIKE=debian
"""
TORCH_CU124 = """__version__ = '2.5.1+cu124'
debug = False
cuda: Optional[str] = '12.4'
git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'
hip: Optional[str] = None
"""
TORCH_ROCM = """__version__ = '2.5.1+rocm6.2'
debug = False
cuda = None
git_version = 'a8d6afb'
hip = '6.2.41133-dd7f95766'
"""
TF_215 = """# generated
build_info = {'cpu_compiler': '/usr/lib/llvm-17/bin/clang', 'cuda_compute_capabilities': ['sm_50', 'sm_60', 'sm_70', 'sm_80', 'compute_90'], 'cuda_version': '12.2', 'cudnn_version': '8', 'is_cuda_build': True, 'is_rocm_build': False, 'is_tensorrt_build': True}
"""
TF_114 = """is_cuda_build = True
cuda_version_number = '10.0'
cudnn_version_number = '7'
"""
TF_WIN_210 = """import os
build_info = {'msvcp_dll_names': 'msvcp140.dll,msvcp140_1.dll', 'cuda_version': '64_112', 'cudnn_version': '64_8', 'is_cuda_build': True, 'is_rocm_build': False}
"""


# -- platform ----------------------------------------------------------------


def test_parse_os_release_handles_quotes_comments_and_junk() -> None:
    data = parse_os_release(UBUNTU + "# comment\nnot a line\nlowercase=x\nEMPTY=\n")
    assert data["ID"] == "ubuntu"
    assert data["VERSION_ID"] == "22.04"
    assert data["EMPTY"] == ""
    assert "lowercase" not in data


@pytest.mark.parametrize(
    ("text", "expected"),
    [("glibc 2.35", "2.35"), ("glibc 2.17", "2.17"), ("musl", None), ("", None), (None, None)],
)
def test_parse_glibc_version(text: str | None, expected: str | None) -> None:
    assert parse_glibc_version(text) == expected


def test_wsl_kernel_strings() -> None:
    assert is_wsl_kernel("5.15.153.1-microsoft-standard-WSL2")
    assert is_wsl_kernel("4.4.0-19041-Microsoft")
    assert not is_wsl_kernel("6.5.0-41-generic")
    assert not is_wsl_kernel(None)


def test_container_markers() -> None:
    assert parse_cgroup_container("0::/kubepods/besteffort/pod1/abc\n") == "kubernetes"
    assert parse_cgroup_container("12:devices:/docker/3f1e...\n") == "docker"
    assert parse_cgroup_container("0::/init.scope\n") is None
    assert parse_environ_container(b"PATH=/bin\0container=podman\0") == "podman"
    assert parse_environ_container(b"\xff\xfe garbage") is None


def test_probe_platform_on_fake_ubuntu(fake_system: Callable[..., System], tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "/etc/os-release": UBUNTU,
            "/proc/sys/kernel/osrelease": "6.5.0-41-generic\n",
            "/.dockerenv": "",
        },
    )
    ctx = Context()
    probe_platform(fake_system(), ctx)
    p = ctx.platform
    assert (p.os, p.arch, p.distro, p.distro_version) == ("linux", "x86_64", "ubuntu", "22.04")
    assert p.kernel == "6.5.0-41-generic"
    assert p.wsl is False
    assert p.container == "docker"
    assert p.glibc is None  # never read from the real machine for a fake root


def test_probe_platform_wsl_and_kubernetes(
    fake_system: Callable[..., System], tmp_path: Path
) -> None:
    write_tree(tmp_path, {"/proc/sys/kernel/osrelease": "5.15.153.1-microsoft-standard-WSL2"})
    ctx = Context()
    probe_platform(fake_system(env={"KUBERNETES_SERVICE_HOST": "10.0.0.1"}), ctx)
    assert ctx.platform.wsl is True
    assert ctx.platform.container == "kubernetes"
    assert ctx.platform.distro is None  # no os-release: unknown, not guessed


def test_probe_platform_windows_and_macos(fake_system: Callable[..., System]) -> None:
    ctx = Context()
    probe_platform(fake_system(platform="win32", machine="AMD64"), ctx)
    assert (ctx.platform.os, ctx.platform.arch, ctx.platform.wsl) == ("windows", "x86_64", False)
    probe_platform(fake_system(platform="darwin", machine="arm64"), ctx)
    assert (ctx.platform.os, ctx.platform.arch) == ("darwin", "aarch64")


# -- environment variables ------------------------------------------------------


def test_select_env_keeps_empty_values_and_cuda_path_entries() -> None:
    env = {
        "CUDA_VISIBLE_DEVICES": "",
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "HOME": "/home/u",
        "PATH": "/usr/bin:/usr/local/cuda-12.4/bin:/opt/nvidia/bin",
        "SECRET_TOKEN": "x",
        "TF_CLI_CONFIG_FILE": "/root/.terraformrc",
        "TF_TOKEN_app_terraform_io": "secret",
        "NCCL_DEBUG": "INFO",
    }
    out = select_env(env)
    assert out == {
        "CUDA_VISIBLE_DEVICES": "",
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "NCCL_DEBUG": "INFO",
        "PATH": "/usr/local/cuda-12.4/bin:/opt/nvidia/bin",
    }


def test_select_env_windows_path() -> None:
    out = select_env({"PATH": r"C:\Windows;C:\Program Files\NVIDIA\CUDA\v12.4\bin"}, windows=True)
    assert out["PATH"] == r"C:\Program Files\NVIDIA\CUDA\v12.4\bin"


def test_probe_env_vars(fake_system: Callable[..., System]) -> None:
    ctx = Context()
    probe_env_vars(fake_system(env={"NVIDIA_VISIBLE_DEVICES": "void", "USER": "x"}), ctx)
    assert ctx.env == {"NVIDIA_VISIBLE_DEVICES": "void"}


# -- interpreter and distributions ----------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("torch-2.5.1+cu124.dist-info", ("torch", "2.5.1+cu124")),
        ("nvidia_cudnn_cu12-9.1.0.70.dist-info", ("nvidia-cudnn-cu12", "9.1.0.70")),
        ("tensorflow_gpu-1.14.0-py3.7.egg-info", ("tensorflow-gpu", "1.14.0")),
        ("Keras-2.15.0.dist-info", ("keras", "2.15.0")),
        ("mypkg.egg-info", None),
        ("garbage", None),
    ],
)
def test_parse_dist_dirname(name: str, expected: tuple[str, str] | None) -> None:
    assert parse_dist_dirname(name) == expected


def test_parse_metadata_headers_stops_at_body() -> None:
    text = "Metadata-Version: 2.1\nName: My_Pkg\nVersion: 1.0\n\nName: not-this\n"
    assert parse_metadata_headers(text) == ("my-pkg", "1.0")
    assert parse_metadata_headers("Name: x\n") is None


def test_parse_pyinfo_takes_the_last_json_line() -> None:
    facts = parse_pyinfo('warning: something\n{"version": "3.10.12", "site_dirs": []}\n')
    assert facts["version"] == "3.10.12"
    for bad in ("", "garbage", '{"no_version": 1}'):
        with pytest.raises(ValueError):
            parse_pyinfo(bad)


def _venv_tree(tmp_path: Path) -> None:
    site = "/home/u/env/lib/python3.11/site-packages"
    write_tree(
        tmp_path,
        {
            "/home/u/env/pyvenv.cfg": "home = /usr/bin\n",
            f"{site}/torch-2.5.1+cu124.dist-info/METADATA": "Name: torch\nVersion: 2.5.1+cu124\n",
            f"{site}/torch/version.py": TORCH_CU124,
            f"{site}/nvidia_cudnn_cu12-9.1.0.70.dist-info/METADATA": "Name: nvidia-cudnn-cu12\n",
            f"{site}/weird.egg-info/PKG-INFO": "Name: Weird\nVersion: 0.3\n",
        },
    )


PYINFO = {
    "version": "3.11.9",
    "implementation": "CPython",
    "executable": "/home/u/env/bin/python",
    "prefix": "/home/u/env",
    "base_prefix": "/usr",
    "site_dirs": ["/home/u/env/lib/python3.11/site-packages"],
}


def test_probe_python_other_interpreter(fake_system: Callable[..., System], tmp_path: Path) -> None:
    _venv_tree(tmp_path)
    system = fake_system(outputs={"python": json.dumps(PYINFO)})
    system = System(**{**system.__dict__, "python_executable": "/home/u/env/bin/python"})
    ctx = Context()
    probe_python(system, ctx)
    assert ctx.python.version == "3.11.9"
    assert ctx.python.env_kind == "venv"
    assert ctx.packages == {"torch": "2.5.1+cu124", "nvidia-cudnn-cu12": "9.1.0.70", "weird": "0.3"}
    argv, timeout = system.run.calls[0]  # type: ignore[attr-defined]
    assert argv == ("/home/u/env/bin/python", "-I", str(PYINFO_SCRIPT))
    assert timeout > 0
    probe_frameworks(system, ctx)
    (torch,) = ctx.frameworks
    assert (torch.version, torch.cuda_version, torch.cudnn_version, torch.variant) == (
        "2.5.1+cu124",
        "12.4",
        "9.1.0.70",
        "cu124",
    )


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (CommandResult(None, timed_out=True, error="timed out after 15s"), "timed out"),
        (CommandResult(None, error="not found"), "not found"),
        (CommandResult(1, "", "Traceback: boom"), "exited with status 1"),
        (CommandResult(0, "no json here"), "printed no facts"),
    ],
)
def test_probe_python_failures_are_recorded(
    fake_system: Callable[..., System], result: CommandResult, message: str
) -> None:
    system = fake_system(outputs={"python": result})
    system = System(**{**system.__dict__, "python_executable": "/x/python"})
    ctx = Context()
    probe_python(system, ctx)
    assert ctx.python.version is None
    (err,) = ctx.errors
    assert err.probe == "python" and message in (err.message or "")


def test_probe_python_conda_env(fake_system: Callable[..., System], tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "/opt/conda/envs/tf/conda-meta/cudatoolkit-11.8.0-h6a678d5_0.json": "{}",
            "/opt/conda/envs/tf/conda-meta/cudnn-8.9.2.26-cuda11_0.json": "{}",
            "/opt/conda/envs/tf/conda-meta/history": "",
        },
    )
    facts = {
        **PYINFO,
        "prefix": "/opt/conda/envs/tf",
        "base_prefix": "/opt/conda/envs/tf",
        "site_dirs": [],
        "conda_default_env": "tf",
    }
    ctx = Context()
    probe_python(fake_system(outputs={"python3": json.dumps(facts)}), ctx)
    assert (ctx.python.env_kind, ctx.python.conda_env) == ("conda", "tf")
    assert ctx.conda_packages == {"cudatoolkit": "11.8.0", "cudnn": "8.9.2.26"}
    assert ctx.conda_prefix == "/opt/conda/envs/tf"


@pytest.mark.real_machine
def test_pyinfo_script_runs_under_a_real_interpreter() -> None:
    result = run_command((sys.executable, "-I", str(PYINFO_SCRIPT)), timeout=30)
    facts = parse_pyinfo(result.stdout)
    assert facts["version"] == ".".join(str(n) for n in sys.version_info[:3])
    assert facts["prefix"] == sys.prefix
    assert any(Path(d).is_dir() for d in facts["site_dirs"])


# -- framework build files -------------------------------------------------------


def test_parse_py_constants_never_executes_code() -> None:
    consts = parse_py_constants("import os\nx = os.system('echo pwned')\ny = 'ok'\nz: int = 3\n")
    assert consts == {"y": "ok", "z": 3}
    assert parse_py_constants("def broken(:\n") is None
    assert parse_py_constants("build_info = dict([('cuda_version', '10.1')])\n") == {
        "build_info": {"cuda_version": "10.1"}
    }


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("12.4", "12.4"),
        ("12.4.1", "12.4"),
        ("64_112", "11.2"),
        ("100", "10.0"),
        ("92", "9.2"),
        ("False", None),
        (None, None),
        (False, None),
        ("garbage", None),
    ],
)
def test_normalise_cuda(value: Any, expected: str | None) -> None:
    assert normalise_cuda(value) == expected


def test_torch_variants() -> None:
    consts = parse_torch_version_py(TORCH_ROCM)
    assert consts is not None
    fw = torch_framework(consts, None, None)
    assert (fw.cpu_only, fw.variant, fw.rocm_version) == (False, "rocm6.2", "6.2.41133-dd7f95766")
    cpu = torch_framework({"__version__": "2.13.0+cpu", "cuda": None}, "9.1", None)
    assert (cpu.cpu_only, cpu.variant, cpu.cudnn_version) == (True, "cpu", None)
    pypi = torch_framework({"__version__": "2.5.1", "cuda": "12.4"}, None, None)
    assert pypi.variant == "cu124"
    assert parse_torch_version_py("garbage(") is None
    assert parse_torch_version_py("x = 1") is None


def test_tf_build_info_variants() -> None:
    assert parse_tf_build_info(TF_215) is not None
    assert parse_tf_build_info(TF_114) == {
        "is_cuda_build": True,
        "cuda_version": "10.0",
        "cudnn_version": "7",
    }
    assert parse_tf_build_info("}{") is None


def _tf_site(tmp_path: Path, dist: str, version: str, build_info: str) -> Context:
    site = "/env/lib/python3.11/site-packages"
    write_tree(
        tmp_path,
        {
            f"{site}/{dist.replace('-', '_')}-{version}.dist-info/METADATA": "",
            f"{site}/tensorflow/python/platform/build_info.py": build_info,
        },
    )
    ctx = Context()
    ctx.site_dirs = [site]
    ctx.packages = {dist: version}
    return ctx


def test_tensorflow_2_15_linux(fake_system: Callable[..., System], tmp_path: Path) -> None:
    ctx = _tf_site(tmp_path, "tensorflow", "2.15.1", TF_215)
    probe_frameworks(fake_system(), ctx)
    (tf,) = ctx.frameworks
    assert (tf.cuda_version, tf.cudnn_version, tf.cpu_only, tf.variant) == (
        "12.2",
        "8",
        False,
        "cu122",
    )
    assert tf.build["cuda_compute_capabilities"] == "sm_50,sm_60,sm_70,sm_80,compute_90"


def test_tensorflow_gpu_1_14(fake_system: Callable[..., System], tmp_path: Path) -> None:
    ctx = _tf_site(tmp_path, "tensorflow-gpu", "1.14.0", TF_114)
    probe_frameworks(fake_system(), ctx)
    (tf,) = ctx.frameworks
    assert (tf.package, tf.cuda_version, tf.cudnn_version) == ("tensorflow-gpu", "10.0", "7")


def test_tensorflow_windows(fake_system: Callable[..., System], tmp_path: Path) -> None:
    ctx = _tf_site(tmp_path, "tensorflow", "2.10.1", TF_WIN_210)
    probe_frameworks(fake_system(platform="win32"), ctx)
    assert ctx.frameworks[0].cuda_version == "11.2"
    # Detection records what the installed files say, on Windows as anywhere; that
    # no GPU build of 2.15 exists for native Windows is the doctor's judgement
    # (compat.platform, tests/compat/test_platform.py), not a fact rewritten here.
    ctx = _tf_site(tmp_path, "tensorflow", "2.15.0", TF_215)
    probe_frameworks(fake_system(platform="win32"), ctx)
    assert (ctx.frameworks[0].cpu_only, ctx.frameworks[0].cuda_version) == (False, "12.2")


def test_malformed_build_info_is_recorded(
    fake_system: Callable[..., System], tmp_path: Path
) -> None:
    ctx = _tf_site(tmp_path, "tensorflow", "2.15.1", "build_info = {\x00broken")
    probe_frameworks(fake_system(), ctx)
    assert ctx.frameworks[0].name == "tensorflow"
    (err,) = ctx.errors
    assert "build_info.py" in (err.message or "")


def test_jax_cupy_ort_paddle_from_distributions(
    fake_system: Callable[..., System], tmp_path: Path
) -> None:
    site = "/env/site-packages"
    write_tree(
        tmp_path,
        {
            f"{site}/onnxruntime/capi/build_and_package_info.py": (
                "package_name = 'onnxruntime-gpu'\n__version__ = '1.19.2'\n"
                "cuda_version = '12.2'\ncudnn_version = '9.1'\n"
            ),
            f"{site}/paddle/version/__init__.py": (
                "full_version = '2.6.1'\ncuda_version = 'False'\ncudnn_version = 'False'\n"
            ),
        },
    )
    ctx = Context()
    ctx.site_dirs = [site]
    ctx.packages = {
        "jax": "0.4.30",
        "jaxlib": "0.4.30",
        "jax-cuda12-plugin": "0.4.30",
        "jax-cuda12-pjrt": "0.4.30",
        "cupy-cuda11x": "13.3.0",
        "onnxruntime-gpu": "1.19.2",
        "paddlepaddle": "2.6.1",
        "keras": "3.6.0",
    }
    probe_frameworks(fake_system(), ctx)
    by = {f.name: f for f in ctx.frameworks}
    assert (by["jax"].cpu_only, by["jax"].variant) == (False, "cuda12")
    assert (by["cupy"].package, by["cupy"].build["cuda_major"]) == ("cupy-cuda11x", "11")
    assert (by["onnxruntime"].cuda_version, by["onnxruntime"].cudnn_version) == ("12.2", "9.1")
    assert (by["paddle"].cpu_only, by["paddle"].cuda_version) == (True, None)
    assert by["keras"].version == "3.6.0"


def test_old_jaxlib_local_version_and_cpu_jax() -> None:
    old = jax_framework({"jax": "0.4.13", "jaxlib": "0.4.13+cuda12.cudnn89"})
    assert old is not None
    assert (old.variant, old.cudnn_version, old.cpu_only) == ("cuda12", "8.9", False)
    cpu = jax_framework({"jax": "0.4.30", "jaxlib": "0.4.30"})
    assert cpu is not None and cpu.cpu_only is True
    assert jax_framework({}) is None


def test_a_tensorflow_without_build_info_is_unknown_not_cpu_only() -> None:
    """No build_info read is an unknown build; only a stated fact (a -cpu name,
    is_cuda_build False) makes it CPU-only, and tensorflow-gpu is the GPU one by name."""
    from envcheck.detect.frameworks import tf_framework

    assert tf_framework("tensorflow", "2.15.0", None, None).cpu_only is None
    assert tf_framework("tensorflow-gpu", "1.14.0", None, None).cpu_only is False
    assert tf_framework("tensorflow-cpu", "2.15.0", None, None).cpu_only is True
    off = {"is_cuda_build": False}
    assert tf_framework("tensorflow", "2.15.0", off, None).cpu_only is True
    on = {"is_cuda_build": True, "cuda_version": "12.2"}
    assert tf_framework("tensorflow", "2.15.0", on, None).cpu_only is False


def test_a_gpu_paddle_whose_cuda_was_not_read_has_an_unknown_variant() -> None:
    """paddlepaddle-gpu without a readable version.py: a GPU build of unknown CUDA, not
    "cpu" (which contradicted cpu_only=False and made rules judge a CPU build)."""
    from envcheck.detect.frameworks import paddle_framework

    gpu = paddle_framework("paddlepaddle-gpu", "3.0.0b0", None, None)
    assert (gpu.cpu_only, gpu.variant) == (False, None)
    cpu = paddle_framework("paddlepaddle", "3.0.0b0", None, None)
    assert (cpu.cpu_only, cpu.variant) == (True, "cpu")
