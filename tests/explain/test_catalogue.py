"""The signature catalogue (signatures/*.toml) and its loader.

Every malformed input raises InputError naming the file and the line of the
offending row (or key); each case edits a copy of the bundled catalogue.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from envcheck.errors import InputError
from envcheck.explain import catalogue
from envcheck.explain.catalogue import bundled_dir, load_compiled, read_catalogue
from envcheck.explain.signatures import SIGNATURES, by_id
from tests.explain.catalogue_copy import copy_catalogue, edit, edit_in_row, header_line, line_of

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "scripts" / "signature_coverage.py"


def coverage_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("signature_coverage", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["signature_coverage"] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def test_the_bundled_catalogue_is_the_source_checkouts_directory() -> None:
    assert bundled_dir() == ROOT / "signatures"
    assert read_catalogue(ROOT / "signatures") == SIGNATURES
    assert by_id() == {s.id: s for s in SIGNATURES}


def test_rows_keep_the_order_of_index_files_then_of_each_file() -> None:
    index = tomllib.loads((ROOT / "signatures" / "index.toml").read_text(encoding="utf-8"))
    written = [
        row["id"]
        for name in index["files"]
        for row in tomllib.loads((ROOT / "signatures" / name).read_text(encoding="utf-8"))[
            "signature"
        ]
    ]
    assert [s.id for s in SIGNATURES] == written
    # Precedence the matcher relies on: the generic loader row comes after the
    # specific ones that supersede it, and the table starts where it always did.
    ids = [s.id for s in SIGNATURES]
    assert ids[0] == "cuda-driver-insufficient"
    assert ids[-1] == "tf-native-runtime-load-failed"
    assert len(ids) == len(set(ids))


def test_fragments_are_expanded_and_no_reference_is_left() -> None:
    index = tomllib.loads((ROOT / "signatures" / "index.toml").read_text(encoding="utf-8"))
    fragments = index["fragments"]
    own = by_id()["torch-own-abi-mismatch"].regex
    assert own == fragments["torch_own_so"] + "(?i:undefined symbol): " + fragments["torch_symbol"]
    for sig in SIGNATURES:
        assert not re.search(r"(?<!\\)\{[A-Za-z_]\w*\}", sig.regex), sig.id


def test_every_row_cites_the_printing_source_or_a_report() -> None:
    for sig in SIGNATURES:
        assert sig.emitted_by or sig.source, sig.id
        assert sig.source.startswith(("https://", "http://")), sig.id


def test_no_message_pattern_remains_in_python() -> None:
    text = (ROOT / "envcheck" / "explain" / "signatures.py").read_text(encoding="utf-8")
    assert "Signature(" not in text
    assert "regex=" not in text
    # The facts reader's patterns are facts.toml's rows (tests/explain/test_facts_catalogue.py).
    facts = (ROOT / "envcheck" / "explain" / "facts.py").read_text(encoding="utf-8")
    assert "import re\n" not in facts
    assert not re.search(r"\bre\.\w+\(", facts)
    core = (ROOT / "envcheck" / "explain" / "core.py").read_text(encoding="utf-8")
    assert "re.compile(" not in core


# -- a copy of the catalogue to break ---------------------------------------------


@pytest.fixture
def cat(tmp_path: Path) -> Path:
    return copy_catalogue(tmp_path)


def edit_row(path: Path, rid: str, old: str, new: str) -> None:
    edit_in_row(path, rid, old, new, "signature")


def row_line(path: Path, rid: str) -> int:
    return header_line(path, rid, "signature")


def fails(directory: Path) -> InputError:
    with pytest.raises(InputError) as info:
        read_catalogue(directory)
    return info.value


def test_a_copy_loads_to_the_same_rows(cat: Path) -> None:
    assert read_catalogue(cat) == SIGNATURES


def test_bad_toml_names_file_and_line(cat: Path) -> None:
    path = cat / "arch.toml"
    edit(path, 'id = "torch-gpu-too-old"', 'id = "torch-gpu-too-old')
    err = fails(cat)
    assert (err.path, err.line) == (str(path), line_of(path, 'id = "torch-gpu-too-old'))


ROW_CASES = [
    # (file, row id, old text, new text, field named, message part)
    ("driver.toml", "no-nvidia-driver", 'id = "no-nvidia-driver"\n',
     'id = "no-nvidia-driver"\ncolour = "red"\n', "colour", "unknown field"),
    ("driver.toml", "no-nvidia-driver", 'title = "No NVIDIA kernel driver is loaded"\n', "",
     "title", "is required"),
    ("cudnn.toml", "cudnn-version-mismatch", 'id = "cudnn-version-mismatch"\nregex',
     'id = "cudnn-version-mismatch"\nverified = true\nregex', "verified", "unknown field"),
    ("arch.toml", "torch-gpu-too-old", 'category = "gpu_arch_unsupported"\nanalysis = "arch"\ntitle = "This PyTorch',
     'category = "gpu_arch_unsupported_"\nanalysis = "arch"\ntitle = "This PyTorch', "category",
     "unknown category"),
    ("runtime.toml", "cuda-out-of-memory", 'id = "cuda-out-of-memory"\n',
     'id = "cuda-out-of-memory"\nseverity = "fatal"\n', "severity", "expected error, warning"),
    ("loader.toml", "onnxruntime-cuda-provider-dll-dependency", 'id = "onnxruntime-cuda-provider-dll-dependency"\n',
     'id = "onnxruntime-cuda-provider-dll-dependency"\nanalysis = "cuda"\n', "analysis", "unknown analysis"),
    ("companions.toml", "xformers-cannot-load-extensions",
     "regex = '''xFormers can.t load C\\+\\+/CUDA extensions'''",
     "regex = '''xFormers can.t load C++/CUDA (extensions'''", "regex", "does not compile"),
    ("companions.toml", "companion-torch-abi-mismatch", "{torch_symbol}'''\nframeworks",
     "{torch_symbols}'''\nframeworks", "regex", "unknown fragment {torch_symbols}"),
    ("mismatch.toml", "nvml-library-not-found", 'frameworks = []\ncategory = "no_driver"',
     'frameworks = ["pytorch"]\ncategory = "no_driver"', "frameworks", "unknown framework"),
    ("mismatch.toml", "nvrm-api-mismatch", 'source = "https://github.com/negativo17/nvidia-driver/issues/43"',
     'source = "github.com/negativo17/nvidia-driver/issues/43"', "source", "http(s) URL"),
    ("mismatch.toml", "nvrm-api-mismatch", "open-gpu-kernel-modules:kernel-open/nvidia/nv.c@30e15d79",
     "open-gpu-kernel-modules:kernel-open/nvidia/nv.c@v30e15d79", "emitted_by", "owner/repo:path@"),
    ("driver.toml", "torch-driver-too-old", 'supersedes = ["cudagetdevicecount-unexpected"]',
     'supersedes = ["cudagetdevicecount-unexpectedly"]', "supersedes",
     "unknown id 'cudagetdevicecount-unexpectedly'"),
    ("driver.toml", "ngc-container-driver-too-old", 'explains = ["cuda-no-device", ',
     'explains = ["cuda-no-devices", ', "explains", "unknown id 'cuda-no-devices'"),
    ("driver.toml", "torch-driver-too-old", 'supersedes = ["cudagetdevicecount-unexpected"]',
     'supersedes = ["torch-driver-too-old"]', "supersedes", "names the row itself"),
    ("mismatch.toml", "tf-native-runtime-load-failed", 'id = "tf-native-runtime-load-failed"',
     'id = "TF native runtime"', "id", "lower-case words"),
    ("runtime.toml", "cuda-out-of-memory", 'id = "cuda-out-of-memory"\n',
     'id = "cuda-out-of-memory"\nnote = 3\n', "note", "non-empty string"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "sid", "old", "new", "key", "message"),
    ROW_CASES,
    ids=[c[4] + "-" + c[5] for c in ROW_CASES],
)
def test_a_bad_row_names_file_line_and_field(
    cat: Path, name: str, sid: str, old: str, new: str, key: str, message: str
) -> None:
    path = cat / name
    line = row_line(path, sid)
    edit_row(path, sid, old, new)
    err = fails(cat)
    assert (err.path, err.line) == (str(path), line), str(err)
    assert f"field '{key}'" in err.message
    assert message in err.message


def test_a_duplicate_id_across_files_names_the_second_row_and_the_first(cat: Path) -> None:
    path = cat / "mismatch.toml"
    edit(path, 'id = "nvml-library-not-found"', 'id = "no-nvidia-driver"')
    err = fails(cat)
    assert (err.path, err.line) == (str(path), row_line(path, "no-nvidia-driver"))
    first = cat / "driver.toml"
    assert f"{first}:{row_line(first, 'no-nvidia-driver')}" in err.message


def test_an_unknown_fragment_in_the_index_or_an_unused_one_is_refused(cat: Path) -> None:
    index = cat / "index.toml"
    edit(index, "[fragments]\n", "[fragments]\nspare = '''abc'''\n")
    err = fails(cat)
    assert (err.path, err.line) == (str(index), line_of(index, "spare = "))
    assert "used by no row" in err.message


def test_a_fragment_may_not_refer_to_another(cat: Path) -> None:
    index = cat / "index.toml"
    edit(index, "torch_symbol = '''", "torch_symbol = '''{torch_own_so}")
    err = fails(cat)
    assert (err.path, err.line) == (str(index), line_of(index, "torch_symbol = "))
    assert "refers to another fragment" in err.message


def test_a_new_fragment_is_expanded_and_an_escaped_brace_is_not(cat: Path) -> None:
    index = cat / "index.toml"
    edit(index, "[fragments]\n", "[fragments]\nlib_so = '''lib\\w{1,20}\\.so'''\n")
    path = cat / "runtime.toml"
    edit(
        path,
        "regex = '''NCCL WARN Call to posix_fallocate failed",
        "regex = '''{lib_so} \\{lib_so} NCCL WARN Call to posix_fallocate failed",
    )
    rows = {s.id: s for s in read_catalogue(cat)}
    assert rows["nccl-shared-memory"].regex.startswith("lib\\w{1,20}\\.so \\{lib_so} NCCL WARN")


def test_a_file_not_listed_in_the_index_is_refused(cat: Path) -> None:
    shutil.copy(cat / "arch.toml", cat / "extra.toml")
    index = cat / "index.toml"
    err = fails(cat)
    assert (err.path, err.line) == (str(index), line_of(index, "files = ["))
    assert "'extra.toml'" in err.message


def test_a_listed_file_that_is_missing_is_refused(cat: Path) -> None:
    (cat / "arch.toml").unlink()
    err = fails(cat)
    assert err.path == str(cat / "index.toml")
    assert "'arch.toml' does not exist" in err.message


def test_a_newer_schema_version_is_refused(cat: Path) -> None:
    path = cat / "cudnn.toml"
    edit(path, "schema_version = 1", "schema_version = 2")
    err = fails(cat)
    assert (err.path, err.line) == (str(path), 1)
    assert "signature catalogue schema_version 2 is newer" in err.message


def test_an_unknown_table_is_refused(cat: Path) -> None:
    path = cat / "cudnn.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\n[[signatures]]\nid = 'x'\n", encoding="utf-8")
    err = fails(cat)
    assert err.path == str(path)
    assert err.line == text.count("\n") + 2
    assert "unknown table 'signatures'" in err.message


# -- the compiled copy ---------------------------------------------------------------


def test_the_compiled_copy_gives_the_same_rows_and_notices_an_edit(
    cat: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ENVCHECK_NO_CACHE", raising=False)
    first = load_compiled(cat)
    stored = catalogue.cache_file(cat)
    assert stored is not None and stored.is_file()
    assert load_compiled(cat) == first == SIGNATURES
    edit(
        cat / "runtime.toml",
        'title = "The GPU ran out of memory',
        'title = "The GPU ran out of RAM',
    )
    assert {s.id: s.title for s in load_compiled(cat)}["cuda-out-of-memory"].startswith(
        "The GPU ran out of RAM"
    )
    stored.write_bytes(b"garbage")
    assert load_compiled(cat) == read_catalogue(cat)


def test_a_bad_catalogue_is_never_cached(cat: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENVCHECK_NO_CACHE", raising=False)
    edit(cat / "cudnn.toml", "schema_version = 1", "schema_version = 2")
    with pytest.raises(InputError):
        load_compiled(cat)
    stored = catalogue.cache_file(cat)
    assert stored is not None and not stored.exists()


# -- the README's coverage table -------------------------------------------------------


def test_the_readme_coverage_table_is_what_the_script_prints() -> None:
    script = coverage_script()
    readme = (ROOT / "signatures" / "README.md").read_text(encoding="utf-8")
    table = script.table(ROOT / "signatures")
    assert script.replace_table(readme, table) == readme, (
        "signatures/README.md is out of date: python scripts/signature_coverage.py --write"
    )
    report_only = sum(1 for s in SIGNATURES if not s.emitted_by)
    assert f"| {report_only} |" in table
    assert f"| {len(SIGNATURES)} |" in table


def test_coverage_data_must_name_a_cited_file_and_commit(cat: Path) -> None:
    script = coverage_script()
    path = cat / "coverage.toml"
    edit(path, 'file = "rusty1s/pytorch_sparse:', 'file = "rusty1s/pytorch_scatter:')
    with pytest.raises(InputError) as info:
        script.table(cat)
    lines = path.read_text(encoding="utf-8").split("\n")
    at = lines.index('file = "rusty1s/pytorch_scatter:torch_sparse/__init__.py"')
    assert info.value.path == str(path)
    assert info.value.line == at  # the [[file]] header above it
    assert "named by no row's emitted_by" in info.value.message
