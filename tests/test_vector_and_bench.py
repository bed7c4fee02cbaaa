"""The batched vector env (FortVecEnv) and the benchmark command."""

from __future__ import annotations

import importlib.util
import json
import sys

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from fort_env.envs.vector import FortVecEnv
from fort_env.tools.bench import (
    ENGINE_PEERS,
    _chance_action,
    format_bench,
    openspiel_loop,
    run_bench,
)
from train.bench_ppo import ppo_rollout_share


def test_vector_env_stacks_steps_and_resets() -> None:
    venv = FortVecEnv(8, seed=3, num_players=2)
    obs = venv.reset()
    game = venv.envs[0].game  # type: ignore[attr-defined]
    assert obs.shape == (8, game.observation_size) and obs.dtype == np.float32
    masks = venv.action_masks()
    assert masks.shape == (8, game.num_distinct_actions) and masks.dtype == bool
    for env, mask, row in zip(venv.envs, masks, obs, strict=True):
        assert np.array_equal(mask, env.action_masks())  # type: ignore[attr-defined]
        state = env.fort_state()  # type: ignore[attr-defined]
        assert np.array_equal(row, state.observation_tensor(env.seat))  # type: ignore[attr-defined]
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(3000):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        obs, rewards, dones, infos = venv.step(actions)
        assert obs.shape[0] == rewards.shape[0] == dones.shape[0] == 8
        for done, reward, info in zip(dones, rewards, infos, strict=True):
            if done:
                finished += 1
                assert reward in (-1.0, 1.0) and "terminal_observation" in info
        if finished >= 8:
            break
    assert finished >= 8  # games ended and were reset automatically
    assert venv.action_masks().any(axis=1).all()  # every game has a legal action after resets


def test_vector_env_trains_maskable_ppo() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    venv = FortVecEnv(2, seed=0, num_players=2)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, verbose=0)
    model.learn(64)
    assert model.num_timesteps >= 64


def test_bench_reports_every_figure() -> None:
    result = run_bench(seconds=0.2, rounds=1, num_players=2)
    json.dumps(result)
    keys = ("engine_decisions_per_s", "aec_decisions_per_s", "games_per_s", "clone_us",
            "observation_us", "mask_us", "mask_play_us", "mask_play_median_us", "state_bytes",
            "vector64_decisions_per_s")  # fmt: skip
    for key in keys:
        assert result[key] is not None and result[key] > 0, key
    batch = result["vector64_batch_decisions_per_s"]  # the C++ batch: on the cpp backend only
    assert batch > 0 if result["config"]["backend"] == "cpp" else batch is None
    self_play = result["self_play64_decisions_per_s"]  # the lean PPO's env side
    assert self_play > 0 if result["config"]["backend"] == "cpp" else self_play is None
    assert ("SelfPlayBatch B=64" in format_bench(result)) is True
    assert set(result["peers"]) == {"connect_four_v3", "texas_holdem_v4 (4p)"}
    assert set(result["engine_peers"]) == set(result["engine_ratios"]) == set(ENGINE_PEERS)
    text = format_bench(result)
    assert "AEC loop" in text and "connect_four_v3" in text
    if importlib.util.find_spec("pyspiel") is not None:  # the dev extra has open_spiel
        for name in ENGINE_PEERS:
            rate, ratio = result["engine_peers"][name], result["engine_ratios"][name]
            assert rate > 0 and ratio > 0, name
            assert f"OpenSpiel {name} engine loop, decisions/s" in text


def test_openspiel_loop_counts_decisions_not_chance_outcomes() -> None:
    pytest.importorskip("pyspiel")
    decisions, games, elapsed = openspiel_loop("leduc_poker")(0.05, 0)
    # a leduc hand has 2 chance nodes (the private cards) and 1 more (the public card) if the
    # first betting round is not folded; at least 2 and at most 8 decisions per hand
    assert games >= 1 and 2 * games <= decisions <= 8 * games + 8 and elapsed >= 0.05
    assert _chance_action([(3, 0.25), (7, 0.75)], 0.2) == 3
    assert _chance_action([(3, 0.25), (7, 0.75)], 0.3) == 7
    assert _chance_action([(3, 0.5), (7, 0.5)], 0.9999999999999999) == 7


