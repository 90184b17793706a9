from __future__ import annotations

from envcheck.cli import main

raise SystemExit(main())
