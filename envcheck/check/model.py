"""Value types of ``envcheck check``: pins read from dependency files, and problems.

Parsers turn file text into these; ``check_pins`` turns them into a CheckReport.
Every fact carries the file and line it came from so problems point at it.
"""

from __future__ import annotations

from typing import Any, Optional

from envcheck.model._frozen import record

# Problem codes are stable: tools and CI configurations match on them.
# EC0xx: the input itself; EC1xx: combinations that cannot work; EC2xx: notes.
UNREADABLE_INPUT = "EC001"
INVALID_REQUIREMENT = "EC002"
INCLUDE_LOOP = "EC003"
MISSING_INCLUDE = "EC004"
UNKNOWN_KEY = "EC005"
INVALID_VALUE = "EC006"
CUDA_MAJOR_CONFLICT = "EC101"
CUDNN_MAJOR_CONFLICT = "EC102"
INDEX_LACKS_VERSION = "EC103"
CONDA_CUDA_CONTRADICTION = "EC104"
PYTHON_OUT_OF_RANGE = "EC105"
TARGET_UNSERVED = "EC106"
KERAS_TENSORFLOW_CONFLICT = "EC107"
NO_SUCH_RELEASE = "EC108"
COMPANION_TORCH_CONFLICT = "EC109"
UNKNOWN_VERSION = "EC201"
FRAMEWORK_NOT_IN_MATRIX = "EC202"
UNKNOWN_OPTION = "EC203"
NO_DEPENDENCY_FILES = "EC204"

CODE_NAMES = {
    UNREADABLE_INPUT: "unreadable-input",
    INVALID_REQUIREMENT: "invalid-requirement",
    INCLUDE_LOOP: "include-loop",
    MISSING_INCLUDE: "missing-include",
    UNKNOWN_KEY: "unknown-key",
    INVALID_VALUE: "invalid-value",
    CUDA_MAJOR_CONFLICT: "cuda-major-conflict",
    CUDNN_MAJOR_CONFLICT: "cudnn-major-conflict",
    INDEX_LACKS_VERSION: "index-lacks-version",
    CONDA_CUDA_CONTRADICTION: "conda-cuda-contradiction",
    PYTHON_OUT_OF_RANGE: "python-out-of-range",
    TARGET_UNSERVED: "target-unserved",
    KERAS_TENSORFLOW_CONFLICT: "keras-tensorflow-conflict",
    NO_SUCH_RELEASE: "no-such-release",
    COMPANION_TORCH_CONFLICT: "companion-torch-conflict",
    UNKNOWN_VERSION: "unknown-version",
    FRAMEWORK_NOT_IN_MATRIX: "framework-not-in-matrix",
    UNKNOWN_OPTION: "unknown-option",
    NO_DEPENDENCY_FILES: "no-dependency-files",
}

