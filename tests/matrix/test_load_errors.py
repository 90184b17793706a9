"""Loader errors name the file, the line of the offending row and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from envcheck.errors import InputError
from envcheck.matrix import load_matrix_from

HEADER = 'schema_version = 1\ndata_version = "2026-11-22"\n'
RELEASE = """
[[release]]
version = "12.4.0"
label = "CUDA 12.4 GA"
linux_min_driver = "550.54.14"
source = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/"
verified = true
"""


def load(tmp_path: Path, **files: str) -> InputError:
    for name, text in files.items():
        (tmp_path / f"{name}.toml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_matrix_from(tmp_path)
    return info.value


def test_a_valid_file_loads(tmp_path: Path) -> None:
    (tmp_path / "cuda_driver.toml").write_text(HEADER + RELEASE, encoding="utf-8")
    matrix = load_matrix_from(tmp_path)
    assert [r.version for r in matrix.cuda_releases] == ["12.4.0"]
    assert matrix.cuda_releases[0].origin.line == 4


def test_malformed_toml_names_file_and_line(tmp_path: Path) -> None:
    text = HEADER + RELEASE + '\n[[release]]\nversion = "12.5.0\n'
    err = load(tmp_path, cuda_driver=text)
    assert err.path is not None and err.path.endswith("cuda_driver.toml")
    assert err.line == 12  # the unterminated string
    assert "invalid TOML" in err.message
    assert str(err).startswith(f"{err.path}:12: invalid TOML")


def test_wrong_type_names_row_line_and_field(tmp_path: Path) -> None:
    text = HEADER + RELEASE.replace('linux_min_driver = "550.54.14"', "linux_min_driver = 550")
    err = load(tmp_path, cuda_driver=text)
    assert (Path(err.path or "").name, err.line) == ("cuda_driver.toml", 4)
    assert "field 'linux_min_driver'" in err.message
    assert "expected a non-empty string, got 550" in err.message


def test_bad_driver_version_string(tmp_path: Path) -> None:
    text = HEADER + RELEASE.replace("550.54.14", "latest")
    err = load(tmp_path, cuda_driver=text)
    assert err.line == 4
    assert "field 'linux_min_driver'" in err.message


def test_missing_source(tmp_path: Path) -> None:
    text = HEADER + RELEASE.replace(
        'source = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/"\n', ""
    )
    err = load(tmp_path, cuda_driver=text)
    assert err.line == 4
    assert "field 'source': is required" in err.message


def test_source_must_be_a_url(tmp_path: Path) -> None:
    text = HEADER + RELEASE.replace(
        "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/", "the release notes"
    )
    err = load(tmp_path, cuda_driver=text)
    assert "field 'source': must be an http(s) URL" in err.message


def test_missing_verified_flag(tmp_path: Path) -> None:
    err = load(tmp_path, cuda_driver=HEADER + RELEASE.replace("verified = true\n", ""))
    assert "field 'verified': is required" in err.message


def test_unknown_field(tmp_path: Path) -> None:
    text = HEADER + RELEASE.replace("label =", 'lable = "typo"\nlabel =')
    err = load(tmp_path, cuda_driver=text)
    assert err.line == 4
    assert "field 'lable': unknown field" in err.message


def test_unknown_table(tmp_path: Path) -> None:
    err = load(tmp_path, cuda_driver=HEADER + RELEASE + "\n[[relase]]\nversion = '1'\n")
    assert err.line == 11
    assert "unknown table 'relase'" in err.message


def test_duplicate_row_names_second_line_and_first(tmp_path: Path) -> None:
    err = load(tmp_path, cuda_driver=HEADER + RELEASE + RELEASE)
    assert err.line == 11
    assert "duplicate CUDA release 12.4.0 (first defined at line 4)" in err.message


def test_duplicate_framework_build(tmp_path: Path) -> None:
    build = """
[[build]]
versions = ["2.5.1"]
variant = "cu124"
package = "torch"
cuda = "12.4"
platforms = ["linux-x86_64"]
source = "https://pytorch.org/get-started/previous-versions/"
verified = true
"""
    err = load(tmp_path, cuda_driver=HEADER + RELEASE, torch=HEADER + build + build)
    assert Path(err.path or "").name == "torch.toml"
    assert err.line == 13
    assert "duplicate torch 2.5.1 cu124 build" in err.message


def test_same_release_with_and_without_extra_is_not_a_duplicate(tmp_path: Path) -> None:
    build = """
