"""fort-env value-fit (train/value_fit.py): the value head refitted to outcomes, the policy
unchanged bit for bit, the refit recorded in the description, bad settings refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.learned.policy_file import load_policy_file  # noqa: E402
from fort_env import FortGame  # noqa: E402
from fort_env.game.inputs import MAX_SEED  # noqa: E402
from train.value_fit import ValueFitConfig, _features, fit_value_head, run  # noqa: E402

MODEL = "agents/zoo/ppo-2p.safetensors"


def _observations(n: int = 40) -> np.ndarray:
    state = FortGame(2).new_initial_state(5)
    rng = np.random.default_rng(5)
    rows = []
    while not state.is_terminal() and len(rows) < n:
        rows.append(state.observation_tensor(state.current_player()))
        state.apply_action(int(rng.choice(state.legal_actions())))
    return np.stack(rows).astype(np.float32)


@pytest.mark.parametrize("seed", [3, MAX_SEED])  # the largest: its derived seeds are folded
def test_refit_keeps_the_policy_and_records_itself(tmp_path, seed: int) -> None:
    report = run(
        ValueFitConfig(model=MODEL, games=10, holdout_games=2, keep=0.3, seed=seed),
        tmp_path / "refit",
        log=lambda _: None,
    )
    old, _ = load_policy_file(MODEL)
    new, _ = load_policy_file(tmp_path / "refit.safetensors")
    obs = torch.from_numpy(_observations())
    with torch.no_grad():
        assert torch.equal(old.action_logits(obs), new.action_logits(obs))
        assert not torch.equal(old.state_values(obs), new.state_values(obs))
    described = json.loads((tmp_path / "refit.json").read_text())
    fit = described["training"]["value_fit"]
    assert fit["positions"]["train"] > 0 and fit["positions"]["holdout"] > 0
    assert fit["config"]["model"] == MODEL and fit["penalty"] == report["penalty"]
    assert all(np.isfinite(v) for v in fit["holdout_mse"].values())


def test_the_ridge_fit_recovers_a_linear_target() -> None:
    net, _ = load_policy_file(MODEL)
    obs = _observations(200)
    x = _features(net, obs)
    truth = torch.linspace(-0.01, 0.01, x.shape[1], dtype=torch.float64)
    y = (x @ truth).float().numpy()
    games = np.repeat(np.arange(20), 10)
    fit_value_head(net, obs, y, games)
    with torch.no_grad():
        got = net.state_values(torch.from_numpy(obs)).numpy()
    assert np.abs(got - y).max() < 0.05 * np.abs(y).max() + 1e-3


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"games": 5}, "games must be at least 10"),
        ({"keep": 0.0}, "keep must be in"),
        ({"opponents": " , "}, "at least one opponent"),
        ({"seed": -1}, r"seed must be an int in \[0, 2\*\*62\), got -1"),
        ({"seed": 2**62}, r"seed must be an int in \[0, 2\*\*62\), got 4611686018427387904"),
    ],
)
def test_bad_settings_are_refused(change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ValueFitConfig(model=MODEL, **change).check()
