"""Rows that mirror the file printing the message: the text that file prints, and
how explain weighs the facts beside it.

Each line below is written from the format string in the ``emitted_by`` file (the
values are made up); the real reports these rows are tested on are in
test_signatures.py's EXAMPLES, with their URLs. None of this is corpus text.
"""

from __future__ import annotations

import re

import pytest

from envcheck.explain import SIGNATURES, explain, match_signatures
from envcheck.matrix import Matrix
from envcheck.model.finding import Category

_EMITTED_BY = re.compile(r"[\w.-]+/[\w.-]+:[\w./-]+@(?:[0-9a-f]{40}|v[\d.]+|[\w.-]+-[\d.]+)")


def _ids(text: str) -> list[str]:
    return [m.signature.id for m in match_signatures(text)[0]]


def _first(text: str, matrix: Matrix) -> tuple[str, Category]:
    f = explain(text, None, matrix).findings[0]
    return f.id, f.category


def test_emitted_by_names_repository_path_and_commit() -> None:
    named = [s for s in SIGNATURES if s.emitted_by]
    assert len(named) >= 15
    for s in named:
        assert _EMITTED_BY.fullmatch(s.emitted_by), s.id


@pytest.mark.parametrize(
    ("line", "sig_id"),
    [
        # glibc elf/dl-lookup.c: "<file>: undefined symbol: <name>", relayed by Python.
        (
            (
                "OSError: /venv/lib/python3.11/site-packages/torchvision/_C.so: undefined symbol: "
                "_ZN3c1017RegisterOperatorsD1Ev"
            ),
            "companion-torch-abi-mismatch",
        ),
        (
            (
                "ImportError: /venv/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-"
                "x86_64-linux-gnu.so: Undefined symbol: _ZNK3c1010TensorImpl27throw_data_ptr_"
                "access_errorEv"
            ),
            "companion-torch-abi-mismatch",
        ),
        (
            (
                "ImportError: /venv/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: "
                "undefined symbol: _ZN2at4_ops5zeros4callEv"
            ),
            "torch-own-abi-mismatch",
        ),
        # xformers/_cpp_lib.py xFormersInvalidLibException.__str__
        (
            "    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cpu)",
            "xformers-built-for-cpu-torch",
        ),
        (
            "    PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cu118)",
            "xformers-built-for-other-torch",
        ),
        (
            (
                "xFormers can't load C++/CUDA extensions. xFormers was built for a different "
                "version of PyTorch or Python."
            ),
            "xformers-built-for-other-torch",
        ),
        # torch_sparse/__init__.py and torchvision/extension.py (both wordings)
        (
            (
                "Detected that PyTorch and torch_scatter were compiled with different CUDA "
                "versions. PyTorch has CUDA version 11.8 and torch_scatter has CUDA version 12.1."
            ),
            "companion-cuda-version-check",
        ),
        (
            (
                "RuntimeError: Detected that PyTorch and torchvision were compiled with different "
                "CUDA major versions. PyTorch has CUDA Version=12.1 and torchvision has CUDA "
                "Version=11.8. Please reinstall the torchvision that matches your PyTorch install."
            ),
            "companion-cuda-version-check",
        ),
        # kernel-open/nvidia/nv.c, TF cuda_diagnostics.cc, pynvml's error strings
        (
            (
                "NVRM: API mismatch: the client has the version 367.44, but this kernel module "
                "has the version 367.35.  Please"
            ),
            "nvrm-api-mismatch",
        ),
        (
            (
                "kernel version 515.48.7 does not match DSO version 510.73.5 -- cannot find "
                "working devices in this configuration"
            ),
            "tf-kernel-dso-version-mismatch",
        ),
        (
            "pynvml.nvml.NVMLError_LibRmVersionMismatch: RM has detected",
            "nvml-lib-rm-version-mismatch",
        ),
        ("NVMLError_LibraryNotFound: NVML Shared Library Not Found", "nvml-library-not-found"),
        # torch/utils/cpp_extension.py _find_cuda_home
        (
            "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda-12.1'",
            "cpp-extension-no-cuda-runtime",
        ),
        # TF self_check.py and pywrap_tensorflow.py
        (
            (
                "ImportError: Could not find 'cudnn64_7.dll'. TensorFlow requires that this DLL be "
                "installed in a directory that is named in your %PATH% environment variable."
            ),
            "tf-dlopen-cudnn",
        ),
        ("Failed to load the native TensorFlow runtime.", "tf-native-runtime-load-failed"),
        # nvcc with and without its prefix, in either case
        ("nvcc fatal   : Unsupported gpu architecture 'compute_89'", "ptxas-unknown-gpu-arch"),
        ("Unsupported gpu architecture 'compute_120'", "ptxas-unknown-gpu-arch"),
        (
            "ptxas fatal   : Value 'sm_90a' is not defined for option 'gpu-name'",
            "ptxas-unknown-gpu-arch",
        ),
        ("Value 'sm_100' is not defined for option 'gpu-name'", "ptxas-unknown-gpu-arch"),
        # the versioned nvJitLink symbol in the loader's capitalisation
        (
            (
                "libcusparse.so.12: Undefined symbol: __nvJitLinkComplete_12_4, version "
                "libnvJitLink.so.12"
            ),
            "cuda-library-undefined-versioned-symbol",
        ),
    ],
)
def test_printed_text_matches(line: str, sig_id: str) -> None:
    assert sig_id in _ids(line)


