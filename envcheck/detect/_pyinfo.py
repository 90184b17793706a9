"""Facts about a Python interpreter, printed as JSON.

Run as a script by the *target* interpreter (``python -I _pyinfo.py``) for
``--python PATH``, or imported and called in-process for the running one. It
uses only the standard library and must run on Python 3.6+: no future import,
no f-strings (so that Python 2 can parse it and print the one-line refusal
below instead of a SyntaxError), nothing newer than 3.6 from the stdlib.
tests/detect/test_child_scripts.py runs it under every interpreter pyenv has.
"""

import sys

# Checked before any other import: Python 2 and 3.0-3.5 get one line, not a
# traceback. The wording matches envcheck.detect.python_env.too_old_message().
if __name__ == "__main__" and sys.version_info < (3, 6):
    sys.stderr.write(
        "envcheck needs the target Python to be 3.6 or newer; %s is %s\n"
        % (sys.executable, ".".join(str(v) for v in sys.version_info[:3]))
    )
    sys.exit(3)

import json
import os
import site
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
