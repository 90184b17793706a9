"""Log prefixes, syslog escapes, CRLF and wrapped rows are undone before matching."""

from __future__ import annotations

import pytest

from envcheck.explain import explain
from envcheck.explain.normalise import normalise

# dmesg -T with journal-aligned continuation records, as pasted in
# https://github.com/NixOS/nixos-hardware/issues/1880
DMESG_T = (
    "[Sun May 17 15:55:50 2026] nvidia-nvlink: Nvlink Core is being initialized, major device "
    "number 234\n"
    "[Sun May 17 15:55:50 2026] NVRM: The NVIDIA NVIDIA GeForce GTX 1050 GPU installed in this "
    "system is\n"
    "                           NVRM:  supported through the NVIDIA 580.xx Legacy drivers. Please\n"
    "                           NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
    "                           NVRM:  information.  The 595.71.05 NVIDIA driver will ignore\n"
    "                           NVRM:  this GPU.  Continuing probe...\n"
    "[Sun May 17 15:55:50 2026] NVRM: No NVIDIA GPU found.\n"
)


def test_kernel_records_of_one_message_become_one_line() -> None:
    norm = normalise(DMESG_T)
    lines = norm.text.split("\n")
    assert len(lines) == 3
    assert lines[1].startswith("NVRM: The NVIDIA NVIDIA GeForce GTX 1050 GPU installed in this")
    assert "system is supported through the NVIDIA 580.xx Legacy drivers. Please visit" in lines[1]
    assert lines[1].endswith("Continuing probe...")
    assert lines[2] == "NVRM: No NVIDIA GPU found."
    assert norm.origins == (1, 2, 7)


def test_stamped_records_join_too() -> None:
    # dmesg stamps on the first record only, open-gpu-kernel-modules' osapi.c text, as pasted
    # in https://github.com/NVIDIA/open-gpu-kernel-modules/issues/322
    text = (
        "[ 1157.046099] NVRM: The NVIDIA GPU 0000:af:00.0 (PCI ID: 10de:1db5)\n"
        "               NVRM: installed in this system is not supported by open\n"
        "               NVRM: nvidia.ko because it does not include the required GPU\n"
        "               NVRM: System Processor (GSP).\n"
    )
    (line,) = normalise(text).text.split("\n")
    assert line == (
        "NVRM: The NVIDIA GPU 0000:af:00.0 (PCI ID: 10de:1db5) installed in this system is not "
        "supported by open nvidia.ko because it does not include the required GPU System "
        "Processor (GSP)."
    )
    # syslog with a host, a tag and a dmesg stamp on every record (the API-mismatch text of
    # kernel-open/nvidia/nv.c, its format as in /var/log/kern.log).
    text = (
        "Apr 23 18:55:23 host-N550JV kernel: [    7.039052] NVRM: API mismatch: the client has "
        "the version 352.79, but\n"
        "Apr 23 18:55:23 host-N550JV kernel: [    7.039052] NVRM: this kernel module has the "
        "version 361.42.  Please\n"
    )
    assert normalise(text).text == (
        "NVRM: API mismatch: the client has the version 352.79, but this kernel module has the "
        "version 361.42.  Please"
    )


def test_syslog_escapes_split_lines() -> None:
    # rsyslog's #012 (https://github.com/arcao/Syslog/issues/28) and sysklogd's \x0a
    # (https://github.com/troglobit/sysklogd/pull/53) stand for an embedded newline.
    assert normalise("Number of repeats#0122").text == "Number of repeats\n2"
    norm = normalise(
        "Jun  9 17:28:14 slack kernel: Kernel parameter elevator= does not have any effect "
        "anymore.\\x0aPlease use sysfs\nnext"
    )
    assert norm.text.split("\n")[1:] == ["Please use sysfs", "next"]
    assert norm.origins == (1, 1, 2)


def test_crlf_and_line_numbers_as_pasted() -> None:
    text = "first\r\nsecond\r\nRuntimeError: Found no NVIDIA driver on your system.\r\n"
    report = explain(text)
    (match,) = report.matches
    assert match.signature.id == "torch-found-no-nvidia-driver"
    assert match.lines == ((3, "RuntimeError: Found no NVIDIA driver on your system."),)


def test_a_message_joined_from_records_is_found_on_the_line_it_starts() -> None:
    # The Secure Boot/DKMS symptom after an NVRM message: the symptom's line is counted in
    # the pasted text, not in the joined one.
    report = explain(
        DMESG_T + "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
    )
    shown = {m.signature.id: m.lines[0][0] for m in report.matches}
    assert shown["nvidia-smi-no-driver"] == 8


def test_terminal_rows_are_joined_at_the_terminal_width() -> None:
    # PyTorch's c10/cuda text, broken by an 80-column terminal in the middle of a word.
    message = (
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
        "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx"
    )
    rows = [message[i : i + 80] for i in range(0, len(message), 80)]
    other = "x" * 80 + "\nRuntimeError: the next record stays apart"
    assert len(rows[0]) == 80
    text = "\n".join(rows) + "\n" + other
    lines = normalise(text).text.split("\n")
    assert lines[0] == message
    assert lines[-1] == "RuntimeError: the next record stays apart"
    # A symptom broken inside its own words is recognised, on the row it starts.
    logged = "(EngineCore_0 pid=4177) ".ljust(54) + message
    rows = [logged[i : i + 80] for i in range(0, len(logged), 80)]
    assert "Found no NVIDIA driver" not in "\n".join(rows)
    report = explain("head\n" + "\n".join(rows) + "\n")
    assert [(m.signature.id, m.line_no) for m in report.matches] == [
        ("torch-found-no-nvidia-driver", 2)
    ]


def test_short_lines_are_never_joined() -> None:
    text = "a" * 30 + "\n" + "b" * 30 + "\n" + "c" * 10
    assert normalise(text).text == text


def test_normalising_is_linear() -> None:
    # 200 000 stamped records: one pass, every record looked at once.
    record = "[    3.513141] NVRM: GPU 0000:04:00.0: RmInitAdapter failed! (0x63:0x0:1905)\n"
    norm = normalise(record * 200_000)
    assert len(norm.origins) >= 200_000 // 16


@pytest.mark.parametrize(
    ("pasted", "joined"),
    [
        (">>> torch.cuda.is_available()\nFalse\n", "torch.cuda.is_available() -> False"),
        (
            "In [2]: torch.cuda.is_available()\n\nOut[2]: False\n",
            "torch.cuda.is_available() -> False",
        ),
        (
            ">>> tf.config.list_physical_devices('GPU')\n[]\n",
            "tf.config.list_physical_devices('GPU') -> []",
        ),
        (">>> jax.devices()\n[CpuDevice(id=0)]\n", "jax.devices() -> [CpuDevice(id=0)]"),
    ],
)
def test_a_repl_call_and_its_one_word_answer_are_one_line(pasted: str, joined: str) -> None:
    norm = normalise(pasted)
    assert norm.text.split("\n")[0] == joined
    assert norm.origin(1) == 1


def test_a_repl_call_answered_with_more_than_a_word_stays_as_it_was() -> None:
    pasted = ">>> import torch\n>>> torch.__version__\n'2.1.0+cu121'\n>>> x = 1\n"
    assert normalise(pasted).text == pasted.rstrip("\n")


def test_a_repl_session_is_explained_as_the_check_it_shows(matrix: object) -> None:
    report = explain(">>> import torch\n>>> torch.cuda.is_available()\nFalse\n", None, matrix)
    first = report.findings[0]
    assert first.id == "torch-sees-no-gpu"
    assert report.matches[0].lines[0][0] == 2  # the line the call was typed on
