"""Facts about a Python interpreter, printed as JSON.

Run as a script by the *target* interpreter (``python -I _pyinfo.py``) for
``--python PATH``, or imported and called in-process for the running one. It
uses only the standard library and must run on Python 3.6+ (no future import).
"""

import json
import os
import site
import sys
import sysconfig


def _implementation():
    # CPython needs no `platform` import (a few ms of every detection).
    if getattr(sys, "implementation", None) is not None and sys.implementation.name == "cpython":
        return "CPython"
    import platform

    return platform.python_implementation()


def collect():
    prefix = sys.prefix
    base_prefix = getattr(sys, "base_prefix", getattr(sys, "real_prefix", sys.prefix))
    dirs = []

    def add(path):
        if path and path not in dirs and os.path.isdir(path):
            dirs.append(path)

    for key in ("purelib", "platlib"):
        try:
            add(sysconfig.get_paths()[key])
        except (KeyError, OSError):
            pass
    try:
        for path in site.getsitepackages():
            add(path)
    except AttributeError:  # virtualenv < 20 replaced site.py without it
        pass
    for path in sys.path:
        if path.endswith(("site-packages", "dist-packages")):
            add(path)
    in_venv = prefix != base_prefix
    if not in_venv:
        try:
            add(site.getusersitepackages())
        except AttributeError:
            pass
    return {
        "version": "%d.%d.%d" % sys.version_info[:3],
        "implementation": _implementation(),
        "executable": sys.executable,
        "prefix": prefix,
        "base_prefix": base_prefix,
        "site_dirs": dirs,
        "conda_default_env": os.environ.get("CONDA_DEFAULT_ENV"),
        "platform": sys.platform,
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(collect()) + "\n")
