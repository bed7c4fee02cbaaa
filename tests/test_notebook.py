"""The quickstart notebook executes from top to bottom (nbmake, in a subprocess)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("nbmake")
pytest.importorskip("ipykernel")
pytest.importorskip("sb3_contrib")  # the notebook trains a model

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "quickstart.ipynb"


@pytest.mark.slow  # about a minute: it trains a small model (CI runs it in the slow step)
def test_quickstart_notebook_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbmake", "--nbmake-timeout=600", "-q", str(NOTEBOOK)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
