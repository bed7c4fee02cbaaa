"""Gymnasium's registry: ``gymnasium.make("fort_env/Fort-v0")``
(``fort_env/envs/registration.py``)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agents
import fort_env
from fort_env import ConfigError
from fort_env.envs.registration import GYM_ID
from fort_env.envs.single_agent import SingleAgentEnv


def test_importing_fort_env_registers_the_id() -> None:
    assert fort_env.envs.registration.GYM_ID == "fort_env/Fort-v0"
    assert GYM_ID in gymnasium.registry
    fort_env.envs.registration.register()  # a second registration is a no-op, not a warning


@pytest.mark.parametrize(("num_players", "render_mode"), [(2, None), (3, "ansi"), (4, "ansi")])
def test_check_env_passes_with_no_warning(num_players: int, render_mode: str | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning (a missing spec too) fails
        env = gymnasium.make(GYM_ID, num_players=num_players, render_mode=render_mode)
        assert env.spec is not None and env.spec.id == GYM_ID
        assert env.unwrapped.spec is not None
        assert isinstance(env.unwrapped, SingleAgentEnv)
        assert env.unwrapped.num_players == num_players
        check_env(env.unwrapped, skip_render_check=render_mode is None)


def test_made_env_plays_against_given_opponents() -> None:
    """Opponents are passed as objects (the zoo's bots, or any callable)."""
    calls: list[int] = []

    def first_legal(observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        calls.append(int(info["seat"]))
        return int(info["legal_actions"][0])

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the passive checker of gymnasium.make stays quiet
        env = gymnasium.make(GYM_ID, num_players=3, opponents=first_legal, seat=1)
        obs, info = env.reset(seed=3)
        rng = np.random.default_rng(0)
        terminated = False
        while not terminated:
            assert env.observation_space.contains(obs)
            action = rng.choice(np.flatnonzero(info["action_mask"]))
            obs, reward, terminated, truncated, info = env.step(action)
            assert not truncated
        assert reward in (-1.0, 1.0)
        assert set(info["opponents"]) == {repr(first_legal)}
        env.close()
    assert set(calls) == {0, 2}  # the learner's seat 1 is never played by an opponent

    bots = gymnasium.make(GYM_ID, num_players=2, opponents=agents.make("heuristic"))
    bots.reset(seed=0)
    assert [o.name for o in bots.unwrapped.opponents] == ["heuristic"]


def test_default_opponents_are_uniform_random() -> None:
    env = gymnasium.make(GYM_ID)
    env.reset(seed=0)
    assert [o.name for o in env.unwrapped.opponents] == ["random"]


def test_bad_arguments_raise_config_error() -> None:
    with pytest.raises(ConfigError, match="opponents for 2 rival seats"):
        gymnasium.make(GYM_ID, num_players=3, opponents=[agents.make("random")])


def test_render_without_a_mode_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 40: ``check_env`` printed the table (16 lines) for an env made with
    ``render_mode=None``. ``render()`` without a mode prints nothing (it warns and returns
    ``None``, as Gymnasium's own envs do); the table comes from the checker itself, which makes
    one env per declared render mode and renders it: the ``"human"`` one prints (README)."""
    env = SingleAgentEnv(num_players=2)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render mode"):
        assert env.render() is None
    raw = fort_env.raw_env(num_players=2)
    raw.reset(seed=0)
    with pytest.warns(UserWarning, match="render mode"):
        assert raw.render() is None
    assert capsys.readouterr().out == ""
    made = gymnasium.make(GYM_ID, num_players=2, render_mode=None)
    check_env(made.unwrapped, skip_render_check=True)
    assert capsys.readouterr().out == ""
    check_env(made.unwrapped)
    out = capsys.readouterr().out
    assert out.startswith("learner: player_") and out.count("learner: ") == 1  # "human"'s table
    human = gymnasium.make(GYM_ID, num_players=2, render_mode="human").unwrapped
    human.reset(seed=0)
    assert human.render() is None
    assert capsys.readouterr().out.startswith("learner: player_")
