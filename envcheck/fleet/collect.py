"""Collectors: Slurm (srun), plain hosts (ssh), Kubernetes pod logs -> fleet records.

Every collector runs the engine the site already has and turns its output into
fleet records (``records.make_record``); nothing stays running on the nodes.
Command construction and output parsing are pure functions, tested on recorded
output; ``run_bounded`` is the one place that starts a process: argv lists (no
shell), a time limit, its own process group killed on timeout.

Which node answered: on Slurm and Kubernetes each task runs
``python -m envcheck fleet node``, which is ``envcheck detect --json`` wrapped in
one record line carrying the node name (``ENVCHECK_NODE_NAME``, else Slurm's
``SLURMD_NODENAME``, else the host name) and the job id (``SLURM_JOB_ID``). A
task whose output is no record (a bare ``detect --json``, a traceback) is named
from srun's ``--label`` task number and srun's own error lines
(``srun: error: NODE: task N: ...``), or from the pod name of ``kubectl logs
--prefix``.
"""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any, Callable, Optional

from envcheck.detect.system import group_kwargs, kill_tree
from envcheck.fleet.records import (
    FAILED,
    FLEET_PREFIX,
    OK,
    UNREACHABLE,
    describe_garbage,
    make_record,
)

NODE_ENV = ("ENVCHECK_NODE_NAME", "SLURMD_NODENAME")
JOB_ENV = ("ENVCHECK_JOB_ID", "SLURM_JOB_ID")
KILL_GRACE = 5.0

_SRUN_LABEL = re.compile(r"^\s*(\d+): ?(.*)$")
_KUBECTL_PREFIX = re.compile(r"^\[([^\]\s]+)\] ?(.*)$")
_SRUN_TASK_ERROR = re.compile(r"^srun: error: ([^\s:]+): tasks? ([\d,\-]+): (.*)$")
_SRUN_JOB = re.compile(r"^srun: (?:job|jobid|job step) ?(\d+)[ .:]")


@dataclass(frozen=True)
class Completed:
    """What a bounded command did: exit status (None after a timeout) and output."""

    returncode: Optional[int]
    stdout: str
    stderr: str
    timed_out: bool = False
    error: Optional[str] = None
    """Why it could not start (program not found), if it did not."""


def run_bounded(
    argv: Sequence[str],
    timeout: float,
    env: Optional[dict[str, str]] = None,
    on_stdout: Optional[Callable[[str], None]] = None,
) -> Completed:
    """Run ``argv`` (no shell) with a time limit; on timeout kill its whole process
    group (SIGTERM, then SIGKILL) and keep what it printed so far.

    ``on_stdout`` is called with each line of standard output as it arrives (for
    progress); without it the output is read at the end."""
    try:
        proc = subprocess.Popen(  # noqa: S603 - argv list, no shell
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            **group_kwargs(),  # its own process group (POSIX session, Windows group)
        )
    except OSError as exc:
        return Completed(None, "", "", error=f"cannot run {argv[0]}: {exc.strerror or exc}")
    if on_stdout is not None:
        return _run_streaming(proc, timeout, on_stdout)
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc, signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=KILL_GRACE)
        except subprocess.TimeoutExpired:
            _kill_group(proc, signal.SIGKILL)
            out, err = proc.communicate()
    return Completed(
        None if timed_out else proc.returncode,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
        timed_out=timed_out,
    )


def _run_streaming(
    proc: subprocess.Popen[bytes], timeout: float, on_stdout: Callable[[str], None]
) -> Completed:
    """``run_bounded`` reading both pipes in threads, stdout line by line."""
    out: list[bytes] = []
    err: list[bytes] = []

    def pump(stream: Optional[IO[bytes]], sink: list[bytes], tell: bool) -> None:
        if stream is None:  # pragma: no cover - both pipes are always set above
            return
        with stream:
            for line in iter(stream.readline, b""):
                sink.append(line)
                if tell:
                    on_stdout(line.decode("utf-8", "replace"))

    readers = [
        threading.Thread(target=pump, args=(proc.stdout, out, True), daemon=True),
        threading.Thread(target=pump, args=(proc.stderr, err, False), daemon=True),
    ]
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc, signal.SIGTERM)
        try:
            proc.wait(timeout=KILL_GRACE)
        except subprocess.TimeoutExpired:
            _kill_group(proc, signal.SIGKILL)
            proc.wait()
    for reader in readers:
        # a grandchild that left the group may hold a pipe open: do not wait for it
        reader.join(timeout=KILL_GRACE)
    return Completed(
        None if timed_out else proc.returncode,
        b"".join(out).decode("utf-8", "replace"),
        b"".join(err).decode("utf-8", "replace"),
        timed_out=timed_out,
    )


