"""A Python version the installed framework build does not support."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from envcheck.model.finding import Category, Finding, Severity
from envcheck.rules._facts import fw_label, matched_build

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

PYTHON_UNSUPPORTED = "python-unsupported"


def check_python(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    version = snapshot.python.version
    if not version:
        return
    py = ".".join(version.split(".")[:2])
    for fw in snapshot.frameworks:
        build = matched_build(fw, snapshot, matrix)
        if build is None or not build.python or py in build.python:
            continue
        # It is installed, so some wheel or source build existed for this Python:
        # outside the supported list it is a risk (experimental, untested), not
        # a certain failure. Plans and checks treat the list as a hard limit.
        yield Finding(
            PYTHON_UNSUPPORTED,
            Category.PYTHON_UNSUPPORTED,
            Severity.WARNING,
            f"{fw_label(fw)} does not list Python {py} as supported",
            evidence=(
                f"python.version = {version}",
                f"{build.package} {fw.version} supports Python {', '.join(build.python)}",
            ),
            fix=f"Use Python {build.python[-1]} for this environment, or install a "
            f"{fw.name} release that supports Python {py} (envcheck plan {fw.name} "
            f"--python {py}).",
            sources=(build.origin.cite(),),
        )
