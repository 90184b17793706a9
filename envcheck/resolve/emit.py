"""Turn one Plan into what a tool reads: pip commands, requirements.txt, conda
commands, environment.yml, pyproject.toml for uv or poetry, pixi.toml, JSON.
Plain strings, no I/O (golden-tested).
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Optional

from envcheck.resolve.shell import join_argv

if TYPE_CHECKING:
    from envcheck.matrix.rows import CondaPackage
    from envcheck.model.versions import CudaVersion
    from envcheck.resolve.conda import CondaFacts
    from envcheck.resolve.plan_model import Pick, Plan

PYPI = "https://pypi.org/simple"
DEFAULT_ENV_NAME = "gpu"

# conda-forge package names, and whether the package has CUDA builds there whose
# build string starts with "cuda" (conda-forge's pytorch, jaxlib and tensorflow
# feedstocks name builds cudaXYZ_pyXY..., e.g. jaxlib-0.10.1-cuda129_py311...:
# https://anaconda.org/conda-forge/jaxlib/files). Anything else goes to pip.
CONDA_FORGE_NAMES = {
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


def _commands(plan: Plan) -> list[tuple[Optional[str], list[Pick]]]:
    """The pip commands: one per index, and one per framework whose nvidia-* pins
    clash with another's (``plan.pin_conflicts``: one command cannot install both)."""
    if not plan.pin_conflicts:
        return _groups(plan)
    out: list[tuple[Optional[str], list[Pick]]] = []
    for index, picks in _groups(plan):
        buckets: dict[str, list[Pick]] = {}
        for pick in picks:
            owner = "torch" if pick.framework in ("torchvision", "torchaudio") else pick.framework
            buckets.setdefault(owner if owner in plan.pin_conflicts else "", []).append(pick)
        out += [(index, buckets[k]) for k in ("", *plan.pin_conflicts) if k in buckets]
    return out


def _conflict_comment(plan: Plan) -> list[str]:
    if not plan.pin_conflicts:
        return []
    who = " and ".join(plan.pin_conflicts)
    return [
        f"# warning: {who} pin different nvidia-* wheel versions: one resolver run"
        + " cannot install them together (see envcheck plan --explain)"
    ]


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
    for index, picks in _commands(plan):
        argv = [*shlex.split(pip), "install", *(p.requirement for p in picks)]
        if index is not None:
            argv += ["--index-url", index]
        for page in _find_links(picks):
            argv += ["--find-links", page]
        lines.append(join_argv(argv, plan.target.os))
    return "\n".join(lines) + "\n"


def pip_argvs(plan: Plan, python: str) -> list[list[str]]:
    """The argv lists ``envcheck install`` runs (``python -m pip install ...``)."""
    _refuse(plan)
    out = []
    for index, picks in _commands(plan):
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
    lines = [_header(plan), *_conflict_comment(plan)]
    indexes = [i for i, _ in _groups(plan) if i is not None]
    lines += [f"--extra-index-url {i}" for i in indexes]
    lines += [f"--find-links {page}" for page in _find_links(list(plan.picks))]
    for pick in plan.picks:
        lines.append(_pinned_local(pick) if _uses_index(pick, plan) else pick.requirement)
    return "\n".join(lines) + "\n"


# -- conda ---------------------------------------------------------------------


def _cuda_version_pin(plan: Plan, facts: CondaFacts) -> Optional[str]:
    """conda-forge ``cuda-version``: the CUDA the picks need, capped at what the
    driver supports natively within the same major (conda checks ``__cuda``); None
    where conda-forge has no cuda-version for that release (conda.toml)."""
    cudas = [p.cuda for p in plan.picks if p.cuda is not None]
    if not cudas:
        return None
    top: CudaVersion = max(cudas)
    cap = plan.driver_max_cuda
    if cap is not None and cap.major == top.major and cap < top:
        top = cap
    if not facts.has_cuda_package("cuda-version", top.major, top.minor):
        return None
    return f"{top.major}.{top.minor}"


