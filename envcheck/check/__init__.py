"""``envcheck check``: catch GPU pins that cannot work together, before they land."""

from __future__ import annotations
