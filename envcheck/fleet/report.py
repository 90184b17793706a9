"""The fleet report (pure): stacks, drift, grouped findings, the shared environment.

Memory grows with the number of distinct snapshots, not nodes: each answer is
reduced to a digest of its snapshot (minus per-node identity: GPU UUIDs, the
creation time) and only the node's name and that digest are kept. The doctor
(``envcheck.doctor.diagnose``) runs once per distinct snapshot; nodes are then
grouped by their *stack* (driver, kernel module, CUDA, cuDNN, GPUs, frameworks,
Python, platform, packages), a coarser key used to show drift. Judging per
distinct snapshot rather than per stack keeps findings exact: the rules also read
environment variables and library paths that the stack summary leaves out.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from envcheck.errors import clip
from envcheck.fleet.records import FAILED, OK, UNREACHABLE, UNREADABLE, Entry
from envcheck.model.finding import Finding, Severity

if TYPE_CHECKING:
    from envcheck.compat.target import Target
    from envcheck.doctor import Report
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot
    from envcheck.model.versions import DriverVersion
    from envcheck.resolve.plan_model import Plan

DUPLICATE = "duplicate"
IDENTITY_KEYS = ("created_at",)
GPU_IDENTITY_KEYS = ("uuid",)
PACKAGES = "packages"


@dataclass(frozen=True)
class NodeProblem:
    """A node that could not be judged (or answered twice)."""

    node: str
    status: str
    """unreachable, failed, unreadable or duplicate."""
    error: str
    where: str = ""
    job_id: Optional[str] = None

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "status": self.status,
            "error": self.error,
            "where": self.where,
            "job_id": self.job_id,
        }


@dataclass(frozen=True)
class Difference:
    field: str
    majority: str
    value: str

    def to_json(self) -> dict[str, str]:
        return {"field": self.field, "majority": self.majority, "value": self.value}


@dataclass(frozen=True)
class StackGroup:
    id: str
    fields: tuple[tuple[str, str], ...]
    nodes: tuple[str, ...]
    majority: bool = False
    differences: tuple[Difference, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "majority": self.majority,
            "nodes": list(self.nodes),
            "stack": dict(self.fields),
            "differences": [d.to_json() for d in self.differences],
        }


@dataclass(frozen=True)
class FindingGroup:
    finding: Finding
    nodes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {**self.finding.to_json(), "nodes": list(self.nodes)}


@dataclass(frozen=True)
class Environment:
    """The environment resolved for one platform/Python seen among the included nodes."""

    target: Target
    requirements: tuple[str, ...]
    nodes: tuple[str, ...]
    plan: Optional[Plan] = None
    error: Optional[str] = None


@dataclass(frozen=True)
class FleetReport:
    matrix_version: str
    nodes_total: int
    nodes_judged: int
    stacks: tuple[StackGroup, ...]
    findings: tuple[FindingGroup, ...]
    problems: tuple[NodeProblem, ...]
    environments: tuple[Environment, ...]
    excluded: tuple[tuple[str, tuple[str, ...]], ...]
    """(reason, nodes) left out of the shared environment."""
    input_problems: tuple[str, ...] = ()
    distinct_snapshots: int = 0

    def count(self, severity: Severity) -> int:
        return sum(1 for g in self.findings if g.finding.severity == severity)

    @property
    def error_nodes(self) -> tuple[str, ...]:
        """Nodes with an error finding or no judgeable answer, sorted."""
        names = {n for g in self.findings if g.finding.severity == Severity.ERROR for n in g.nodes}
        names.update(p.node for p in self.problems if p.status != DUPLICATE)
        return tuple(sorted(names))

    def failed(self) -> bool:
        return bool(self.error_nodes) or self.nodes_judged == 0


def stack_fields(s: Snapshot) -> tuple[tuple[str, str], ...]:
    """The stack of one snapshot, as (label, value) pairs for display and grouping."""
    d = s.driver
    gpus = Counter(f"{g.name or 'unknown GPU'} ({g.compute_capability or '?'})" for g in s.gpus)
    fws = sorted(
        f"{f.name} {f.version or '?'}" + (" (CPU)" if f.cpu_only else "")
        for f in s.frameworks
        if f.name
    )
    p = s.platform
    plat = "/".join(x for x in (p.os, p.arch) if x) or "unknown"
    if p.distro:
        plat += f" {p.distro} {p.distro_version or ''}".rstrip()
    cudnn = sorted({lib.version or "?" for lib in s.libraries if lib.name == "cudnn"})
    pkgs = _packages(s)
    digest = hashlib.blake2b(json.dumps(sorted(pkgs.items())).encode(), digest_size=4).hexdigest()
    return (
        ("driver", d.version or "none"),
        ("kernel module", d.kernel_module_version or "-"),
        ("NVML library", d.nvml_library_version or "-"),
        ("CUDA (driver)", d.cuda_version or "-"),
        ("CUDA toolkit", ", ".join(sorted({t.version or "?" for t in s.cuda_toolkits})) or "none"),
        ("cuDNN", ", ".join(cudnn) or "none"),
        ("GPUs", ", ".join(f"{n} x {g}" for g, n in sorted(gpus.items())) or "none"),
        ("frameworks", ", ".join(fws) or "none"),
        ("Python", s.python.version or "?"),
        ("platform", plat),
        (PACKAGES, f"{len(pkgs)} packages #{digest}"),
    )


def _packages(s: Snapshot) -> dict[str, str]:
    """name -> version ("?" when installed in an unknown version)."""
    out = {f"conda:{k}": v or "?" for k, v in s.conda_packages.items()}
    out.update({k: v or "?" for k, v in s.packages.items()})
    return out


def snapshot_digest(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(digest, data without per-node identity) of one snapshot's JSON."""
    d = {k: v for k, v in data.items() if k not in IDENTITY_KEYS}
    gpus = d.get("gpus")
    if isinstance(gpus, list):
        d["gpus"] = [
            {k: v for k, v in g.items() if k not in GPU_IDENTITY_KEYS} if isinstance(g, dict) else g
            for g in gpus
        ]
    text = json.dumps(d, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=12).hexdigest(), d