def _kill_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    """``sig`` to the process group (POSIX); the process tree on Windows, where
    ``os.killpg`` does not exist (``taskkill /T /F``)."""
    kill_tree(proc, sig)


# ---------------------------------------------------------------- answers


def split_labelled(text: str, pattern: re.Pattern[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Lines grouped by their label (srun ``N: `` or kubectl ``[pod/x/c] ``), in
    order, plus the lines that carry no label."""
    groups: dict[str, list[str]] = {}
    loose: list[str] = []
    for line in text.splitlines():
        m = pattern.match(line)
        if m:
            groups.setdefault(m.group(1), []).append(m.group(2))
        elif line.strip():
            loose.append(line)
    return groups, loose


def srun_task_of(line: str) -> Optional[str]:
    """The task number srun's ``--label`` put before ``line``; None for none."""
    m = _SRUN_LABEL.match(line)
    return m.group(1) if m else None


def answer_from_lines(lines: Sequence[str]) -> Optional[dict[str, Any]]:
    """The record or bare snapshot in one task's output lines, or None.

    srun --label cuts long lines into pieces of its I/O buffer and labels each
    piece as a line of its own (recorded in tests/fleet/recorded/), so the
    pieces are first joined as they were printed, without newlines."""
    text = "\n".join(lines).strip()
    if not text:
        return None
    candidates = ["".join(lines).strip(), text]
    candidates += [ln.strip() for ln in lines if ln.strip().startswith("{")]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    return None


def to_record(
    value: Optional[dict[str, Any]],
    node: str,
    *,
    output: str = "",
    job_id: Optional[str] = None,
    collector: str,
    error: Optional[str] = None,
    force_node: bool = False,
) -> dict[str, Any]:
    """A fleet record from a task's answer: a record is kept (its node name too,
    unless ``force_node``), a bare snapshot is wrapped, anything else fails."""
    if isinstance(value, dict):
        schema = value.get("schema")
        if isinstance(schema, str) and schema.startswith(FLEET_PREFIX):
            rec = dict(value)
            if force_node or not rec.get("node"):
                rec["node"] = node
            if job_id is not None and not rec.get("job_id"):
                rec["job_id"] = job_id
            rec.setdefault("collector", collector)
            return rec
        return make_record(node, snapshot=value, job_id=job_id, collector=collector)
    why = error or describe_garbage(output)
    return make_record(
        node, status=FAILED, job_id=job_id, error=why, output=output, collector=collector
    )


# ---------------------------------------------------------------- Slurm


def srun_argv(
    *,
    python: str = "python3",
    partition: Optional[str] = None,
    nodes: Optional[int] = None,
    nodelist: Optional[str] = None,
    time_limit_min: Optional[int] = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """The srun command: one task per node, a failing node does not kill the step,
    every output line labelled with its task number."""
    argv = ["srun"]
    if nodes is not None:
        argv.append(f"--nodes={nodes}")
    if nodelist:
        argv.append(f"--nodelist={nodelist}")
    argv += ["--ntasks-per-node=1", "--kill-on-bad-exit=0", "--label", "--job-name=envcheck-fleet"]
    if partition:
        argv.append(f"--partition={partition}")
    if time_limit_min is not None:
        argv.append(f"--time={time_limit_min}")
    argv += list(extra)
    argv += [python, "-m", "envcheck", "fleet", "node"]
    return argv


def parse_srun_stderr(stderr: str) -> tuple[dict[str, str], dict[str, str], Optional[str]]:
    """(task -> node, task -> error, job id) from srun's own messages."""
    task_node: dict[str, str] = {}
    task_error: dict[str, str] = {}
    job_id = None
    for line in stderr.splitlines():
        line = line.strip()
        m = _SRUN_TASK_ERROR.match(line)
        if m:
            for task in _expand_tasks(m.group(2)):
                task_node[task] = m.group(1)
                task_error[task] = m.group(3).strip()
            continue
        j = _SRUN_JOB.match(line)
        if j and job_id is None:
            job_id = j.group(1)
    return task_node, task_error, job_id


def _expand_tasks(text: str) -> list[str]:
    out: list[str] = []
    for part in text.split(","):
        if "-" in part:
            lo, _, hi = part.partition("-")
            if lo.isdigit() and hi.isdigit() and int(hi) - int(lo) < 100000:
                out.extend(str(i) for i in range(int(lo), int(hi) + 1))
        elif part.isdigit():
            out.append(part)
    return out


def slurm_records(
    result: Completed,
    *,
    expected_nodes: Sequence[str] = (),
    expected_tasks: Optional[int] = None,
    timeout: Optional[float] = None,
) -> list[dict[str, Any]]:
    """Fleet records from one srun run: one per task that answered, one
    ``unreachable`` per expected node or task that did not."""
    out_groups, _ = split_labelled(result.stdout, _SRUN_LABEL)
    err_groups, err_loose = split_labelled(result.stderr, _SRUN_LABEL)
    task_node, task_error, job_id = parse_srun_stderr("\n".join(err_loose))
    records: list[dict[str, Any]] = []
    answered: set[str] = set()
    tasks = sorted(set(out_groups) | set(err_groups) | set(task_error), key=int)
    for task in tasks:
        lines = out_groups.get(task, [])
        value = answer_from_lines(lines)
        node = task_node.get(task) or f"task{task}"
        if isinstance(value, dict) and isinstance(value.get("node"), str):
            node = value["node"]
        output = "\n".join(lines + err_groups.get(task, []))
        error = None
        if value is None:
            error = describe_garbage(output)
            if task in task_error:
                error = f"{task_error[task]}; {error}"
        rec = to_record(value, node, output=output, job_id=job_id, collector="slurm", error=error)
        records.append(rec)
        answered.add(str(rec["node"]))
        answered.add(f"task{task}")
    why = "no answer"
    if result.timed_out:
        why = f"no answer within {timeout:g} s" if timeout else "no answer before the time limit"
    elif result.error:
        why = result.error
    elif err_loose:
        why = f"no answer; srun: {err_loose[-1].strip()[:300]}"
    for node in expected_nodes:
        if node not in answered:
            records.append(
                make_record(node, status=UNREACHABLE, job_id=job_id, error=why, collector="slurm")
            )
    if expected_tasks is not None and not expected_nodes:
        for t in range(expected_tasks):
            if f"task{t}" not in answered and str(t) not in task_node:
                records.append(
                    make_record(
                        f"task{t}", status=UNREACHABLE, job_id=job_id, error=why, collector="slurm"
                    )
                )
    return records


def plain_nodelist(nodelist: str) -> list[str]:
    """The nodes of a comma-separated list without Slurm ranges (``a,b``); [] for
    a hostlist expression (``gpu[01-04]``), which only ``scontrol`` expands."""
    if "[" in nodelist:
        return []
    return [n.strip() for n in nodelist.split(",") if n.strip()]


def scontrol_hostnames_argv(nodelist: str) -> list[str]:
    return ["scontrol", "show", "hostnames", nodelist]


# ---------------------------------------------------------------- ssh


@dataclass(frozen=True)
class Host:
    name: str
    destination: str
    python: str = "python3"


def parse_inventory(text: str, path: str = "<inventory>") -> tuple[list[Host], list[str]]:
    """Hosts of an inventory file: one ``DESTINATION [name=NAME] [python=PATH]``
    per line (``[user@]host`` or ``ssh://[user@]host[:port]``), ``#`` comments.
    Returns (hosts, problems)."""
    hosts: list[Host] = []
    problems: list[str] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        dest = words[0]
        if dest.startswith("-") or not re.fullmatch(r"[A-Za-z0-9_.@:/\[\]%-]+", dest):
            problems.append(f"{path}:{number}: not a host: {dest!r}")
            continue
        opts: dict[str, str] = {}
        for w in words[1:]:
            key, eq, value = w.partition("=")
            if not eq or key not in ("name", "python") or not value:
                problems.append(f"{path}:{number}: unknown setting {w!r} (name=, python=)")
                continue
            opts[key] = value
        name = opts.get("name") or dest.removeprefix("ssh://").rsplit("@", 1)[-1]
        if name in seen:
            problems.append(f"{path}:{number}: {name} is listed twice")
            continue
        seen.add(name)
        hosts.append(Host(name, dest, opts.get("python", "python3")))
    return hosts, problems


def ssh_argv(host: Host, connect_timeout: int = 10, options: Sequence[str] = ()) -> list[str]:
    """``ssh`` that never prompts: BatchMode, a connect timeout, keep-alives, then
    any ``options`` (``-o`` values); the remote command is ``envcheck detect
    --json`` through the host's Python."""
    remote = " ".join(shlex.quote(w) for w in (host.python, "-m", "envcheck", "detect", "--json"))
    argv = [
        "ssh",
        "-o",
        "BatchMode=yes",
        "-o",
        f"ConnectTimeout={connect_timeout}",
        "-o",
        "ServerAliveInterval=10",
        "-o",
        "ServerAliveCountMax=3",
    ]
    for opt in options:
        argv += ["-o", opt]
    return [*argv, "-T", "--", host.destination, remote]


def ssh_record(host: Host, result: Completed, timeout: float) -> dict[str, Any]:
    """The record of one host from its ssh run (exit 255: ssh could not connect)."""
    if result.error:
        return make_record(host.name, status=UNREACHABLE, error=result.error, collector="ssh")
    if result.timed_out:
        return make_record(
            host.name, status=UNREACHABLE, error=f"no answer within {timeout:g} s", collector="ssh"
        )
    if result.returncode == 255:
        last = (result.stderr.strip().splitlines() or ["ssh failed"])[-1]
        # ssh's own messages start with "ssh: " (ssh: connect to host ...): once is enough.
        last = last.removeprefix("ssh: ")
        return make_record(
            host.name, status=UNREACHABLE, error=f"ssh: {last[:300]}", collector="ssh"
        )
    value = answer_from_lines(result.stdout.splitlines())
    error = None
    if value is None:
        error = f"exit {result.returncode}; " + describe_garbage(
            result.stdout + "\n" + result.stderr
        )
    return to_record(
        value,
        host.name,
        output=result.stdout + result.stderr,
        collector="ssh",
        error=error,
        force_node=True,
    )


def collect_ssh(
    hosts: Sequence[Host],
    *,
    jobs: int = 8,
    timeout: float = 120,
    connect_timeout: int = 10,
    options: Sequence[str] = (),
    on_record: Optional[Callable[[dict[str, Any]], None]] = None,
) -> Iterable[dict[str, Any]]:
    """Run ssh on every host, at most ``jobs`` at a time; records in inventory order.

    ``on_record`` is called with each record as its host finishes (for progress),
    from the worker thread that ran it."""
    from concurrent.futures import ThreadPoolExecutor

    def one(host: Host) -> dict[str, Any]:
        argv = ssh_argv(host, connect_timeout, options)
        rec = ssh_record(host, run_bounded(argv, timeout), timeout)
        if on_record is not None:
            on_record(rec)
        return rec

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        yield from pool.map(one, hosts)


# ---------------------------------------------------------------- Kubernetes logs


def records_from_kubectl_logs(text: str) -> list[dict[str, Any]]:
    """Records from ``kubectl logs -l ... --prefix`` output (lines of many pods,
    interleaved, some cut short). Without ``--prefix`` each JSON line stands alone."""
    groups, loose = split_labelled(text, _KUBECTL_PREFIX)
    records: list[dict[str, Any]] = []
    for label, lines in groups.items():
        pod = label.split("/")[1] if label.count("/") >= 1 else label
        found = False
        for value in _values(lines):
            records.append(to_record(value, pod, collector="kubernetes"))
            found = True
        if not found:
            records.append(to_record(None, pod, output="\n".join(lines), collector="kubernetes"))
    for i, value in enumerate(_values(loose)):
        records.append(to_record(value, f"log-line-{i + 1}", collector="kubernetes"))
    bad = [ln for ln in loose if ln.strip().startswith("{") and answer_from_lines([ln]) is None]
    for i, line in enumerate(bad):
        records.append(
            to_record(None, f"unreadable-line-{i + 1}", output=line, collector="kubernetes")
        )
    return records


def _values(lines: Sequence[str]) -> list[dict[str, Any]]:
    """Every JSON object in a pod's lines: one per line, or the whole (indented) text."""
    out = []
    for ln in lines:
        s = ln.strip()
        if s.startswith("{"):
            try:
                v = json.loads(s)
            except (ValueError, RecursionError):
                continue
            if isinstance(v, dict):
                out.append(v)
    if not out:
        whole = answer_from_lines(lines)
        if whole is not None:
            out.append(whole)
    return out


def status_of(record: dict[str, Any]) -> str:
    return str(record.get("status", OK))
