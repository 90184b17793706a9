from __future__ import annotations

from tests.conftest import run_cli


def test_version() -> None:
    code, out, err = run_cli("--version")
    assert code == 0
    assert out.startswith("envcheck, version ")


def test_unknown_command_is_usage_error() -> None:
    code, out, err = run_cli("no-such-command")
    assert code == 2
    assert "No such command" in err