[[build]]
versions = ["2.16.1"]
variant = "cu124"
package = "tensorflow"
cuda = "12.4"
platforms = ["linux-x86_64"]
source = "https://www.tensorflow.org/install/pip"
verified = true
"""
    with_extra = build.replace(
        'package = "tensorflow"', 'package = "tensorflow"\nextra = "and-cuda"'
    )
    (tmp_path / "cuda_driver.toml").write_text(HEADER + RELEASE, encoding="utf-8")
    (tmp_path / "tensorflow.toml").write_text(HEADER + build + with_extra, encoding="utf-8")
    matrix = load_matrix_from(tmp_path)
    assert [b.extra for b in matrix.framework_builds("tensorflow")] == [None, "and-cuda"]


def test_find_links_must_be_a_url(tmp_path: Path) -> None:
    build = """
[[build]]
versions = ["0.4.20"]
variant = "cuda12_pip"
package = "jax"
extra = "cuda12_pip"
cuda = "12.4"
platforms = ["linux-x86_64"]
find_links = "jax_cuda_releases.html"
source = "https://github.com/google/jax/blob/jax-v0.4.20/README.md"
verified = true
"""
    err = load(tmp_path, cuda_driver=HEADER + RELEASE, jax=HEADER + build)
    assert (Path(err.path or "").name, err.line) == ("jax.toml", 4)
    assert "field 'find_links': must be an http(s) URL" in err.message
    fixed = build.replace(
        '"jax_cuda_releases.html"', '"https://example.org/jax_cuda_releases.html"'
    )
    (tmp_path / "jax.toml").write_text(HEADER + fixed, encoding="utf-8")
    (b,) = load_matrix_from(tmp_path).framework_builds("jax")
    assert b.find_links == "https://example.org/jax_cuda_releases.html"


def test_newer_schema_version_is_refused(tmp_path: Path) -> None:
    err = load(tmp_path, cuda_driver=HEADER.replace("= 1", "= 2") + RELEASE)
    assert err.line == 1
    assert "newer than this envcheck; upgrade" in err.message


def test_missing_or_bad_data_version(tmp_path: Path) -> None:
    err = load(tmp_path, cuda_driver="schema_version = 1\n" + RELEASE)
    assert "data_version must be a date" in err.message


def test_bad_compute_capability(tmp_path: Path) -> None:
    toolkit = """
[[toolkit]]
cuda = "12.4"
compute_capabilities = ["5.0", "sm_90"]
source = "https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/"
verified = true
"""
    err = load(tmp_path, cuda_driver=HEADER + RELEASE, cuda_arch=HEADER + toolkit)
    assert (Path(err.path or "").name, err.line) == ("cuda_arch.toml", 4)
    assert "field 'compute_capabilities'" in err.message


def test_invalid_framework_version(tmp_path: Path) -> None:
    build = """
[[build]]
versions = ["two.five"]
variant = "cpu"
package = "torch"
source = "https://pytorch.org/"
verified = false
"""
    err = load(tmp_path, cuda_driver=HEADER + RELEASE, torch=HEADER + build)
    assert "field 'versions': 'two.five' is not a valid version" in err.message


def test_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no matrix files"):
        load_matrix_from(tmp_path)


def test_cli_reports_bad_matrix_as_one_line(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    (tmp_path / "cuda_driver.toml").write_text(HEADER + RELEASE + RELEASE, encoding="utf-8")
    code, out, err = run_cli("matrix", "show", env={"ENVCHECK_MATRIX": str(tmp_path)})
    assert code == 2
    assert out == ""
    assert err.strip().count("\n") == 0
    assert "cuda_driver.toml:11: duplicate CUDA release 12.4.0" in err
    assert "Traceback" not in err


def test_withdrawn_is_a_boolean_and_defaults_to_false(tmp_path: Path) -> None:
    build = """
