"""Shared fixtures: a fence around the real machine, fake Systems, a CLI runner.

Matrix policy: ``matrix`` is the shipped matrix (``matrices/``), ``mini_matrix``
the real NVIDIA tables with a few hand-written builds (rule tests), and
``combo_matrix`` (tests/resolve) the shipped one with fixture rows added; a test
that needs another builds it from a temporary copy. No test reads the user's
cached or updated matrix."""

from __future__ import annotations

import ipaddress
import json
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Callable, Optional

import pytest
from click.testing import CliRunner

from envcheck.detect.system import CommandResult, System

FIXTURES = Path(__file__).parent / "fixtures"


class RealMachineTouched(BaseException):
    """A test reached the real machine without going through a fake System.

    A BaseException, so that a probe's "failure is data" handler (which catches
    Exception) cannot swallow it into a ProbeError: the test fails loudly.
    """


def _is_loopback(address: Any) -> bool:
    """Whether a socket address is on this machine (127.0.0.0/8, ::1, localhost)."""
    host = address[0] if isinstance(address, tuple) and address else address
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


E2E_ENV = "ENVCHECK_E2E"
"""Set to 1 (or pass ``--e2e``) to run the end-to-end tests marked ``e2e``."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite golden files from the current output (review the git diff).",
    )
    parser.addoption(
        "--e2e",
        action="store_true",
        default=False,
        help=f"Also run the slow end-to-end tests marked e2e (or set {E2E_ENV}=1).",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """End-to-end tests (a real tool installing envcheck into a fresh virtualenv,
    tens of seconds each) are opt-in, so the default suite stays within CI's
    budget; they are reported as skipped with the way to run them."""
    import os

    if config.getoption("--e2e") or os.environ.get(E2E_ENV) == "1":
        return
    skip = pytest.mark.skip(reason=f"end-to-end: opt in with --e2e or {E2E_ENV}=1")
    for item in items:
        if "e2e" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def fence(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any test that runs a subprocess, opens a network connection or NVML.

    Tests that must touch the real machine say so with ``@pytest.mark.real_machine``
    (subprocesses allowed) or ``@pytest.mark.network`` (loopback sockets allowed).
    """
    if "real_machine" not in request.keywords:

        def fail_on_call(*args: Any, **kwargs: Any) -> Any:
            raise RealMachineTouched(f"subprocess called: {args[:1]!r}")

        monkeypatch.setattr(subprocess, "Popen", fail_on_call)
        monkeypatch.setattr(subprocess, "run", fail_on_call)
    real_connect = socket.socket.connect
    loopback_ok = "network" in request.keywords

    def no_connect(self: socket.socket, address: Any) -> Any:
        if self.family == getattr(socket, "AF_UNIX", None):
            return real_connect(self, address)
        if loopback_ok and _is_loopback(address):
            return real_connect(self, address)
        raise RealMachineTouched(f"network connection to {address!r}")

    monkeypatch.setattr(socket.socket, "connect", no_connect)
    if "real_machine" in request.keywords:
        return  # such a test reads the real driver through NVML too
    try:
        import pynvml
    except ImportError:  # pragma: no cover - nvidia-ml-py is a dependency
        return

    def no_nvml(*args: Any, **kwargs: Any) -> Any:
        raise RealMachineTouched("pynvml.nvmlInit called on the real machine")

    monkeypatch.setattr(pynvml, "nvmlInit", no_nvml)


@pytest.fixture(autouse=True)
def _isolate_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keep tests away from the real user cache/config and colour settings."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv("ENVCHECK_DEBUG", raising=False)
    monkeypatch.delenv("ENVCHECK_MATRIX", raising=False)


class FakeRunner:
    """Replays recorded command outputs; records every call.

    ``outputs`` maps the command name (argv[0]'s basename) or the whole argv
    joined by spaces to a CommandResult or to stdout text (exit status 0).
    Unknown commands are "not found".
    """

    def __init__(self, outputs: Optional[Mapping[str, Any]] = None) -> None:
        self.outputs = dict(outputs or {})
        self.calls: list[tuple[tuple[str, ...], float]] = []

    def __call__(self, argv: Sequence[str], timeout: float) -> CommandResult:
        argv = tuple(argv)
        self.calls.append((argv, timeout))
        name = Path(argv[0]).name if argv else ""
        for key in (" ".join(argv), name, name.removesuffix(".exe")):
            if key in self.outputs:
                value = self.outputs[key]
                if isinstance(value, CommandResult):
                    return value
                return CommandResult(0, str(value), "")
        return CommandResult(None, error="not found")


