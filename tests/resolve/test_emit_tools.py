"""uv, poetry and pixi outputs, proved by the real tools where they install from PyPI.

``uv lock --offline`` reads the emitted pyproject.toml against local indexes of
metadata-only stub wheels (tests/resolve/stubwheels.py): the PyTorch index URL in
the output is swapped for a local one holding only the ``+cuXYZ`` builds, so the
lock proves that ``explicit = true`` + ``[tool.uv.sources]`` send torch there.
``poetry check`` and ``poetry lock`` do the same for ``priority = "explicit"`` +
``[tool.poetry.dependencies]`` sources, the stub indexes served on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from envcheck.resolve import emit
from envcheck.resolve.plan import plan
from envcheck.resolve.plan_model import Plan
from tests.resolve.stubwheels import write_simple_index, write_stub_wheel
from tests.resolve.test_plan import ADA, K80, RTX5090, T4, machine

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9/3.10
    import tomli as tomllib

HERE_PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"


def uv_binary() -> Optional[str]:
    """The uv of the test extras (installed beside this interpreter), or one on PATH."""
    beside = Path(sys.executable).parent / ("uv.exe" if os.name == "nt" else "uv")
    if beside.is_file():
        return str(beside)
    return shutil.which("uv")


def test_uv_output_is_a_pyproject(matrix: Any) -> None:
    p = plan(("torch", "torchaudio<2.12"), machine("537.13", T4, os="windows"), matrix)
    doc = tomllib.loads(emit.emit_uv(p))
    assert doc["project"]["dependencies"] == ["torch==2.11.0", "torchaudio==2.11.0"]
    assert doc["tool"]["uv"]["index"] == [
        {"name": "pytorch-cu128", "url": "https://download.pytorch.org/whl/cu128", "explicit": True}
    ]
    assert doc["tool"]["uv"]["sources"] == {
        "torch": {"index": "pytorch-cu128"},
        "torchaudio": {"index": "pytorch-cu128"},
    }
    assert doc["tool"]["uv"]["environments"] == [
        "sys_platform == 'win32' and platform_machine == 'AMD64'"
    ]


def test_uv_find_links_become_a_flat_index(combo_matrix: Any) -> None:
    p = plan(("jax==0.4.20",), machine("525.60.13", ADA, python="3.11"), combo_matrix)
    doc = tomllib.loads(emit.emit_uv(p))
    (index,) = doc["tool"]["uv"]["index"]
    assert index["format"] == "flat" and "explicit" not in index
    assert index["url"] == "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"
    assert doc["project"]["requires-python"] == "==3.11.*"


def _stub_indexes(
    p: Plan,
    root: Path,
    index_requires: tuple[str, ...] = (),
    index_also: tuple[tuple[str, str], ...] = (),
    pypi_also: tuple[tuple[str, str], ...] = (),
) -> tuple[str, dict[str, str]]:
    """(default index URL, {emitted index URL: local index URL}) serving the picks.

    ``index_requires``: Requires-Dist of each wheel on a PyTorch index; ``index_also``
    and ``pypi_also``: more (name, version) stubs on every PyTorch index / on PyPI.
    """
    from envcheck.resolve.emit import _uses_index

    pypi: list[Path] = [write_stub_wheel(root / "wheels", n, v) for n, v in pypi_also]
    per_index: dict[str, list[Path]] = {}
    for pick in p.picks:
        assert pick.version is not None
        extras = {pick.extra: []} if pick.extra else None
        if _uses_index(pick, p):
            assert pick.index_url is not None
            version = f"{pick.version}+{pick.variant}"
            wheel = write_stub_wheel(
                root / "wheels-index", pick.package, version, index_requires, extras=extras
            )
            per_index.setdefault(pick.index_url, []).append(wheel)
            # PyPI has the same release too: the lock must not take it from there.
            pypi.append(write_stub_wheel(root / "wheels", pick.package, pick.version))
        else:
            pypi.append(
                write_stub_wheel(root / "wheels", pick.package, pick.version, extras=extras)
            )
    also = [write_stub_wheel(root / "wheels-index", n, v) for n, v in index_also]
    default = write_simple_index(root / "pypi", pypi)
    local = {
        url: write_simple_index(root / f"index{n}", wheels + also)
        for n, (url, wheels) in enumerate(per_index.items())
    }
    return default, local


@pytest.mark.real_machine
def test_uv_lock_offline_accepts_the_output(matrix: Any, tmp_path: Path) -> None:
    uv = uv_binary()
    if uv is None:
        pytest.skip("uv is not installed (pip install -e '.[test]' installs it)")
    target = machine("550.54.15", ADA, python=HERE_PYTHON)
    p = plan(("torch", "torchvision"), target, matrix)
    assert p.ok, p.unsatisfiable
    assert any(emit._uses_index(pick, p) for pick in p.picks), "want a PyTorch index"
    default, local = _stub_indexes(p, tmp_path)
    text = emit.emit_uv(p)
    for url, here in local.items():
        text = text.replace(_quoted(url), _quoted(here))
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("UV_")}
    env["UV_CACHE_DIR"] = str(tmp_path / "uv-cache")
    done = subprocess.run(
        [
            uv,
            "lock",
            "--offline",
            "--no-python-downloads",
            "--python",
            sys.executable,
            "--default-index",
            default,
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lock = tomllib.loads((project / "uv.lock").read_text(encoding="utf-8"))
    got = {pkg["name"]: pkg for pkg in lock["package"]}
    for pick in p.picks:
        entry = got[pick.package]
        if emit._uses_index(pick, p):
            assert entry["version"] == f"{pick.version}+{pick.variant}"
            # uv writes a local registry as a path: the PyTorch index, not PyPI's copy
            registry = entry["source"]["registry"]
            assert local[pick.index_url or ""].endswith(registry.replace(os.sep, "/")), registry
        else:
            assert entry["version"] == pick.version


def _quoted(text: str) -> str:
    return f'"{text}"'


def test_pixi_output(matrix: Any, combo_matrix: Any) -> None:
    p = plan(("torch", "torchaudio<2.12"), machine("537.13", T4, os="windows"), matrix)
    doc = tomllib.loads(emit.emit_pixi(p))
    assert doc["workspace"]["platforms"] == ["win-64"]
    assert doc["workspace"]["channels"] == ["conda-forge"]
    # driver 537.13 runs CUDA 12.2 natively; the cu128 wheels run there by minor-version
    # compatibility, so pixi must not ask for more than the driver has.
    assert doc["system-requirements"] == {"cuda": "12.2"}
    assert doc["pypi-dependencies"]["torch"] == {
        "version": "==2.11.0",
        "index": "https://download.pytorch.org/whl/cu128",
    }
    jax = plan(("jax==0.4.20",), machine("525.60.13", ADA, python="3.11"), combo_matrix)
    doc = tomllib.loads(emit.emit_pixi(jax))
    assert doc["dependencies"] == {"python": "3.11.*"}
    assert doc["pypi-dependencies"]["jax"] == {"version": "==0.4.20", "extras": ["cuda11_pip"]}
    assert doc["pypi-options"]["find-links"] == [
        {"url": "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html"}
    ]


@pytest.mark.real_machine
def test_pixi_parses_with_pixi_itself(matrix: Any, tmp_path: Path) -> None:
    pixi = shutil.which("pixi")
    if pixi is None:
        pytest.skip(
            "pixi is not installable from PyPI (the 'pixi' distribution there is an"
            " unrelated program); install pixi to run this check"
        )
    p = plan(("torch",), machine("550.54.15", ADA, python="3.12"), matrix)
    (tmp_path / "pixi.toml").write_text(emit.emit_pixi(p), encoding="utf-8")
    done = subprocess.run(
        [pixi, "info", "--manifest-path", str(tmp_path / "pixi.toml")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


# -- poetry ------------------------------------------------------------------------


def poetry_binary() -> Optional[str]:
    """The poetry of the test extras (installed beside this interpreter), or one on PATH."""
    beside = Path(sys.executable).parent / ("poetry.exe" if os.name == "nt" else "poetry")
    if beside.is_file():
        return str(beside)
    return shutil.which("poetry")


def _poetry_env(tmp_path: Path) -> dict[str, str]:
    """poetry's caches and config under tmp_path; every host but 127.0.0.1 behind a
    proxy that refuses connections, so nothing can reach pypi.org."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("POETRY_", "PIP_"))}
    env = {k: v for k, v in env.items() if k.lower() not in ("http_proxy", "https_proxy")}
    for what in ("CACHE", "CONFIG", "DATA"):
        env[f"POETRY_{what}_DIR"] = str(tmp_path / f"poetry-{what.lower()}")
    env["POETRY_VIRTUALENVS_CREATE"] = "false"
    env["HTTP_PROXY"] = env["HTTPS_PROXY"] = "http://127.0.0.1:9"  # discard port: refused
    env["NO_PROXY"] = "127.0.0.1,localhost"
    return env