# A rollout of the quick preset's learner cut short: 4 envs x 16 steps, one update epoch.
TINY_PPO = {"warmup": 0, "n_envs": 4, "n_steps": 16, "n_epochs": 1}


def test_ppo_rollout_share_is_a_proportion() -> None:
    pytest.importorskip("sb3_contrib")
    result = ppo_rollout_share(rollouts=2, **TINY_PPO)  # type: ignore[arg-type]
    json.dumps(result)
    assert result["preset"] == "quick" and result["n_envs"] == 4 and result["n_steps"] == 16
    assert result["samples"] == 2 * 4 * 16 and "snapshot" in result["league"]
    for key in ("env_share", "env_share_excl_opponents", "env_share_of_iteration"):
        assert 0.0 < result[key] < 1.0, key
    # every bot of round two's quick league now plays inside C++; only a snapshot acts from
    # Python, and a 16-step rollout may not draw one
    assert 0.0 <= result["opponent_share"] < result["env_share"]
    assert result["env_share_excl_opponents"] == pytest.approx(
        result["env_share"] - result["opponent_share"]
    )
    assert len(result["per_rollout_env_share"]) == 2
    assert all(0.0 < x < 1.0 for x in result["per_rollout_env_share"])
    assert result["samples_per_s"] > result["samples_per_s_with_update"] > 0
    assert result["opponent_seconds"] == pytest.approx(
        sum(result["opponent_seconds_by_kind"].values())
    )
    assert result["target"] == 0.10 and result["target_met"] == (result["env_share"] <= 0.10)


def test_bench_ppo_figure_in_table_and_json() -> None:
    pytest.importorskip("sb3_contrib")
    result = run_bench(seconds=0.05, rounds=1, num_players=2, ppo=True, ppo_rollouts=1,
                       ppo_options=TINY_PPO)  # fmt: skip
    assert 0.0 < json.loads(json.dumps(result))["ppo_rollout"]["env_share"] < 1.0
    text = format_bench(result)
    assert "env share of MaskablePPO rollout (quick preset)" in text and "samples/s" in text
    assert "ppo_rollout" not in run_bench(seconds=0.05, rounds=1, num_players=2)


def test_ppo_rollout_share_without_the_train_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if not installed
    result = ppo_rollout_share()
    assert set(result) == {"error"} and "train extra" in result["error"]
    assert "needs the train extra" in format_bench(
        {**run_bench(seconds=0.05, rounds=1, num_players=2), "ppo_rollout": result}
    )


def test_bench_train_measures_the_trainer_beside_the_baseline() -> None:
    """``fort-env bench --train``'s figure (train.bench_ppo.train_throughput): whole iterations
    of the quick preset's trainer and of round two's MaskablePPO baseline, in one run."""
    pytest.importorskip("sb3_contrib")
    from fort_env.tools.bench import _train_rows
    from train.bench_ppo import BASELINE, train_throughput

    result = train_throughput(seconds=0.5, device="cpu", n_envs=4, n_steps=16, n_epochs=1)
    json.dumps(result)
    assert result["algo"] == "ppo" and result["device"] == "cpu"
    assert result["n_envs"] == 4 and result["iterations"] >= 1
    assert result["samples_per_s"] > 0 and result["baseline_samples_per_s"] > 0
    assert result["ratio"] == pytest.approx(
        result["samples_per_s"] / result["baseline_samples_per_s"]
    )
    assert BASELINE["algo"] == "maskable_ppo" and BASELINE["n_envs"] == 32
    rows = dict(_train_rows(result))
    assert any("trainer / baseline" in v for v in rows.values())
    alone = train_throughput(seconds=0.5, device="cpu", baseline=False, n_envs=4, n_steps=16)
    assert alone["baseline_samples_per_s"] is None and alone["ratio"] is None
    with pytest.raises(Exception, match="device"):
        train_throughput(seconds=0.5, device="tpu")