class _Distinct:
    """One distinct snapshot: parsed and judged once."""

    __slots__ = ("error", "fields", "report", "snapshot", "stack_id")

    def __init__(self) -> None:
        self.snapshot: Optional[Snapshot] = None
        self.report: Optional[Report] = None
        self.error: Optional[str] = None
        self.fields: tuple[tuple[str, str], ...] = ()
        self.stack_id = ""


# A node as kept while reading: (where, status, digest or None, job_id, error, created_at)
_NodeRow = tuple[str, str, Optional[str], Optional[str], Optional[str], Optional[str]]


def _better(new: _NodeRow, old: _NodeRow) -> bool:
    """Which of two answers of one node to keep: a snapshot over a failure, then newer."""
    if (new[1] == OK) != (old[1] == OK):
        return new[1] == OK
    return (new[5] or "") >= (old[5] or "")


def build_report(
    entries: Iterable[Entry],
    matrix: Matrix,
    *,
    requirements: Optional[Sequence[str]] = None,
    all_nodes: bool = False,
    input_problems: Sequence[str] = (),
) -> FleetReport:
    """Judge every node's answer and build the fleet report."""
    from envcheck.doctor import diagnose

    nodes: dict[str, _NodeRow] = {}
    dupes: dict[str, list[str]] = {}
    distinct: dict[str, _Distinct] = {}
    pending: dict[str, dict[str, Any]] = {}
    for e in entries:
        digest = None
        if e.status == OK and e.snapshot is not None:
            digest, data = snapshot_digest(e.snapshot)
            if digest not in distinct:
                distinct[digest] = _Distinct()
                pending[digest] = data
        row: _NodeRow = (e.where, e.status, digest, e.job_id, e.error, e.created_at)
        old = nodes.get(e.node)
        if old is not None:
            dupes.setdefault(e.node, [old[0]]).append(e.where)
            if not _better(row, old):
                continue
        nodes[e.node] = row

    from envcheck.model._fields import SchemaError
    from envcheck.model.snapshot import Snapshot

    for digest, data in pending.items():
        info = distinct[digest]
        try:
            snap = Snapshot.from_json(data)
        except SchemaError as exc:
            info.error = clip(exc.message)
            continue
        except Exception as exc:  # noqa: BLE001 - one node's odd data never stops the report
            info.error = f"unreadable snapshot: {clip(exc)}"
            continue
        info.snapshot = snap
        info.report = diagnose(snap, matrix)
        info.fields = stack_fields(snap)
        info.stack_id = hashlib.blake2b(json.dumps(info.fields).encode(), digest_size=6).hexdigest()
    pending.clear()

    problems: list[NodeProblem] = []
    by_digest: dict[str, list[str]] = {}
    for name, (where, status, digest, job_id, error, _) in nodes.items():
        if digest is not None and distinct[digest].error is None:
            by_digest.setdefault(digest, []).append(name)
            continue
        if digest is not None:
            status, error = UNREADABLE, distinct[digest].error
        problems.append(NodeProblem(name, status, error or status, where, job_id))
    for name, wheres in dupes.items():
        problems.append(
            NodeProblem(
                name,
                DUPLICATE,
                f"{len(wheres)} answers for this node; the newest snapshot is used",
                ", ".join(wheres),
            )
        )
    order = {UNREACHABLE: 0, FAILED: 1, UNREADABLE: 2, DUPLICATE: 3}
    problems.sort(key=lambda p: (order.get(p.status, 9), p.node))

    stacks = _stacks(distinct, by_digest)
    findings = _findings(distinct, by_digest)
    environments, excluded = _environments(distinct, by_digest, matrix, requirements, all_nodes)
    return FleetReport(
        matrix_version=matrix.version,
        nodes_total=len(nodes),
        nodes_judged=sum(len(v) for v in by_digest.values()),
        stacks=stacks,
        findings=findings,
        problems=tuple(problems),
        environments=environments,
        excluded=excluded,
        input_problems=tuple(input_problems),
        distinct_snapshots=len(distinct),
    )


