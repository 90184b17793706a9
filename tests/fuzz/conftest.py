"""The fuzz suite (issue 16 item 7): hypothesis over every parser and a few CLI
entry points. Each target asserts the documented outcome (a parse or one
``InputError``; exit 0/1/2 and no traceback for the CLI) within a time bound
and a memory bound (``tracemalloc`` peak per example, see :func:`bounded`).

Bounded to about half a minute in the default run; ``ENVCHECK_FUZZ_LONG=1``
runs 10 000 examples per parser and per CLI entry point (the CLI in-process
through click's CliRunner; a few real subprocesses check exit codes and stderr)
(``ENVCHECK_FUZZ_EXAMPLES=N`` sets any number for both).
"""

from __future__ import annotations

import contextlib
import os
import time
import tracemalloc
from collections.abc import Iterator

from hypothesis import HealthCheck, settings

LONG = os.environ.get("ENVCHECK_FUZZ_LONG", "") not in ("", "0")
_N = int(os.environ.get("ENVCHECK_FUZZ_EXAMPLES", "0") or 0)
PARSER_EXAMPLES = _N or (10_000 if LONG else 250)
CLI_EXAMPLES = _N or (10_000 if LONG else 40)
SECONDS_PER_INPUT = 5.0
"""The time bound of one input (generous: the test machine is shared)."""
MIB = 1024 * 1024
CLI_MEMORY_BOUND = 64 * MIB
"""The most memory one CLI example may allocate at its peak (Python allocations
seen by ``tracemalloc``), or :data:`MEMORY_PER_INPUT_BYTE` times the input's
size when that is more. Measured (250 examples per parser, 40 per CLI target):
a CLI example peaks at 16 MiB, the first load of the matrix in the process."""
PARSER_MEMORY_BOUND = 8 * MIB
"""The same for one parser call: measured below 1 MiB (0.7 MiB for a 105 KB
requirements file; at most ~7 bytes per input byte on inputs over 50 KB).
YAML alias amplification (24 KB standing for 9 million pins) is far above."""
MEMORY_PER_INPUT_BYTE = 32

settings.register_profile(
    "envcheck-fuzz",
    deadline=None,  # wall time is asserted per input, with a shared-machine margin
    database=None,  # no .hypothesis/ directory in the checkout
    derandomize=not LONG,  # CI runs are reproducible; the long run explores
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
parser_settings = settings(settings.get_profile("envcheck-fuzz"), max_examples=PARSER_EXAMPLES)
cli_settings = settings(settings.get_profile("envcheck-fuzz"), max_examples=CLI_EXAMPLES)


@contextlib.contextmanager
def bounded(
    size: int, seconds: float = SECONDS_PER_INPUT, memory: int = PARSER_MEMORY_BOUND
) -> Iterator[None]:
    """Assert that the block ends within ``seconds`` and allocates at most
    ``max(memory, MEMORY_PER_INPUT_BYTE * size)`` bytes at its peak."""
    limit = max(memory, MEMORY_PER_INPUT_BYTE * size)
    # Traced around the example only: tracing hypothesis' own generation too
    # made the default run five times slower.
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    start = time.monotonic()
    try:
        yield
    finally:
        elapsed = time.monotonic() - start
        _, peak = tracemalloc.get_traced_memory()
        if started:
            tracemalloc.stop()
    used = peak - base
    if os.environ.get("ENVCHECK_FUZZ_REPORT"):
        with open(os.environ["ENVCHECK_FUZZ_REPORT"], "a", encoding="utf-8") as fh:
            fh.write(f"{os.environ.get('PYTEST_CURRENT_TEST', '?').split(' ')[0]} {size} {used}\n")
    assert elapsed < seconds, f"took {elapsed:.1f} s"
    assert used <= limit, f"allocated {used / MIB:.1f} MiB at its peak (bound {limit / MIB:.0f})"