EXPLANATIONS = {
    UNREADABLE_INPUT: (
        "A dependency file cannot be read: it is missing, binary, too large, or not valid"
        " TOML/YAML. Nothing in it can be checked, so check exits 2. Fix the file; this code"
        " cannot be ignored."
    ),
    INVALID_REQUIREMENT: (
        "A line pip (or conda) would reject, or a version constraint envcheck cannot"
        " translate (reported as a warning). The line is reported and skipped."
    ),
    INCLUDE_LOOP: (
        "`-r`/`-c` includes (or PEP 735 include-group entries) form a loop; pip refuses such"
        " files. Break the loop."
    ),
    MISSING_INCLUDE: (
        "A `-r`/`-c` include names a file that does not exist (after `${VAR}` expansion;"
        " the expanded value is never printed)."
    ),
    UNKNOWN_KEY: "[tool.envcheck] (or environment.yml) has a key envcheck does not know.",
    INVALID_VALUE: (
        "A [tool.envcheck] value cannot be read (a GPU name or driver version envcheck does"
        " not recognise)."
    ),
    CUDA_MAJOR_CONFLICT: (
        "Two pins in one environment need different CUDA majors (e.g. cupy-cuda11x beside a"
        " CUDA 12 torch); one process cannot load both runtimes."
    ),
    CUDNN_MAJOR_CONFLICT: (
        "Two pins in one environment need different cuDNN majors (torch 2.4 brings cuDNN 9;"
        " tensorflow[and-cuda]==2.16.1 pins cuDNN 8.9); pip installs only one."
    ),
    INDEX_LACKS_VERSION: (
        "The index a pin is installed from never published that release (torch 2.8.0 on"
        " .../whl/cu118), or no longer serves it; pip fails or falls back to another build."
        " Use an index (or +cuXYZ local version) that has the release, or another release."
    ),
    CONDA_CUDA_CONTRADICTION: (
        "Conda pins disagree about the environment's CUDA: a cudatoolkit / cuda-version /"
        " pytorch-cuda pin against a framework build, two such pins naming different CUDA"
        " versions, or a CUDA newer than pixi's [system-requirements] cuda (an older major"
        " than it declares is a warning: it runs, but pixi refuses machines it would run on)."
        " Also a pytorch-cuda or cudatoolkit pin no channel build of the pinned release was"
        " made for (pytorch=2.1.0 with pytorch-cuda=12.4), from matrices/conda.toml."
    ),
    PYTHON_OUT_OF_RANGE: (
        "requires-python, Poetry's python, or a conda python pin allows a Python the pinned"
        " framework publishes no builds for."
    ),
    TARGET_UNSERVED: (
        "The pins cannot serve the target declared in [tool.envcheck] (or given with"
        " --driver/--gpu/--os/--python-version): driver too old, no kernels for a GPU,"
        " platform or Python not built."
    ),
    KERAS_TENSORFLOW_CONFLICT: (
        "A keras pin and a tensorflow pin that pip cannot install together: the TensorFlow"
        " release requires another keras (tensorflow 2.15 requires keras<2.16, so Keras 3"
        " needs TensorFlow 2.16+), or a Keras 2.x release needs another TensorFlow."
    ),
    NO_SUCH_RELEASE: (
        "An exact pin of a release that was never published (torch==2.5.7): the matrix lists"
        " every release of the package up to its newest one, and this is not among them;"
        " pip cannot install it. The nearest real releases are named. A release newer than the"
        " matrix's newest is EC201 instead (the matrix may be older than it)."
    ),
    COMPANION_TORCH_CONFLICT: (
        "A torchvision or torchaudio pin and a torch pin that do not go together: every"
        " companion release is built for one torch release and its wheels require it"
        " (torchvision 0.19.0 requires torch 2.4.0), or a +cpu companion sits beside a +cuXYZ"
        " torch, whose CUDA tensors its operators cannot take. From the [[companion]] rows"
        " of matrices/torch.toml."
    ),
    UNKNOWN_VERSION: (
        "The matrix does not know this release (or which index variants it was published"
        " for); the pin is not checked. A warning: never silently passed, never an error."
    ),
    FRAMEWORK_NOT_IN_MATRIX: "The matrix has no builds of this framework; the pin is not checked.",
    UNKNOWN_OPTION: "A pip option envcheck does not know; the line is skipped.",
    NO_DEPENDENCY_FILES: (
        "No dependency file was found where check looked (requirements*.txt, requirements/*.txt,"
        " pip-tools *requirements*.in and requirements/*.in, environment*.yml, conda.yml,"
        " pyproject.toml, pixi.toml, lockfiles), so nothing was checked. A warning: name the"
        " files as arguments if they are called something else."
    ),
}

SUPPRESS_HINT = "# envcheck: ignore[CODE]"
"""The per-line suppression comment (a bare ``# envcheck: ignore`` silences every code)."""

ERROR = "error"
"""A combination that cannot work (exit 1)."""
WARNING = "warning"
"""Something the matrix cannot confirm; printed, does not fail the check."""
UNREADABLE = "unreadable"
"""The input itself cannot be read (exit 2)."""


@record
class Location:
    path: str
    line: Optional[int]

    def __str__(self) -> str:
        return self.path if self.line is None else f"{self.path}:{self.line}"


@record
class Problem:
    """One line of the check's output."""

    location: Location
    code: str
    message: str
    severity: str = ERROR

    def __post_init__(self) -> None:
        # Messages quote pins, names and paths from the files: a 100 KB version
        # string must not become a 100 KB line (issue 26 item 8).
        from envcheck.errors import MAX_QUOTED, clip

        if len(self.message) > 3 * MAX_QUOTED:
            object.__setattr__(self, "message", clip(self.message, 3 * MAX_QUOTED))

    @property
    def name(self) -> str:
        return CODE_NAMES.get(self.code, self.code)

    def render(self) -> str:
        prefix = "warning: " if self.severity == WARNING else ""
        return f"{self.location}: {self.code} {prefix}{self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.location.path,
            "line": self.location.line,
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
        }

    def sort_key(self) -> tuple[str, int, str, str]:
        return (self.location.path, self.location.line or 0, self.code, self.message)