def _stacks(
    distinct: dict[str, _Distinct], by_digest: dict[str, list[str]]
) -> tuple[StackGroup, ...]:
    groups: dict[str, list[str]] = {}
    fields: dict[str, tuple[tuple[str, str], ...]] = {}
    packages: dict[str, dict[str, str]] = {}
    for digest, names in by_digest.items():
        info = distinct[digest]
        groups.setdefault(info.stack_id, []).extend(names)
        fields[info.stack_id] = info.fields
        if info.snapshot is not None and info.stack_id not in packages:
            packages[info.stack_id] = _packages(info.snapshot)
    if not groups:
        return ()
    ordered = sorted(groups, key=lambda k: (-len(groups[k]), min(groups[k])))
    major = ordered[0]
    out = []
    for sid in ordered:
        diffs: list[Difference] = []
        if sid != major:
            mine = dict(fields[sid])
            for label, value in fields[major]:
                if label == PACKAGES:
                    diffs.extend(_package_diffs(packages[major], packages[sid]))
                elif mine.get(label) != value:
                    diffs.append(Difference(label, value, mine.get(label, "?")))
        out.append(
            StackGroup(sid, fields[sid], tuple(sorted(groups[sid])), sid == major, tuple(diffs))
        )
    return tuple(out)


def _package_diffs(
    major: dict[str, str], mine: dict[str, str], limit: int = 12
) -> list[Difference]:
    names = sorted(n for n in set(major) | set(mine) if major.get(n) != mine.get(n))
    diffs = [
        Difference(f"package {n}", major.get(n, "absent"), mine.get(n, "absent"))
        for n in names[:limit]
    ]
    if len(names) > limit:
        diffs.append(Difference("packages", "", f"{len(names) - limit} more packages differ"))
    return diffs


def _findings(
    distinct: dict[str, _Distinct], by_digest: dict[str, list[str]]
) -> tuple[FindingGroup, ...]:
    groups: dict[tuple[int, str, str], tuple[Finding, list[str]]] = {}
    for digest, names in by_digest.items():
        report = distinct[digest].report
        if report is None:
            continue
        seen = set()
        for f in report.findings:
            key = (f.severity.rank, f.id, f.title)
            if key in seen:
                continue
            seen.add(key)
            if key in groups:
                groups[key][1].extend(names)
            else:
                groups[key] = (f, list(names))
    ordered = sorted(groups.items(), key=lambda kv: (kv[0][0], -len(kv[1][1]), kv[0][1], kv[0][2]))
    return tuple(FindingGroup(f, tuple(sorted(names))) for _, (f, names) in ordered)


