"""The quickstart notebook executes from top to bottom (nbmake, in a subprocess)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "quickstart.ipynb"


@pytest.mark.slow  # a few hundred games and a brief training run (CI runs it in the slow step)
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


def test_the_notebook_says_what_it_runs_and_how_long() -> None:
    """Its text names the learner it trains (the lean PPO, not MaskablePPO), promises no
    duration (it printed "one to three minutes" where the run took 16 s), and teaches with the
    shipped model measured against random and heuristic, not with an agent trained too briefly
    to beat random."""
    pytest.importorskip("sb3_contrib")  # train.selfplay
    from train.selfplay import make_config

    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    prose = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert 'make_config(\n    "quick"' in code and "algo=" not in code
    assert make_config("quick").algo == "ppo"  # the lean PPO (train/ppo.py)
    assert "MaskablePPO" not in prose.replace("sb3-contrib's MaskablePPO", "")
    assert "lean PPO" in prose and "train/ppo.py" in prose
    for promise in ("about a minute", "one to three minutes", "at least 80%"):
        assert promise not in prose, promise
    assert 'agents.make("ppo")' in code and "shipped_model(2)" in code  # the model and its JSON
    assert '("random", "heuristic")' in code and "win_rate_ci95" in code
    assert "eval.json" in code  # the learning curve is read from the run's own file
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    for how in (
        "pytest --nbmake notebooks/quickstart.ipynb",
        "jupyter nbconvert --to notebook --execute notebooks/quickstart.ipynb",
        "jupyter lab",
    ):
        assert how in readme, how