@record
class Pin:
    """One requirement as written: ``torch==2.8.0``, conda ``pytorch=2.1``."""

    name: str
    """Normalised distribution (pip) or package (conda) name."""
    specifier: str
    """PEP 440 specifier set (conda match specs are translated); empty: any."""
    location: Location
    text: str
    """The requirement as written, for messages."""
    source: str = "pip"
    """``pip`` or ``conda``."""
    extras: tuple[str, ...] = ()
    local: Optional[str] = None
    """Local version label of an exact pin (``cu118`` in ``==2.1.0+cu118``)."""
    index_url: Optional[str] = None
    """An index this requirement is bound to (``[tool.uv.sources]``)."""
    index_location: Optional[Location] = None
    constraint: bool = False
    """From a ``-c`` constraints file: narrows, installs nothing."""


@record
class IndexRef:
    """A package index or find-links location named by a dependency file."""

    url: str
    kind: str
    """``index-url``, ``extra-index-url`` or ``find-links``."""
    location: Location


@record
class PythonBound:
    """A bound on the project's Python: requires-python, a conda ``python`` pin."""

    specifier: str
    text: str
    location: Location


@record
class SystemCuda:
    """pixi ``[system-requirements] cuda``: the CUDA version the machine's driver supports."""

    version: str
    location: Location


@record
class DeclaredTarget:
    """``[tool.envcheck]`` of a pyproject.toml: what the project must run on."""

    location: Location
    min_driver: Optional[str] = None
    gpus: tuple[str, ...] = ()
    platforms: tuple[str, ...] = ()
    python: Optional[str] = None


@record
class Include:
    """``-r FILE`` / ``-c FILE`` (also from a conda ``pip:`` list)."""

    target: str
    """The path as written."""
    constraint: bool
    location: Location
    project: bool = False
    """``.`` / ``-e .[gpu]``: the local project, whose pyproject.toml dependencies join."""
    extras: tuple[str, ...] = ()


@record
class ParsedFile:
    """What one requirements or environment file says."""

    path: str
    pins: tuple[Pin, ...] = ()
    indexes: tuple[IndexRef, ...] = ()
    includes: tuple[Include, ...] = ()
    python: tuple[PythonBound, ...] = ()
    problems: tuple[Problem, ...] = ()
    system_cuda: tuple[SystemCuda, ...] = ()


@record
class Environment:
    """Pins installed together (one pip invocation, one conda env, base + one extra)."""

    name: str
    pins: tuple[Pin, ...] = ()
    indexes: tuple[IndexRef, ...] = ()
    python: tuple[PythonBound, ...] = ()
    declared: Optional[DeclaredTarget] = None
    system_cuda: tuple[SystemCuda, ...] = ()


@record
class Suppression:
    """``# envcheck: ignore[EC201]`` on a line: the codes it silences (empty: all)."""

    location: Location
    codes: tuple[str, ...] = ()


@record
class Selection:
    """``select``/``ignore`` of one project's [tool.envcheck], for its files."""

    files: tuple[str, ...]
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


@record
class Project:
    """Everything read from a project's dependency files."""

    files: tuple[str, ...] = ()
    environments: tuple[Environment, ...] = ()
    problems: tuple[Problem, ...] = ()
    """Problems found while reading (unreadable input, bad lines)."""
    suppressions: tuple[Suppression, ...] = ()
    selections: tuple[Selection, ...] = ()


@record
class CheckReport:
    files: tuple[str, ...]
    problems: tuple[Problem, ...]
    matrix_version: str = ""

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == ERROR)

    @property
    def warnings(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == WARNING)

    @property
    def unreadable(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == UNREADABLE)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "envcheck.check/1",
            "matrix_version": self.matrix_version,
            "files": list(self.files),
            "problems": [p.to_json() for p in self.problems],
            "summary": {
                "errors": len(self.errors),
                "warnings": len(self.warnings),
                "unreadable": len(self.unreadable),
            },
        }
