"""Tianshou on the PettingZoo env, with no glue: ``tianshou.env.PettingZooEnv(fort_env.env())``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip(
    "tianshou", reason="tianshou is not installed (pip install -c constraints.txt -e '.[tianshou]')"
)
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv

import fort_env


def make_env() -> PettingZooEnv:
    return PettingZooEnv(fort_env.env(num_players=2))


def test_masked_random_collector_plays_whole_games() -> None:
    """Tianshou's masked random policy, one per seat, collects whole episodes from two envs;
    every stored action is legal under the stored mask and each game ends with +1/-1."""
    env = make_env()
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[
            MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents
        ],
        env=env,
    )
    envs = DummyVectorEnv([make_env, make_env])
    envs.seed(0)
    np.random.seed(0)  # the masked random policy draws from numpy's global generator
    collector = Collector(algorithm, envs, VectorReplayBuffer(20_000, len(envs)))
    stats = collector.collect(n_episode=3, reset_before_collect=True)

    assert stats.n_collected_episodes >= 3
    buffer = collector.buffer
    index = buffer.sample_indices(0)  # every stored transition (the sub-buffers have gaps)
    n = len(index)
    assert n == stats.n_collected_steps > 100
    batch = buffer[index]
    mask = np.asarray(batch.obs.mask, dtype=bool)
    assert mask.shape == (n, env.action_space.n)
    assert mask[np.arange(n), batch.act].all()  # no illegal action was ever taken
    assert batch.obs.obs.shape == (n, env.observation_space["observation"].shape[0])
    for returns in stats.returns:  # one row per episode, one column per seat
        assert sorted(returns) == [-1.0, 1.0] or list(returns) == [1.0, 1.0]
