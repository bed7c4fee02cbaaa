"""examples/cleanrl_ppo.py: the one-file masked PPO on Gymnasium's vector API runs, and learns."""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import fort_env

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "cleanrl_ppo.py"

pytestmark = pytest.mark.skipif(
    not fort_env.native.backend.available(), reason="needs the compiled core"
)


def _example() -> ModuleType:
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("cleanrl_ppo", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_the_example_runs_as_a_command() -> None:
    pytest.importorskip("torch")
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--num-envs", "4", "--num-steps", "32",
         "--total-steps", "256", "--log-every", "1"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "update 2/2" in run.stdout and "samples/s" in run.stdout


@pytest.mark.slow
def test_the_example_learns_to_beat_random() -> None:
    """120k samples (about 25 s on one core) take the learner from ~50% to over 80% of its games
    against the uniform random opponent (seen: 0.92-1.00 in the last 40k samples)."""
    example = _example()
    result = example.train(example.Args(total_steps=120_000, log_every=25, seed=3))
    assert not math.isnan(result["win_rate"]) and result["win_rate"] > 0.8, result


def test_every_option_of_the_example_says_what_it_does() -> None:
    """Issue 38: its ``--help`` listed the options without a word on any of them."""
    module = _example()
    assert set(module.HELP) == set(vars(module.Args()))
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0
    text = " ".join(run.stdout.split())
    for name, words in module.HELP.items():
        assert " ".join(words.split()) in text, name
