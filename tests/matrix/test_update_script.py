"""scripts/update_matrix.py against recorded PyPI JSON pages served locally."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).parents[2]
PAGES = ROOT / "tests" / "fixtures" / "pages" / "pypi"
MINI = ROOT / "tests" / "fixtures" / "matrix-mini"
HEADER = 'schema_version = 1\ndata_version = "2026-11-22"\n'
TORCH = """
[[build]]
versions = ["2.5.0", "2.5.1"]
variant = "cu124"
package = "torch"
cuda = "12.4"
cudnn = "9.0"
bundles_cuda = true
platforms = ["linux-x86_64"]
index_url = "https://download.pytorch.org/whl/cu124"
pypi_default = true
source = "https://pytorch.org/get-started/previous-versions/"
verified = true

[[build]]
versions = ["2.5.1"]
variant = "cu121"
package = "torch"
cuda = "12.1"
cudnn = "9.1"
bundles_cuda = true
platforms = ["linux-x86_64"]
index_url = "https://download.pytorch.org/whl/cu121"
source = "https://pytorch.org/get-started/previous-versions/"
verified = true
"""
TENSORFLOW = """
[[build]]
versions = ["2.15.0"]
variant = "cu122"
package = "tensorflow"
extra = "and-cuda"
cuda = "12.2"
cudnn = "8.9"
bundles_cuda = true
platforms = ["linux-x86_64"]
source = "https://www.tensorflow.org/install/pip"
verified = true
"""


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "update_matrix", ROOT / "scripts" / "update_matrix.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["update_matrix"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script()


@pytest.fixture
def matrix_dir(tmp_path: Path) -> Path:
    d = tmp_path / "m"
    shutil.copytree(MINI, d)
    (d / "torch.toml").write_text(HEADER + TORCH, encoding="utf-8")
    (d / "tensorflow.toml").write_text(HEADER + TENSORFLOW, encoding="utf-8")
    return d


def serve_pages(httpserver: Any) -> str:
    for page in PAGES.glob("*/*/json"):
        rel = page.relative_to(PAGES).as_posix()
        httpserver.expect_request(f"/pypi/{rel}").respond_with_data(
            page.read_bytes(), content_type="application/json"
        )
    return str(httpserver.url_for("/pypi"))


def run(script: ModuleType, *args: str) -> tuple[int, str, str]:
    from click.testing import CliRunner

    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(script.main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def run_local(
    script: ModuleType, matrix_dir: Path, httpserver: Any, framework: str
) -> tuple[int, str, str]:
    """The script against the local server's JSON API and simple index."""
    return run(
        script,
        "--matrix",
        str(matrix_dir),
        "--pypi-url",
        str(httpserver.url_for("/pypi")),
        "--simple-url",
        str(httpserver.url_for("/simple")),
        "--framework",
        framework,
    )


def test_parse_pins_reads_runtime_and_cudnn(script: ModuleType) -> None:
    pins = script.parse_pins(
        [
            "filelock",
            'nvidia-cuda-runtime-cu12==12.4.127; platform_system == "Linux"',
            'nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux"',
        ],
        None,
    )
    assert (pins.cuda, pins.cudnn) == ("12.4", "9.1")


def test_parse_pins_respects_extras(script: ModuleType) -> None:
    lines = [
        'nvidia-cudnn-cu12==8.9.4.25; extra == "and-cuda"',
        'nvidia-cudnn-cu11==8.6.0.163; extra == "other"',
    ]
    assert script.parse_pins(lines, "and-cuda").cudnn == "8.9"
    assert script.parse_pins(lines, None).cudnn is None


def test_parse_pins_takes_lower_bounds_and_ignores_garbage(script: ModuleType) -> None:
    lines = ["nvidia-cudnn-cu12<10.0,>=9.1; extra == 'with-cuda'", "nvidia-cudnn-cu12", "%%%"]
    assert script.parse_pins(lines, "with_cuda").cudnn == "9.1"


@pytest.mark.network
def test_drift_is_reported_as_a_diff_and_written_only_with_write(
    script: ModuleType, matrix_dir: Path, httpserver: Any
) -> None:
    url = serve_pages(httpserver)
    before = (matrix_dir / "torch.toml").read_text(encoding="utf-8")
    code, out, err = run(
        script,
        "--matrix",
        str(matrix_dir),
        "--pypi-url",
        url,
        "--framework",
        "torch",
        "--framework",
        "tensorflow",
    )
    assert code == 1
    assert "2 difference(s)" in out
    assert "torch 2.5.0 (cu124) cudnn: matrix 9.0, index 9.1" in out
    assert "torch 2.5.1 (cu124) cudnn: matrix 9.0, index 9.1" in out
    assert '-cudnn = "9.0"\n+cudnn = "9.1"\n' in out
    assert "tensorflow" not in out.split("\n\n")[0].replace("tensorflow.toml", "")
    assert "dry run" in err
    assert (matrix_dir / "torch.toml").read_text(encoding="utf-8") == before

    code, out, err = run(script, "--matrix", str(matrix_dir), "--pypi-url", url, "--write")
    assert code == 1
    assert "wrote 1 file(s)" in err
    after = (matrix_dir / "torch.toml").read_text(encoding="utf-8")
    assert after == before.replace('cudnn = "9.0"', 'cudnn = "9.1"', 1)

    code, out, _ = run(script, "--matrix", str(matrix_dir), "--pypi-url", url)
    assert code == 0
    assert "no drift" in out


