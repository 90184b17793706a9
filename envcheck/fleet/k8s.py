"""The Kubernetes Job that runs ``envcheck fleet node`` once on each GPU node.

An indexed Job with as many pods as GPU nodes, at most one pod per node (pod
anti-affinity on ``kubernetes.io/hostname``), each asking the NVIDIA device
plugin for ``nvidia.com/gpu`` (so the container runtime mounts the driver) and
tolerating the usual GPU taints. The node name comes from the downward API.
Read the answers with ``kubectl logs -l app.kubernetes.io/name=envcheck-fleet
--prefix --tail=-1 | envcheck fleet collect --from-logs - -o fleet.jsonl``.
"""

from __future__ import annotations

import re
from typing import Any, Optional

APP_LABEL = "app.kubernetes.io/name"
APP = "envcheck-fleet"
GPU_RESOURCE = "nvidia.com/gpu"
DEFAULT_IMAGE = "envcheck:latest"
_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def parse_node_selector(items: tuple[str, ...]) -> dict[str, str]:
    """``key=value`` pairs; raises ValueError naming the bad one."""
    out: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--node-selector wants KEY=VALUE, not {item!r}")
        out[key.strip()] = value.strip()
    return out


def job_manifest(
    *,
    namespace: str = "default",
    image: str = DEFAULT_IMAGE,
    nodes: int = 1,
    node_selector: Optional[dict[str, str]] = None,
    gpus_per_pod: int = 1,
    deadline_s: int = 600,
    name: str = APP,
) -> dict[str, Any]:
    """The Job as a dict (``yaml.safe_dump`` it, or give it to kubernetes' models)."""
    if not _NAME_RE.match(namespace):
        raise ValueError(f"not a Kubernetes namespace name: {namespace!r}")
    if not _NAME_RE.match(name):
        raise ValueError(f"not a Kubernetes object name: {name!r}")
    labels = {APP_LABEL: name}
    pod_spec: dict[str, Any] = {
        "restartPolicy": "Never",
        "tolerations": [
            {"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"},
            {"key": "nvidia.com/gpu.present", "operator": "Exists", "effect": "NoSchedule"},
        ],
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchLabels": dict(labels)},
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            }
        },
        "containers": [
            {
                "name": "envcheck",
                "image": image,
                "command": ["python3", "-m", "envcheck", "fleet", "node"],
                "env": [
                    {
                        "name": "ENVCHECK_NODE_NAME",
                        "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}},
                    },
                    {
                        "name": "ENVCHECK_JOB_ID",
                        "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['job-name']"}},
                    },
                ],
                "resources": {
                    "limits": {GPU_RESOURCE: str(gpus_per_pod)},
                    "requests": {"cpu": "100m", "memory": "256Mi"},
                },
            }
        ],
    }
    if node_selector:
        pod_spec["nodeSelector"] = dict(node_selector)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
        "spec": {
            "completions": nodes,
            "parallelism": nodes,
            "completionMode": "Indexed",
            "backoffLimit": 0,
            "activeDeadlineSeconds": deadline_s,
            "ttlSecondsAfterFinished": 3600,
            "template": {"metadata": {"labels": dict(labels)}, "spec": pod_spec},
        },
    }


def manifest_yaml(manifest: dict[str, Any]) -> str:
    import yaml

    return str(yaml.safe_dump(manifest, sort_keys=False, default_flow_style=False))
