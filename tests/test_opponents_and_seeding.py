"""The single-agent wrapper's opponent league (``set_opponents``, ``set_opponent_sampler``) and
the vector env's seeding (``fort_env/envs/vector.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")  # fort_env.envs.vector needs the [train] extra

from fort_env import ConfigError
from fort_env.envs.single_agent import SingleAgentEnv
from fort_env.envs.vector import FortVecEnv


class Recorder:
    """An opponent that takes the first legal action and records the seats it acts for and
    the seeds it is given."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.seats: list[int] = []
        self.seeds: list[int | None] = []

    def seed(self, seed: int | None) -> None:
        self.seeds.append(seed)

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        self.seats.append(int(info["seat"]))
        return int(info["legal_actions"][0])


def play_episode(env: SingleAgentEnv, rng: np.random.Generator, steps: int = 400) -> None:
    for _ in range(steps):
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            return


# ---------------------------------------------------------------------------- opponents
def test_set_opponents_takes_effect_at_the_next_reset() -> None:
    a, b = Recorder("a"), Recorder("b")
    env = SingleAgentEnv(num_players=3, opponents=a, seat=0)
    env.reset(seed=0)
    assert env.opponents == [a, a]
    env.set_opponents([a, b])
    assert env.opponents == [a, a]  # this episode keeps its opponents
    env.reset()
    assert env.opponents == [a, b]
    a.seats.clear()
    play_episode(env, np.random.default_rng(0))
    assert set(a.seats) == {1} and set(b.seats) == {2}  # one opponent per rival seat, in order
    env.set_opponents(None)  # back to uniform random
    env.reset()
    assert all(type(o).__name__ == "_UniformRandom" for o in env.opponents)
    with pytest.raises(ConfigError, match="rival seats"):
        env.set_opponents([a, b, a])


def test_set_opponents_drops_the_sampler_and_none_sampler_restores_fixed() -> None:
    fixed, sampled = Recorder("fixed"), Recorder("sampled")
    env = SingleAgentEnv(num_players=2, opponents=fixed, opponent_sampler=lambda r, n: sampled)
    env.reset(seed=1)
    assert env.opponents == [sampled]
    env.set_opponent_sampler(None)
    env.reset()
    assert env.opponents == [fixed]
    env.set_opponent_sampler(lambda r, n: [sampled] * n)
    env.reset()
    assert env.opponents == [sampled]
    env.set_opponents(fixed)
    assert env.opponent_sampler is None
    env.reset()
    assert env.opponents == [fixed]


def test_sampler_draws_from_the_env_generator_and_opponents_are_seeded() -> None:
    """Same env seed: the sampler sees the same random numbers and the opponents get the same
    seeds; another seed: other numbers."""

    def run(seed: int) -> tuple[list[float], list[int | None]]:
        rec = Recorder("r")
        draws: list[float] = []

        def sampler(rng: np.random.Generator, n: int) -> list[Recorder]:
            draws.append(float(rng.random()))
            return [rec] * n

        env = SingleAgentEnv(num_players=3, opponent_sampler=sampler)
        env.reset(seed=seed)
        env.reset()
        return draws, rec.seeds

    draws, seeds = run(5)
    assert len(draws) == 2 and len(seeds) == 4  # two resets, two rival seats each
    assert all(isinstance(s, int) for s in seeds) and len(set(seeds)) == 4
    assert run(5) == (draws, seeds)
    assert run(6)[0] != draws


def test_training_league_as_the_sampler() -> None:
    """``train.selfplay.League`` weights: a league of one bot gives that bot at every seat;
    a 1:3 league gives the heavier bot about 3/4 of the seats."""
    selfplay = pytest.importorskip("train.selfplay")
    env = SingleAgentEnv(num_players=4, opponent_sampler=selfplay.League({"builder": 1.0}))
    env.reset(seed=0)
    assert [o.name for o in env.opponents] == ["builder"] * 3
    env.set_opponent_sampler(selfplay.League({"random": 1.0, "scorer": 3.0}))
    names = []
    for _ in range(60):
        env.reset()
        names += [o.name for o in env.opponents]
    assert 0.6 < names.count("scorer") / len(names) < 0.9
    assert set(names) == {"random", "scorer"}


# ---------------------------------------------------------------------------- vector env
def first_observations(venv: FortVecEnv) -> tuple[np.ndarray, list[int]]:
    obs = venv.reset()
    seeds = [int(env.unwrapped._game_seed) for env in venv.envs]  # type: ignore[attr-defined]
    return obs, seeds


def test_vector_env_seeds_game_i_with_seed_plus_i() -> None:
    venv = FortVecEnv(3, seed=10, num_players=2)
    obs, seeds = first_observations(venv)
    for i in range(3):
        single = SingleAgentEnv(num_players=2)
        o, info = single.reset(seed=10 + i)
        assert np.array_equal(obs[i], o), i
        assert seeds[i] == info["game_seed"]
    assert len(set(seeds)) == 3


def trajectory(seed: int | None, steps: int = 60) -> list[np.ndarray]:
    venv = FortVecEnv(2, seed=seed, num_players=2)
    out = [venv.reset()]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        masks = venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, _ = venv.step(actions)
        out += [obs, rewards, dones]
    return out


def test_vector_env_same_seed_same_run_other_seed_other_run() -> None:
    a, b, c = trajectory(4), trajectory(4), trajectory(5)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_vector_env_unseeded_games_differ() -> None:
    _, seeds = first_observations(FortVecEnv(4, num_players=2))
    assert len(set(seeds)) == 4
    with pytest.raises(ValueError, match="num_envs"):
        FortVecEnv(0)
