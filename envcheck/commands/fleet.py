"""`envcheck fleet`: collect snapshots of many nodes and judge them together."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from typing import Any, Optional

import click

from envcheck.commands._common import Obj, write_output
from envcheck.errors import ExitCode, InputError, clip

PLAN_FORMATS = ("pip", "conda", "yml", "requirements", "json")
JSON_HELP = (
    "Print one JSON document: a summary, each node's status, and the records unless -o wrote them."
)


@click.group()
def fleet() -> None:
    """Check every node of a GPU cluster: collect snapshots, then report.

    \b
    Collect with the engine you already run, then judge centrally:
      envcheck fleet slurm --nodes 16 -o fleet.jsonl
      envcheck fleet ssh hosts.txt -o fleet.jsonl
      envcheck fleet k8s-manifest --nodes 16 | kubectl apply -f -
      kubectl logs -l app.kubernetes.io/name=envcheck-fleet --prefix --tail=-1 \\
        | envcheck fleet collect --from-logs - -o fleet.jsonl
      envcheck fleet report fleet.jsonl
    """


COLLECT_SCHEMA = "envcheck.fleet-collect/1"


def _write_records(
    records: Iterable[dict[str, Any]], output: Optional[str], as_json: bool = False
) -> int:
    """The records as JSON lines (to ``output`` or stdout) and a summary line on
    stderr; with ``as_json``, one JSON document on stdout instead (the records
    inside it unless they were written to a file)."""
    import json

    from envcheck.fleet.records import record_line

    recs = list(records)
    counts: dict[str, int] = {}
    for rec in recs:
        status = str(rec.get("status", "ok"))
        counts[status] = counts.get(status, 0) + 1
    code = ExitCode.OK if counts.get("ok") else ExitCode.PROBLEMS
    to_file = output is not None and output != "-"
    if to_file or not as_json:
        write_output("".join(record_line(rec) for rec in recs), output)
    if as_json:
        doc: dict[str, Any] = {
            "schema": COLLECT_SCHEMA,
            "written": output if to_file else None,
            "summary": {"nodes": len(recs), **dict(sorted(counts.items()))},
            "nodes": [{k: rec[k] for k in ("node", "status", "error") if k in rec} for rec in recs],
        }
        if not to_file:
            doc["records"] = recs
        click.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        return code
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "nothing"
    noun = "node" if len(recs) == 1 else "nodes"
    click.echo(f"envcheck fleet: {len(recs)} {noun}: {summary}", err=True)
    return code


@contextlib.contextmanager
def _node_progress(
    obj: Obj, what: str, total: Optional[int], quiet: bool
) -> Iterator[_NodeProgress]:
    shown = _NodeProgress(obj, what, total, quiet)
    shown.start()
    try:
        yield shown
    finally:
        shown.stop()


class _NodeProgress:
    """Per-node progress on stderr when it is a terminal (a bar, and a line for
    each node as it answers); nothing when piped or under --json."""

    def __init__(self, obj: Obj, what: str, total: Optional[int], quiet: bool) -> None:
        self.what = what
        self.total = total
        self.bar: Any = None
        self.task: Any = None
        self.seen: set[str] = set()
        if quiet:
            return
        from envcheck.render.console import make_console

        console = make_console(obj.color, stderr=True)
        if not console.is_terminal:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )

    def start(self) -> None:
        if self.bar is not None:
            self.bar.start()
            self.task = self.bar.add_task(self.what, total=self.total)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()

    def record(self, rec: dict[str, Any]) -> None:
        """A node finished (ssh): one line for it, and the bar moves."""
        if self.bar is None:
            return
        line = f"{rec.get('node')}: {rec.get('status')}"
        if rec.get("error"):
            line += f" ({str(rec['error'])[:120]})"
        self.bar.console.print(line)
        self.bar.advance(self.task)

    def label(self, key: Optional[str]) -> None:
        """Output from one more task (srun's --label): the bar counts tasks heard from."""
        if self.bar is None or key is None or key in self.seen:
            return
        self.seen.add(key)
        self.bar.update(self.task, completed=len(self.seen))


@fleet.command()
@click.argument("paths", nargs=-1, required=True, metavar="FILE|DIR...")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--markdown", is_flag=True, help="Print a markdown report.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(PLAN_FORMATS),
    default="pip",
    show_default=True,
    help="How to print the shared environment (every format is in --json).",
)
@click.option(
    "--require",
    "requirements",
    multiple=True,
    metavar="REQ",
    help="Frameworks for the shared environment (default: those installed on the nodes).",
)
@click.option(
    "--all-nodes",
    is_flag=True,
    help="Resolve the shared environment over nodes with doctor errors too.",
)
def report(
    paths: tuple[str, ...],
    as_json: bool,
    markdown: bool,
    fmt: str,
    requirements: tuple[str, ...],
    all_nodes: bool,
) -> int:
    """Judge the snapshots of a fleet: stacks, drift, findings, shared environment.

    FILE is JSON lines of fleet records (from the collectors) or snapshots
    (`envcheck detect --json -o`); DIR holds such files. Exit codes: 0 all nodes
    healthy; 1 errors or nodes without a usable snapshot; 2 unreadable input.
    """
    if as_json and markdown:
        raise click.UsageError("--json and --markdown cannot be used together")
    from envcheck.fleet.records import (
        Entry,
        input_files,
        read_file_entries,
        read_json_lines,
        stdin_lines,
    )

    files: list[str] = []
    for p in paths:
        if p == "-":
            files.append(p)
            continue
        found = input_files(p)
        if not found:
            raise InputError(p, None, "no snapshot files (*.json, *.jsonl) in this folder")
        files.extend(found)

    input_problems: list[str] = []

    def entries() -> Iterable[Entry]:
        for f in files:
            n = 0
            try:
                source = (
                    read_json_lines(stdin_lines(), "<stdin>") if f == "-" else read_file_entries(f)
                )
                for e in source:
                    n += 1
                    yield e
            except OSError as exc:
                input_problems.append(f"{clip(f)}: {exc.strerror or type(exc).__name__}")
                continue
            except InputError as exc:
                input_problems.append(str(exc))
                continue
            if n == 0:
                input_problems.append(f"{f}: no snapshots")

    from envcheck.fleet.report import build_report
    from envcheck.matrix import load_matrix

    matrix = load_matrix()
    # The entries stream through build_report; input_problems is complete after it.
    result = build_report(
        entries(),
        matrix,
        requirements=requirements or None,
        all_nodes=all_nodes,
    )
    from dataclasses import replace

    result = replace(result, input_problems=tuple(input_problems))
    from envcheck.fleet import render

    if as_json:
        import json

        click.echo(json.dumps(render.report_json(result), indent=2))
    elif markdown:
        click.echo(render.report_markdown(result, fmt), nl=False)
    else:
        click.echo(render.report_text(result, fmt), nl=False)
    if result.nodes_total == 0:
        click.echo("envcheck: error: no snapshots in the input", err=True)
        return ExitCode.ERROR
    return ExitCode.PROBLEMS if result.failed() else ExitCode.OK