def test_torch_symbol_outside_torch_namespaces_is_not_an_abi_mismatch() -> None:
    line = "/venv/lib/python3.10/site-packages/foo/_ext.so: undefined symbol: _ZNSt7__cxx11Ev"
    assert not {"companion-torch-abi-mismatch", "torch-own-abi-mismatch"} & set(_ids(line))


def test_aten_operator_is_not_a_companion(mini_matrix: Matrix) -> None:
    assert "companion-operator-missing" not in _ids("operator aten::add does not exist")


def test_companion_named_from_the_path(mini_matrix: Matrix) -> None:
    text = (
        "OSError: /venv/lib/python3.11/site-packages/torch_cluster/_grid_cuda.so: undefined "
        "symbol: _ZNK3c104Type14isSubtypeOfExtERKS0_PSo"
    )
    report = explain(text, None, mini_matrix)
    (m,) = report.matches
    assert m.root_cause is not None and "torch-cluster" in m.root_cause
    assert report.findings[0].category == Category.MIXED_WHEELS
    top = "/venv/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so"
    report = explain(
        f"ImportError: {top}: undefined symbol: _ZN3c104cuda9SetDeviceEi", None, mini_matrix
    )
    assert report.matches[0].root_cause is not None
    assert "flash-attn" in report.matches[0].root_cause


def test_xformers_built_for_a_cuda_torch_beside_a_cpu_torch(mini_matrix: Matrix) -> None:
    text = (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)\n"
        "    Python  3.10.11 (you have 3.10.8)\n"
    )
    assert _first(text, mini_matrix) == ("xformers-built-for-cpu-torch", Category.CPU_ONLY_BUILD)
    other = text.replace("2.1.2+cpu", "2.1.2+cu118")
    assert _first(other, mini_matrix) == ("xformers-built-for-other-torch", Category.MIXED_WHEELS)


def test_driver_mismatch_states_both_versions(mini_matrix: Matrix) -> None:
    for text in (
        (
            "NVRM: API mismatch: the client has the version 515.48.07, but this kernel module has "
            "the version 510.73.05.  Please"
        ),
        (
            "E cuda_diagnostics.cc:306] kernel version 510.73.5 does not match DSO version "
            "515.48.7 -- cannot find working devices in this configuration"
        ),
    ):
        report = explain(text, None, mini_matrix)
        assert report.findings[0].category == Category.NVML_MISMATCH
        m = report.matches[0]
        assert m.root_cause is not None and "510.73" in m.root_cause and "515.48" in m.root_cause


def test_tensorflow_capability_floor_is_the_cause(mini_matrix: Matrix) -> None:
    text = (
        "I gpu_device.cc:1406] Ignoring visible gpu device (device: 0, name: GeForce GT 750M, "
        "pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. "
        "The minimum required Cuda capability is 3.5."
    )
    report = explain(text, None, mini_matrix)
    assert report.findings[0].category == Category.GPU_ARCH_UNSUPPORTED
    cause = report.matches[0].root_cause or ""
    assert "3.0" in cause and "3.5" in cause


