"""The fuzz suite (issue 16 item 7): hypothesis over every parser and a few CLI
entry points. Each target asserts the documented outcome (a parse or one
``InputError``; exit 0/1/2 and no traceback for the CLI) within a time bound.

Bounded to about a minute in the default run; ``ENVCHECK_FUZZ_LONG=1`` runs
10 000 examples per parser and 1 000 per CLI entry point
(``ENVCHECK_FUZZ_EXAMPLES=N`` sets any number for both).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

LONG = os.environ.get("ENVCHECK_FUZZ_LONG", "") not in ("", "0")
_N = int(os.environ.get("ENVCHECK_FUZZ_EXAMPLES", "0") or 0)
PARSER_EXAMPLES = _N or (10_000 if LONG else 250)
CLI_EXAMPLES = _N or (1_000 if LONG else 40)
SECONDS_PER_INPUT = 5.0
"""The time bound of one input (generous: the test machine is shared)."""

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