def conda_layout(
    plan: Plan, facts: Optional[CondaFacts] = None
) -> tuple[str, list[str], list[Pick], list[str]]:
    """(channel, match specs, picks left for pip, comment lines) of a conda environment."""
    channel, specs, pip, notes, _ = _conda_layout(plan, facts)
    return channel, specs, pip, notes


def _conda_layout(
    plan: Plan, facts: Optional[CondaFacts] = None
) -> tuple[str, list[str], list[Pick], list[str], dict[int, tuple[str, ...]]]:
    """``conda_layout`` plus, per pick (by ``id``), the specs that bring the CUDA
    toolkit and cuDNN its wheel lacks (see ``format_warnings``).

    The channel and what it pins come from ``matrices/conda.toml`` (see
    ``envcheck.resolve.conda``): the defaults channel when it alone ships a pick
    (TensorFlow 1.x GPU with its cudatoolkit and cudnn), else conda-forge.
    """
    from envcheck.resolve.conda import (
        CONDA_FORGE,
        absent_from,
        choose_channel,
        conda_forge_cuda_build,
        shipped_facts,
        unverified_build_note,
        unverified_notes,
    )

    if facts is None:
        facts = shipped_facts()
    channel, served = choose_channel(plan, facts)
    specs: list[str] = []
    pip: list[Pick] = []
    python = plan.target.python
    if python:
        specs.append(f"python={python}")
    toolkit: dict[int, tuple[str, ...]] = {}
    if channel != CONDA_FORGE:
        by_pick = {id(cp.pick): cp for cp in served}
        for pick in plan.picks:
            cp = by_pick.get(id(pick))
            if cp is None:
                pip.append(pick)
            else:
                specs += cp.specs()
                brings = cp.specs()[1:]  # cudatoolkit=X.Y, cudnn=N.*
                if cp.row.cuda and (cp.row.cudnn or not pick.cudnn):
                    toolkit[id(pick)] = brings
        return channel, list(dict.fromkeys(specs)), pip, unverified_notes(served), toolkit
    notes: list[str] = []
    builds: dict[int, CondaPackage] = {}
    no_build: set[int] = set()
    for pick in plan.picks:
        known, row = conda_forge_cuda_build(pick, plan, facts)
        if known and row is None:
            no_build.add(id(pick))
        elif row is not None:
            builds[id(pick)] = row
            note = unverified_build_note(row, pick.version)
            if note:
                notes.append(note)
    # The CUDA of a conda-forge build that exists beats the pip variant's CUDA.
    from envcheck.model.versions import release_key

    cuda = min((r.cuda for r in builds.values() if r.cuda), key=release_key, default=None)
    cuda = cuda or _cuda_version_pin(plan, facts)
    if cuda:
        specs.append(f"cuda-version={cuda}")

    def to_pip(pick: Pick) -> bool:
        name = CONDA_FORGE_NAMES.get(pick.framework, (None, False))[0]
        legacy = pick.package == "tensorflow-gpu" or (
            pick.cuda is not None and pick.cuda.major < 11
        )
        missing = absent_from(pick, plan, facts, channel) is not None or id(pick) in no_build
        return name is None or legacy or missing or bool(pick.version is None and pick.specifier)

    torch_on_pip = any(to_pip(p) for p in plan.picks if p.framework == "torch")
    for pick in plan.picks:
        name, has_cuda_builds = CONDA_FORGE_NAMES.get(pick.framework, (None, False))
        # conda's torchvision/torchaudio depend on conda's pytorch: with torch from pip
        # they would pull in a second torch, so they follow it to pip.
        if to_pip(pick) or (torch_on_pip and pick.framework in _TORCH_COMPANIONS):
            pip.append(pick)
            continue
        assert name is not None  # to_pip() sends unnamed frameworks to pip
        version = pick.version or "*"
        if pick.framework == "jax":
            specs.append(f"jax={version}")
        if has_cuda_builds and pick.cuda is not None:
            specs.append(f"{name}={version}=cuda*")
            # conda-forge's CUDA builds depend on the CUDA libraries they use.
            toolkit[id(pick)] = (f"{name}={version}=cuda*",)
        elif pick.version is None:
            specs.append(name)
        else:
            specs.append(f"{name}={version}")
    if not any(s.endswith("=cuda*") for s in specs):
        # Nothing conda installs has CUDA builds: cuda-version would only get in the way.
        specs = [s for s in specs if not s.startswith("cuda-version=")]
    for pick in pip:
        # A pip wheel without its CUDA libraries (TF < 2.15 and Windows TF): conda-forge's
        # cudatoolkit and cudnn provide them, for the releases cudatoolkit exists for.
        if (
            pick.bundles_cuda is False
            and pick.cuda is not None
            and facts.has_cuda_package("cudatoolkit", pick.cuda.major, pick.cuda.minor)
        ):
            lacks = [f"cudatoolkit={pick.cuda.major}.{pick.cuda.minor}"]
            if pick.cudnn:
                lacks.append(f"cudnn={pick.cudnn.split('.')[0]}")
            specs += lacks
            toolkit[id(pick)] = tuple(lacks)
    return channel, list(dict.fromkeys(specs)), pip, list(dict.fromkeys(notes)), toolkit