@pytest.mark.network
def test_release_missing_from_the_index_is_logged_not_fatal(
    script: ModuleType, matrix_dir: Path, httpserver: Any
) -> None:
    httpserver.expect_request("/pypi/tensorflow/2.15.0/json").respond_with_data("", status=404)
    httpserver.expect_request("/simple/tensorflow/").respond_with_data("", status=404)
    code, out, err = run_local(script, matrix_dir, httpserver, "tensorflow")
    assert code == 2
    assert "tensorflow 2.15.0: no JSON page, wheel or sdist; not checked" in err
    assert "nothing checked: 1 release(s) not found on the index" in out


def test_parse_pins_reads_cuda_13_names(script: ModuleType) -> None:
    lines = [
        'cuda-toolkit[cublas,cudart]==13.2.2; platform_system == "Linux"',
        'cuda-bindings<14,>=13.0.3; platform_system == "Linux"',
        'nvidia-cudnn-cu13==9.26.0.51; platform_system == "Linux"',
    ]
    assert script.parse_pins(lines, None) == script.Pins("13.2", "9.26")
    plugin = ['nvidia-cuda-runtime>=13.0.48; extra == "with-cuda"']
    assert script.parse_pins(plugin, "with-cuda").cuda == "13.0"


def test_pick_wheel_prefers_linux_x86_64_and_skips_yanked(script: ModuleType) -> None:
    files = [
        {"filename": "torch-2.5.1-cp311-none-macosx_11_0_arm64.whl"},
        {"filename": "torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl", "yanked": "bad"},
        {"filename": "torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl"},
        {"filename": "torch-2.5.10-cp312-cp312-manylinux1_x86_64.whl"},
        {"filename": "torch-2.5.1.tar.gz"},
    ]
    assert script.pick_wheel(files, "torch", "2.5.1")["filename"].startswith("torch-2.5.1-cp312")
    assert script.pick_wheel(files, "torch", "2.6.0") is None


def _wheel(requires: list[str], filler: int = 0) -> bytes:
    """A real zip with a dist-info METADATA (and optional incompressible filler)."""
    import io
    import os
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        if filler:
            z.writestr("torch/lib/big.so", os.urandom(filler))
        meta = "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1\n"
        meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
        z.writestr("torch-2.5.1.dist-info/METADATA", meta)
    return buf.getvalue()


def _serve_ranges(httpserver: Any, path: str, blob: bytes, seen: list[str]) -> None:
    from werkzeug import Request, Response

    def handler(request: Request) -> Response:
        header = request.headers.get("Range", "")
        seen.append(header)
        start_s, end_s = header.removeprefix("bytes=").split("-")
        start, end = int(start_s), min(int(end_s), len(blob) - 1)
        return Response(blob[start : end + 1], status=206)

    httpserver.expect_request(path).respond_with_handler(handler)


@pytest.mark.network
def test_missing_json_page_falls_back_to_the_wheel_metadata_by_range(
    script: ModuleType, matrix_dir: Path, httpserver: Any
) -> None:
    blob = _wheel(
        [
            'nvidia-cuda-runtime-cu12==12.4.127; platform_system == "Linux"',
            'nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux"',
        ],
        filler=300_000,
    )
    for version in ("2.5.0", "2.5.1"):
        httpserver.expect_request(f"/pypi/torch/{version}/json").respond_with_data("", status=404)
    files = [
        {
            "filename": f"torch-{v}-cp311-cp311-manylinux1_x86_64.whl",
            "url": httpserver.url_for(f"/files/torch-{v}.whl"),
            "size": len(blob),
        }
        for v in ("2.5.0", "2.5.1")
    ]
    httpserver.expect_request("/simple/torch/").respond_with_json({"files": files})
    seen: list[str] = []
    for v in ("2.5.0", "2.5.1"):
        _serve_ranges(httpserver, f"/files/torch-{v}.whl", blob, seen)
    code, out, _ = run_local(script, matrix_dir, httpserver, "torch")
    assert code == 1
    assert "torch 2.5.0 (cu124) cudnn: matrix 9.0, index 9.1" in out
    assert "torch 2.5.1 (cu124) cudnn: matrix 9.0, index 9.1" in out
    # Only the zip directory and the METADATA member were read, not the 300 kB filler.
    assert seen and all(h.startswith("bytes=") for h in seen)
    fetched = sum(int(h.split("-")[1]) - int(h[6:].split("-")[0]) + 1 for h in seen)
    assert fetched < len(blob)


