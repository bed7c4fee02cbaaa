"""The Box-only view (``fort_env/envs/box.py``) and SuperSuit's observation wrappers on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.test import api_test

import fort_env
from fort_env.envs.box import box_env


def play(env: AECEnv, seed: int = 0) -> tuple[int, dict[str, float]]:
    """A masked random game through ``last()``'s info; returns (decisions, final rewards)."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    rewards: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        assert env.observation_space(agent).contains(obs)
        if term or trunc:
            rewards[agent] = float(reward)
            action = None
        else:
            mask = info["action_mask"]
            assert mask.dtype == np.int8 and mask.any()
            action = int(rng.choice(np.flatnonzero(mask)))
            decisions += 1
        env.step(action)
    return decisions, rewards


def test_box_env_passes_the_api_test_and_matches_the_dict_env() -> None:
    api_test(box_env(num_players=3), num_cycles=300)
    box, ref = box_env(num_players=2), fort_env.env(num_players=2)
    assert isinstance(box.observation_space("player_0"), spaces.Box)
    assert box.observation_space("player_0") == ref.observation_space("player_0")["observation"]
    box.reset(seed=4)
    ref.reset(seed=4)
    for _ in range(60):  # the same game: same observation, the mask moved into info
        obs, *_, info = box.last()
        ref_obs, *_ = ref.last()
        np.testing.assert_array_equal(obs, ref_obs["observation"])
        np.testing.assert_array_equal(info["action_mask"], ref_obs["action_mask"])
        action = int(np.flatnonzero(info["action_mask"])[0])
        box.step(action)
        ref.step(action)


def test_box_env_refuses_a_box_env() -> None:
    with pytest.raises(AssertionError, match=r"wrap fort_env\.env"):
        fort_env.envs.box.BoxObservations(box_env())


@pytest.fixture
def ss() -> Any:
    """SuperSuit, or a skip (the box-env tests above run without it)."""
    return pytest.importorskip(
        "supersuit", reason="supersuit is not installed (pip install -e '.[supersuit]')"
    )


WRAPPERS: dict[str, Callable[[Any, AECEnv], Any]] = {
    "dtype_v0": lambda ss, e: ss.dtype_v0(e, np.float16),
    "flatten_v0": lambda ss, e: ss.flatten_v0(e),
    "normalize_obs_v0": lambda ss, e: ss.normalize_obs_v0(e),
    "frame_stack_v1": lambda ss, e: ss.frame_stack_v1(e, 2),
    "pad_observations_v0": lambda ss, e: ss.pad_observations_v0(e),
    "clip_reward_v0": lambda ss, e: ss.clip_reward_v0(e, -1, 1),
}


@pytest.mark.parametrize("name", sorted(WRAPPERS))
def test_supersuit_wrappers_play_whole_games(ss: Any, name: str) -> None:
    env = WRAPPERS[name](ss, box_env(num_players=2))
    decisions, rewards = play(env)
    assert decisions > 50
    assert sorted(rewards.values()) in ([-1.0, 1.0], [1.0, 1.0])


def test_supersuit_observation_wrappers_reject_the_dict_env(ss: Any) -> None:
    """Why ``box_env`` exists: the Dict observation of ``fort_env.env()`` is refused."""
    with pytest.raises((AssertionError, AttributeError)):
        ss.frame_stack_v1(fort_env.env(num_players=2), 2).reset(seed=0)


def test_frame_stack_stacks_the_observation(ss: Any) -> None:
    env = ss.frame_stack_v1(box_env(num_players=2), 3)
    env.reset(seed=1)
    obs, *_ = env.last()
    size = fort_env.FortGame(2).observation_size
    assert obs.shape == (3 * size,)