_TORCH_COMPANIONS = ("torchvision", "torchaudio")


def conda_split(plan: Plan, facts: Optional[CondaFacts] = None) -> tuple[list[str], list[Pick]]:
    """(match specs, picks left for pip) for the channel ``conda_channel`` names."""
    _, specs, pip, _ = conda_layout(plan, facts)
    return specs, pip


def conda_channel(plan: Plan, facts: Optional[CondaFacts] = None) -> str:
    """The one channel a conda environment for this plan uses."""
    return conda_layout(plan, facts)[0]


def emit_conda(plan: Plan, name: str = DEFAULT_ENV_NAME, facts: Optional[CondaFacts] = None) -> str:
    """``conda create`` from the channel that ships the picks, plus pip for the rest."""
    _refuse(plan)
    channel, specs, pip, notes = conda_layout(plan, facts)
    lines = [_header(plan)] + [f"# {n}" for n in notes]
    argv = ["conda", "create", "-n", name, "-c", channel, "--override-channels", *specs]
    lines.append(join_argv(argv, plan.target.os))
    if pip:
        lines.append(join_argv(["conda", "activate", name], plan.target.os))
        sub = sub_plan(plan, pip)
        lines += emit_pip(sub).splitlines()[1:]
    return "\n".join(lines) + "\n"


def emit_environment_yml(
    plan: Plan, name: str = DEFAULT_ENV_NAME, facts: Optional[CondaFacts] = None
) -> str:
    """environment.yml for the channel that ships the picks (pip only where needed)."""
    _refuse(plan)
    channel, specs, pip, notes = conda_layout(plan, facts)
    if pip and not any(s.startswith("pip") for s in specs):
        specs.append("pip")
    lines = [_header(plan), *_conflict_comment(plan)] + [f"# {n}" for n in notes]
    lines += [f"name: {_yaml_name(name)}", "channels:", f"  - {channel}", "dependencies:"]
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


# -- uv, poetry and pixi -----------------------------------------------------------

# PEP 508 markers of each build platform (uv's ``environments``).
UV_MARKERS = {
    "linux-x86_64": "sys_platform == 'linux' and platform_machine == 'x86_64'",
    "linux-aarch64": "sys_platform == 'linux' and platform_machine == 'aarch64'",
    "windows-x86_64": "sys_platform == 'win32' and platform_machine == 'AMD64'",
    "macos-arm64": "sys_platform == 'darwin' and platform_machine == 'arm64'",
    "macos-x86_64": "sys_platform == 'darwin' and platform_machine == 'x86_64'",
}
# Build platform -> pixi (conda) platform name.
PIXI_PLATFORMS = {
    "linux-x86_64": "linux-64",
    "linux-aarch64": "linux-aarch64",
    "windows-x86_64": "win-64",
    "macos-arm64": "osx-arm64",
    "macos-x86_64": "osx-64",
}


