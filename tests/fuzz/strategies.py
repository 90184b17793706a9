"""Inputs for the fuzz suite: random text biased towards each format's syntax,
and real files from tests/fixtures mutated (chunks deleted, duplicated,
replaced, nested, digits and long runs spliced in)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

FIXTURES = Path(__file__).parents[1] / "fixtures"

_PIECES = {
    "json": ["{", "}", "[", "]", '"', ":", ",", "\\", "null", "true", "1e999", "-0", '"\\ud800"'],
    "toml": ["[", "]", "[[", "]]", "{", "}", "=", '"', "'", '"""', "'''", "#", "\n", ".", ","],
    "yaml": [
        "- ",
        ": ",
        "{",
        "}",
        "[",
        "]",
        "&a ",
        "*a",
        "!!python/object ",
        "|",
        ">",
        "\n  ",
        "---",
        "...",
        "? ",
        "%YAML 1.1\n",
        '"',
        "'",
        "#",
        "\t",
    ],
    "requirements": [
        "-r ",
        "-c ",
        "-e ",
        "--index-url ",
        "==",
        ">=",
        "~=",
        "!=",
        ";",
        "[",
        "]",
        "@ ",
        "file://",
        "${HOME}",
        "\\\n",
        "#",
        " ",
        "torch",
        "nvidia-cudnn-cu12",
        "+cu121",
        "python_version",
        '<"3.9"',
        ",",
    ],
    "log": [
        "CUDA error: ",
        "libcudnn.so.8",
        ": cannot open shared object file",
        "driver version",
        "RuntimeError: ",
        "no kernel image",
        "sm_90",
        "CUDA_ERROR_",
        "NCCL",
        "nvidia-smi",
        "Traceback",
        " ",
        "\n",
        "/home/alice/",
        "cuDNN version: ",
        "PyTorch version: ",
    ],
}
_SPLICE = st.sampled_from(
    [
        "9" * 5000,
        " " * 20000,
        "[" * 3000,
        "{" * 3000,
        "- " * 2000,
        "a" * 100_000,
        "\x00",
        "\ufeff",
        "\r\n",
        "\u2028",
        "\udcff",
        "${MY_SECRET}",
        "é" * 50,
        "&a [*a, *a, *a, *a]",
    ]
)


def _fixture_texts(*globs: str) -> list[str]:
    texts: list[str] = []
    for pattern in globs:
        for path in sorted(FIXTURES.glob(pattern)):
            if path.is_file() and path.stat().st_size < 200_000:
                try:
                    texts.append(path.read_text(encoding="utf-8"))
                except (UnicodeDecodeError, OSError):
                    continue
    return texts or [""]


SEEDS = {
    "json": _fixture_texts("snapshots/*.json", "machines/*.json", "doctor/**/*.json"),
    "toml": _fixture_texts(
        "projects/**/pyproject.toml", "projects/**/pixi.toml", "matrix-mini/*.toml"
    ),
    "yaml": _fixture_texts("projects/**/environment.yml", "projects/**/environment.yaml"),
    "requirements": _fixture_texts("projects/**/requirements*.txt"),
    "log": _fixture_texts("collect_env/*.txt", "corpus/collect_env/*.txt", "corpus/errors/*.toml"),
}


@st.composite
def mutated(draw: st.DrawFn, kind: str) -> str:
    """A fixture of ``kind`` with a few random edits."""
    text = draw(st.sampled_from(SEEDS[kind]))
    pieces = st.sampled_from(_PIECES[kind])
    for _ in range(draw(st.integers(0, 6))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 200)))
        op = draw(st.sampled_from(["delete", "dup", "insert", "splice", "nest", "swap"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "dup":
            text = text[:j] + text[i:j] * draw(st.integers(1, 50)) + text[j:]
        elif op == "insert":
            text = text[:i] + draw(pieces) * draw(st.integers(1, 20)) + text[i:]
        elif op == "splice":
            text = text[:i] + draw(_SPLICE) + text[i:]
        elif op == "nest":
            depth = draw(st.integers(1, 400))
            open_, close = draw(st.sampled_from([("[", "]"), ("{", "}"), ("- ", "")]))
            text = text[:i] + open_ * depth + text[i:j] + close * depth + text[j:]
        else:
            text = text[:i] + draw(st.text(max_size=40)) + text[j:]
    return text


def syntax(kind: str) -> st.SearchStrategy[str]:
    """Random text built from the format's own tokens and arbitrary characters."""
    return st.lists(
        st.one_of(
            st.sampled_from(_PIECES[kind]),
            st.text(max_size=8),
            _SPLICE.filter(lambda s: len(s) < 100),
        ),
        max_size=60,
    ).map("".join)


def inputs_for(kind: str) -> st.SearchStrategy[str]:
    return st.one_of(mutated(kind), syntax(kind), st.text(max_size=300))