@pytest.mark.parametrize(
    ("extra", "category"),
    [
        ("", Category.OTHER),
        (
            (
                "E cuda_dnn.cc:66] Loaded runtime CuDNN library: 7.1.4 but source was compiled "
                "with: 7.2.1."
            ),
            Category.CUDNN_MISMATCH,
        ),
        (
            (
                "E cuda_driver.cc:806] failed to allocate 3.90G (4189306880 bytes) from device: "
                "CUDA_ERROR_OUT_OF_MEMORY: out of memory"
            ),
            Category.OTHER,
        ),
    ],
)
def test_cudnn_handle_failure_is_read_by_the_lines_beside_it(
    mini_matrix: Matrix, extra: str, category: Category
) -> None:
    text = "\n".join(
        filter(
            None,
            [
                extra,
                "E cuda_dnn.cc:334] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
            ],
        )
    )
    report = explain(text, None, mini_matrix)
    handle = next(f for f in report.findings if f.id == "tf-cudnn-handle-failed")
    assert handle.category == category
    assert report.findings[0].category == category


def test_no_driver_inside_a_container_session(mini_matrix: Matrix) -> None:
    text = (
        "root@3f2a9c1b7d4e:/workspace# python train.py\n"
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
        "NVIDIA GPU and installed a driver\n"
    )
    assert _first(text, mini_matrix)[1] == Category.CONTAINER_NO_GPU
    # With GPU flags the container is not the cause; a GPU the message names says the
    # driver, not the GPU, is what is missing.
    with_gpus = "$ docker run --gpus all -it img bash\n" + text
    assert _first(with_gpus, mini_matrix)[1] != Category.CONTAINER_NO_GPU
    named = (
        "$ docker run --gpus all -it img bash\nI have a GeForce RTX 3090\n"
        + text[text.index("R") :]
    )
    assert _first(named, mini_matrix)[1] == Category.NO_DRIVER


def test_extension_build_without_a_gpu_in_docker(mini_matrix: Matrix) -> None:
    text = (
        "$ docker run -it pytorch/pytorch:2.1.0-cuda12.1-cudnn8-devel bash\n"
        "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'\n"
    )
    assert _first(text, mini_matrix) == ("cpp-extension-no-cuda-runtime", Category.CONTAINER_NO_GPU)


def test_nvml_not_found_on_macos_means_no_nvidia_gpu(mini_matrix: Matrix) -> None:
    text = (
        "OSError: dlopen(libnvidia-ml.so.1, 0x0006): tried: 'libnvidia-ml.so.1' (no such file), "
        "'/System/Volumes/Preboot/Cryptexes/OSlibnvidia-ml.so.1' (no such file)\n"
        "pynvml.nvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found\n"
    )
    report = explain(text, None, mini_matrix)
    nvml = next(f for f in report.findings if f.id == "nvml-library-not-found")
    assert nvml.category == Category.NO_GPU
    linux = "pynvml.nvml.NVMLError_LibraryNotFound: NVML Shared Library Not Found\n"
    assert _first(linux, mini_matrix) == ("nvml-library-not-found", Category.NO_DRIVER)


def test_message_only_never_states_facts_as_absent(mini_matrix: Matrix) -> None:
    report = explain("RuntimeError: Found no NVIDIA driver on your system.", None, mini_matrix)
    text = " ".join([report.matches[0].root_cause or "", *report.matches[0].evidence])
    assert "detected" not in text
    assert "not found" not in text


def test_sourced_rows_cite_no_corpus_thread() -> None:
    """A row written from the file that prints its message names a report outside the
    failure corpus as its `source`: the corpus stays a held-out measure."""
    import sys
    from pathlib import Path

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    from envcheck.explain.signatures import SIGNATURES

    corpus = Path(__file__).parents[1] / "fixtures" / "corpus"
    cited = set()
    for path in [*corpus.glob("errors/*.toml"), corpus / "collect_env" / "cases.toml"]:
        for case in tomllib.loads(path.read_text(encoding="utf-8")).get("case", []):
            cited.add(case["source"].rstrip("/"))
    leaks = [s.id for s in SIGNATURES if s.emitted_by and s.source.rstrip("/") in cited]
    assert leaks == []
