"""parse_collect_env: recorded reports from public issues → snapshot facts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from envcheck.collect_env import is_collect_env, parse_collect_env
from envcheck.doctor import diagnose
from envcheck.errors import InputError
from envcheck.matrix import load_matrix
from envcheck.model.finding import Severity
from envcheck.model.snapshot import Snapshot
from envcheck.schemas import get_schema

DIR = Path(__file__).parent / "fixtures" / "collect_env"
MINI = Path(__file__).parent / "fixtures" / "matrix-mini"


def load(name: str) -> Snapshot:
    path = DIR / name
    return parse_collect_env(path.read_text(encoding="utf-8"), str(path))


def torch_of(s: Snapshot) -> Any:
    (fw,) = s.frameworks
    assert fw.name == "torch"
    return fw


def test_every_fixture_is_listed_with_its_source() -> None:
    readme = (DIR / "README.md").read_text(encoding="utf-8")
    names = sorted(p.name for p in DIR.glob("*.txt"))
    assert len(names) >= 10
    for name in names:
        # A public report's URL, or a run on the GPU machine lent to this project.
        assert (
            f"| {name} | https://github.com/" in readme
            or f"| {name} | recorded on this project's lent" in readme
        )


@pytest.mark.parametrize("name", sorted(p.name for p in DIR.glob("*.txt")))
def test_every_fixture_parses_validates_and_round_trips(name: str) -> None:
    s = load(name)
    assert s.source == "collect_env"
    data = s.to_json()
    jsonschema.Draft202012Validator(get_schema("snapshot-1")).validate(data)
    assert Snapshot.from_json(data) == s


@pytest.mark.parametrize("name", sorted(p.name for p in DIR.glob("*.txt")))
def test_the_doctor_runs_on_every_fixture(name: str) -> None:
    from envcheck.doctor import diagnose
    from envcheck.matrix import load_matrix_from

    report = diagnose(load(name), load_matrix_from(MINI))
    assert not [f for f in report.findings if f.id == "rule-crashed"]


def test_torch_2_4_on_wsl2() -> None:
    s = load("wsl2-torch-2.4-rtx4070-laptop.txt")
    p = s.platform
    assert (p.os, p.arch, p.distro, p.distro_version) == ("linux", "x86_64", "ubuntu", "22.04")
    assert p.kernel == "5.15.153.1-microsoft-standard-WSL2"
    assert p.wsl is True
    assert p.glibc == "2.35"
    assert s.python.version == "3.12.3"
    assert s.driver.version == "551.88"
    assert s.driver.source == "collect_env"
    assert [(g.index, g.name, g.compute_capability) for g in s.gpus] == [
        (0, "NVIDIA GeForce RTX 4070 Laptop GPU", None)
    ]
    assert [(t.version, t.source) for t in s.cuda_toolkits] == [("12.4.131", "collect_env")]
    fw = torch_of(s)
    assert (fw.version, fw.cuda_version, fw.variant, fw.cpu_only) == (
        "2.4.0+cu121",
        "12.1",
        "cu121",
        False,
    )
    assert fw.build["is_cuda_available"] == "True"
    assert s.env == {"CUDA_MODULE_LOADING": "LAZY"}
    # The paste stops inside the CPU section: the package list is unknown, and said so.
    assert dict(s.packages) == {}
    (err,) = s.errors
    assert err.probe == "collect_env"
    assert "ends at line 34 before 'Versions of relevant libraries'" in (err.message or "")


def test_torch_1_10_on_wsl2_with_pip_and_conda_packages() -> None:
    s = load("wsl2-torch-1.10-cuda-unavailable.txt")
    assert s.platform.wsl is True
    assert s.platform.distro_version == "20.04"
    assert s.driver.version == "511.79"
    fw = torch_of(s)
    assert (fw.version, fw.cuda_version, fw.variant) == ("1.10.2+cu113", "11.3", "cu113")
    assert fw.build["is_cuda_available"] == "False"
    assert dict(s.packages) == {
        "mypy-extensions": "0.4.3",
        "numpy": "1.22.2",
        "torch": "1.10.2+cu113",
        "torchvision": "0.11.3+rocm4.2",
    }
    assert s.conda_packages["cudatoolkit"] == "11.3.1"
    assert s.conda_packages["mkl"] == "2021.4.0"
    # torch could not use CUDA on that machine: the snapshot keeps the fact and the
    # doctor turns it into an error, never "all good".
    assert s.errors == ()
    (torch,) = s.frameworks
    assert torch.build["is_cuda_available"] == "False"
    from envcheck.doctor import diagnose
    from envcheck.matrix import load_matrix

    ids = {f.id for f in diagnose(s, load_matrix(bundled=True)).findings}
    assert "framework-reports-no-cuda" in ids


def test_torch_1_1_old_layout() -> None:
    s = load("torch-1.1-rtx2060-old-format.txt")
    assert (s.platform.os, s.platform.distro, s.platform.distro_version) == (
        "linux",
        "ubuntu",
        "18.04",
    )
    assert s.platform.wsl is None  # no kernel line in 1.x reports
    assert s.python.version == "3.6"
    assert s.driver.version == "418.67"
    assert [g.name for g in s.gpus] == ["GeForce RTX 2060"]
    assert s.cuda_toolkits[0].version == "9.1.85"
    fw = torch_of(s)
    assert (fw.version, fw.cuda_version, fw.variant, fw.cpu_only) == ("1.1.0", "9.0", "cu90", False)
    assert fw.build == {"is_debug_build": "False", "is_cuda_available": "True"}
    assert s.packages["torch-geometric"] == "1.3.2"
    assert len(s.packages) == 9
    assert dict(s.conda_packages) == {}
    assert s.libraries == ()


def test_four_gpus_on_separate_lines() -> None:
    s = load("torch-1.4-centos-4gpu-truncated.txt")
    assert (s.platform.distro, s.platform.distro_version) == ("centos", "7")
    assert [(g.index, g.name) for g in s.gpus] == [(i, "GeForce RTX 2080 Ti") for i in range(4)]
    assert s.driver.version == "440.82"
    assert torch_of(s).cuda_version == "10.1"


def test_several_cudnn_paths() -> None:
    s = load("torch-1.13-t4-multiple-cudnn.txt")
    assert [(lib.name, lib.version, lib.path) for lib in s.libraries] == [
        ("cudnn", "7.6.5", "/usr/local/cuda-10.1/targets/x86_64-linux/lib/libcudnn.so.7.6.5"),
        ("cudnn", "7.6.5", "/usr/local/cuda-10.2/targets/x86_64-linux/lib/libcudnn.so.7.6.5"),
        ("cudnn", "8.7.0", "/usr/local/cuda-11.8/targets/x86_64-linux/lib/libcudnn.so.8.7.0"),
    ]
    assert s.cuda_toolkits == ()  # "CUDA runtime version: Could not collect"
    assert s.platform.kernel == "5.4.0-1060-aws"
    assert s.platform.glibc == "2.27"


def test_windows_cpu_build() -> None:
    s = load("windows-torch-2.8-cpu.txt")
    assert (s.platform.os, s.platform.arch) == ("windows", "x86_64")
    assert s.python.version == "3.10.17"
    assert s.driver.version is None  # "No CUDA"
    assert s.gpus == ()
    assert s.libraries == ()
    fw = torch_of(s)
    assert (fw.version, fw.cuda_version, fw.variant, fw.cpu_only) == (
        "2.8.0.dev20250528+cpu",
        None,
        "cpu",
        True,
    )


def test_rocm_build() -> None:
    s = load("torch-1.7-rocm.txt")
    fw = torch_of(s)
    assert fw.cuda_version is None
    assert fw.cpu_only is False
    assert fw.rocm_version == "3.7.20315-077bcfa0"
    assert fw.variant == "rocm3.7"
    assert fw.build["hip_runtime_version"] == "3.18.2"
    # AMD devices are not NVIDIA GPUs; the doctor must not think a CUDA GPU is present.
    assert s.gpus == ()
    assert s.driver.version is None
    assert s.conda_packages == {"blas": "1.0"}


def test_no_torch_on_macos() -> None:
    s = load("macos-no-torch.txt")
    assert s.platform.os == "darwin"
    assert s.platform.arch == "x86_64"
    assert s.frameworks == ()
    assert s.packages["torch"] == "1.7.0.dev20200803"
    assert s.python.version == "2.7"


def test_h100_with_a_warning_before_the_report() -> None:
    s = load("torch-2.9-h100-runpy-warning.txt")
    assert [g.name for g in s.gpus] == ["NVIDIA H100 80GB HBM3"]
    assert s.driver.version == "580.126.09"
    assert torch_of(s).variant == "cu126"
    assert "CUDA_MODULE_LOADING" not in s.env  # printed empty


def test_collect_env_and_detect_agree_on_one_real_machine() -> None:
    # Both were run on the same H100 machine minutes apart.
    s = load("device-h100-torch-2.11-cu130.txt")
    case = json.loads(
        (DIR.parent / "doctor" / "42-device-h100-580-torch-jax-cupy-ort-cpu.json").read_text()
    )
    live = Snapshot.from_json(case["snapshot"])
    assert s.driver.version == live.driver.version == "580.159.04"
    assert [g.name for g in s.gpus] == [g.name for g in live.gpus]
    (live_torch,) = [f for f in live.frameworks if f.name == "torch"]
    assert torch_of(s).version == live_torch.version == "2.11.0+cu130"
    assert torch_of(s).cuda_version == live_torch.cuda_version == "13.0"
    system_cudnn = {lib.version for lib in live.libraries if lib.name == "cudnn"}
    assert {lib.version for lib in s.libraries if lib.name == "cudnn"} <= system_cudnn
    report = diagnose(s, load_matrix(bundled=True))
    assert not [f.id for f in report.findings if f.severity is not Severity.INFO]


def test_report_cut_mid_line_gives_a_partial_snapshot() -> None:
    s = load("torch-2.1-cu121-driver-470-warning-truncated.txt")
    assert torch_of(s).version == "2.1.0+cu121"
    assert s.python.version == "3.11.6"
    assert s.driver.version is None
    assert s.gpus == ()
    assert len(s.errors) == 1
    s = load("torch-1.7-colab-t4-truncated.txt")
    assert s.driver.version == "418.67"
    assert [g.name for g in s.gpus] == ["Tesla T4"]
    assert torch_of(s).build["is_debug_build"] == "True"


def test_gpu_names_resolve_to_compute_capabilities_in_the_doctor() -> None:
    from envcheck.matrix import load_matrix_from
    from envcheck.rules._facts import gpu_facts

    matrix = load_matrix_from(MINI)
    for name, cc in (
        ("torch-1.13-t4-multiple-cudnn.txt", "7.5"),
        ("torch-2.9-h100-runpy-warning.txt", "9.0"),
        ("torch-1.4-centos-4gpu-truncated.txt", "7.5"),
    ):
        facts = gpu_facts(load(name), matrix)
        assert {str(f.cc) for f in facts} == {cc}, name


# -- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello world\n",
        '{"schema": "envcheck.snapshot/1"}',
        "Traceback (most recent call last):\nRuntimeError: CUDA error: out of memory\n",
        "PyTorch version: 2.1.0\n",  # one key alone is not a report
        "\x00\x01\x02 garbage \xff" * 100,
    ],
)
def test_not_collect_env(text: str) -> None:
    assert not is_collect_env(text)
    with pytest.raises(InputError) as info:
        parse_collect_env(text, "report.txt")
    assert str(info.value).startswith("report.txt: not the output of torch.utils.collect_env")


def test_two_reports_pasted_together() -> None:
    text = (DIR / "torch-1.1-rtx2060-old-format.txt").read_text(encoding="utf-8")
    with pytest.raises(InputError) as info:
        parse_collect_env(text + text, "both.txt")
    assert str(info.value) == (
        "both.txt:29: a second collect_env report starts here; pass one report at a time"
    )


def test_hostile_values_are_bounded() -> None:
    gpu_lines = "\n".join(f"GPU {i}: NVIDIA A100-SXM4-80GB" for i in range(1000))
    text = (
        "PyTorch version: 2.5.1+cu124\n"
        "CUDA used to build PyTorch: 12.4\n"
        "OS: Ubuntu 22.04.4 LTS (x86_64)\n"
        f"Python version: 3.11.9 {'x' * 100_000}\n"
        f"GPU models and configuration:\n{gpu_lines}\n\n"
        "Nvidia driver version: banana\n"
        "cuDNN version: \x1b[31m9.1.0\x1b[0m\n"
        "Versions of relevant libraries:\n"
        "[pip3] torch==2.5.1\n"
        "[pip3] ../../etc/passwd\n"
        "[pip3] numpy == 1.26\n"
        "[conda] Could not collect\n"
    )
    s = parse_collect_env(text, "evil.txt")
    assert len(s.gpus) == 256
    assert s.python.version == "3.11.9"
    assert s.driver.version is None
    assert dict(s.packages) == {"torch": "2.5.1"}
    messages = [e.message or "" for e in s.errors]
    assert "evil.txt:1007: unrecognised driver version 'banana'" in messages
    assert any("more than 256 GPUs" in m for m in messages)
    for lib in s.libraries:
        assert "\x1b" not in (lib.version or "")


# Layout variants met in pasted reports. Each test uses its own made-up lines (not
# corpus text), so tests/fixtures/corpus stays a held-out measure.

_MADE_UP = (
    "PyTorch version: 2.3.1+cu118\n"
    "Is debug build: False\n"
    "CUDA used to build PyTorch: 11.8\n"
    "ROCM used to build PyTorch: N/A\n"
    "\n"
    "OS: Debian GNU/Linux 12 (bookworm) (x86_64)\n"
    "Is CUDA available: False\n"
    "GPU models and configuration: GPU 0: NVIDIA L4\n"
    "Nvidia driver version: 450.80.02\n"
    "\n"
    "Versions of relevant libraries:\n"
    "[pip3] torch==2.3.1+cu118\n"
)


def _facts(s: Snapshot) -> tuple[Any, ...]:
    fw = torch_of(s)
    return (
        fw.version,
        fw.cuda_version,
        [g.name for g in s.gpus],
        s.driver.version,
        dict(s.packages),
    )


@pytest.mark.parametrize(
    "prefix",
    ["> ", ">", "> > ", "trainer-1  | ", "web_app.2 |", "2025-06-01T10:00:00.123456789Z "],
    ids=["quote", "quote-tight", "quote-nested", "compose", "compose-tight", "timestamp"],
)
def test_a_prefix_on_every_line_is_removed(prefix: str) -> None:
    plain = parse_collect_env(_MADE_UP, "plain.txt")
    text = "".join(prefix + line + "\n" for line in _MADE_UP.splitlines())
    assert is_collect_env(text)
    s = parse_collect_env(text, "prefixed.txt")
    assert _facts(s) == _facts(plain)
    assert not s.errors


def test_text_before_the_first_key_that_is_not_a_prefix_is_kept() -> None:
    text = "note: PyTorch version: 9.9\n" + _MADE_UP
    s = parse_collect_env(text, "note.txt")
    assert torch_of(s).version == "2.3.1+cu118"


def test_vllm_layout_with_section_titles_and_rules() -> None:
    text = (
        "Collecting environment information...\n"
        "==============================\n"
        "        System Info\n"
        "==============================\n"
        "OS                           : Ubuntu 24.04.1 LTS (x86_64)\n"
        "\n"
        "==============================\n"
        "       PyTorch Info\n"
        "==============================\n"
        "PyTorch version              : 2.5.1+cu121\n"
        "CUDA used to build PyTorch   : 12.1\n"
        "\n"
        "==============================\n"
        "       CUDA / GPU Info\n"
        "==============================\n"
        "Is CUDA available            : True\n"
        "GPU models and configuration : \n"
        "GPU 0: NVIDIA RTX A4000\n"
        "GPU 1: NVIDIA RTX A4000\n"
        "\n"
        "Nvidia driver version        : 550.54.15\n"
        "\n"
        "==============================\n"
        "Versions of relevant libraries\n"
        "==============================\n"
        "[pip3] torch==2.5.1\n"
        "[pip3] triton==3.1.0\n"
        "[conda] Could not collect\n"
        "\n"
        "==============================\n"
        "         vLLM Info\n"
        "==============================\n"
        "vLLM Version                 : 0.6.6\n"
    )
    s = parse_collect_env(text, "vllm.txt")
    assert [g.name for g in s.gpus] == ["NVIDIA RTX A4000", "NVIDIA RTX A4000"]
    assert s.driver.version == "550.54.15"
    assert dict(s.packages) == {"torch": "2.5.1", "triton": "3.1.0"}
    # The libraries section was found: no "report ends early" note.
    assert not s.errors


def test_mig_instances_mark_their_gpu_and_are_not_misread() -> None:
    text = _MADE_UP.replace(
        "GPU models and configuration: GPU 0: NVIDIA L4\n",
        "GPU models and configuration: \n"
        "GPU 0: NVIDIA H100 80GB HBM3\n"
        "  MIG 2g.20gb     Device  0:\n"
        "  MIG 2g.20gb     Device  1:\n"
        "GPU 1: NVIDIA H100 80GB HBM3\n"
        "\n",
    )
    s = parse_collect_env(text, "mig.txt")
    assert [(g.index, g.mig_mode) for g in s.gpus] == [(0, "Enabled"), (1, None)]
    assert not s.errors


@pytest.mark.parametrize(
    ("line", "version"),
    [
        (r"D:\CUDA\v11.8\bin\cudnn_ops_infer64_8.dll", "8"),
        (r"C:\tools\cudnn\bin\cudnn_graph64_9.dll", "9"),
        (r"C:\tools\cudnn\bin\CUDNN64_9.DLL", "9"),
        ("/opt/cudnn/lib/libcudnn_cnn_train.so.8.6.0", "8.6.0"),
    ],
)
def test_cudnn_part_libraries_give_the_cudnn_version(line: str, version: str) -> None:
    text = _MADE_UP.replace(
        "Nvidia driver version: 450.80.02\n",
        f"Nvidia driver version: 450.80.02\ncuDNN version: {line}\n",
    )
    s = parse_collect_env(text, "cudnn.txt")
    assert [(lib.name, lib.version) for lib in s.libraries] == [("cudnn", version)]


def test_cudnn_parts_of_one_version_are_one_library() -> None:
    text = _MADE_UP.replace(
        "Nvidia driver version: 450.80.02\n",
        "Nvidia driver version: 450.80.02\n"
        "cuDNN version: Probably one of the following:\n"
        "/opt/x/libcudnn.so.8.7.0\n"
        "/opt/x/libcudnn_adv_infer.so.8.7.0\n"
        "/opt/x/libcudnn_ops_train.so.8.7.0\n"
        "/opt/y/libcudnn_ops_train.so.8.2.1\n",
    )
    s = parse_collect_env(text, "parts.txt")
    assert [lib.version for lib in s.libraries] == ["8.7.0", "8.2.1"]


def test_gpu_uuid_suffix_is_not_part_of_the_name() -> None:
    # nvidia-smi -L style: older collect_env versions keep the "(UUID: ...)" suffix.
    text = _MADE_UP.replace(
        "GPU 0: NVIDIA L4\n",
        "GPU 0: NVIDIA L4 (UUID: GPU-0a1b2c3d-0000-1111-2222-333344445555)\n",
    )
    s = parse_collect_env(text, "uuid.txt")
    assert [(g.name, g.uuid) for g in s.gpus] == [
        ("NVIDIA L4", "GPU-0a1b2c3d-0000-1111-2222-333344445555")
    ]
    assert not s.errors


def test_markdown_emphasis_around_key_lines_is_ignored() -> None:
    # A reporter bolds the lines they point at: "**CUDA used to build PyTorch: ...**",
    # sometimes across two lines (an opening "**" on one, the closing on another).
    text = (
        _MADE_UP.replace(
            "CUDA used to build PyTorch: 11.8\n", "**CUDA used to build PyTorch: 11.8**\n"
        )
        .replace("Is CUDA available: False\n", "**Is CUDA available: False\n")
        .replace("Nvidia driver version: 450.80.02\n", "Nvidia driver version: 450.80.02**\n")
    )
    s = parse_collect_env(text, "bold.txt")
    assert _facts(s) == _facts(parse_collect_env(_MADE_UP, "plain.txt"))
    assert s.driver.version == "450.80.02"


# --- R610+ drivers. torch's collect_env reads the driver with ``Driver Version: (.*?) ``
# from plain nvidia-smi (torch/utils/collect_env.py, get_nvidia_driver_version); R610+
# prints "KMD Version:" there, so such a report says "Could not collect" beside the GPUs
# ``nvidia-smi -L`` listed. No public collect_env report from an R610 machine was found:
# these reports are a recorded one with its driver line as R610 leaves it, plus a real
# R610 nvidia-smi table pasted after it (tests/fixtures/nvidia_smi/README.md). ---

SMI_DIR = DIR.parent / "nvidia_smi"
H100 = "device-h100-torch-2.11-cu130.txt"


def r610_report(pasted: str = "") -> str:
    text = (DIR / H100).read_text(encoding="utf-8")
    assert "Nvidia driver version: 580.159.04\n" in text
    text = text.replace(
        "Nvidia driver version: 580.159.04\n", "Nvidia driver version: Could not collect\n"
    )
    if pasted:
        text += "\n" + (SMI_DIR / pasted).read_text(encoding="utf-8")
    return text


def test_r610_could_not_collect_beside_gpus_leaves_the_driver_unknown() -> None:
    s = parse_collect_env(r610_report(), "r.txt")
    assert s.driver.version is None
    assert [g.name for g in s.gpus] == ["NVIDIA H100 80GB HBM3"]
    assert not s.observed("driver")  # unknown, not observed absent
    assert any(
        e.message.startswith("r.txt:19: no driver version beside listed GPUs") for e in s.errors
    )


def test_could_not_collect_without_gpus_is_still_observed_absent() -> None:
    s = load("windows-torch-2.8-cpu.txt")
    assert s.driver.version is None
    assert s.observed("driver")


@pytest.mark.parametrize(
    ("pasted", "driver", "cuda"),
    [
        ("r610-plain-2x-b200.txt", "610.43.02", "13.3"),
        ("r610-plain-rtx3080-610.43.03.txt", "610.43.03", "13.3"),
        ("r610-q-documented.txt", "610.57.04", "13.3"),
    ],
)
def test_r610_nvidia_smi_pasted_with_the_report_gives_the_driver(
    pasted: str, driver: str, cuda: str
) -> None:
    s = parse_collect_env(r610_report(pasted), "r.txt")
    assert (s.driver.version, s.driver.cuda_version, s.driver.source) == (
        driver,
        cuda,
        "collect_env",
    )
    assert s.observed("driver")


def test_a_pasted_header_adds_the_cuda_of_the_same_driver_only() -> None:
    text = (DIR / H100).read_text(encoding="utf-8")
    same = text + "\n| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0 |\n"
    other = text + "\n" + (SMI_DIR / "r610-plain-rtx5070.txt").read_text(encoding="utf-8")
    assert parse_collect_env(same).driver.cuda_version == "13.0"
    assert (
        parse_collect_env(other).driver.version,
        parse_collect_env(other).driver.cuda_version,
    ) == (
        "580.159.04",
        None,
    )


def test_doctor_from_collect_env_reads_an_r610_paste(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    path = tmp_path / "report.txt"
    path.write_text(r610_report("r610-plain-rtx5070.txt"), encoding="utf-8")
    code, out, _ = run_cli("doctor", "--from-collect-env", str(path), "--json")
    driver = json.loads(out)["snapshot"]["driver"]
    assert (driver["version"], driver["cuda_version"]) == ("610.43.02", "13.3")
    assert code == 0