@fleet.command()
@click.option(
    "--from-logs",
    "logs",
    required=True,
    metavar="FILE",
    help="`kubectl logs -l app.kubernetes.io/name=envcheck-fleet --prefix --tail=-1` output (- for stdin).",
)
@click.option("-o", "--output", metavar="FILE", help="Write the JSON lines to FILE.")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def collect(logs: str, output: Optional[str], as_json: bool) -> int:
    """Turn the fleet Job's pod logs into fleet JSON lines."""
    from envcheck.fleet.collect import records_from_kubectl_logs
    from envcheck.textfile import read_text_file

    text = read_text_file(logs, "kubectl logs output", limit=512 * 1024 * 1024)
    return _write_records(records_from_kubectl_logs(text), output, as_json)


@fleet.command("k8s-manifest")
@click.option("--namespace", default="default", show_default=True)
@click.option(
    "--image",
    default="envcheck:latest",
    show_default=True,
    help="An image with envcheck installed (python3 -m envcheck).",
)
@click.option(
    "--node-selector",
    "selectors",
    multiple=True,
    metavar="KEY=VALUE",
    help="Only nodes with this label (repeatable), e.g. nvidia.com/gpu.present=true.",
)
@click.option(
    "--nodes",
    type=click.IntRange(1, 100000),
    default=1,
    show_default=True,
    help="How many GPU nodes (pods; at most one per node).",
)
@click.option(
    "--gpus-per-pod",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="nvidia.com/gpu each pod requests (the pod sees only these GPUs).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of YAML.")
def k8s_manifest(
    namespace: str,
    image: str,
    selectors: tuple[str, ...],
    nodes: int,
    gpus_per_pod: int,
    as_json: bool,
) -> int:
    """Print a Kubernetes Job that runs envcheck once on each GPU node."""
    from envcheck.fleet.k8s import job_manifest, manifest_yaml, parse_node_selector

    try:
        manifest = job_manifest(
            namespace=namespace,
            image=image,
            nodes=nodes,
            node_selector=parse_node_selector(selectors),
            gpus_per_pod=gpus_per_pod,
        )
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    if as_json:
        import json

        click.echo(json.dumps(manifest, indent=2))
    else:
        click.echo(manifest_yaml(manifest), nl=False)
    return ExitCode.OK


