"""Turn one Plan into what a tool reads: pip commands, requirements.txt, conda
commands, environment.yml, JSON. Plain strings, no I/O (golden-tested).
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from envcheck.model.versions import CudaVersion
    from envcheck.resolve.plan import Pick, Plan

PYPI = "https://pypi.org/simple"
DEFAULT_ENV_NAME = "gpu"

# conda-forge package names, and whether the package has CUDA builds there whose
# build string starts with "cuda" (conda-forge's pytorch, jaxlib and tensorflow
# feedstocks name builds cudaXYZ_pyXY..., e.g. jaxlib-0.10.1-cuda129_py311...:
# https://anaconda.org/conda-forge/jaxlib/files). Anything else goes to pip.
CONDA_FORGE = {
    "torch": ("pytorch", True),
    "torchvision": ("torchvision", True),
    "torchaudio": ("torchaudio", False),
    "tensorflow": ("tensorflow", True),
    "jax": ("jaxlib", True),
    "cupy": ("cupy", False),
    "keras": ("keras", False),
}


def _header(plan: Plan) -> str:
    return f"# envcheck plan for {plan.target.describe()}"


def _uses_index(pick: Pick, plan: Plan) -> bool:
    """Whether the pick must come from its own index (PyTorch variants).

    The PyPI default variant is only known for linux-x86_64; elsewhere keep the index.
    """
    if pick.index_url is None:
        return False
    return not (pick.pypi_default and plan.target.platform == "linux-x86_64")


def _pinned_local(pick: Pick) -> str:
    """``torch==2.5.1+cu124``: the exact variant, for files that mix indexes."""
    if pick.version is None or pick.variant is None:
        return pick.requirement
    return f"{pick.requirement}+{pick.variant}"


def _groups(plan: Plan) -> list[tuple[Optional[str], list[Pick]]]:
    groups: dict[Optional[str], list[Pick]] = {}
    for pick in plan.picks:
        key = pick.index_url if _uses_index(pick, plan) else None
        groups.setdefault(key, []).append(pick)
    # Index groups first (torch before what depends on it), PyPI last.
    return sorted(groups.items(), key=lambda kv: kv[0] is None)


def _find_links(picks: list[Pick]) -> list[str]:
    """The ``--find-links`` pages these picks need (old jaxlib CUDA wheels), in order."""
    return list(dict.fromkeys(p.find_links for p in picks if p.find_links))


def _refuse(plan: Plan) -> None:
    if plan.unsatisfiable is not None:
        raise ValueError(f"cannot emit an unsatisfiable plan: {plan.unsatisfiable}")


def emit_pip(plan: Plan, pip: str = "pip") -> str:
    """One ``pip install`` per index; PyTorch variants get ``--index-url``."""
    _refuse(plan)
    lines = [_header(plan)]
    for index, picks in _groups(plan):
        argv = [*shlex.split(pip), "install", *(p.requirement for p in picks)]
        if index is not None:
            argv += ["--index-url", index]
        for page in _find_links(picks):
            argv += ["--find-links", page]
        lines.append(" ".join(shlex.quote(a) for a in argv))
    return "\n".join(lines) + "\n"


def pip_argvs(plan: Plan, python: str) -> list[list[str]]:
    """The argv lists ``envcheck install`` runs (``python -m pip install ...``)."""
    _refuse(plan)
    out = []
    for index, picks in _groups(plan):
        argv = [python, "-m", "pip", "install", *(p.requirement for p in picks)]
        if index is not None:
            argv += ["--index-url", index]
        for page in _find_links(picks):
            argv += ["--find-links", page]
        out.append(argv)
    return out


def emit_requirements(plan: Plan) -> str:
    """requirements.txt: extra index lines, variant-exact pins (``+cu124``)."""
    _refuse(plan)
    lines = [_header(plan)]
    indexes = [i for i, _ in _groups(plan) if i is not None]
    lines += [f"--extra-index-url {i}" for i in indexes]
    lines += [f"--find-links {page}" for page in _find_links(list(plan.picks))]
    for pick in plan.picks:
        lines.append(_pinned_local(pick) if _uses_index(pick, plan) else pick.requirement)
    return "\n".join(lines) + "\n"


# -- conda ---------------------------------------------------------------------


def _cuda_version_pin(plan: Plan) -> Optional[str]:
    """conda-forge ``cuda-version``: the CUDA the picks need, capped at what the
    driver supports natively within the same major (conda checks ``__cuda``)."""
    cudas = [p.cuda for p in plan.picks if p.cuda is not None]
    if not cudas:
        return None
    top: CudaVersion = max(cudas)
    if top.major < 11:
        return None  # cuda-version covers CUDA 11 and newer; older uses cudatoolkit
    cap = plan.driver_max_cuda
    if cap is not None and cap.major == top.major and cap < top:
        top = cap
    return f"{top.major}.{top.minor}"


def conda_split(plan: Plan) -> tuple[list[str], list[Pick]]:
    """(conda-forge match specs, picks left for pip)."""
    specs: list[str] = []
    pip: list[Pick] = []
    python = plan.target.python
    if python:
        specs.append(f"python={python}")
    cuda = _cuda_version_pin(plan)
    if cuda:
        specs.append(f"cuda-version={cuda}")
    for pick in plan.picks:
        name, has_cuda_builds = CONDA_FORGE.get(pick.framework, (None, False))
        legacy = pick.package == "tensorflow-gpu" or (
            pick.cuda is not None and pick.cuda.major < 11
        )
        if name is None or legacy or (pick.version is None and pick.specifier):
            pip.append(pick)
            continue
        version = pick.version or "*"
        if pick.framework == "jax":
            specs.append(f"jax={version}")
        if has_cuda_builds and pick.cuda is not None:
            specs.append(f"{name}={version}=cuda*")
        elif pick.version is None:
            specs.append(name)
        else:
            specs.append(f"{name}={version}")
    for pick in pip:
        if pick.bundles_cuda is False and pick.cuda is not None and pick.cuda.major < 11:
            specs.append(f"cudatoolkit={pick.cuda.major}.{pick.cuda.minor}")
            if pick.cudnn:
                specs.append(f"cudnn={pick.cudnn.split('.')[0]}")
    return list(dict.fromkeys(specs)), pip


def emit_conda(plan: Plan, name: str = DEFAULT_ENV_NAME) -> str:
    """``conda create`` from conda-forge, plus pip for what conda-forge lacks."""
    _refuse(plan)
    specs, pip = conda_split(plan)
    lines = [_header(plan)]
    argv = ["conda", "create", "-n", name, "-c", "conda-forge", "--override-channels", *specs]
    lines.append(" ".join(shlex.quote(a) for a in argv))
    if pip:
        lines.append(f"conda activate {shlex.quote(name)}")
        sub = sub_plan(plan, pip)
        lines += emit_pip(sub).splitlines()[1:]
    return "\n".join(lines) + "\n"


def emit_environment_yml(plan: Plan, name: str = DEFAULT_ENV_NAME) -> str:
    """environment.yml for conda-forge (a pip section only where needed)."""
    _refuse(plan)
    specs, pip = conda_split(plan)
    if pip and not any(s.startswith("pip") for s in specs):
        specs.append("pip")
    lines = [_header(plan), f"name: {_yaml_name(name)}", "channels:", "  - conda-forge"]
    lines.append("dependencies:")
    lines += [f"  - {_yaml_str(s)}" for s in specs]
    if pip:
        lines.append("  - pip:")
        sub = sub_plan(plan, pip)
        for index in [i for i, _ in _groups(sub) if i is not None]:
            lines.append(f"    - {_yaml_str('--extra-index-url ' + index)}")
        for page in _find_links(pip):
            lines.append(f"    - {_yaml_str('--find-links ' + page)}")
        for pick in pip:
            text = _pinned_local(pick) if _uses_index(pick, plan) else pick.requirement
            lines.append(f"    - {_yaml_str(text)}")
    return "\n".join(lines) + "\n"


def sub_plan(plan: Plan, picks: list[Pick]) -> Plan:
    from dataclasses import replace

    return replace(plan, picks=tuple(picks))


def _yaml_str(text: str) -> str:
    """Quote YAML scalars that would otherwise be read as something else."""
    if any(ch in text for ch in ":#{}[],&*!|>'\"%@`") or text != text.strip():
        return json.dumps(text)
    return text


_YAML_WORDS = frozenset(
    ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"]
)  # read as booleans/null by YAML 1.1 loaders (conda's included)


def _yaml_name(name: str) -> str:
    """The environment name as a YAML string: plain when unambiguous, else quoted."""
    import re

    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.+-]*", name) and name.lower() not in _YAML_WORDS:
        return name
    return json.dumps(name)


def emit_json(plan: Plan) -> str:
    return json.dumps(plan.to_json(), indent=2, sort_keys=False) + "\n"


EMITTERS = {
    "pip": emit_pip,
    "requirements": emit_requirements,
    "conda": emit_conda,
    "yml": emit_environment_yml,
    "json": emit_json,
}
