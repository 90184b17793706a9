"""Collectors: command construction and parsing of recorded srun / ssh / kubectl output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from envcheck.fleet import collect as C
from envcheck.fleet.k8s import GPU_RESOURCE, job_manifest, manifest_yaml, parse_node_selector
from envcheck.fleet.records import make_record, read_json_lines, record_line
from tests.conftest import run_cli
from tests.fleet import fleetgen as G


def _rec(node: str, **kw: Any) -> str:
    return json.dumps(
        make_record(node, snapshot=G.snapshot(), job_id="812", **kw), separators=(",", ":")
    )


# ---------------------------------------------------------------- Slurm


def test_srun_argv() -> None:
    argv = C.srun_argv(python="/opt/py/bin/python", partition="gpu", nodes=4)
    assert argv == [
        "srun",
        "--nodes=4",
        "--ntasks-per-node=1",
        "--kill-on-bad-exit=0",
        "--label",
        "--job-name=envcheck-fleet",
        "--partition=gpu",
        "/opt/py/bin/python",
        "-m",
        "envcheck",
        "fleet",
        "node",
    ]
    argv = C.srun_argv(nodelist="gpu[01-03]", extra=("--account=x",))
    assert "--nodelist=gpu[01-03]" in argv and "--nodes=3" not in "".join(argv)
    assert argv.index("--account=x") < argv.index("python3")


# Recorded shape of `srun --label` with three tasks: task 0 answers, task 1
# prints a traceback and exits 1, task 2's node never starts the step.
SRUN_STDOUT = "0: " + _rec("gpu01") + "\n"
SRUN_STDERR = """\
srun: job 812 queued and waiting for resources
srun: job 812 has been allocated resources
1: Traceback (most recent call last):
1:   File "<frozen runpy>", line 198, in _run_module_as_main
1: ModuleNotFoundError: No module named 'envcheck'
srun: error: gpu02: task 1: Exited with exit code 1
"""


def test_slurm_records_from_recorded_output() -> None:
    result = C.Completed(1, SRUN_STDOUT, SRUN_STDERR)
    recs = C.slurm_records(result, expected_nodes=["gpu01", "gpu02", "gpu03"], timeout=60)
    by = {r["node"]: r for r in recs}
    assert set(by) == {"gpu01", "gpu02", "gpu03"}
    assert by["gpu01"]["status"] == "ok" and by["gpu01"]["job_id"] == "812"
    assert by["gpu02"]["status"] == "failed"
    assert "Exited with exit code 1" in by["gpu02"]["error"]
    assert "ModuleNotFoundError" in by["gpu02"]["output"]
    assert by["gpu02"]["job_id"] == "812"
    assert by["gpu03"]["status"] == "unreachable"


def test_slurm_timeout_marks_silent_tasks_unreachable() -> None:
    result = C.Completed(None, SRUN_STDOUT, "", timed_out=True)
    recs = C.slurm_records(result, expected_tasks=3, timeout=30)
    assert [(r["node"], r["status"]) for r in recs] == [
        ("gpu01", "ok"),
        ("task1", "unreachable"),
        ("task2", "unreachable"),
    ]
    assert recs[1]["error"] == "no answer within 30 s"


def test_slurm_bare_detect_output_is_named_by_task() -> None:
    pretty = json.dumps(G.snapshot(), indent=2).splitlines()
    out = "\n".join(f"3: {ln}" for ln in pretty)
    (rec,) = C.slurm_records(C.Completed(0, out, ""))
    assert (rec["node"], rec["status"]) == ("task3", "ok")


def test_parse_srun_stderr_task_ranges() -> None:
    nodes, errors, job = C.parse_srun_stderr(
        "srun: jobid 77: nodes(2):`a,b', cpu counts: 1(x2)\nsrun: error: b: tasks 1-2,4: Killed\n"
    )
    assert job == "77"
    assert nodes == {"1": "b", "2": "b", "4": "b"}
    assert errors["4"] == "Killed"


def test_plain_nodelist() -> None:
    assert C.plain_nodelist("a, b,c") == ["a", "b", "c"]
    assert C.plain_nodelist("gpu[01-04]") == []


# ---------------------------------------------------------------- ssh


def test_inventory_and_ssh_argv() -> None:
    hosts, problems = C.parse_inventory(
        "# lab\nws01\nroot@ws02.lab python=/opt/conda/bin/python\n"
        "10.0.0.7 name=ws07\n-oProxyCommand=evil\nws08 colour=red\nws01\n",
        "hosts.txt",
    )
    assert [(h.name, h.destination, h.python) for h in hosts] == [
        ("ws01", "ws01", "python3"),
        ("ws02.lab", "root@ws02.lab", "/opt/conda/bin/python"),
        ("ws07", "10.0.0.7", "python3"),
        ("ws08", "ws08", "python3"),
    ]
    assert len(problems) == 3
    argv = C.ssh_argv(hosts[1], connect_timeout=5)
    assert argv[:11] == [
        "ssh",
        "-o",
        "BatchMode=yes",
        "-o",
        "ConnectTimeout=5",
        "-o",
        "ServerAliveInterval=10",
        "-o",
        "ServerAliveCountMax=3",
        "-T",
        "--",
    ]
    assert argv[11:] == ["root@ws02.lab", "/opt/conda/bin/python -m envcheck detect --json"]


def test_ssh_records() -> None:
    host = C.Host("ws01", "ws01")
    ok = C.ssh_record(host, C.Completed(0, json.dumps(G.snapshot(), indent=2), ""), 60)
    assert (ok["node"], ok["status"]) == ("ws01", "ok")
    down = C.ssh_record(
        host, C.Completed(255, "", "ssh: connect to host ws01 port 22: No route to host\n"), 60
    )
    assert down["status"] == "unreachable" and "No route" in down["error"]
    slow = C.ssh_record(host, C.Completed(None, "", "", timed_out=True), 60)
    assert slow == make_record(
        "ws01", status="unreachable", error="no answer within 60 s", collector="ssh"
    )
    broken = C.ssh_record(host, C.Completed(1, "", "bash: python3: command not found\n"), 60)
    assert broken["status"] == "failed" and "exit 1" in broken["error"]


@pytest.mark.real_machine
def test_run_bounded_kills_the_process_group() -> None:
    import time

    start = time.monotonic()
    res = C.run_bounded(["sh", "-c", "echo started; sleep 30 & sleep 30; echo never"], 1)
    assert res.timed_out and res.returncode is None
    assert res.stdout.strip() == "started"
    assert time.monotonic() - start < 10
    missing = C.run_bounded(["/nonexistent/srun"], 1)
    assert missing.error and "cannot run" in missing.error


# ---------------------------------------------------------------- Kubernetes


def test_kubectl_logs_interleaved_and_truncated() -> None:
    a = _rec("node-a")
    b = _rec("node-b")
    pretty_c = json.dumps(G.snapshot(), indent=2).splitlines()
    logs = [
        f"[pod/envcheck-fleet-0-x1/envcheck] {a[:80]}",
        f"[pod/envcheck-fleet-2-x3/envcheck] {pretty_c[0]}",
        f"[pod/envcheck-fleet-1-x2/envcheck] {b}",
        *(f"[pod/envcheck-fleet-2-x3/envcheck] {ln}" for ln in pretty_c[1:]),
        "[pod/envcheck-fleet-3-x4/envcheck] Traceback (most recent call last):",
        "[pod/envcheck-fleet-3-x4/envcheck] OSError: boom",
    ]
    recs = C.records_from_kubectl_logs("\n".join(logs) + "\n")
    got = {r["node"]: r["status"] for r in recs}
    assert got == {
        "envcheck-fleet-0-x1": "failed",
        "node-b": "ok",
        "envcheck-fleet-2-x3": "ok",
        "envcheck-fleet-3-x4": "failed",
    }
    entries = list(read_json_lines([record_line(r) for r in recs], "k"))
    assert len(entries) == 4


def test_kubectl_logs_without_prefix() -> None:
    text = _rec("n1") + "\n" + _rec("n2")[:50] + "\n"
    recs = C.records_from_kubectl_logs(text)
    assert [(r["node"], r["status"]) for r in recs] == [
        ("n1", "ok"),
        ("unreadable-line-1", "failed"),
    ]


def test_manifest_shape() -> None:
    m = job_manifest(namespace="ml", image="reg/envcheck:1", nodes=5, node_selector={"gpu": "yes"})
    pod = m["spec"]["template"]["spec"]
    assert m["spec"]["completions"] == m["spec"]["parallelism"] == 5
    assert pod["restartPolicy"] == "Never"
    assert pod["containers"][0]["resources"]["limits"][GPU_RESOURCE] == "1"
    assert {"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    assert pod["nodeSelector"] == {"gpu": "yes"}
    assert "&id" not in manifest_yaml(m)
    with pytest.raises(ValueError):
        job_manifest(namespace="Bad_NS")
    with pytest.raises(ValueError):
        parse_node_selector(("novalue",))


def test_manifest_loads_into_kubernetes_models() -> None:
    k8s = pytest.importorskip(
        "kubernetes", reason="the official kubernetes client is not installed"
    )
    import yaml

    data = yaml.safe_load(manifest_yaml(job_manifest(nodes=2)))
    client = k8s.client.ApiClient()
    job = client._ApiClient__deserialize(data, "V1Job")  # the models' own loader
    assert isinstance(job, k8s.client.V1Job)
    pod = job.spec.template.spec
    assert pod.restart_policy == "Never"
    assert pod.containers[0].resources.limits == {GPU_RESOURCE: "1"}
    assert any(t.key == GPU_RESOURCE and t.operator == "Exists" for t in pod.tolerations)
    env = {e.name: e.value_from.field_ref.field_path for e in pod.containers[0].env}
    assert env["ENVCHECK_NODE_NAME"] == "spec.nodeName"
    # Round trip: what the models serialise is what we wrote.
    assert client.sanitize_for_serialization(job) == data


# ---------------------------------------------------------------- CLI


def test_cli_collect_and_report(tmp_path: Path) -> None:
    logs = tmp_path / "logs.txt"
    logs.write_text(
        "".join(f"[pod/p{i}/envcheck] {ln}" for i, ln in enumerate(G.fleet_lines(4, {2: G.NO_GPU})))
    )
    out = tmp_path / "fleet.jsonl"
    code, _, err = run_cli("fleet", "collect", "--from-logs", str(logs), "-o", str(out))
    assert code == 0, err
    assert "4 nodes: 4 ok" in err
    code, stdout, _ = run_cli("fleet", "report", str(out), "--json")
    assert code == 1
    data = json.loads(stdout)
    assert data["summary"]["error_nodes"] == [G.node_name(2)]
    code, stdout, _ = run_cli("fleet", "report", str(out), "--markdown", "--format", "requirements")
    assert code == 1 and "torch==" in stdout


def test_cli_report_bad_input(tmp_path: Path) -> None:
    code, _, err = run_cli("fleet", "report", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "not found" in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    code, stdout, err = run_cli("fleet", "report", str(empty))
    assert code == 2 and "no snapshots" in stdout + err
    code, _, err = run_cli("fleet", "report", str(empty), "--json", "--markdown")
    assert code == 2


def test_cli_manifest_and_usage() -> None:
    code, stdout, _ = run_cli("fleet", "k8s-manifest", "--namespace", "gpu", "--json")
    assert code == 0 and json.loads(stdout)["metadata"]["namespace"] == "gpu"
    code, _, err = run_cli("fleet", "slurm")
    assert code == 2 and "--nodes" in err
    code, _, err = run_cli("fleet", "k8s-manifest", "--node-selector", "x")
    assert code == 2


# Recorded on a single-node Slurm 22.05 cluster (scripts/slurm_e2e.sh): srun
# --label cuts the one-line record into 1024-byte pieces, each labelled "0: ".
RECORDED = Path(__file__).parent / "recorded"


def _recorded(name: str) -> C.Completed:
    out = (RECORDED / f"{name}.stdout").read_text()
    err = (RECORDED / f"{name}.stderr").read_text()
    return C.Completed(0, out, err)


def test_recorded_srun_long_lines_are_rejoined() -> None:
    result = _recorded("srun-label-ok")
    assert max(len(ln) for ln in result.stdout.splitlines()) == 1027  # "0: " + 1024
    (rec,) = C.slurm_records(result, expected_tasks=1)
    assert (rec["node"], rec["status"], rec["job_id"]) == ("vm", "ok", "2")
    (entry,) = read_json_lines([record_line(rec)], "x")
    assert entry.snapshot is not None and entry.snapshot["platform"]["os"] == "linux"


def test_recorded_srun_exec_failure() -> None:
    (rec,) = C.slurm_records(_recorded("srun-label-exec-fails"), expected_nodes=["vm"])
    assert (rec["node"], rec["status"]) == ("vm", "failed")
    assert rec["error"].startswith("Exited with exit code 2; ")
    assert "No such file or directory" in rec["error"]


@pytest.mark.real_machine
@pytest.mark.network
def test_fleet_ssh_against_a_local_sshd(tmp_path: Path) -> None:
    """`fleet ssh` through the system ssh to an sshd started here on 127.0.0.1."""
    import shutil
    import socket
    import subprocess
    import sys
    import time

    sshd = shutil.which("sshd") or ("/usr/sbin/sshd" if Path("/usr/sbin/sshd").exists() else None)
    if sshd is None or shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        pytest.skip("no sshd/ssh/ssh-keygen here: fleet ssh is tested by command construction")
    for key in ("host", "user"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / key)],
            check=True,
            timeout=30,
        )
    (tmp_path / "authorized_keys").write_text((tmp_path / "user.pub").read_text())
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    (tmp_path / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {tmp_path}/host\n"
        f"PidFile {tmp_path}/sshd.pid\nAuthorizedKeysFile {tmp_path}/authorized_keys\n"
        "StrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "UsePAM no\nPermitRootLogin prohibit-password\n"
    )
    Path("/run/sshd").mkdir(exist_ok=True)  # privilege separation directory
    log = tmp_path / "sshd.log"
    with log.open("wb") as log_fh:
        proc = subprocess.Popen(
            [sshd, "-D", "-e", "-f", str(tmp_path / "sshd_config")],
            stdout=subprocess.DEVNULL,
            stderr=log_fh,
        )
    try:
        for _ in range(50):
            if proc.poll() is not None:
                pytest.skip(f"sshd cannot start here: {log.read_text()[-300:]}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        user = __import__("getpass").getuser()
        inv = tmp_path / "hosts.txt"
        inv.write_text(
            f"ssh://{user}@127.0.0.1:{port} name=local python={sys.executable}\n"
            f"ssh://{user}@127.0.0.1:{closed} name=down\n"
        )
        out = tmp_path / "fleet.jsonl"
        code, _, err = run_cli(
            "fleet",
            "ssh",
            str(inv),
            "-o",
            str(out),
            "--connect-timeout",
            "5",
            "--ssh-option",
            f"IdentityFile={tmp_path}/user",
            "--ssh-option",
            f"UserKnownHostsFile={tmp_path}/known_hosts",
            "--ssh-option",
            "StrictHostKeyChecking=accept-new",
        )
        assert code == 0, err
        recs = {r["node"]: r for r in map(json.loads, out.read_text().splitlines())}
        assert recs["local"]["status"] == "ok", recs["local"]
        assert recs["local"]["snapshot"]["python"]["executable"]
        assert recs["down"]["status"] == "unreachable"
        assert "ssh:" in recs["down"]["error"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# ---------------------------------------------------------------- progress and --json


def test_cli_collect_json_summarises_and_carries_the_records(tmp_path: Path) -> None:
    logs = tmp_path / "logs.txt"
    logs.write_text(
        "".join(f"[pod/p{i}/envcheck] {ln}" for i, ln in enumerate(G.fleet_lines(3, {})))
        + "[pod/p9/envcheck] Traceback (most recent call last):\n"
    )
    code, stdout, err = run_cli("fleet", "collect", "--from-logs", str(logs), "--json")
    assert code == 0, err
    doc = json.loads(stdout)
    assert doc["schema"] == "envcheck.fleet-collect/1"
    assert doc["written"] is None
    assert doc["summary"] == {"nodes": 4, "failed": 1, "ok": 3}
    assert [n["status"] for n in doc["nodes"]] == ["ok", "ok", "ok", "failed"]
    assert len(doc["records"]) == 4 and doc["records"][0]["snapshot"]
    assert err == ""  # the human summary line is not mixed into --json runs
    out = tmp_path / "fleet.jsonl"
    code, stdout, _ = run_cli(
        "fleet", "collect", "--from-logs", str(logs), "--json", "-o", str(out)
    )
    doc = json.loads(stdout)
    assert doc["written"] == str(out) and "records" not in doc
    assert len(out.read_text().splitlines()) == 4


def test_cli_collect_summary_says_node_for_one(tmp_path: Path) -> None:
    logs = tmp_path / "logs.txt"
    logs.write_text("".join(f"[pod/p0/envcheck] {ln}" for ln in G.fleet_lines(1, {})))
    code, _, err = run_cli("fleet", "collect", "--from-logs", str(logs), "-o", str(tmp_path / "o"))
    assert code == 0 and "envcheck fleet: 1 node: 1 ok" in err


def _fake_tool(tmp_path: Path, name: str, body: str) -> dict[str, str]:
    import os

    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    tool = bindir / name
    tool.write_text("#!/bin/sh\n" + body)
    tool.chmod(0o755)
    return {"PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.mark.real_machine
def test_fleet_ssh_shows_each_host_on_a_terminal_and_nothing_when_piped(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    record.write_text(_rec("ignored") + "\n")
    # the fake ssh answers for every host but "down", which fails to connect
    env = _fake_tool(
        tmp_path,
        "ssh",
        'case "$*" in *down*) echo "ssh: connect to host down: refused" >&2; exit 255;; esac\n'
        f"cat {record}\n",
    )
    inv = tmp_path / "hosts.txt"
    inv.write_text("gpu01 name=gpu01\ndown name=down\n")
    code, stdout, err = run_cli("--color", "fleet", "ssh", str(inv), "--jobs", "1", env=env)
    assert code == 0, err
    assert "gpu01: ok" in err, err
    assert "down: unreachable" in err, err
    assert len(stdout.splitlines()) == 2  # the records stay on stdout
    # piped (no --color): no progress, only the summary line
    code, _, err = run_cli("fleet", "ssh", str(inv), env=env)
    assert "gpu01: ok" not in err and "envcheck fleet: 2 nodes" in err
    code, stdout, err = run_cli("--color", "fleet", "ssh", str(inv), "--json", env=env)
    assert "gpu01: ok" not in err  # --json is quiet on stderr
    assert json.loads(stdout)["summary"]["nodes"] == 2


@pytest.mark.real_machine
def test_run_bounded_streams_stdout_lines_and_still_kills_on_timeout() -> None:
    seen: list[str] = []
    res = C.run_bounded(
        ["sh", "-c", "echo '0: a'; echo '1: b'; echo oops >&2; sleep 30"],
        1,
        on_stdout=seen.append,
    )
    assert res.timed_out and res.returncode is None
    assert seen == ["0: a\n", "1: b\n"]
    assert [C.srun_task_of(line) for line in seen] == ["0", "1"]
    assert res.stdout == "0: a\n1: b\n" and res.stderr == "oops\n"
    done = C.run_bounded(["sh", "-c", "echo x"], 5, on_stdout=seen.append)
    assert done.returncode == 0 and done.stdout == "x\n"
    assert C.run_bounded(["/nonexistent/srun"], 1, on_stdout=seen.append).error


@pytest.mark.real_machine
def test_fleet_slurm_counts_tasks_heard_from_and_answers_json(tmp_path: Path) -> None:
    lines = tmp_path / "out.txt"
    lines.write_text("".join(f"{i}: {_rec(f'gpu{i:02d}')}\n" for i in range(2)))
    env = _fake_tool(tmp_path, "srun", f"cat {lines}\n")
    code, stdout, err = run_cli("--color", "fleet", "slurm", "--nodes", "3", env=env)
    assert code == 0, err
    assert len(stdout.splitlines()) == 3  # two answers, one unreachable task
    assert "envcheck fleet: 3 nodes: 2 ok, 1 unreachable" in err
    code, stdout, _ = run_cli("fleet", "slurm", "--nodes", "3", "--json", env=env)
    doc = json.loads(stdout)
    assert doc["summary"] == {"nodes": 3, "ok": 2, "unreachable": 1}
    assert [n["node"] for n in doc["nodes"]] == ["gpu00", "gpu01", "task2"]