@pytest.fixture
def fake_runner() -> Callable[..., FakeRunner]:
    return FakeRunner


def make_system(
    root: Path,
    env: Optional[Mapping[str, str]] = None,
    outputs: Optional[Mapping[str, Any]] = None,
    platform: str = "linux",
    machine: str = "x86_64",
    executables: Optional[Mapping[str, str]] = None,
) -> System:
    """A System over a fake root. ``executables`` maps names to machine paths."""
    exes = dict(executables or {})

    def which(name: str) -> Optional[str]:
        return exes.get(name)

    return System(
        root=root,
        env=dict(env or {}),
        run=FakeRunner(outputs),
        platform=platform,
        machine=machine,
        which=which if executables is not None else None,
    )


@pytest.fixture
def fake_system(tmp_path: Path) -> Callable[..., System]:
    """Build a System over ``tmp_path``; write files with ``write_tree``."""

    def build(**kwargs: Any) -> System:
        return make_system(tmp_path, **kwargs)

    return build


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    """Create ``files`` (machine path → text) under ``root``."""
    for rel, text in files.items():
        path = root / rel.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


class CliResult:
    def __init__(self, exit_code: int, stdout: str, stderr: str) -> None:
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr

    def json(self) -> Any:
        return json.loads(self.stdout)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.exit_code, self.stdout, self.stderr))


def entry_in_fresh_process(*args: str) -> tuple[int, bool, str]:
    """``envcheck._entry.main(args)`` in a fresh interpreter (working directory
    inherited): (exit code, whether click was imported, stdout). Proves what a
    click-free fast path imports."""
    probe = (
        f"import sys; from envcheck._entry import main; code = main({list(args)!r}); "
        "sys.stderr.write('\\n@@ %s %s' % (code, 'click' in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    head, sep, tail = proc.stderr.rpartition("\n@@ ")
    assert sep and len(tail.split()) == 2, proc.stderr
    code, clicked = tail.split()
    return int(code), clicked == "True", proc.stdout


def run_cli(
    *args: str, input: Optional[str] = None, env: Optional[Mapping[str, str]] = None
) -> CliResult:
    """Run ``envcheck ARGS`` through main() and return (exit_code, stdout, stderr).

    Hides the click 8.1/8.2 difference: 8.1 mixes stderr into output unless
    ``mix_stderr=False``; 8.2 removed the parameter and always separates them.
    """
    from envcheck.cli import main

    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    codes: list[int] = []

    def entry() -> None:
        codes.append(main(list(args)))

    import click

    cmd = click.Command("envcheck", callback=entry)
    result = runner.invoke(cmd, [], input=input, env=dict(env or {}), catch_exceptions=False)
    return CliResult(codes[0] if codes else result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str, str], None]:
    """Compare text with tests/fixtures/golden/NAME; --update-golden rewrites it."""
    update = request.config.getoption("--update-golden")

    def check(name: str, actual: str) -> None:
        path = FIXTURES / "golden" / name
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8")
            return
        assert path.exists(), f"missing golden file {path}; run pytest --update-golden"
        assert actual == path.read_text(encoding="utf-8")

    return check


@pytest.fixture(scope="session")
def matrix() -> Any:
    """The matrix shipped in the repository (never a cached or updated one): what
    every test of a shipped fact or command judges against."""
    from envcheck.matrix import bundled_dir, load_matrix_from

    return load_matrix_from(bundled_dir())


@pytest.fixture(scope="session")
def mini_matrix() -> Any:
    """Real NVIDIA tables plus a few hand-written framework builds (rule tests)."""
    from envcheck.matrix import load_matrix_from

    return load_matrix_from(FIXTURES / "matrix-mini")


def with_unconfirmed_paddle(matrix: Any) -> tuple[Any, Any]:
    """(matrix, build): the given matrix plus paddlepaddle-gpu 9.9.0, a copy of the
    2.6.2 PyPI build whose compiled architectures are not known (as for a release read
    from an install page but never from its wheels)."""
    from dataclasses import replace

    base = next(
        b
        for b in matrix.framework_builds("paddle")
        if "2.6.2" in b.versions and b.pypi_default and b.archs
    )
    newer = replace(base, versions=("9.9.0",), archs=None, ptx=None, pypi_default=False)
    builds = dict(matrix.builds)
    builds["paddle"] = (*builds["paddle"], newer)
    return replace(matrix, builds=builds), newer
