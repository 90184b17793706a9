from __future__ import annotations

from envcheck._entry import run

run()