def _oldest_driver(s: Snapshot) -> Optional[DriverVersion]:
    """The oldest of the driver, kernel module and NVML library versions of a node."""
    from envcheck.model.versions import parse_driver_version

    d = s.driver
    seen = [
        v
        for v in (
            parse_driver_version(d.version),
            parse_driver_version(d.kernel_module_version),
            parse_driver_version(d.nvml_library_version),
        )
        if v is not None
    ]
    return min(seen, key=lambda v: v.key) if seen else None


def fleet_requirements(snapshots: Iterable[Snapshot]) -> tuple[str, ...]:
    """The frameworks installed on the nodes, as ``plan`` requirements."""
    from envcheck import names

    companions = names.COMPANIONS["torch"]
    out: dict[str, None] = {}
    for s in snapshots:
        for f in s.frameworks:
            key = names.framework_of(f.name or "")
            if key is not None:
                out[key] = None
        for comp in companions:
            if comp in s.packages:
                out[comp] = None
    return tuple(out)


def _environments(
    distinct: dict[str, _Distinct],
    by_digest: dict[str, list[str]],
    matrix: Matrix,
    requirements: Optional[Sequence[str]],
    all_nodes: bool,
) -> tuple[tuple[Environment, ...], tuple[tuple[str, tuple[str, ...]], ...]]:
    from dataclasses import replace

    from envcheck.compat.target import target_from_snapshot

    excluded: dict[str, list[str]] = {}
    # (os, arch, python) -> digests
    groups: dict[tuple[Optional[str], Optional[str], Optional[str]], list[str]] = {}
    targets: dict[str, Target] = {}
    for digest, names in by_digest.items():
        info = distinct[digest]
        snap, report = info.snapshot, info.report
        assert snap is not None
        assert report is not None
        reason = None
        if snap.nvidia() is not True:
            reason = "no NVIDIA GPU or driver"
        elif _oldest_driver(snap) is None:
            reason = "driver version unknown"
        elif not all_nodes and report.count(Severity.ERROR):
            reason = "doctor errors (fix them, or pass --all-nodes)"
        if reason is not None:
            excluded.setdefault(reason, []).extend(names)
            continue
        t = target_from_snapshot(snap, matrix)
        t = replace(t, driver=_oldest_driver(snap))
        targets[digest] = t
        groups.setdefault((t.os, t.arch, t.python), []).append(digest)

    envs = []
    for (os_name, arch, python), digests in sorted(groups.items(), key=lambda kv: str(kv[0])):
        ts = [targets[d] for d in digests]
        drivers = [t.driver for t in ts if t.driver is not None]
        from envcheck.compat.target import Target as _Target
        from envcheck.compat.target import gpu_union

        ccs, gpu_names, choices = gpu_union(ts)
        target = _Target(
            os=os_name,
            arch=arch,
            driver=min(drivers, key=lambda v: v.key) if drivers else None,
            gpus=ccs,
            gpu_names=gpu_names,
            gpu_choices=choices,
            python=python,
            nvidia=True,
        )
        members = tuple(sorted(n for d in digests for n in by_digest[d]))
        reqs = tuple(requirements or ())
        if not reqs:
            reqs = fleet_requirements(_snapshots(distinct, digests))
        if not reqs:
            envs.append(
                Environment(
                    target,
                    (),
                    members,
                    error="no frameworks are installed on these nodes; name them with --require",
                )
            )
            continue
        from envcheck.resolve.plan import plan
        from envcheck.resolve.plan_model import PlanInputError

        try:
            result = plan(reqs, target, matrix)
        except PlanInputError as exc:
            envs.append(Environment(target, reqs, members, error=str(exc)))
            continue
        envs.append(Environment(target, reqs, members, plan=result))
    out_excluded = tuple((r, tuple(sorted(n))) for r, n in excluded.items())
    return tuple(envs), out_excluded


def _snapshots(distinct: dict[str, _Distinct], digests: Iterable[str]) -> Iterator[Snapshot]:
    for d in digests:
        snap = distinct[d].snapshot
        if snap is not None:
            yield snap
