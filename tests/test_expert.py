"""Expert iteration (train/expert.py): self-play in C++ writes samples that say what the
searches and the games said, the fit moves the heads toward them, the gate decides which
network is kept, and a run writes a best network that plays."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents
from agents.learned.policy_file import load_policy_file, read_description
from fort_env import FortGame
from fort_env.native import backend
from train import expert

pytestmark = pytest.mark.skipif(not backend.available(), reason="needs the compiled core")


@pytest.fixture
def model(untrained_policy_file: Path) -> Path:
    """An untrained 2-player policy file with small networks."""
    return untrained_policy_file


def _config(model: Path, **changes: object) -> expert.ExpertConfig:
    tiny = expert.ExpertConfig(
        model=str(model),
        rounds=1,
        games=2,
        sims=6,
        explore=2,
        gate_games=2,
        gate_sims=2,
        workers=1,
        device="cpu",
    )
    return replace(tiny, **changes)


def _play(model: Path, tmp_path: Path, games: range, seed: int = 3) -> expert.Samples:
    shard = tmp_path / f"shard-{seed}-{games.start}.npz"
    info = expert.self_play(str(model), _config(model), games, seed, shard)
    data = expert.load_samples([shard])
    assert info["samples"] == len(data) and info["games"] == len(games)
    return data


def test_self_play_samples_are_visit_distributions_with_outcomes(
    model: Path, tmp_path: Path
) -> None:
    data = _play(model, tmp_path, range(4, 6))
    game = FortGame(2)
    assert data.obs.shape == (len(data), game.observation_size) and data.obs.dtype == np.float32
    assert data.visits.shape == data.mask.shape == (len(data), game.num_distinct_actions)
    assert len(data) > 20  # every searched decision of two games
    np.testing.assert_allclose(data.visits.sum(axis=1), 1.0, rtol=1e-5)
    assert (data.visits[~data.mask] == 0).all()
    assert (data.mask.sum(axis=1) > 1).all()  # only decisions with a choice are searched
    assert set(np.unique(data.value)) <= {-1.0, 1.0}
    assert set(np.unique(data.game)) == {4, 5}
    for g in (4, 5):  # a game has a winner among its samples' seats
        assert (data.value[data.game == g] == 1.0).any()
    again = _play(model, tmp_path, range(4, 6))
    np.testing.assert_array_equal(again.obs, data.obs)
    np.testing.assert_array_equal(again.visits, data.visits)


def test_fit_moves_both_heads_toward_their_targets(model: Path, tmp_path: Path) -> None:
    data = _play(model, tmp_path, range(2), seed=5)
    target = np.zeros_like(data.visits)  # every visit on the highest legal action
    target[np.arange(len(data)), [np.flatnonzero(m)[-1] for m in data.mask]] = 1.0
    data.visits = target
    policy, _ = load_policy_file(model)
    before = expert.evaluate(policy, data)
    losses = expert.fit(policy, data, _config(model, epochs=25, learning_rate=1e-3, batch_size=64))
    after = expert.evaluate(policy, data)
    assert after["policy_cross_entropy"] < 0.5 * before["policy_cross_entropy"]
    assert after["value_mse"] < 0.7 * before["value_mse"]
    assert np.isfinite(list(losses.values())).all()


def test_a_run_writes_a_best_network_that_plays(model: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    report = expert.run(_config(model, rounds=2, workers=2, batch=2), out, echo=lambda *_: None)
    saved = json.loads((out / "expert.json").read_text())
    assert saved["rounds"] == report["rounds"] and len(report["rounds"]) == 2
    for k, entry in enumerate(report["rounds"], start=1):
        assert (out / f"round-{k:03d}" / "candidate.safetensors").is_file()
        assert len(list((out / f"round-{k:03d}" / "samples").glob("shard-*.npz"))) == 2
        assert entry["samples"]["new"] > 0 and entry["samples"]["holdout"] > 0
        assert entry["gate"]["games"] == 2 and entry["gate"]["needed"] == pytest.approx(0.55)
        assert entry["gate"]["accepted"] == (entry["gate"]["win_rate"] >= 0.55)
        assert np.isfinite(entry["holdout"]["after"]["value_mse"])
    # the second round fits the samples of both (window 3)
    assert report["rounds"][1]["samples"]["train"] > report["rounds"][1]["samples"]["new"] * 1.2
    best = out / "best.safetensors"
    assert read_description(best)["game"]["num_players"] == 2
    agents.make(f"puct:model={best}:sims=4")
    with pytest.raises(FileExistsError):
        expert.run(_config(model), out, echo=lambda *_: None)


def test_minutes_stop_the_rounds(model: Path, tmp_path: Path) -> None:
    said: list[str] = []
    config = _config(model, rounds=3, minutes=1e-6, gate_games=0)
    report = expert.run(config, tmp_path / "m", echo=said.append)
    assert len(report["rounds"]) == 1  # the first round always runs
    assert said[-1] == "stopping before round 2: the 1e-06 minutes are spent"


def test_without_a_gate_every_candidate_is_kept(model: Path, tmp_path: Path) -> None:
    report = expert.run(_config(model, gate_games=0), tmp_path / "r", echo=lambda *_: None)
    assert report["accepted"] == [1]
    best = (tmp_path / "r" / "best.safetensors").read_bytes()
    assert best == (tmp_path / "r" / "round-001" / "candidate.safetensors").read_bytes()


def test_bad_settings_and_files(model: Path, tmp_path: Path) -> None:
    for change, message in (
        ({"games": 0}, "games must be at least 1"),
        ({"sims": 1}, "sims must be at least 2"),
        ({"batch": 0}, "batch must be at least 1"),
        ({"noise": 1.0}, r"noise must be in \[0, 1\)"),
        ({"threshold": 1.5}, r"threshold must be in \(0, 1\)"),
        ({"alpha": 0.0}, "alpha must be finite and above 0"),
        ({"minutes": -1.0}, "minutes must be finite and at least 0"),
    ):
        with pytest.raises(ValueError, match=message):
            expert.run(_config(model, **change), tmp_path / "x", echo=lambda *_: None)
    bad = tmp_path / "bad.npz"
    np.savez(bad, obs=np.array([object()], dtype=object))
    with pytest.raises(ValueError, match="not a samples shard"):
        expert.load_samples([bad])


def test_cli_errors_name_the_option(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from fort_env.tools.cli import app

    runner = CliRunner()
    missing = runner.invoke(app, ["expert", "--model", "/nonexistent", "--out", str(tmp_path)])
    assert missing.exit_code == 1 and "--model" in missing.output
    bad = runner.invoke(app, ["expert", "--out", str(tmp_path), "--games", "0"])
    assert bad.exit_code == 2 and "--games" in bad.output
    device = runner.invoke(app, ["expert", "--out", str(tmp_path), "--device", "tpu"])
    assert device.exit_code == 1 and "--device" in device.output


def test_search_values_and_the_value_target_mix(model: Path, tmp_path: Path) -> None:
    data = _play(model, tmp_path, range(2), seed=8)
    assert data.search_value.shape == (len(data),) and data.search_value.dtype == np.float32
    assert ((data.search_value >= -1.0) & (data.search_value <= 1.0)).all()
    assert data.table.shape == (len(data), 0)  # the model has no critic
    np.testing.assert_array_equal(expert.value_targets(data, 0.0), data.value)
    np.testing.assert_allclose(expert.value_targets(data, 1.0), data.search_value)
    mixed = expert.value_targets(data, 0.25)
    np.testing.assert_allclose(mixed, 0.75 * data.value + 0.25 * data.search_value, rtol=1e-6)


def test_playout_cap_keeps_only_the_full_searches(model: Path, tmp_path: Path) -> None:
    full = expert.self_play(str(model), _config(model), range(3), 11, tmp_path / "a.npz")
    capped = expert.self_play(
        str(model), _config(model, full_share=0.25, fast_sims=2), range(3), 11, tmp_path / "b.npz"
    )
    # about a quarter of the searched decisions are samples (3 games of ~60 searched each)
    assert 0.1 * full["samples"] < capped["samples"] < 0.5 * full["samples"]
    with pytest.raises(ValueError, match="full_share"):
        _config(model, full_share=0.0).check()
    with pytest.raises(ValueError, match="fast_sims"):
        _config(model, fast_sims=1).check()
    with pytest.raises(ValueError, match="q_mix"):
        _config(model, q_mix=1.5).check()


def test_a_critic_is_fitted_on_the_tables(tmp_path: Path) -> None:
    import torch

    from agents.learned.network import ActorCritic
    from agents.learned.policy_file import save_policy
    from fort_env.views.observation import table_observation_size

    game = FortGame(2)
    torch.manual_seed(0)
    net = ActorCritic(game.observation_size, game.num_distinct_actions, (32,), critic=(32,),
                      table_size=table_observation_size(2, game))  # fmt: skip
    path = save_policy(net, tmp_path / "critic", num_players=2)
    data = _play(path, tmp_path, range(2), seed=9)
    assert data.table.shape == (len(data), table_observation_size(2, game))
    policy, _ = load_policy_file(path)
    before = expert.evaluate(policy, data)
    expert.fit(policy, data, _config(path, epochs=25, learning_rate=1e-3, batch_size=64))
    after = expert.evaluate(policy, data)
    assert after["critic_mse"] < 0.7 * before["critic_mse"]


def test_the_command_reads_its_defaults_from_the_config() -> None:
    """Issue 39: ``fort-env expert``'s options repeated every default of ExpertConfig; they
    are read from it now (``train/expert_config.py``), so the two cannot drift."""
    import dataclasses
    import inspect

    from train.cli import expert_command
    from train.expert_config import EXPERT_DEFAULTS, ExpertConfig

    params = inspect.signature(expert_command).parameters
    fields = dataclasses.fields(ExpertConfig)
    shared = [f.name for f in fields if f.name in params and f.name != "model"]
    assert len(shared) >= 15
    for name in shared:
        assert params[name].default == getattr(EXPERT_DEFAULTS, name), name


def test_gumbel_self_play_fits_the_improved_policy(model: Path, tmp_path: Path) -> None:
    config = _config(model, gumbel=True, gumbel_actions=4, sims=8)
    shard = tmp_path / "gumbel.npz"
    info = expert.self_play(str(model), config, range(2), 3, shard)
    data = expert.load_samples([shard])
    assert info["samples"] == len(data) > 20
    np.testing.assert_allclose(data.visits.sum(axis=1), 1.0, rtol=1e-5)
    assert (data.visits[~data.mask] == 0).all()
    # the improved policy puts weight on every legal action, visited or not (visits do not)
    assert ((data.visits > 0) == data.mask).all()
    assert np.isfinite(data.search_value).all() and (np.abs(data.search_value) <= 1).all()
    report = expert.run(replace(config, rounds=1), tmp_path / "run", echo=lambda *_: None)
    assert report["rounds"][0]["gate"]["games"] == 2
    with pytest.raises(ValueError, match="gumbel_actions"):
        replace(config, gumbel_actions=0).check()