[[build]]
versions = ["1.8.0"]
variant = "cu124"
package = "onnxruntime-gpu"
cuda = "12.4"
platforms = ["linux-x86_64"]
withdrawn = "yes"
source = "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html"
verified = true
"""
    err = load(tmp_path, cuda_driver=HEADER + RELEASE, onnxruntime=HEADER + build)
    assert (Path(err.path or "").name, err.line) == ("onnxruntime.toml", 4)
    assert "field 'withdrawn': expected true or false" in err.message
    (tmp_path / "onnxruntime.toml").write_text(
        HEADER + build.replace('withdrawn = "yes"', "withdrawn = true"), encoding="utf-8"
    )
    (b,) = load_matrix_from(tmp_path).framework_builds("onnxruntime")
    assert b.withdrawn is True
    (tmp_path / "onnxruntime.toml").write_text(
        HEADER + build.replace('withdrawn = "yes"\n', ""), encoding="utf-8"
    )
    (b,) = load_matrix_from(tmp_path).framework_builds("onnxruntime")
    assert b.withdrawn is False


# -- facts that span files (envcheck/matrix/validate.py check_cross_file) -------

ARCH = """
[[architecture]]
name = "Kepler"
compute_capabilities = ["3.5", "3.7"]
last_driver_branch = "470"
source = "https://developer.nvidia.com/cuda-gpus"
verified = true
"""
GPU = """
[[gpu]]
name = "Tesla K80"
compute_capability = "3.7"
architecture = "Kepler"
source = "https://developer.nvidia.com/cuda-gpus"
verified = true
"""
RETIRED = """
[[retired]]
architecture = "Kepler"
last_branch = "470"
source = "https://nvidia.custhelp.com/app/answers/detail/a_id/5202"
verified = true
"""
TORCH_BUILD = """
[[build]]
versions = ["2.5.1"]
variant = "cu124"
package = "torch"
cuda = "12.4"
cudnn = "9.1"
archs = ["3.7"]
platforms = ["linux-x86_64"]
source = "https://pytorch.org/get-started/previous-versions/"
verified = true
"""
CUDNN = """
[[release]]
version = "9.1.0"
cuda_major = 12
source = "https://docs.nvidia.com/deeplearning/cudnn/support-matrix/"
verified = true
"""
CONDA_ROW = """
[[package]]
channel = "{channel}"
name = "tensorflow-gpu"
pip = "tensorflow-gpu"
versions = ["1.14.0"]
platforms = ["windows-x86_64"]
cuda = "10.0"
source = "https://github.com/AnacondaRecipes/tensorflow_recipes"
verified = true
"""


def consistent(tmp_path: Path) -> dict[str, str]:
    files = {
        "cuda_driver": HEADER + RELEASE,
        "gpus": HEADER + ARCH + GPU,
        "driver_branches": HEADER + RETIRED,
        "cudnn": HEADER + CUDNN,
        "torch": HEADER + TORCH_BUILD,
    }
    for name, text in files.items():
        (tmp_path / f"{name}.toml").write_text(text, encoding="utf-8")
    assert load_matrix_from(tmp_path).framework_builds("torch")
    return files


def one_line(err: InputError) -> str:
    text = str(err)
    assert "\n" not in text
    return text


def test_last_driver_branch_and_retired_row_must_agree(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    err = load(tmp_path, driver_branches=files["driver_branches"].replace('"470"', '"390"'))
    assert (Path(err.path or "").name, err.line) == ("gpus.toml", 4)
    assert "last_driver_branch 470 disagrees with driver_branches.toml [[retired]]" in one_line(err)


def test_last_driver_branch_must_be_a_number(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    err = load(
        tmp_path,
        gpus=files["gpus"].replace('last_driver_branch = "470"', 'last_driver_branch = "R470"'),
    )
    assert "last_driver_branch must be a branch number" in one_line(err)


def test_a_retired_architecture_must_exist(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    err = load(
        tmp_path, driver_branches=files["driver_branches"] + RETIRED.replace("Kepler", "Fermi")
    )
    assert Path(err.path or "").name == "driver_branches.toml"
    assert "retired architecture 'Fermi' is not in gpus.toml" in one_line(err)


def test_a_gpu_capability_must_belong_to_its_architecture(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    err = load(
        tmp_path,
        gpus=files["gpus"].replace('compute_capability = "3.7"', 'compute_capability = "5.0"'),
    )
    assert "Tesla K80: compute capability 5.0 is not one of the Kepler" in one_line(err)


def test_a_build_cuda_needs_a_driver_row(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    err = load(tmp_path, torch=files["torch"].replace('cuda = "12.4"', 'cuda = "12.6"'))
    assert (Path(err.path or "").name, err.line) == ("torch.toml", 4)
    assert "CUDA 12.6 has no cuda_driver.toml release row" in one_line(err)


def test_a_build_cudnn_needs_a_cudnn_row(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    err = load(tmp_path, torch=files["torch"].replace('cudnn = "9.1"', 'cudnn = "9.5"'))
    assert "cuDNN 9.5 has no cudnn.toml row for CUDA 12" in one_line(err)


def test_build_archs_must_be_known_capabilities(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    err = load(tmp_path, torch=files["torch"].replace('archs = ["3.7"]', 'archs = ["3.7", "4.0"]'))
    assert "4.0 is not a known compute capability" in one_line(err)


def test_a_companion_and_a_keras_pin_need_their_release(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    companion = """
[[companion]]
version = "2.6.0"
torchvision = "0.21.0"
source = "https://pytorch.org/get-started/previous-versions/"
verified = true
"""
    err = load(tmp_path, torch=files["torch"] + companion)
    assert "companion row for torch 2.6.0: no torch build" in one_line(err)
    (tmp_path / "torch.toml").write_text(files["torch"], encoding="utf-8")
    tf = TORCH_BUILD.replace('"torch"', '"tensorflow"').replace('"2.5.1"', '"2.15.1"')
    pin = """