def index_name(url: str) -> str:
    """A short name for an index: ``https://download.pytorch.org/whl/cu124`` -> ``pytorch-cu124``."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    tail = parts.path.rstrip("/").rsplit("/", 1)[-1] or parts.hostname or "index"
    head = "pytorch" if (parts.hostname or "").endswith("pytorch.org") else ""
    text = f"{head}-{tail}" if head else tail
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in text).strip("-.") or "index"


def _toml_str(text: str) -> str:
    """A TOML basic string (JSON string escapes are valid TOML for these texts)."""
    return json.dumps(text)


def _python_spec(plan: Plan) -> Optional[str]:
    return f"=={plan.target.python}.*" if plan.target.python else None


def _sources(plan: Plan) -> tuple[list[tuple[str, str, list[Pick]]], list[tuple[str, str]]]:
    """The package sources a pyproject.toml names, shared by uv and poetry.

    ``([(name, index URL, picks bound to it)], [(name, find-links page)])``: each
    PyTorch index the picks must come from (only the picks listed may use it), and
    each find-links page (old jaxlib CUDA wheels, which arrive as dependencies, so
    no package can be bound to them). Names are unique across both lists.
    """
    taken: set[str] = set()

    def unique(url: str) -> str:
        base = name = index_name(url)
        n = 2
        while name in taken:
            name = f"{base}-{n}"
            n += 1
        taken.add(name)
        return name

    indexes = [(unique(i), i, picks) for i, picks in _groups(plan) if i is not None]
    pages = [(unique(page), page) for page in _find_links(list(plan.picks))]
    return indexes, pages


def _project_table(plan: Plan) -> list[str]:
    """``[project]`` with the picks as PEP 508 dependencies (uv and poetry 2 read it)."""
    lines = ["[project]", f"name = {_toml_str(DEFAULT_ENV_NAME)}", 'version = "0.1.0"']
    python = _python_spec(plan)
    if python:
        lines.append(f"requires-python = {_toml_str(python)}")
    lines.append("dependencies = [")
    lines += [f"  {_toml_str(p.requirement)}," for p in plan.picks]
    lines.append("]")
    return lines


def emit_uv(plan: Plan) -> str:
    """pyproject.toml for uv: ``[project]`` dependencies, ``[[tool.uv.index]]`` per
    PyTorch index (``explicit = true``: only the packages pinned to it in
    ``[tool.uv.sources]`` come from it), find-links pages as flat indexes."""
    _refuse(plan)
    lines = [
        _header(plan),
        *_conflict_comment(plan),
        "# Merge into pyproject.toml (keep your own name/version), then `uv lock` / `uv sync`.",
        *_project_table(plan),
    ]
    marker = UV_MARKERS.get(plan.target.platform or "")
    indexes, pages = _sources(plan)
    if marker:
        lines += ["", "[tool.uv]", "# resolve for the target platform only", "environments = ["]
        lines.append(f"  {_toml_str(marker)},")
        lines.append("]")
    for name, url, _ in indexes:
        lines += ["", "[[tool.uv.index]]", f"name = {_toml_str(name)}"]
        lines += [f"url = {_toml_str(url)}", "explicit = true"]
    for name, page in pages:
        # Not explicit: the wheels there (jaxlib) are dependencies, which sources
        # cannot pin.
        lines += ["", "[[tool.uv.index]]", f"name = {_toml_str(name)}"]
        lines += [f"url = {_toml_str(page)}", 'format = "flat"']
    if indexes:
        lines += ["", "[tool.uv.sources]"]
        for name, _, picks in indexes:
            for pick in picks:
                lines.append(f"{pick.package} = {{ index = {_toml_str(name)} }}")
    return "\n".join(lines) + "\n"


def emit_poetry(plan: Plan) -> str:
    """pyproject.toml for poetry 2: ``[project]`` dependencies, enriched in
    ``[tool.poetry.dependencies]`` with the source of each PyTorch variant, and one
    ``[[tool.poetry.source]]`` per index with ``priority = "explicit"`` (searched only
    for the packages bound to it). Find-links pages become ``supplemental`` sources
    (poetry reads a URL ending in .html as a single-page source): searched only when
    PyPI has no match, which holds for the local ``+cuda`` jaxlib versions there.
    """
    _refuse(plan)
    lines = [
        _header(plan),
        *_conflict_comment(plan),
        "# Merge into pyproject.toml (keep your own name/version), then `poetry lock` /"
        + " `poetry install`.",
        *_project_table(plan),
        "",
        "[tool.poetry]",
        "# an environment, not a package to build; drop this line in a library",
        "package-mode = false",
    ]
    indexes, pages = _sources(plan)
    if indexes:
        lines += ["", "[tool.poetry.dependencies]"]
        for name, _, picks in indexes:
            for pick in picks:
                lines.append(f"{pick.package} = {{ source = {_toml_str(name)} }}")
    for name, url, _ in indexes:
        lines += ["", "[[tool.poetry.source]]", f"name = {_toml_str(name)}"]
        lines += [f"url = {_toml_str(url)}", 'priority = "explicit"']
    for name, page in pages:
        lines += ["", "[[tool.poetry.source]]", f"name = {_toml_str(name)}"]
        lines += [f"url = {_toml_str(page)}", 'priority = "supplemental"']
    return "\n".join(lines) + "\n"


def _pixi_cuda(plan: Plan) -> Optional[str]:
    """``[system-requirements] cuda``: the CUDA the driver must run (the newest CUDA
    a pick targets, capped at the driver's own within that major: minor-version
    compatibility covers the rest)."""
    cudas = [p.cuda for p in plan.picks if p.cuda is not None]
    if not cudas:
        return None
    top: CudaVersion = max(cudas)
    cap = plan.driver_max_cuda
    if cap is not None and cap.major == top.major and cap < top:
        top = cap
    return f"{top.major}.{top.minor}"


def emit_pixi(plan: Plan) -> str:
    """pixi.toml: Python from conda-forge, the frameworks as ``[pypi-dependencies]``
    (the same wheels as the pip plan, PyTorch variants with their ``index``), and
    ``[system-requirements] cuda`` for the driver."""
    _refuse(plan)
    platform = PIXI_PLATFORMS.get(plan.target.platform or "", "linux-64")
    lines = [
        _header(plan),
        *_conflict_comment(plan),
        "[workspace]",
        f"name = {_toml_str(DEFAULT_ENV_NAME)}",
        'channels = ["conda-forge"]',
        f"platforms = [{_toml_str(platform)}]",
    ]
    cuda = _pixi_cuda(plan)
    if cuda:
        lines += ["", "[system-requirements]", f"cuda = {_toml_str(cuda)}"]
    lines += ["", "[dependencies]"]
    lines.append(f"python = {_toml_str(plan.target.python + '.*' if plan.target.python else '*')}")
    conda: dict[str, str] = {}
    toolkit = _pixi_toolkit(plan)
    for pick in plan.picks:
        for name, version in toolkit.get(id(pick), ()):
            conda.setdefault(name, f"{name} = {_toml_str(version)}")
        if pick.bundles_cuda is False and pick.cuda is not None and id(pick) not in toolkit:
            lines.append(f"# {pick.package} needs the CUDA {pick.cuda} toolkit installed")
    lines += list(conda.values())
    pages = _find_links(list(plan.picks))
    if pages:
        lines += ["", "[pypi-options]", "find-links = ["]
        lines += [f"  {{ url = {_toml_str(page)} }}," for page in pages]
        lines.append("]")
    lines += ["", "[pypi-dependencies]"]
    for pick in plan.picks:
        fields = [f"version = {_toml_str(pick.requirement[len(_base(pick)) :] or '*')}"]
        if pick.extra:
            extras = ", ".join(_toml_str(e) for e in pick.extra.split(","))
            fields.append(f"extras = [{extras}]")
        if _uses_index(pick, plan):
            fields.append(f"index = {_toml_str(pick.index_url or '')}")
        lines.append(f"{pick.package} = {{ {', '.join(fields)} }}")
    return "\n".join(lines) + "\n"


def _pixi_toolkit(
    plan: Plan, facts: Optional[CondaFacts] = None
) -> dict[int, tuple[tuple[str, str], ...]]:
    """Per pick (by ``id``): the conda-forge (name, version) pairs a pixi manifest adds
    for a wheel that does not bring CUDA (tensorflow-gpu 1.x, ...): the toolkit and
    cuDNN, as the conda emitter does, where cudatoolkit exists for the release.
    conda-forge's cuda-version pins the release where it exists for it: it constrains
    cudatoolkit to it and __cuda, which pixi sets from [system-requirements] cuda, to
    its major, so pixi refuses a machine too old for it. Which releases either
    package exists for is conda.toml's ``[[cuda_package]]``."""
    from envcheck.resolve.conda import shipped_facts

    if facts is None:
        facts = shipped_facts()
    out: dict[int, tuple[tuple[str, str], ...]] = {}
    for pick in plan.picks:
        cuda = pick.cuda
        if pick.bundles_cuda is not False or cuda is None:
            continue
        if not facts.has_cuda_package("cudatoolkit", cuda.major, cuda.minor):
            continue
        release = f"{cuda.major}.{cuda.minor}.*"
        brings = [("cudatoolkit", release)]
        if facts.has_cuda_package("cuda-version", cuda.major, cuda.minor):
            brings.append(("cuda-version", release))
        if pick.cudnn:
            brings.append(("cudnn", f"{pick.cudnn.split('.')[0]}.*"))
        out[id(pick)] = tuple(brings)
    return out