def _poetry(poetry: str, args: list[str], cwd: Path, env: dict[str, str]) -> Any:
    return subprocess.run(
        [poetry, "--no-interaction", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )


def _lock_with_stub_pypi(
    poetry: str, text: str, pypi: str, tmp_path: Path, env: dict[str, str]
) -> dict[str, Any]:
    """``poetry lock`` of the pyproject ``text`` with the stub index ``pypi`` as its
    primary source (which turns the implicit PyPI off); the locked packages by name."""
    text += f'\n[[tool.poetry.source]]\nname = "stub-pypi"\nurl = "{pypi}"\n'
    text += 'priority = "primary"\n'
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text(text, encoding="utf-8")
    done = _poetry(poetry, ["lock"], project, env)
    assert done.returncode == 0, done.stdout + done.stderr
    lock = tomllib.loads((project / "poetry.lock").read_text(encoding="utf-8"))
    return {pkg["name"]: pkg for pkg in lock["package"]}


@contextlib.contextmanager
def _serve(root: Path) -> Iterator[Callable[[str], str]]:
    """Serve ``root`` over HTTP on 127.0.0.1 (poetry reads no file:// indexes); yield
    the function that turns a file:// URI under ``root`` into its http:// URL."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import urlsplit
    from urllib.request import url2pathname

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    root = root.resolve()
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)

    def url(file_uri: str) -> str:
        rel = Path(url2pathname(urlsplit(file_uri).path)).resolve().relative_to(root)
        return f"http://127.0.0.1:{server.server_address[1]}/{rel.as_posix()}/"

    thread.start()
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_poetry_output_is_a_pyproject(matrix: Any) -> None:
    p = plan(("torch", "torchaudio<2.12"), machine("537.13", T4, os="windows"), matrix)
    doc = tomllib.loads(emit.emit_poetry(p))
    # poetry 2 reads PEP 621 dependencies; [tool.poetry.dependencies] only adds the source
    assert doc["project"]["dependencies"] == ["torch==2.11.0", "torchaudio==2.11.0"]
    assert doc["tool"]["poetry"]["source"] == [
        {
            "name": "pytorch-cu128",
            "url": "https://download.pytorch.org/whl/cu128",
            "priority": "explicit",
        }
    ]
    assert doc["tool"]["poetry"]["dependencies"] == {
        "torch": {"source": "pytorch-cu128"},
        "torchaudio": {"source": "pytorch-cu128"},
    }
    assert doc["tool"]["poetry"]["package-mode"] is False


def test_poetry_cpu_plans(matrix: Any) -> None:
    # macOS: PyPI's own torch is the CPU build; nothing to bind, no source at all
    mac = plan(("torch",), machine(None, None, os="macos", arch="aarch64"), matrix, allow_cpu=True)
    assert mac.ok, mac.unsatisfiable
    doc = tomllib.loads(emit.emit_poetry(mac))
    assert doc["project"]["dependencies"] == [mac.picks[0].requirement]
    assert doc["tool"]["poetry"] == {"package-mode": False}
    # linux with a K80: the +cpu variant lives on PyTorch's cpu index only
    k80 = plan(("torch",), machine("418.67", K80, python="3.12"), matrix, allow_cpu=True)
    assert k80.ok, k80.unsatisfiable
    assert k80.picks[0].variant == "cpu"
    doc = tomllib.loads(emit.emit_poetry(k80))
    assert doc["tool"]["poetry"]["dependencies"] == {"torch": {"source": "pytorch-cpu"}}
    assert doc["tool"]["poetry"]["source"] == [
        {
            "name": "pytorch-cpu",
            "url": "https://download.pytorch.org/whl/cpu",
            "priority": "explicit",
        }
    ]


def test_poetry_pypi_default_variant_needs_no_source(matrix: Any) -> None:
    p = plan(("torch==2.14.*", "torchvision"), machine("580.65.06", RTX5090, python="3.12"), matrix)
    assert not any(emit._uses_index(pick, p) for pick in p.picks)
    doc = tomllib.loads(emit.emit_poetry(p))
    assert doc["project"]["requires-python"] == "==3.12.*"
    assert doc["tool"]["poetry"] == {"package-mode": False}


def test_poetry_two_indexes_get_two_sources(matrix: Any) -> None:
    from dataclasses import replace

    p = plan(("torch", "torchaudio<2.12"), machine("537.13", T4, os="windows"), matrix)
    torch, audio = p.picks
    other = replace(audio, index_url="https://download.pytorch.org/whl/cu126", variant="cu126")
    two = emit.sub_plan(p, [torch, other])
    doc = tomllib.loads(emit.emit_poetry(two))
    assert doc["tool"]["poetry"]["source"] == [
        {"name": n, "url": f"https://download.pytorch.org/whl/{v}", "priority": "explicit"}
        for n, v in (("pytorch-cu128", "cu128"), ("pytorch-cu126", "cu126"))
    ]
    assert doc["tool"]["poetry"]["dependencies"] == {
        "torch": {"source": "pytorch-cu128"},
        "torchaudio": {"source": "pytorch-cu126"},
    }
    # two indexes whose URLs end alike get distinct names (uv's too)
    mirror = replace(other, index_url="https://mirror.example/whl/cu128")
    doc = tomllib.loads(emit.emit_poetry(emit.sub_plan(p, [torch, mirror])))
    assert [s["name"] for s in doc["tool"]["poetry"]["source"]] == ["pytorch-cu128", "cu128"]
    same = replace(other, index_url="https://other.example/simple/pytorch-cu128")
    uv = tomllib.loads(emit.emit_uv(emit.sub_plan(p, [torch, same])))
    assert [i["name"] for i in uv["tool"]["uv"]["index"]] == ["pytorch-cu128", "pytorch-cu128-2"]
    assert uv["tool"]["uv"]["sources"]["torchaudio"] == {"index": "pytorch-cu128-2"}


def test_poetry_find_links_page_is_a_supplemental_source(combo_matrix: Any) -> None:
    p = plan(("jax==0.4.20",), machine("525.60.13", ADA, python="3.11"), combo_matrix)
    doc = tomllib.loads(emit.emit_poetry(p))
    assert doc["project"]["dependencies"] == ["jax[cuda11_pip]==0.4.20"]
    assert doc["tool"]["poetry"]["source"] == [
        {
            "name": "jax_cuda_releases.html",
            "url": "https://storage.googleapis.com/jax-releases/jax_cuda_releases.html",
            "priority": "supplemental",
        }
    ]


@pytest.mark.real_machine
@pytest.mark.network
def test_poetry_check_and_lock_accept_the_output(matrix: Any, tmp_path: Path) -> None:
    poetry = poetry_binary()
    if poetry is None:
        pytest.skip("poetry is not installed (pip install -e '.[test]' installs it)")
    target = machine("550.54.15", ADA, python=HERE_PYTHON)
    p = plan(("torch", "torchvision"), target, matrix)
    assert p.ok, p.unsatisfiable
    assert any(emit._uses_index(pick, p) for pick in p.picks), "want a PyTorch index"
    text = emit.emit_poetry(p)
    env = _poetry_env(tmp_path)
    checked = tmp_path / "as-emitted"
    checked.mkdir()
    (checked / "pyproject.toml").write_text(text, encoding="utf-8")
    done = _poetry(poetry, ["check"], checked, env)
    assert done.returncode == 0, done.stdout + done.stderr

    # The PyTorch index serves a dependency too, newer than PyPI's: an explicit source
    # must not hand it out (a primary one would).
    default, local = _stub_indexes(
        p,
        tmp_path / "www",
        index_requires=("typing-extensions",),
        index_also=(("typing-extensions", "99.0"),),
        pypi_also=(("typing-extensions", "4.0"),),
    )
    with _serve(tmp_path / "www") as http_url:
        for url, here in local.items():
            text = text.replace(_quoted(url), _quoted(http_url(here)))
        pypi = http_url(default)
        got = _lock_with_stub_pypi(poetry, text, pypi, tmp_path, env)
    for pick in p.picks:
        entry = got[pick.package]
        if emit._uses_index(pick, p):
            assert entry["version"] == f"{pick.version}+{pick.variant}"
            assert entry["source"]["reference"] == emit.index_name(pick.index_url or "")
            assert entry["source"]["url"] == http_url(local[pick.index_url or ""]).rstrip("/")
        else:
            assert entry["version"] == pick.version
            assert entry["source"]["url"] == pypi.rstrip("/")
    assert got["typing-extensions"]["version"] == "4.0"
    assert got["typing-extensions"]["source"]["reference"] == "stub-pypi"


@pytest.mark.real_machine
@pytest.mark.network
def test_poetry_lock_takes_jaxlib_from_the_find_links_page(
    combo_matrix: Any, tmp_path: Path
) -> None:
    poetry = poetry_binary()
    if poetry is None:
        pytest.skip("poetry is not installed (pip install -e '.[test]' installs it)")
    # No Python given: no requires-python, so the poetry running here may lock it.
    p = plan(("jax==0.4.20",), machine("525.60.13", ADA), combo_matrix)
    (pick,) = p.picks
    assert pick.find_links is not None and pick.extra == "cuda11_pip"
    # jax 0.4.20's own metadata: Requires-Dist: jaxlib ==0.4.20+cuda11.cudnn86 ;
    # extra == 'cuda11_pip' (the nvidia-* wheels it also names are left out here).
    cuda_jaxlib = "0.4.20+cuda11.cudnn86"
    www = tmp_path / "www"
    extras = {"cuda11_pip": [f"jaxlib=={cuda_jaxlib}"]}
    pypi = [
        write_stub_wheel(tmp_path / "wheels", "jax", "0.4.20", extras=extras),
        write_stub_wheel(tmp_path / "wheels", "jaxlib", "0.4.20"),  # PyPI's CPU jaxlib
    ]
    default = write_simple_index(www / "pypi", pypi)
    wheel = write_stub_wheel(www / "links", "jaxlib", cuda_jaxlib)
    page = www / "links" / "jax_cuda_releases.html"
    page.write_text(f'<html><body><a href="{wheel.name}">{wheel.name}</a></body></html>\n')
    text = emit.emit_poetry(p)
    env = _poetry_env(tmp_path)
    with _serve(www) as http_url:
        page_url = http_url(page.parent.as_uri()) + page.name
        text = text.replace(_quoted(pick.find_links), _quoted(page_url))
        got = _lock_with_stub_pypi(poetry, text, http_url(default), tmp_path, env)
    assert got["jax"]["version"] == "0.4.20"
    assert got["jaxlib"]["version"] == cuda_jaxlib
    assert got["jaxlib"]["source"]["url"] == page_url