[[tensorflow_pin]]
tensorflow = ["2.15.1", "2.15.0"]
keras = "<2.16,>=2.15.0"
source = "https://pypi.org/project/tensorflow/2.15.1/"
verified = true
"""
    err = load(tmp_path, tensorflow=HEADER + tf, keras=HEADER + pin)
    assert (Path(err.path or "").name, err.line) == ("keras.toml", 4)
    assert "tensorflow_pin names TensorFlow 2.15.0, which tensorflow.toml does not have" in (
        one_line(err)
    )


def test_cross_file_checks_skip_files_that_are_not_loaded(tmp_path: Path) -> None:
    (tmp_path / "torch.toml").write_text(
        HEADER + TORCH_BUILD.replace('cuda = "12.4"', 'cuda = "12.6"'), encoding="utf-8"
    )
    assert load_matrix_from(tmp_path).framework_builds("torch")


def test_conda_rows_name_a_known_channel(tmp_path: Path) -> None:
    err = load(tmp_path, conda=HEADER + CONDA_ROW.format(channel="anaconda"))
    assert "conda.toml:4" in str(err)
    assert "field 'channel'" in str(err)


def test_a_conda_package_cannot_also_be_absent(tmp_path: Path) -> None:
    absent = """
[[absent]]
channel = "defaults"
name = "tensorflow-gpu"
pip = ["tensorflow-gpu"]
platforms = ["windows-x86_64"]
source = "https://github.com/AnacondaRecipes/tensorflow_recipes"
verified = true
"""
    err = load(tmp_path, conda=HEADER + CONDA_ROW.format(channel="defaults") + absent)
    assert "also listed as absent" in str(err)


_FLOOR = """
[[arch_floor]]
versions = "{versions}"
compute_capability = "{cc}"
source = "https://github.com/pytorch/builder/"
verified = true
"""


def test_an_arch_floor_below_a_known_list_is_rejected(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    floor = _FLOOR.format(versions=">=2.0", cc="5.0")
    err = load(tmp_path, torch=files["torch"] + floor)
    assert "code for sm_37, below the arch_floor 5.0 of torch >=2.0" in one_line(err)


def test_an_arch_floor_needs_a_build_and_a_capability(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    err = load(tmp_path, torch=files["torch"] + _FLOOR.format(versions="<1.0", cc="3.5"))
    assert "arch_floor <1.0: no torch build" in one_line(err)
    err = load(tmp_path, torch=files["torch"] + _FLOOR.format(versions=">=2.0", cc="sm_35"))
    assert "expected e.g. '3.5'" in one_line(err)


def test_an_arch_floor_the_builds_respect_loads(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    (tmp_path / "torch.toml").write_text(
        files["torch"] + _FLOOR.format(versions=">=2.0", cc="3.5"), encoding="utf-8"
    )
    matrix = load_matrix_from(tmp_path)
    floor = matrix.arch_floor("torch", "2.5.1")
    assert floor is not None and str(floor.compute_capability) == "3.5"
    assert matrix.arch_floor("torch", "1.13.1") is None
    assert matrix.arch_floor("tensorflow", "2.5.1") is None


def test_a_specifier_that_is_not_pep_440_names_its_field(tmp_path: Path) -> None:
    files = consistent(tmp_path)
    err = load(tmp_path, torch=files["torch"] + _FLOOR.format(versions="2.0+", cc="3.5"))
    assert "field 'versions'" in one_line(err)
    assert "'2.0+' is not a PEP 440 specifier" in one_line(err)
    pin = """
[[tensorflow_pin]]
tensorflow = ["2.15.1"]
keras = "2.15 or newer"
source = "https://pypi.org/project/tensorflow/2.15.1/"
verified = true
"""
    err = load(tmp_path, torch=files["torch"], keras=HEADER + pin)
    assert (Path(err.path or "").name, err.line) == ("keras.toml", 4)
    assert "'2.15 or newer' is not a PEP 440 specifier" in one_line(err)


def test_loader_and_route_rows_name_releases_with_builds(tmp_path: Path) -> None:
    import shutil

    from envcheck.errors import InputError
    from envcheck.matrix import bundled_dir, load_matrix_from

    for name in bundled_dir().glob("*.toml"):
        shutil.copy(name, tmp_path / name.name)
    tf = tmp_path / "tensorflow.toml"
    text = tf.read_text(encoding="utf-8").replace('versions = ">=1.15,<2"', 'versions = ">=9"', 1)
    tf.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_matrix_from(tmp_path)
    assert "tensorflow.toml" in str(err.value) and "no tensorflow build" in str(err.value)
    line = text.splitlines().index('versions = ">=9"')
    assert err.value.line is not None and abs(err.value.line - (line + 1)) <= 2