def format_warnings(plan: Plan, fmt: str, facts: Optional[CondaFacts] = None) -> tuple[str, ...]:
    """The plan's warnings as they hold for a file of format ``fmt``.

    The plan says a wheel that lacks CUDA "needs the CUDA X toolkit ... installed
    separately"; a conda environment or pixi manifest that brings the toolkit (and
    cuDNN) says so instead. pip, requirements, uv and JSON keep the plan's words.
    """
    from envcheck.resolve.plan import toolkit_caveat

    if plan.unsatisfiable is not None:
        return plan.warnings
    if fmt in ("conda", "yml"):
        toolkit = _conda_layout(plan, facts)[4]
        where = "the conda environment"
    elif fmt == "pixi":
        toolkit = {
            key: tuple(f"{name}={version}" for name, version in brings)
            for key, brings in _pixi_toolkit(plan, facts).items()
        }
        where = "the pixi manifest"
    else:
        return plan.warnings
    replace = {}
    for pick in plan.picks:
        brings = toolkit.get(id(pick))
        if brings is None or pick.cuda is None or pick.bundles_cuda is not False:
            continue
        old = f"{pick.package} {pick.version}: {toolkit_caveat(pick.cuda, pick.cudnn)}"
        if brings[0].endswith("=cuda*"):
            new = (
                f"{pick.package} {pick.version}: installed from conda-forge as {brings[0]}, "
                "a CUDA build that brings the CUDA libraries it uses (not the pip wheel)"
            )
        else:
            new = (
                f"{pick.package} {pick.version}: needs the CUDA {pick.cuda} toolkit"
                + (f" and cuDNN {pick.cudnn}" if pick.cudnn else "")
                + f", which {where} brings ({', '.join(brings)}); the pip wheel alone does not"
            )
        replace[old] = new
    return tuple(replace.get(w, w) for w in plan.warnings)


def _base(pick: Pick) -> str:
    return pick.package + (f"[{pick.extra}]" if pick.extra else "")


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
    "uv": emit_uv,
    "poetry": emit_poetry,
    "pixi": emit_pixi,
    "json": emit_json,
}
