"""The fact patterns (signatures/facts.toml) and their loader.

The patterns that read facts from a pasted message (the interpreter banner,
nvidia-smi's header, the cuDNN a process loaded, ...) are ``[[fact]]`` rows that
``envcheck.explain.facts`` and ``envcheck.explain.core`` look up by id. A bad row
fails like a bad signature row: ``InputError`` naming the file and the line of
its ``[[fact]]`` header; each case edits a copy of the bundled catalogue.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from envcheck.errors import InputError
from envcheck.explain import catalogue, explain
from envcheck.explain.catalogue import (
    FactPatterns,
    fact_pattern,
    fact_patterns,
    load_compiled_all,
    read_all,
)
from envcheck.explain.facts import extract, overlay
from envcheck.matrix import Matrix
from tests.explain.catalogue_copy import copy_catalogue, edit, edit_in_row, header_line, line_of

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).parents[2]
FACTS = ROOT / "signatures" / "facts.toml"


def written_rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = tomllib.loads(FACTS.read_text(encoding="utf-8"))["fact"]
    return rows


def test_the_bundled_facts_are_the_rows_as_written_with_fragments_expanded() -> None:
    index = tomllib.loads((ROOT / "signatures" / "index.toml").read_text(encoding="utf-8"))
    facts = read_all(ROOT / "signatures").facts
    written = written_rows()
    assert [f.id for f in facts] == [row["id"] for row in written]
    assert list(fact_patterns()) == [row["id"] for row in written]
    for fact, row in zip(facts, written):
        expanded = row["regex"].replace("{cuda_so}", index["fragments"]["cuda_so"])
        assert fact.regex == expanded, fact.id
        assert not re.search(r"(?<!\\)\{[A-Za-z_]\w*\}", fact.regex), fact.id
        flags = (re.IGNORECASE if row.get("ignorecase") else 0) | (
            re.MULTILINE if row.get("multiline") else 0
        )
        assert fact_pattern(fact.id) == re.compile(expanded, flags), fact.id
        assert fact.reads and "\n" not in fact.reads, fact.id
        assert fact.source == "" or fact.source.startswith("https://"), fact.id
    # The shared library names are a fragment that only facts use.
    assert "{cuda_so}" in next(r["regex"] for r in written if r["id"] == "cuda-unloadable")
    assert fact_pattern("windows-dll").flags & re.IGNORECASE
    assert not fact_pattern("smi-driver").flags & re.IGNORECASE


def test_an_unknown_fact_id_is_a_clear_error() -> None:
    with pytest.raises(
        KeyError, match=r"no \[\[fact\]\] row of signatures/facts.toml .*'smi-drivr'"
    ):
        fact_pattern("smi-drivr")
    assert isinstance(fact_patterns(), FactPatterns)


SAMPLE_LINES = (
    (
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic "
        "library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
    ),
    (
        r'  File "C:\Users\me\AppData\Local\Programs\Python\Python310\lib\site-packages'
        r'\tensorflow\__init__.py", line 37'
    ),
    "Driver Version                            : 535.104.05",
    "CUDA Version                              : 12.2",
    'root@0123456789ab:/workspace# pip install torch==2.1.0+cu118 "jax[cuda12]==0.4.20"',
    "Successfully installed numpy-1.26.4 onnxruntime-1.17.0",
    "['AzureExecutionProvider', 'CPUExecutionProvider']",
    "Linux host 4.4.0-19041-Microsoft #1237-Microsoft",
    "CUDA_VISIBLE_DEVICES=1 python train.py",
    "os.environ['NVIDIA_VISIBLE_DEVICES'] = 'all'",
    (
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
        "PyTorch installation."
    ),
    "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_80 sm_90.",
    "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.",
    (
        "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open "
        "shared object file"
    ),
    "Successfully opened dynamic library libcudart.so.10.2",
    "UserWarning: multiple CuPy packages are installed",
    "  cupy-cuda11x, cupy-cuda12x",
    ">>> torch.__version__",
    "'2.1.0+cpu'",
    "Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/cu121",
    "I run it on a CPU only computer with driver 470.57 and torch 1.7.1 on a MacBook",
    "Same job on an A100 80GB and a T4 GPU; cell A2 of the P4 sheet is unrelated",
)
SAMPLE = "\n".join(SAMPLE_LINES)
"""One line or two per fact (the sample of a log no machine printed)."""


def test_extract_reads_the_facts_of_many_rows() -> None:
    facts = extract(SAMPLE)
    assert facts.python == "3.10"
    assert facts.os == "windows"
    assert facts.pins == (("torch", "2.1.0+cu118"), ("jax", "0.4.20"))
    assert facts.env == (("CUDA_VISIBLE_DEVICES", "1"), ("NVIDIA_VISIBLE_DEVICES", "all"))
    assert (facts.driver, facts.driver_cuda) == ("535.104.05", "12.2")
    assert facts.gpus == (("NVIDIA GeForce RTX 5090", "12.0"),)
    assert facts.torch_archs == "sm_50,sm_60,sm_70,sm_80,sm_90"
    assert (facts.cudnn_loaded, facts.cudnn_compiled) == ("8.0.5", "8.1.0")
    assert facts.cudnn_framework == "tensorflow"
    assert facts.cudnn_unloadable == ("8",)
    assert facts.cuda_unloadable == (("cudart", "11.0"),)
    assert facts.cuda_loaded == (("cudart", "10.2"),)
    assert facts.container == "docker"
    assert facts.packages == ("cupy-cuda11x", "cupy-cuda12x")
    assert facts.jax
    assert facts.wsl1_kernel == "4.4.0-19041-Microsoft"
    assert facts.installed == (("numpy", "1.26.4"), ("onnxruntime", "1.17.0"))
    assert facts.ort_cpu_providers == ("AzureExecutionProvider", "CPUExecutionProvider")
    assert facts.gpu_names == ()  # prose names only where no device line names a GPU
    torch = next(f for f in overlay(None, facts).frameworks if f.name == "torch")
    assert torch.cuda_version == "11.8"  # the pin's local label, fact pin-local-cuda


def test_every_fact_id_the_code_looks_up_is_a_row_and_every_row_is_looked_up(
    monkeypatch: pytest.MonkeyPatch, mini_matrix: Matrix
) -> None:
    """Drives the code over texts that reach every lookup and records the ids: an id
    no row has fails at its lookup, and a row no code looks up is dead data."""
    from envcheck.explain import facts as facts_module

    asked: set[str] = set()

    class Recording(FactPatterns):
        def __getitem__(self, key: str) -> re.Pattern[str]:
            asked.add(key)
            return super().__getitem__(key)

    recording = Recording(fact_patterns())
    monkeypatch.setattr(facts_module, "fact_patterns", lambda: recording)
    monkeypatch.setattr(catalogue, "fact_pattern", lambda fid: recording[fid])
    overlay(None, extract(SAMPLE))
    # envcheck.explain.core: a jaxlib kernel's "no kernel image", and a companion
    # named only by its path under site-packages.
    explain(
        "jaxlib/gpu/prng_kernels.cc:33: operation gpuGetLastError() failed: no kernel image "
        "is available for execution on the device",
        None,
        mini_matrix,
    )
    explain(
        "OSError: /venv/lib/python3.11/site-packages/torch_cluster/_grid_cuda.so: undefined "
        "symbol: _ZNK3c104Type14isSubtypeOfExtERKS0_PSo",
        None,
        mini_matrix,
    )
    # A cuDNN sub-library whose own dependency is missing, and a bfloat16 failure.
    explain(
        "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared "
        "object file: No such file or directory",
        None,
        mini_matrix,
    )
    explain(
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( handle, "
        "opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, c, "
        "CUDA_R_16BF, ldc, CUDA_R_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`",
        None,
        mini_matrix,
    )
    assert asked == {row["id"] for row in written_rows()}


# -- a copy of the catalogue to break ---------------------------------------------


@pytest.fixture
def cat(tmp_path: Path) -> Path:
    return copy_catalogue(tmp_path)


def edit_fact(path: Path, rid: str, old: str, new: str) -> None:
    edit_in_row(path, rid, old, new, "fact")


def fact_line(path: Path, rid: str) -> int:
    return header_line(path, rid, "fact")


def fails(directory: Path) -> InputError:
    with pytest.raises(InputError) as info:
        read_all(directory)
    return info.value


FACT_CASES = [
    # (row id, old text, new text, field named, message part)
    ("smi-driver", 'id = "smi-driver"\n', 'id = "smi-driver"\ncolour = "red"\n', "colour",
     "unknown field"),
    ("smi-driver", 'id = "smi-driver"\n', 'id = "smi-driver"\nnote = "x"\n', "note",
     "unknown field"),
    ("cupy-duplicates", "regex = '''multiple CuPy packages are installed'''",
     "regex = '''multiple (CuPy packages are installed'''", "regex", "does not compile"),
    ("cuda-loaded", "(?:lib)?{cuda_so}(?:", "(?:lib)?{cuda_sos}(?:", "regex",
     "unknown fragment {cuda_sos}"),
    ("macos", 'id = "macos"', 'id = "macOS"', "id", "lower-case words"),
    ("windows-dll", "ignorecase = true", 'ignorecase = "yes"', "ignorecase", "true or false"),
    ("gpu-found", 'reads = "a GPU and its compute capability (\'Found', 'readz = "x (\'Found',
     "reads", "is required"),
    ("smi-q-cuda", 'source = "https://docs.nvidia.com/', 'source = "docs.nvidia.com/', "source",
     "http(s) URL"),
    ("macos", 'id = "macos"\n', 'id = "macos"\nemitted_by = "apple/dyld:dyld.cpp@v1"\n',
     "emitted_by", "owner/repo:path@"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("fid", "old", "new", "key", "message"),
    FACT_CASES,
    ids=[c[3] + "-" + c[4] for c in FACT_CASES],
)
def test_a_bad_fact_names_file_line_and_field(
    cat: Path, fid: str, old: str, new: str, key: str, message: str
) -> None:
    path = cat / "facts.toml"
    line = fact_line(path, fid)
    edit_fact(path, fid, old, new)
    err = fails(cat)
    assert (err.path, err.line) == (str(path), line), str(err)
    assert "[[fact]] #" in err.message and f"field '{key}'" in err.message
    assert message in err.message


def test_a_duplicate_fact_id_names_the_second_row_and_the_first(cat: Path) -> None:
    path = cat / "facts.toml"
    first = fact_line(path, "python-banner")
    second = fact_line(path, "python-site-path")
    edit(path, 'id = "python-site-path"', 'id = "python-banner"')
    err = fails(cat)
    assert (err.path, err.line) == (str(path), second)
    assert f"{path}:{first}" in err.message


def test_a_fact_id_may_be_a_signature_id_too(cat: Path) -> None:
    # Two tables, two name spaces: only a fact looks a fact up.
    edit(cat / "facts.toml", 'id = "macos"', 'id = "no-nvidia-driver"')
    assert "no-nvidia-driver" in {f.id for f in read_all(cat).facts}


def test_a_fragment_only_facts_use_counts_as_used(cat: Path) -> None:
    index = cat / "index.toml"
    value = tomllib.loads(index.read_text(encoding="utf-8"))["fragments"]["cuda_so"]
    read_all(cat)  # cuda_so is used by facts only, and that is a use
    path = cat / "facts.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("{cuda_so}", value), "utf-8")
    err = fails(cat)
    assert (err.path, err.line) == (str(index), line_of(index, "cuda_so = "))
    assert "fragment 'cuda_so' is used by no row" in err.message


def test_bad_toml_in_facts_names_file_and_line(cat: Path) -> None:
    path = cat / "facts.toml"
    edit(path, 'id = "gpu-tf"', 'id = "gpu-tf')
    err = fails(cat)
    assert (err.path, err.line) == (str(path), line_of(path, 'id = "gpu-tf'))


def test_an_unknown_table_or_no_rows_in_facts_is_refused(cat: Path) -> None:
    path = cat / "facts.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\n[[facts]]\nid = 'x'\n", encoding="utf-8")
    err = fails(cat)
    assert (err.path, err.line) == (str(path), text.count("\n") + 2)
    assert "unknown table 'facts'" in err.message
    path.write_text('schema_version = 1\ndata_version = "2026-12-02"\n', encoding="utf-8")
    err = fails(cat)
    assert err.path == str(path) and "no [[fact]] rows" in err.message


def test_a_missing_facts_file_or_one_listed_as_a_row_file_is_refused(cat: Path) -> None:
    index = cat / "index.toml"
    edit(index, '  "mismatch.toml",\n', '  "mismatch.toml",\n  "facts.toml",\n')
    err = fails(cat)
    assert (err.path, err.line) == (str(index), line_of(index, "files = ["))
    assert "'facts.toml' is not a row file name" in err.message
    edit(index, '  "facts.toml",\n', "")
    (cat / "facts.toml").unlink()
    err = fails(cat)
    assert err.path == str(cat / "facts.toml")


def test_the_compiled_copy_holds_the_facts_and_a_warm_start_parses_no_toml(
    cat: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ENVCHECK_NO_CACHE", raising=False)
    first = load_compiled_all(cat)
    stored = catalogue.cache_file(cat)
    assert stored is not None and stored.is_file()

    def no_parse(directory: Path) -> Any:
        raise AssertionError("parsed TOML on a warm start")

    with monkeypatch.context() as m:
        m.setattr(catalogue, "read_all", no_parse)
        warm = load_compiled_all(cat)
    assert warm == first and warm.facts == read_all(ROOT / "signatures").facts
    assert [f.pattern for f in warm.facts] == [f.pattern for f in first.facts]
    edit(cat / "facts.toml", 'reads = "a DLL name:', 'reads = "a Windows DLL name:')
    edited = {f.id: f.reads for f in load_compiled_all(cat).facts}
    assert edited["windows-dll"].startswith("a Windows DLL name:")


def test_a_gpu_of_another_vendor_is_read_but_not_a_cpu_of_that_vendor() -> None:
    from envcheck.explain.facts import extract

    said = extract(
        "CPU: AMD Ryzen 9 5950X 16-Core Processor\n"
        "I have an AMD Radeon RX 7900 XTX, not NVIDIA\n"
        "Intel(R) UHD Graphics 620\n"
        "Chip: Apple M2 Pro\n"
    )
    assert said.other_gpus == (
        "AMD Radeon RX 7900 XTX",
        "Intel(R) UHD Graphics 620",
        "Apple M2 Pro",
    )
    assert extract("AMD EPYC 7763 64-Core Processor\nIntel(R) Core(TM) i7\n").other_gpus == ()


def test_another_vendors_gpu_is_the_cause_only_without_an_nvidia_one(matrix: Matrix) -> None:
    from envcheck.explain import explain

    error = "RuntimeError: Found no NVIDIA driver on your system.\n"
    amd = explain("I use an AMD GPU\n" + error, None, matrix).findings[0]
    assert (amd.id, amd.category.value) == ("gpu-not-nvidia", "no_gpu")
    # A laptop's integrated GPU beside its NVIDIA one: the NVIDIA GPU lacks its driver.
    optimus = explain("Intel(R) UHD Graphics 620\nNVIDIA GeForce GTX 1050\n" + error, None, matrix)
    assert optimus.findings[0].category.value == "no_driver"
    # A GPU state is not explained by the vendor.
    oom = explain("AMD Radeon RX 6800\nCUDA out of memory. Tried to allocate 2 GiB\n", None, matrix)
    assert oom.findings[0].id != "gpu-not-nvidia"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (">>> import torch\n>>> torch.__version__\n'2.1.0+cpu'\n", ("torch", "2.1.0+cpu")),
        ("print(torch.__version__)\n\n2.3.1+cu121\n", ("torch", "2.3.1+cu121")),
        ("torch.__version__  = 2.3.1+cu121\n", ("torch", "2.3.1+cu121")),
        ("PyTorch version: 1.13.1+cu117\n", ("torch", "1.13.1+cu117")),
        ("Tensor Flow Version: 2.12.0\n", ("tensorflow", "2.12.0")),
        ("torch                     2.0.1+cpu\n", ("torch", "2.0.1+cpu")),
        # pytorch/pytorch#85332, as pasted.
        (
            (
                "install : pip install torch==1.8.1+cu102 torchvision==0.9.1+cu102 torchaudio==0.8.1 -f "
                "https://download.pytorch.org/whl/torch_stable.html\n\nprint(torch.__version__)\n"
                "1.8.1+cu102\n"
            ),
            ("torch", "1.8.1+cu102"),
        ),
    ],
)
def test_a_framework_version_the_text_shows(text: str, shown: tuple[str, str]) -> None:
    from envcheck.explain.facts import extract

    assert extract(text).shown == (shown,)


def test_a_shown_version_fills_in_only_what_nothing_else_describes() -> None:
    from envcheck.explain.facts import extract

    said = extract("pip install torch==2.4.0+cu121\n>>> torch.__version__\n'2.1.0+cpu'\n")
    built = overlay(None, said)
    (torch,) = [f for f in built.frameworks if f.name == "torch"]
    assert torch.version == "2.4.0+cu121"  # the pip command's build stays
    # A version with nothing printed after the attribute reads nothing.
    assert extract(">>> torch.__version__\n>>> torch.cuda.is_available()\n").shown == ()


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("I have a NVIDIA H100 80GB HBM3 and CUDA 12.4", ("NVIDIA H100 80GB HBM3",)),
        ("on a Tesla V100-SXM2-16GB", ("Tesla V100",)),
        ("srun --gres=gpu:A100:1 ...\nGPU 0: A100-SXM4-40GB (UUID: GPU-1)", ("A100",)),
        ("RTX A6000 and Jetson AGX Orin", ("RTX A6000", "Jetson AGX Orin")),
        ("see cell A2, the P4 instance and the L4 cache", ()),
    ],
)
def test_data_centre_boards_named_in_prose_are_one_gpu_per_model(
    text: str, names: tuple[str, ...]
) -> None:
    """gpu-prose-datacenter: boards without a GeForce/Quadro brand; short names need
    NVIDIA/Tesla before or "GPU" after; one model named twice is one GPU."""
    from envcheck.explain.facts import known_gpus
    from envcheck.matrix import load_matrix

    assert known_gpus(extract(text), load_matrix()).gpu_names == names
