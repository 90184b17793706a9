"""The kernel module's own reason is named before the nvidia-smi symptom it causes."""

from __future__ import annotations

import pytest

from envcheck.explain import explain
from envcheck.matrix import Matrix
from envcheck.model.finding import Category

SMI = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
    "that the latest NVIDIA driver is installed and running.\n\n"
)


def _first(matrix: Matrix, text: str) -> tuple[str, Category]:
    report = explain(text, None, matrix)
    first = report.findings[0]
    return first.id, first.category


# Each kernel text as a real report pasted it (dmesg, journalctl or a node log), after the
# nvidia-smi failure it causes.
@pytest.mark.parametrize(
    ("log", "sig", "category"),
    [
        (
            # https://github.com/siderolabs/talos/issues/8764 (trailing padding as pasted)
            (
                "kern:     err: [2024-05-20T02:46:53.856596762Z]: NVRM: The NVIDIA GeForce GT 710 "
                "GPU installed in this system is                       \n"
                " NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please          \n"
                " NVRM:  visit http://www.nvidia.com/object/unix.html for more               \n"
                " NVRM:  information.  The 535.129.03 NVIDIA driver will ignore              \n"
                " NVRM:  this GPU.  Continuing probe...                                      \n"
                " kern: warning: [2024-05-20T02:46:53.859954762Z]: NVRM: No NVIDIA GPU found.  \n"
            ),
            "nvrm-gpu-on-legacy-branch",
            Category.GPU_ARCH_UNSUPPORTED,
        ),
        (
            # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/322
            (
                "[ 1157.043851] nvidia-nvlink: Nvlink Core is being initialized, major device number "
                "237\n"
                "[ 1157.046099] NVRM: The NVIDIA GPU 0000:af:00.0 (PCI ID: 10de:1db5)\n"
                "               NVRM: installed in this system is not supported by open\n"
                "               NVRM: nvidia.ko because it does not include the required GPU\n"
                "               NVRM: System Processor (GSP).\n"
                "               NVRM: Please see the 'Open Linux Kernel Modules' and 'GSP\n"
                "               NVRM: Firmware' sections in the driver README, available on\n"
            ),
            "nvrm-open-module-no-gsp",
            Category.GPU_ARCH_UNSUPPORTED,
        ),
        (
            # https://github.com/siderolabs/extensions/issues/114
            (
                "Open nvidia.ko is only ready for use on Data Center GPUs. \n"
                "To force use of Open nvidia.ko on other GPUs, see the \n"
                "'OpenRmEnableUnsupportedGpus' kernel module parameter described\n"
                "in the README \n"
                "GPU 0000:07:00.0: RmInitAdapter failed!\n"
            ),
            "nvrm-open-module-datacenter-only",
            Category.NO_DRIVER,
        ),
        (
            # https://github.com/NVIDIA/open-gpu-kernel-modules/issues/433
            (
                "[  217.545145] NVRM RmInitAdapter: Cannot initialize GSP firmware RM\n"
                "[  217.545832] NVRM: GPU 0000:05:00.0: RmInitAdapter failed! (0x62:0xffff:1622)\n"
                "[  217.546288] NVRM: GPU 0000:05:00.0: rm_init_adapter failed, device minor number 0\n"
            ),
            "nvrm-rm-init-adapter-failed",
            Category.NO_DRIVER,
        ),
    ],
)
def test_kernel_reason_comes_first(matrix: Matrix, log: str, sig: str, category: Category) -> None:
    assert _first(matrix, SMI + log) == (sig, category)
    assert _first(matrix, log) == (sig, category)


def test_legacy_branch_facts() -> None:
    # https://github.com/NixOS/nixos-hardware/issues/1880, dmesg -T
    log = (
        "[Sun May 17 15:55:50 2026] NVRM: The NVIDIA NVIDIA GeForce GTX 1050 GPU installed in "
        "this system is\n"
        "                           NVRM:  supported through the NVIDIA 580.xx Legacy drivers. "
        "Please\n"
        "                           NVRM:  visit http://www.nvidia.com/object/unix.html for more\n"
        "                           NVRM:  information.  The 595.71.05 NVIDIA driver will ignore\n"
        "                           NVRM:  this GPU.  Continuing probe...\n"
    )
    (match,) = explain(log).matches
    assert match.facts == {
        "gpu": "NVIDIA GeForce GTX 1050",
        "branch": "580",
        "driver": "595.71.05",
    }
    assert match.line_no == 1


def test_the_symptom_alone_stays_no_driver(matrix: Matrix) -> None:
    assert _first(matrix, SMI) == ("nvidia-smi-no-driver", Category.NO_DRIVER)