@fleet.command()
@click.argument("inventory", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-o", "--output", metavar="FILE", help="Write the JSON lines to FILE.")
@click.option(
    "--jobs", "-j", type=click.IntRange(1, 256), default=8, show_default=True, help="Hosts at once."
)
@click.option(
    "--timeout",
    type=click.FloatRange(1, 3600),
    default=120.0,
    show_default=True,
    help="Seconds for each host.",
)
@click.option("--connect-timeout", type=click.IntRange(1, 300), default=10, show_default=True)
@click.option(
    "--ssh-option",
    "ssh_options",
    multiple=True,
    metavar="OPT",
    help="Extra `ssh -o` option (repeatable), e.g. IdentityFile=~/.ssh/lab.",
)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def ssh(
    obj: Obj,
    inventory: str,
    output: Optional[str],
    jobs: int,
    timeout: float,
    connect_timeout: int,
    ssh_options: tuple[str, ...],
    as_json: bool,
) -> int:
    """Run `envcheck detect --json` on every host of INVENTORY over ssh.

    INVENTORY: one `DESTINATION [name=NAME] [python=PATH]` per line (`#`
    comments; DESTINATION is [user@]host or ssh://[user@]host[:port]). ssh runs with BatchMode (never prompts), a connect timeout and at
    most --jobs hosts at a time; a host that does not answer is unreachable.
    """
    from envcheck.fleet.collect import collect_ssh, parse_inventory
    from envcheck.textfile import read_text_file

    hosts, problems = parse_inventory(read_text_file(inventory, "inventory"), inventory)
    if problems:
        raise InputError(None, None, "; ".join(problems[:5]))
    if not hosts:
        raise InputError(inventory, None, "no hosts")
    with _node_progress(obj, "ssh", len(hosts), as_json) as shown:
        records = list(
            collect_ssh(
                hosts,
                jobs=jobs,
                timeout=timeout,
                connect_timeout=connect_timeout,
                options=ssh_options,
                on_record=shown.record,
            )
        )
    return _write_records(records, output, as_json)


@fleet.command()
@click.option("--partition", "-p", metavar="P")
@click.option("--nodes", "-N", type=click.IntRange(1, 100000), metavar="N")
@click.option("--nodelist", "-w", metavar="L", help="Nodes, e.g. gpu[01-16] or a,b.")
@click.option(
    "--python",
    metavar="PATH",
    help="The Python with envcheck on the nodes (default: this one, as on a shared filesystem).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(1, 86400),
    default=300.0,
    show_default=True,
    help="Seconds for the whole srun (queueing included); silent nodes are unreachable.",
)
@click.option("--srun-arg", "srun_args", multiple=True, metavar="ARG", help="Extra srun option.")
@click.option("-o", "--output", metavar="FILE", help="Write the JSON lines to FILE.")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.pass_obj
def slurm(
    obj: Obj,
    partition: Optional[str],
    nodes: Optional[int],
    nodelist: Optional[str],
    python: Optional[str],
    timeout: float,
    srun_args: tuple[str, ...],
    output: Optional[str],
    as_json: bool,
) -> int:
    """Run envcheck on every node of a Slurm allocation with srun.

    One task per node (--ntasks-per-node=1), --kill-on-bad-exit=0 so a broken
    node is reported rather than fatal, output labelled per task (--label). Each
    task runs `python -m envcheck fleet node` (detect --json plus the node name
    from SLURMD_NODENAME and the job id).
    """
    from envcheck.fleet.collect import (
        plain_nodelist,
        run_bounded,
        scontrol_hostnames_argv,
        slurm_records,
        srun_argv,
        srun_task_of,
    )

    if nodes is None and not nodelist:
        raise click.UsageError("give --nodes N or --nodelist L")
    argv = srun_argv(
        python=python or sys.executable,
        partition=partition,
        nodes=nodes,
        nodelist=nodelist,
        extra=srun_args,
    )
    expected: list[str] = []
    if nodelist:
        expected = plain_nodelist(nodelist)
        if not expected:
            names = run_bounded(scontrol_hostnames_argv(nodelist), 30)
            if names.returncode == 0:
                expected = [n.strip() for n in names.stdout.splitlines() if n.strip()]
    total = len(expected) or nodes
    with _node_progress(obj, "srun", total, as_json) as shown:
        result = run_bounded(argv, timeout, on_stdout=lambda line: shown.label(srun_task_of(line)))
    if result.error:
        raise click.ClickException(result.error)
    records = slurm_records(
        result,
        expected_nodes=expected,
        expected_tasks=None if expected else nodes,
        timeout=timeout,
    )
    return _write_records(records, output, as_json)


@fleet.command(hidden=True)
@click.pass_obj
def node(obj: Obj) -> int:
    """Print this node's snapshot as one fleet record line (run by the collectors)."""
    import os
    import socket

    from envcheck.commands._common import detect_snapshot
    from envcheck.fleet.collect import JOB_ENV, NODE_ENV
    from envcheck.fleet.records import make_record, record_line

    name = next((os.environ[k] for k in NODE_ENV if os.environ.get(k)), None)
    name = name or socket.gethostname() or "unknown"
    job = next((os.environ[k] for k in JOB_ENV if os.environ.get(k)), None)
    try:
        snap = detect_snapshot(obj, None)
    except Exception as exc:  # noqa: BLE001 - reported in the record, never fatal
        rec = make_record(name, status="failed", job_id=job, error=f"{type(exc).__name__}: {exc}")
        click.echo(record_line(rec), nl=False)
        return ExitCode.PROBLEMS
    click.echo(record_line(make_record(name, snapshot=snap.to_json(), job_id=job)), nl=False)
    return ExitCode.OK
