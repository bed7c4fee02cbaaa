"""The quickstart notebook executes from top to bottom (nbmake, in a subprocess)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "quickstart.ipynb"


@pytest.mark.slow  # about a minute: it trains a small model (CI runs it in the slow step)
def test_quickstart_notebook_runs() -> None:
    pytest.importorskip("nbmake")
    pytest.importorskip("ipykernel")
    pytest.importorskip("sb3_contrib")  # the notebook trains a model
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbmake", "--nbmake-timeout=600", "-q", str(NOTEBOOK)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]


def test_the_dev_extra_runs_the_notebook_headless() -> None:
    """nbconvert executes it without a browser, ipywidgets draws tqdm's progress bars (without
    it the notebook warns "IProgress not found")."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dev = {re.split(r"[\[<>=~ ;]", req)[0] for req in project["optional-dependencies"]["dev"]}
    assert {"nbmake", "ipykernel", "nbconvert", "ipywidgets"} <= dev