@pytest.mark.network
def test_pep658_metadata_file_is_used_when_offered(
    script: ModuleType, matrix_dir: Path, httpserver: Any
) -> None:
    meta = "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.15.0\n"
    meta += 'Requires-Dist: nvidia-cudnn-cu12==8.9.4.25; extra == "and-cuda"\n'
    meta += 'Requires-Dist: nvidia-cuda-runtime-cu12==12.2.140; extra == "and-cuda"\n'
    httpserver.expect_request("/pypi/tensorflow/2.15.0/json").respond_with_data("", status=404)
    wheel = "/files/tensorflow-2.15.0-cp311-cp311-manylinux_2_17_x86_64.whl"
    files = [
        {
            "filename": wheel.rsplit("/", 1)[1],
            "url": httpserver.url_for(wheel),
            "core-metadata": {"sha256": "0"},
        }
    ]
    httpserver.expect_request("/simple/tensorflow/").respond_with_json({"files": files})
    httpserver.expect_request(wheel + ".metadata").respond_with_data(meta)
    code, out, _ = run_local(script, matrix_dir, httpserver, "tensorflow")
    assert code == 0, out
    assert "no drift: 1 release(s) agree" in out


def test_dist_for_knows_where_each_jax_scheme_keeps_its_pins(script: ModuleType) -> None:
    from dataclasses import replace

    from envcheck.matrix import load_matrix_from

    base = next(
        b
        for b in load_matrix_from(ROOT / "matrices").framework_builds("jax")
        if b.bundles_cuda and b.cuda is not None
    )
    expect = {
        "cuda12": ("jax-cuda12-plugin", "with-cuda"),
        "cuda13": ("jax-cuda13-plugin", "with-cuda"),
        "cuda12_pip": ("jax", "cuda12_pip"),
        "cuda11_pip": ("jax", "cuda11_pip"),
        "cuda12_local": None,
        "cuda11_cudnn82": None,
    }
    for extra, want in expect.items():
        assert script.dist_for("jax", replace(base, extra=extra)) == want, extra


def test_requires_txt_puts_section_lines_under_their_extra(script: ModuleType) -> None:
    text = "numpy>=1.21\n\n[cuda12_pip]\njaxlib==0.4.7+cuda12.cudnn88\nnvidia-cudnn-cu12>=8.9\n"
    text += "[tpu:python_version >= '3.9']\nlibtpu-nightly\n"
    assert script.requires_txt(text) == [
        "numpy>=1.21",
        'jaxlib==0.4.7+cuda12.cudnn88; extra == "cuda12_pip"',
        'nvidia-cudnn-cu12>=8.9; extra == "cuda12_pip"',
        "libtpu-nightly; extra == \"tpu\" and (python_version >= '3.9')",
    ]
    pins = script.parse_pins(script.requires_txt(text), "cuda12_pip")
    assert pins.cudnn == "8.9"


def test_pick_sdist_matches_the_release_only(script: ModuleType) -> None:
    files = [
        {"filename": "jax-0.4.8-py3-none-any.whl"},
        {"filename": "jax-0.4.80.tar.gz"},
        {"filename": "jax-0.4.8.tar.gz"},
    ]
    assert script.pick_sdist(files, "jax", "0.4.8")["filename"] == "jax-0.4.8.tar.gz"
    assert script.pick_sdist(files, "jax", "0.4.9") is None


def _sdist(top: str, requires_txt: str) -> bytes:
    """A real .tar.gz whose PKG-INFO has no Requires-Dist (old setuptools)."""
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path, text in (
            (f"{top}/PKG-INFO", "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1\n"),
            (f"{top}/torch.egg-info/requires.txt", requires_txt),
        ):
            data = text.encode()
            info = tarfile.TarInfo(path)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.mark.network
def test_an_sdist_only_release_is_read_from_its_requires_txt(
    script: ModuleType, matrix_dir: Path, httpserver: Any
) -> None:
    files = []
    for version in ("2.5.0", "2.5.1"):
        httpserver.expect_request(f"/pypi/torch/{version}/json").respond_with_data("", status=404)
        blob = _sdist(
            f"torch-{version}",
            'filelock\n\n[:platform_system == "Linux"]\nnvidia-cuda-runtime-cu12==12.1.105\n'
            "nvidia-cudnn-cu12==9.1.0.70\n",
        )
        path = f"/files/torch-{version}.tar.gz"
        httpserver.expect_request(path).respond_with_data(blob)
        files.append(
            {
                "filename": f"torch-{version}.tar.gz",
                "url": httpserver.url_for(path),
                "size": len(blob),
            }
        )
    httpserver.expect_request("/simple/torch/").respond_with_json({"files": files})
    code, out, err = run_local(script, matrix_dir, httpserver, "torch")
    assert code == 1, out + err
    assert '-cuda = "12.4"' in out and '+cuda = "12.1"' in out
