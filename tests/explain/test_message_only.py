"""With nothing detected, unknown facts are not stated as absent, and a
CUDA_VISIBLE_DEVICES the text sets is named first."""

from __future__ import annotations

from envcheck.explain import explain
from envcheck.matrix import Matrix
from envcheck.model.finding import Category

# TensorFlow's cuda_driver.cc text; https://github.com/pythonlessons/TensorFlow-2.x-YOLOv3/issues/31
TF_NO_DEVICE = (
    "2020-08-13 12:22:55.579834: E tensorflow/stream_executor/cuda/cuda_driver.cc:314] failed "
    "call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
)


def _said(matrix: Matrix, text: str) -> str:
    report = explain(text, None, matrix)
    return " ".join(
        " ".join((f.title, f.detail or "", *f.evidence)) for f in report.findings
    ).lower()


def test_no_device_is_not_no_gpu_without_detection(matrix: Matrix) -> None:
    first = explain(TF_NO_DEVICE, None, matrix).findings[0]
    assert first.category != Category.NO_GPU
    said = _said(matrix, TF_NO_DEVICE)
    assert "not inspected" in said or "unknown" in said
    assert "detected on this machine" not in said
    assert "no gpus detected" not in said


def test_no_device_with_a_windows_path_states_no_absence(matrix: Matrix) -> None:
    # The Windows DLL names are message facts; the empty machine under them is unknown.
    text = (
        "Successfully opened dynamic library cudart64_101.dll\n"
        "Successfully opened dynamic library nvcuda.dll\n" + TF_NO_DEVICE
    )
    said = _said(matrix, text)
    assert "no nvidia driver (and no nvidia gpu) was detected" not in said
    assert "no gpus detected" not in said


def test_command_line_variable_is_named_first(matrix: Matrix) -> None:
    # https://github.com/pytorch/pytorch/issues/1040
    text = (
        "(py35) ~/pytorch/examples/mnist$ CUDA_VISIBLE_DEVICES=2 python main.py\n"
        "THCudaCheck FAIL file=torch/csrc/cuda/Module.cpp line=109 error=38 : no CUDA-capable "
        "device is detected\n"
    )
    first = explain(text, None, matrix).findings[0]
    assert first.category == Category.ENV_VAR_HIDES_GPU
    assert "CUDA_VISIBLE_DEVICES='2'" in first.title


def test_script_assignment_is_named_first(matrix: Matrix) -> None:
    # os.environ in a script, above TensorFlow's cuInit failure (the pattern of
    # https://github.com/DetectionTeamUCAS/R2CNN_Faster-RCNN_Tensorflow/issues/28, whose
    # config file sets the GPU id).
    text = "os.environ['CUDA_VISIBLE_DEVICES'] = '1'\n" + TF_NO_DEVICE
    first = explain(text, None, matrix).findings[0]
    assert first.category == Category.ENV_VAR_HIDES_GPU
    assert "'1'" in first.title


def test_every_wording_of_the_code_is_judged_alike(matrix: Matrix) -> None:
    # PyTorch's old THC text of the same code; https://github.com/slczgwh/REDN/issues/5
    text = (
        "RuntimeError: cuda runtime error (100) : no CUDA-capable device is detected at "
        "/pytorch/aten/src/THC/THCGeneral.cpp:50"
    )
    torch_words = explain("RuntimeError: No CUDA GPUs are available", None, matrix)
    assert (
        explain(text, None, matrix).findings[0].category
        == torch_words.findings[0].category
        == Category.ENV_VAR_HIDES_GPU
    )


def test_a_detected_machine_keeps_its_own_judgement(matrix: Matrix) -> None:
    from envcheck.model.snapshot import Snapshot

    report = explain(TF_NO_DEVICE, Snapshot(source="detect"), matrix)
    assert report.findings[0].category == Category.NO_GPU


def test_a_cpu_build_message_states_no_absent_gpu(matrix: Matrix) -> None:
    # PyTorch's torch/cuda/__init__.py text with a pip pin (a message fact), nothing detected.
    text = "pip install torch==2.1.0+cpu\nAssertionError: Torch not compiled with CUDA enabled\n"
    said = _said(matrix, text)
    assert "no nvidia gpu or driver detected" not in said
    assert "not installed in the inspected environment" not in said
    assert "shows no nvidia gpu" not in said
