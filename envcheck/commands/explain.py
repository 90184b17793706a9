"""`envcheck explain`: recognise a pasted CUDA/cuDNN/driver error and name its cause."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from envcheck.cli_options import json_option, redact_option, snapshot_option
from envcheck.commands._common import Obj, detect_snapshot
from envcheck.errors import ExitCode, InputError

_MAX_INLINE_PATH = 4096


@click.command()
@click.argument("text", nargs=-1, required=True, metavar="TEXT|FILE|-")
@snapshot_option
@click.option(
    "--from-collect-env",
    "collect_env_file",
    metavar="FILE",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Use the machine described by `python -m torch.utils.collect_env` output.",
)
@click.option(
    "--no-detect",
    is_flag=True,
    help="Do not inspect this machine; explain the text alone.",
)
@json_option
@redact_option
@click.pass_obj
def explain(
    obj: Obj,
    text: tuple[str, ...],
    snapshot_file: Optional[str],
    collect_env_file: Optional[str],
    no_detect: bool,
    as_json: bool,
    redact: bool = False,
) -> int:
    """Explain a CUDA / cuDNN / driver / NVML error message or log.

    TEXT is a file holding the log, `-` to read standard input, or the error text
    itself. Every known error signature in it is listed with its cause and fix;
    with a snapshot (this machine by default, --snapshot FILE, or a user's
    collect_env report with --from-collect-env FILE) envcheck also
    names the concrete root cause, e.g. the driver version against the CUDA the
    installed PyTorch needs.

    \b
    Exit codes: 0 nothing recognised as an error (including "nothing recognised",
    which is not an all-clear); 1 at least one error signature recognised;
    2 usage error or unreadable input.
    """
    given = [
        o for o, v in (("--snapshot", snapshot_file), ("--from-collect-env", collect_env_file)) if v
    ]
    if no_detect:
        given.append("--no-detect")
    if len(given) > 1:
        raise click.UsageError(f"{' and '.join(given)} cannot be used together")
    content, _origin = _read_input(text)

    from envcheck.explain import explain as run_explain

    snapshot = None
    matrix = None
    if not no_detect:
        if snapshot_file is not None:
            from envcheck.snapshot_io import read_snapshot

            snapshot = read_snapshot(snapshot_file)
        elif collect_env_file is not None:
            from envcheck.collect_env import parse_collect_env
            from envcheck.inputs import LIMITS
            from envcheck.textfile import read_text_file

            report_text = read_text_file(
                collect_env_file, "collect_env output", LIMITS["collect_env"]
            )
            snapshot = parse_collect_env(report_text, collect_env_file)
        else:
            snapshot = detect_snapshot(obj, None)
    from envcheck.matrix import load_matrix

    # Also with --no-detect: the message's own facts (a pip command, a Python
    # banner) are judged against the matrix.
    matrix = load_matrix()
    policy = None
    if redact:
        from envcheck.redact import local_policy
        from envcheck.snapshot_io import redact_snapshot

        policy = local_policy().learn([content])
        if snapshot is not None:
            policy = policy.learn([], snapshot.env)
            snapshot = redact_snapshot(snapshot, policy=policy)
        content = policy.text(content)
    report = run_explain(content, snapshot, matrix)

    if as_json:
        import json

        doc = report.to_json() if policy is None else policy.json(report.to_json())
        click.echo(json.dumps(doc, indent=2))
    else:
        from envcheck.explain.render import render_explain_text
        from envcheck.render.console import make_console

        render_explain_text(report, make_console(obj.color))
    return ExitCode.PROBLEMS if report.failed() else ExitCode.OK


def _read_input(parts: tuple[str, ...]) -> tuple[str, str]:
    """The text to explain and where it came from (a path, stdin or the argument)."""
    from envcheck.textfile import read_text_file

    if parts and not "".join(parts).strip():
        # Path("") is the current directory: the argument is empty, not a directory.
        raise InputError(
            None, None, "the argument is empty: give the error text, a log file, or - for stdin"
        )
    if len(parts) == 1:
        arg = parts[0]
        if arg == "-":
            return read_text_file("-", "input"), "<stdin>"
        if _looks_like_path(arg):
            path = Path(arg)
            if _exists(path) or not _has_error_words(arg):
                return read_text_file(arg, "input file"), arg
    joined = " ".join(parts)
    if not joined.strip():
        raise InputError(None, None, "no error text given")
    return joined, "<argument>"


def _looks_like_path(arg: str) -> bool:
    return (
        len(arg) < _MAX_INLINE_PATH
        and "\n" not in arg
        and (not any(ch.isspace() for ch in arg) or _exists(Path(arg)))
    )


def _exists(path: Path) -> bool:
    """Whether ``path`` names a file or folder. An error message is no path: a line
    over the file-name limit raises ENAMETOOLONG and a NUL byte ValueError."""
    try:
        return path.is_file() or path.is_dir()
    except (OSError, ValueError):
        return False


def _has_error_words(arg: str) -> bool:
    """A one-word argument such as CUDNN_STATUS_NOT_INITIALIZED is text, not a path."""
    return "/" not in arg and "\\" not in arg and not arg.endswith((".txt", ".log", ".out"))
