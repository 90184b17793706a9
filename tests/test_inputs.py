"""The input gate (issue 16 item 1): every reader is bounded in size, depth,
digits and alias expansion, never blocks on a FIFO, and reads what PowerShell
writes. Each violation is one ``file:line: message`` line, exit 2 (or an EC001
problem in ``check``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from envcheck import inputs
from envcheck.errors import InputError
from envcheck.snapshot_io import parse_snapshot_text, read_snapshot
from tests.conftest import run_cli

MINI = Path(__file__).parent / "fixtures" / "matrix-mini"
SNAPSHOT = {
    "schema": "envcheck.snapshot/1",
    "platform": {"os": "linux", "arch": "x86_64"},
    "python": {"version": "3.11.9"},
    "driver": {"version": "550.54.14", "cuda_version": "12.4"},
    "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
}
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def bounded(fn: Callable[[], Any], seconds: float = 10.0) -> Any:
    """Run ``fn`` in a daemon thread; fail (instead of hanging) past ``seconds``."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"blocked for more than {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err and "internal error" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    for needle in needles:
        assert needle in err, err


# ------------------------------------------------------------------ file kinds


@needs_fifo
def test_a_fifo_snapshot_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "snap.json"
    os.mkfifo(fifo)
    code, _, err = bounded(lambda: run_cli("doctor", "--snapshot", str(fifo)))
    one_line_error(code, err, "snap.json", "FIFO")


@needs_fifo
def test_a_fifo_dependency_file_is_an_ec001_problem(tmp_path: Path) -> None:
    fifo = tmp_path / "requirements.txt"
    os.mkfifo(fifo)
    code, out, err = bounded(lambda: run_cli("check", str(fifo)))
    assert code == 2, out + err
    assert "EC001" in out + err and "FIFO" in out + err


@needs_fifo
def test_a_fifo_for_explain_and_collect_env_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "log.txt"
    os.mkfifo(fifo)
    code, _, err = bounded(lambda: run_cli("doctor", "--from-collect-env", str(fifo)))
    one_line_error(code, err, "FIFO")
    with pytest.raises(InputError, match="FIFO"):
        bounded(lambda: inputs.read_text(fifo, "input file"))


@needs_fifo
def test_a_fifo_at_the_compiled_cache_path_is_ignored(tmp_path: Path) -> None:
    from envcheck.matrix import cache as mcache
    from envcheck.matrix import clear_cache

    directory = tmp_path / "m"
    shutil.copytree(MINI, directory)
    clear_cache()
    path = mcache.cache_file(directory)
    assert path is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    matrix = bounded(lambda: mcache.load_compiled(directory))
    assert matrix.gpus
    clear_cache()


@needs_fifo
def test_a_fifo_in_the_matrix_directory_is_refused(tmp_path: Path) -> None:
    from envcheck.matrix import cache as mcache
    from envcheck.matrix import clear_cache, load_matrix_from

    directory = tmp_path / "m"
    shutil.copytree(MINI, directory)
    (directory / "gpus.toml").unlink()
    os.mkfifo(directory / "gpus.toml")
    clear_cache()
    with pytest.raises(InputError, match="FIFO"):
        bounded(lambda: load_matrix_from(directory))
    with pytest.raises(InputError, match="FIFO"):
        bounded(lambda: mcache.load_compiled(directory))
    clear_cache()


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_is_refused_without_reading_it() -> None:
    code, _, err = bounded(lambda: run_cli("doctor", "--snapshot", "/dev/zero"))
    one_line_error(code, err, "/dev/zero", "device")


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        inputs.read_text(tmp_path, "snapshot file")
    code, _, err = run_cli("doctor", "--from-collect-env", str(tmp_path))
    assert code == 2 and "directory" in err, err


def test_size_cap_per_format(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * (inputs.LIMITS["collect_env"] + 1))
    code, _, err = run_cli("doctor", "--from-collect-env", str(big))
    one_line_error(code, err, "larger than 4 MiB")


# ------------------------------------------------------------------ encodings


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-be", "utf-32"])
def test_powershell_encodings_are_read(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "snap.json"
    text = json.dumps(SNAPSHOT, indent=1)
    data = text.encode(encoding)
    if encoding == "utf-16-be":  # no BOM from the codec itself
        data = b"\xfe\xff" + data
    path.write_bytes(data)
    assert read_snapshot(str(path)).gpus[0].name == "NVIDIA GeForce RTX 4090"


def test_powershell_redirected_requirements_are_checked(tmp_path: Path) -> None:
    req = tmp_path / "requirements.txt"
    req.write_bytes("torch==2.4.0\r\n".encode("utf-16"))  # what `>` writes in PowerShell 5.1
    code, out, err = run_cli("check", str(req))
    assert "EC001" not in out + err, out + err
    assert code in (0, 1)


def test_invalid_utf16_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_bytes(b"\xff\xfe" + "a\nb\n".encode("utf-16-le") + b"\x00\xd8")  # lone surrogate
    with pytest.raises(InputError) as info:
        inputs.read_text(path)
    assert info.value.line == 3


def test_utf8_without_bom_with_nul_is_binary(tmp_path: Path) -> None:
    path = tmp_path / "r.txt"
    path.write_bytes(b"torch\x00==1")
    with pytest.raises(InputError, match="binary"):
        inputs.read_text(path)


# ------------------------------------------------------------------ nesting and digits


def test_json_nested_200000_deep_is_one_line() -> None:
    text = "[" * 200_000 + "]" * 200_000
    with pytest.raises(InputError, match="nested more than") as info:
        parse_snapshot_text(text, "deep.json")
    assert info.value.line == 1


def test_json_brackets_inside_strings_do_not_count() -> None:
    value = inputs.parse_json(json.dumps({"a": "[" * 1000}), "x.json")
    assert value == {"a": "[" * 1000}


@pytest.mark.parametrize("where", ["driver", "env", "gpus"])
def test_a_5000_digit_integer_in_a_snapshot(tmp_path: Path, where: str) -> None:
    huge = "9" * 5000
    text = json.dumps(SNAPSHOT)
    if where == "driver":
        text = text.replace('"550.54.14"', huge)
    elif where == "env":
        text = text[:-1] + ', "env": {"X": ' + huge + "}}"
    else:
        text = text.replace('"index": 0', f'"index": {huge}')
    path = tmp_path / "snap.json"
    path.write_text(text)
    code, _, err = run_cli("doctor", "--snapshot", str(path))
    one_line_error(code, err, "snap.json:1:", "digits")


def test_a_5000_digit_integer_in_a_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\nversion = "1"\ndependencies = ["torch==2.4.0"]\n'
        f"[tool.x]\nn = {'1' * 5000}\n"
    )
    code, out, err = run_cli("check", str(tmp_path / "pyproject.toml"))
    assert code == 2, out + err
    assert "pyproject.toml:6: EC001" in out and "digits" in out, out + err
    assert "Traceback" not in out + err


def test_a_5000_digit_integer_in_a_pixi_toml(tmp_path: Path) -> None:
    (tmp_path / "pixi.toml").write_text(f"[dependencies]\npytorch = {'1_000' * 1000}\n")
    code, out, err = run_cli("check", str(tmp_path / "pixi.toml"))
    assert code == 2 and "EC001" in out and "digits" in out, out + err


def test_a_5000_digit_integer_in_a_matrix_file(tmp_path: Path) -> None:
    from envcheck.matrix import load_matrix_from

    directory = tmp_path / "m"
    shutil.copytree(MINI, directory)
    path = directory / "gpus.toml"
    path.write_text(path.read_text() + f"\nextra = {'7' * 5000}\n")
    with pytest.raises(InputError, match="digits") as info:
        load_matrix_from(directory)
    assert info.value.path == str(path)


def test_toml_arrays_nested_1000_deep(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\nversion = "1"\n'
        "dependencies = ['torch']\n"
        f"[tool.x]\nn = {'[' * 1000}{']' * 1000}\n"
    )
    code, out, err = run_cli("check", str(tmp_path / "pyproject.toml"))
    assert code == 2, out + err
    assert "pyproject.toml:6: EC001 invalid TOML: nested more than" in out, out + err


def test_toml_brackets_in_strings_and_comments_do_not_count() -> None:
    deep = "[" * 200
    text = f'a = "{deep}"\nb = \'{deep}\'\n# {deep}\nc = """\n{deep}\n"""\nd = [[1], [2]]\n'
    assert inputs.parse_toml(text, "x.toml")["d"] == [[1], [2]]


# ------------------------------------------------------------------ YAML


@pytest.mark.real_machine
def test_environment_yml_nested_25000_deep_does_not_crash(tmp_path: Path) -> None:
    """Before the gate, PyYAML's C composer recursed until the process died (139)."""
    env = tmp_path / "environment.yml"
    env.write_text("name: x\ndependencies:\n  - " + "[" * 25_000 + "]" * 25_000 + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "envcheck", "check", str(env)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "environment.yml:3: EC001 invalid YAML: nested more than" in proc.stdout + proc.stderr


def test_yaml_flow_gate_runs_before_the_yaml_library(monkeypatch: pytest.MonkeyPatch) -> None:
    """The flow-nesting bound is envcheck's, read from the text: no YAML loader is
    built for a file it refuses (libyaml's own limit and wording vary by release)."""
    import yaml

    def no_loader(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the YAML library was reached")

    monkeypatch.setattr(yaml, "CSafeLoader", no_loader, raising=False)
    monkeypatch.setattr(yaml, "SafeLoader", no_loader)
    text = "a: 1\nb: '[[[['\n# [[[[\nc:\n  - " + "[" * 65 + "]" * 65 + "\n"
    with pytest.raises(InputError) as info:
        inputs.compose_yaml(text, "deep.yml")
    assert (info.value.path, info.value.line) == ("deep.yml", 5)
    # brackets in quoted scalars and comments do not count
    ok = "a: '" + "[" * 100 + "'\nb: \"" + "{" * 100 + '"\n# ' + "[" * 100 + "\n"
    inputs.check_yaml_flow_depth(ok, "ok.yml")


def test_yaml_block_nesting_is_bounded() -> None:
    text = "".join("  " * i + f"k{i}:\n" for i in range(200)) + "  " * 200 + "v\n"
    with pytest.raises(InputError, match="nested more than"):
        inputs.compose_yaml(text, "deep.yml")


def _billion_laughs(levels: int = 9) -> str:
    lines = ["a0: &a0 [torch==1.0, torch==1.0, torch==1.0]"]
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * 6)
        lines.append(f"a{i}: &a{i} [{refs}]")
    lines.append(f"dependencies: *a{levels - 1}")
    return "\n".join(lines) + "\n"


def test_yaml_alias_amplification_is_refused(tmp_path: Path) -> None:
    text = _billion_laughs()
    assert len(text) < 24_000
    env = tmp_path / "environment.yml"
    env.write_text("name: x\n" + text)
    start = time.monotonic()
    code, out, err = bounded(lambda: run_cli("check", str(env)), 30)
    assert time.monotonic() - start < 10
    assert code == 2, out + err
    assert "EC001" in out and "aliases" in out, out + err


def test_yaml_with_a_few_aliases_still_parses() -> None:
    text = "base: &b [numpy, scipy]\ndependencies:\n  - python=3.11\n  - pip:\n    - torch\nx: *b\n"
    root = inputs.compose_yaml(text, "environment.yml")
    assert root is not None


def test_yaml_syntax_error_names_the_line() -> None:
    with pytest.raises(InputError) as info:
        inputs.compose_yaml("a: 1\nb: [\n", "e.yml")
    assert info.value.path == "e.yml"
    assert info.value.line is not None


def test_a_5000_digit_plan_version_is_one_line() -> None:
    code, _, err = run_cli(
        "plan",
        "torch==" + "1" * 5000,
        "--driver",
        "550.54.14",
        "--gpu",
        "RTX 4090",
        "--os",
        "linux",
    )
    one_line_error(code, err, "digits")


def test_a_5000_digit_version_in_requirements_is_an_ec001(tmp_path: Path) -> None:
    req = tmp_path / "requirements.txt"
    req.write_text("numpy\ntorch==" + "9" * 5000 + "\n")
    code, out, err = run_cli("check", str(req))
    assert code == 2, out + err
    assert "requirements.txt:2: EC001" in out and "digits" in out, out + err
    assert "internal error" not in err


@pytest.mark.parametrize("line", ["-r {}.txt", "./{}", "-c {}.txt"])
def test_an_include_with_a_300_character_name(tmp_path: Path, line: str) -> None:
    req = tmp_path / "requirements.txt"
    req.write_text(line.format("a" * 300) + "\ntorch\n")
    code, out, err = run_cli("check", str(req))
    assert code in (0, 1, 2), out + err
    assert "internal error" not in err and "Traceback" not in err, err


@needs_fifo
def test_a_fifo_include_is_an_ec001_not_a_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "more.txt")
    req = tmp_path / "requirements.txt"
    req.write_text("-r more.txt\ntorch\n")
    code, out, err = bounded(lambda: run_cli("check", str(req)))
    assert code == 2, out + err
    assert "more.txt: EC001" in out and "FIFO" in out, out + err


def test_the_fast_json_depth_scan_agrees_with_the_exact_one() -> None:
    """The C-speed skeleton scan decides exactly like the token scan on JSON."""
    import random

    rng = random.Random(2)

    def text() -> str:
        return "".join(rng.choice('[]{}"\\a\n') for _ in range(rng.randint(0, 6)))

    def gen(depth: int) -> Any:
        r = rng.random()
        if depth > 9 or r < 0.3:
            return text()
        if r < 0.65:
            return [gen(depth + 1) for _ in range(rng.randint(0, 3))]
        return {text(): gen(depth + 1) for _ in range(rng.randint(0, 3))}

    def refused(check: Callable[[], None]) -> bool:
        try:
            check()
        except InputError:
            return True
        return False

    deep = 0
    for _ in range(3000):
        doc = json.dumps(gen(0))
        exact = refused(lambda: inputs._check_depth(doc, "x", inputs._JSON_TOKENS, 6, "JSON"))  # noqa: B023
        fast = refused(lambda: inputs.check_json_depth(doc, "x", 6))  # noqa: B023
        assert exact == fast, doc
        deep += exact
    assert deep > 100


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        # Found by the fuzz run on the lent H100 (another Hypothesis version drew it): a
        # 100 KB string value cost the TOML nesting scan 12 MB, one regex backtracking
        # frame per character.
        (inputs.parse_toml, '[a]\nlabel = "' + "a" * 100_000 + '"\n' + "[b]\n" * 70),
        (inputs.parse_json, "[" * 70 + '"' + "a\\n" * 50_000 + '"' + "]" * 70),
    ],
    ids=["toml", "json"],
)
def test_the_nesting_scan_skips_long_strings_in_constant_memory(
    parse: Callable[..., Any], text: str
) -> None:
    import contextlib
    import tracemalloc

    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        with contextlib.suppress(InputError):  # the JSON one nests too deep: refused
            parse(text, "input")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - base < 2 * 1024 * 1024, f"{(peak - base) / 2**20:.1f} MiB"
