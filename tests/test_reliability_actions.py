"""Issue 12, actions: only integers are actions; a finished episode stays finished."""

from __future__ import annotations

import numpy as np
import pytest

import fort_env
from fort_env import FortGame
from fort_env.envs.single_agent import SingleAgentEnv
from fort_env.game.inputs import as_action

NOT_INTEGERS = [
    311.7,
    311.0,
    "311",
    b"3",
    True,
    False,
    np.bool_(True),
    np.float32(3),
    np.float64(3.0),
    np.array(3.0),
    np.array([3]),
    np.array([[3]]),
    np.array(True),
    None,
    [3],
    3 + 0j,
    np.timedelta64(3),  # numpy calls it an integer; a duration is not an action (issue 26)
    np.array(np.timedelta64(3)),
]


@pytest.mark.parametrize("value", [0, 5, np.int64(5), np.int8(5), np.uint16(5), np.array(5)])
def test_integers_pass(value: object) -> None:
    out = as_action(value)
    assert type(out) is int and out == int(value)  # type: ignore[call-overload]


@pytest.mark.parametrize("value", NOT_INTEGERS, ids=repr)
def test_non_integers_raise_type_error_naming_the_type(value: object) -> None:
    with pytest.raises(TypeError, match="an action must be an int") as info:
        as_action(value)
    assert type(value).__name__ in str(info.value)


def _first_legal(state) -> int:
    return int(state.legal_actions()[0])


@pytest.mark.parametrize("value", [True, 1.0, "1", np.float32(1), np.bool_(True)], ids=repr)
def test_engine_refuses_non_integers_and_leaves_state(value: object) -> None:
    state = FortGame(2).new_initial_state(3)
    legal = _first_legal(state)
    before = state.to_dict()
    for v in (value, type(value)(legal) if not isinstance(value, str) else str(legal)):
        with pytest.raises(TypeError):
            state.apply_action(v)
    assert state.to_dict() == before
    state.apply_action(np.int64(legal))  # a numpy integer is an action
    assert state.to_dict() != before


@pytest.mark.parametrize("wrapped", [False, True])
def test_aec_env_refuses_non_integers(wrapped: bool) -> None:
    env = fort_env.env(num_players=2) if wrapped else fort_env.raw_env(num_players=2)
    env.reset(seed=4)
    legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    raw = env.unwrapped
    before = raw.fort_state().to_dict()
    for bad in (float(legal), str(legal), np.float32(legal), np.array([legal]), True):
        # wrapped or not: the raw env's TypeError (issue 26: not PettingZoo's AssertionError,
        # nor numpy's ValueError for True, which Discrete(N) would take)
        with pytest.raises(TypeError, match=type(bad).__name__):
            env.step(bad)
        assert raw.fort_state().to_dict() == before
    env.step(np.array(legal))  # 0-d integer arrays (SB3's predict) are actions
    assert raw.fort_state().to_dict() != before


def _play_out(env) -> None:
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert agent


@pytest.mark.parametrize("wrapped", [False, True])
def test_finished_aec_game_warns_on_step_and_last_gives_final_view(
    wrapped: bool, caplog: pytest.LogCaptureFixture
) -> None:
    env = fort_env.env(num_players=2) if wrapped else fort_env.raw_env(num_players=2)
    env.reset(seed=1)
    _play_out(env)
    assert env.agents == []
    before = env.unwrapped.fort_state().to_dict()
    env.step(None)
    env.step(0)
    # PettingZoo's EnvLogger (OrderEnforcingWrapper's own warning), through logging
    assert caplog.text.count("step() called after all agents are terminated") == 2
    assert env.unwrapped.fort_state().to_dict() == before
    obs, reward, term, trunc, info = env.last()
    assert (term, trunc, reward) == (True, False, 0.0)
    assert not obs["action_mask"].any() and not info["action_mask"].any()
    assert env.last(observe=False)[0] is None
    env.reset(seed=2)  # and a new game starts normally
    assert env.agents and env.last()[2] is False


def test_truncated_aec_game_last_says_truncated() -> None:
    env = fort_env.raw_env(num_players=2, max_decisions=3)
    env.reset(seed=1)
    _play_out(env)
    assert env.agents == []
    _, _, term, trunc, _ = env.last()
    assert (term, trunc) == (False, True)


def test_step_before_reset_still_raises() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        fort_env.raw_env(num_players=2).step(0)


def test_single_agent_env_refuses_non_integers() -> None:
    env = SingleAgentEnv(num_players=2)
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.action_masks())[0])
    before = env.fort_state().to_dict()
    for bad in (float(legal), str(legal), np.float32(legal), True):
        with pytest.raises(TypeError):
            env.step(bad)  # type: ignore[arg-type]
    assert env.fort_state().to_dict() == before
    env.step(np.array(legal))  # type: ignore[arg-type]


def test_single_agent_env_illegal_action_ends_episode_until_reset() -> None:
    env = SingleAgentEnv(num_players=2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"]
    assert not env.action_masks().any()
    legal_before = env.state.legal_actions()
    for action in (illegal, int(legal_before[0])):
        with pytest.raises(RuntimeError, match="reset"):
            env.step(action)
    env.reset(seed=1)
    legal = int(np.flatnonzero(env.action_masks())[0])
    _, _, terminated, _, info = env.step(legal)
    assert "illegal_action" not in info
