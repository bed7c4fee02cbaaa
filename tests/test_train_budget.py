"""What a new user sees of a run's budget (issue 40): the README's budget is the preset's, the
last progress line's time is the run's, and a run under a time budget has a learning curve
however few steps the machine gives it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")

from fort_env.native import backend
from train.selfplay import EVALS_PER_BUDGET, PRESETS, make_config, run

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_states_the_quick_presets_budget() -> None:
    text = " ".join((ROOT / "README.md").read_text().split())
    found = re.search(r"the `quick` preset stops at ([\d.]+) minutes or ([\d,]+) steps", text)
    assert found, "README.md no longer states the quick preset's budget"
    quick = PRESETS["quick"]
    assert float(found.group(1)) == quick.time_budget_minutes
    assert int(found.group(2).replace(",", "")) == quick.total_timesteps


@pytest.mark.skipif(not backend.available(), reason="needs the compiled core")
def test_a_short_timed_run_has_periodic_evaluations_and_a_true_last_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    minutes = 0.12  # ~7 s of training: far fewer steps than eval_freq
    config = make_config(
        "tiny", algo="ppo", total_timesteps=10**9, time_budget_minutes=minutes,
        eval_freq=10**9, n_envs=4, n_steps=16,
    )  # fmt: skip
    summary = run(config, tmp_path / "run", verbose=1, progress_bar=True)
    assert len(summary["evals"]) >= 2, "a timed run gets an evaluation every quarter of it"
    assert len(summary["evals"]) <= EVALS_PER_BUDGET + 1
    err = capsys.readouterr()
    done = [ln for ln in (err.out + err.err).splitlines() if ln.startswith("training done")]
    assert done, "no closing progress line"
    spent = float(re.search(r"([\d.]+)/([\d.]+) min", done[-1]).group(1))
    # the closing line's minutes are this run's, not twice them
    assert spent == pytest.approx(summary["train_wall_seconds"] / 60, abs=0.06)
