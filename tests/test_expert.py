"""Expert iteration (train/expert.py): the samples say what the games said, the fit moves the
heads toward their targets, and a round writes a policy that plays."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents
from agents.arena.tournament import run_tournament
from agents.learned.policy_file import load_policy_file, read_description
from agents.learned.puct import PUCTAgent
from fort_env import FortGame
from train import expert


@pytest.fixture
def model(untrained_policy_file: Path) -> Path:
    """An untrained 2-player policy file with small networks."""
    return untrained_policy_file


def _policy(model: Path):  # a fresh copy each time: the fit changes it in place
    policy, _ = load_policy_file(model)
    policy.set_training_mode(False)
    return policy


def test_value_samples_are_every_seats_view_with_its_return(model: Path) -> None:
    num_players = 2
    game = FortGame(num_players)
    policy = _policy(model)
    data = expert.policy_games(policy, game, games=6, seed=3, keep=0.5)
    assert data.obs.shape == (len(data), game.observation_size) and data.obs.dtype == np.float32
    assert len(data) % num_players == 0 and len(data) > 0
    assert set(np.unique(data.target)) <= {-1.0, 1.0}
    groups = data.target.reshape(-1, num_players)
    games = data.game.reshape(-1, num_players)
    assert (games == games[:, :1]).all()  # a group is one decision of one game
    assert (groups == 1.0).any(axis=1).all()  # every game has a winner
    for g in np.unique(games[:, 0]):  # one outcome per game, whatever the decision
        rows = groups[games[:, 0] == g]
        assert (rows == rows[0]).all()
    again = expert.policy_games(_policy(model), game, games=6, seed=3, keep=0.5)
    np.testing.assert_array_equal(again.obs, data.obs)
    np.testing.assert_array_equal(again.target, data.target)


def test_value_targets_are_the_outcome_of_the_game_played(model: Path) -> None:
    """One game with every decision kept: its seats' views end with the final position's
    returns, and a seat's first view is the one the deal gives it."""
    game = FortGame(2)
    data = expert.policy_games(_policy(model), game, games=1, seed=5, keep=1.0)
    rng = np.random.default_rng(5)
    rng.integers(2**62)  # the first draw seeds the network's sampling, the next the deal
    first = game.new_initial_state(seed=int(rng.integers(2**62)))
    np.testing.assert_array_equal(data.obs[0], first.observation_tensor(0))
    np.testing.assert_array_equal(data.obs[1], first.observation_tensor(1))
    assert len(data) >= 2 * 50  # a 2-player game has well over 50 decisions
    assert sorted(data.target[:2].tolist()) in ([-1.0, 1.0], [1.0, 1.0])


def test_search_samples_are_visit_distributions_over_legal_actions(model: Path) -> None:
    game = FortGame(2)
    agent = PUCTAgent(model=model, ms=0, iterations=16, seed=0)
    policy, value = expert.search_games(agent, game, games=1, seed=2)
    assert len(policy) == len(value) > 10
    assert policy.mask is not None and policy.target.shape == policy.mask.shape
    np.testing.assert_allclose(policy.target.sum(axis=1), 1.0, rtol=1e-5)
    assert (policy.target[~policy.mask] == 0).all()
    assert (policy.mask.sum(axis=1) > 1).all()  # only decisions with a choice are searched
    assert set(np.unique(value.target)) <= {-1.0, 1.0}
    np.testing.assert_array_equal(policy.obs, value.obs)


def test_fit_moves_the_value_toward_the_outcomes(model: Path) -> None:
    game = FortGame(2)
    data = expert.policy_games(_policy(model), game, games=24, seed=1, keep=0.3)
    policy = _policy(model)
    before = expert._value_loss(policy, data)
    config = expert.ExpertConfig(model=str(model), epochs=30, learning_rate=1e-3, batch_size=256)
    expert.fit(policy, data, None, config)
    assert expert._value_loss(policy, data) < 0.6 * before


def test_fit_moves_the_policy_toward_the_visits(model: Path) -> None:
    """Targets that put every visit on the highest legal action: its probability rises."""
    game = FortGame(2)
    agent = PUCTAgent(model=model, ms=0, iterations=8, seed=0)
    search, value = expert.search_games(agent, game, games=1, seed=4)
    assert search.mask is not None
    target = np.zeros_like(search.target)
    chosen = np.array([np.flatnonzero(m)[-1] for m in search.mask])
    target[np.arange(len(target)), chosen] = 1.0
    search.target = target
    policy = _policy(model)
    before = expert._policy_loss(policy, search)
    config = expert.ExpertConfig(model=str(model), epochs=20, learning_rate=1e-3, batch_size=64)
    expert.fit(policy, value, search, config)
    assert expert._policy_loss(policy, search) < 0.5 * before


def test_a_round_writes_a_policy_that_plays(model: Path, tmp_path: Path) -> None:
    config = expert.ExpertConfig(
        model=str(model), value_games=20, search_games=2, search_ms=0, search_iterations=6
    )
    report = expert.run(config, tmp_path / "round", echo=lambda *_: None)
    weights = tmp_path / "round" / "model.safetensors"
    saved = json.loads((tmp_path / "round" / "expert.json").read_text())
    assert saved["samples"] == report["samples"] and report["samples"]["policy"] > 0
    assert report["samples"]["value_holdout"] > 0 and report["samples"]["policy_holdout"] > 0
    for key in ("before", "after"):
        assert np.isfinite(report["holdout"][key]["value_mse"])
    assert read_description(weights)["training"]["expert"]["config"]["search_games"] == 2
    agents.make(f"ppo:{weights}")
    result = run_tournament([f"puct:model={weights}:ms=0:iterations=4", "random"], 2, 2, seed=9)
    assert result["games"] == 2
    with pytest.raises(FileExistsError):
        expert.run(config, tmp_path / "round", echo=lambda *_: None)
    with pytest.raises(ValueError, match="no games"):
        expert.run(expert.ExpertConfig(model=str(model), value_games=0), tmp_path / "none", print)
    with pytest.raises(ValueError, match="value_keep"):
        expert.run(expert.ExpertConfig(model=str(model), value_keep=0.0), tmp_path / "k", print)


def test_cli_errors_name_the_option(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    runner = CliRunner()
    missing = runner.invoke(app, ["expert", "--model", "/nonexistent", "--out", str(tmp_path)])
    assert missing.exit_code == 1 and "--model" in missing.output
    bad = runner.invoke(
        app, ["expert", "--model", "m", "--out", str(tmp_path), "--value-games", "-1"]
    )
    assert bad.exit_code == 2 and "--value-games" in bad.output
