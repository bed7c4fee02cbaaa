"""Every bot of the zoo plays in a plain PettingZoo loop through ``agents.arena.games
.act_in_env`` (issue 38, item 2): the learned (bare ``ppo``), search (``puct``, ``ismcts``,
``greedy``) and heuristic bots, in the AEC env and in the parallel view."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import fort_env
from agents.arena.games import act_in_env

SPECS = ["ppo", "puct:sims=8", "ismcts:iterations=20", "greedy", "heuristic", "random"]


def _play_aec(specs: list[str], seed: int) -> list[float]:
    env = fort_env.env(num_players=len(specs))
    env.reset(seed=seed)
    bots = {a: agents.make(s) for a, s in zip(env.possible_agents, specs, strict=True)}
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = act_in_env(bots[agent], env)
        assert obs["action_mask"][action] == 1
        env.step(action)
    return [returns[a] for a in env.possible_agents]


@pytest.mark.parametrize("spec", SPECS)
def test_each_bot_finishes_a_game_in_a_plain_aec_loop(spec: str) -> None:
    returns = _play_aec([spec, "random"], seed=3)
    assert sorted(returns)[-1] > 0  # someone won


def test_bots_in_the_parallel_view() -> None:
    env = fort_env.parallel_env(num_players=3)
    observations, _ = env.reset(seed=5)
    bots = dict(zip(env.possible_agents, ["puct:sims=4", "ppo", "heuristic"], strict=True))
    made = {a: agents.make(s) for a, s in bots.items()}
    while env.agents:
        acting = [a for a in env.agents if observations[a]["action_mask"][: env.wait_action].any()]
        assert len(acting) == 1
        actions = dict.fromkeys(env.agents, env.wait_action)
        actions[acting[0]] = act_in_env(made[acting[0]], env)
        observations, *_ = env.step(actions)


def test_a_finished_game_and_a_plain_function() -> None:
    env = fort_env.env(num_players=2)
    env.reset(seed=1)
    first = act_in_env(lambda obs, info: int(np.flatnonzero(info["action_mask"])[0]), env)
    assert env.last()[0]["action_mask"][first] == 1
    while env.agents:
        _, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else act_in_env(agents.make("random"), env))
    with pytest.raises(ValueError, match="over"):
        act_in_env(agents.make("random"), env)


@pytest.mark.parametrize("spec", SPECS)
def test_each_bot_is_an_opponent_in_the_single_agent_env(spec: str) -> None:
    from fort_env.envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv(num_players=2, opponents=agents.make(spec))
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated:
            break


@pytest.mark.parametrize("spec", SPECS)
def test_each_bot_is_an_opponent_in_the_cpp_vector_env(spec: str) -> None:
    """By spec, in ``FortBatchVecEnv``: the bare ``ppo`` is told the table
    (``join_table``) and batches its forward pass; the search bots read the state's copy."""
    pytest.importorskip("stable_baselines3")
    if not fort_env.native.backend.available():
        pytest.skip("needs the compiled core")
    from fort_env.envs.vector import FortBatchVecEnv, random_legal_actions

    env = FortBatchVecEnv(3, seed=1, num_players=3, opponents=agents.make(spec))
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(random_legal_actions(env.action_masks(), rng))
    env.close()
