"""scripts/slurm_e2e.sh against a real single-node Slurm cluster (opt-in).

It starts munged, slurmctld and slurmd on this machine (installing Debian's
slurm-wlm and munge when srun is missing), so it runs only when asked:
ENVCHECK_SLURM_E2E=1 pytest tests/fleet/test_slurm_e2e.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "slurm_e2e.sh"


@pytest.mark.slow
@pytest.mark.real_machine
def test_slurm_e2e(tmp_path: Path) -> None:
    if shutil.which("srun") is None and os.environ.get("ENVCHECK_SLURM_E2E") != "1":
        pytest.skip("srun is not installed (run scripts/slurm_e2e.sh as root to install Slurm)")
    if os.environ.get("ENVCHECK_SLURM_E2E") != "1":
        pytest.skip("starts Slurm daemons on this machine; opt in with ENVCHECK_SLURM_E2E=1")
    env = dict(os.environ, PYTHON=sys.executable, SLURM_E2E_DIR=str(tmp_path), SLURM_E2E_STOP="1")
    proc = subprocess.run(
        ["bash", str(SCRIPT)], capture_output=True, text=True, env=env, timeout=1500, check=False
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "slurm_e2e: PASS" in proc.stdout
