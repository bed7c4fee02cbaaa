"""Gymnasium's vector API over the C++ batch (fort_env.envs.gym_vector): make_vec, the vector
env's spaces, seeding, same-step autoreset, and masks that are never all zero."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import fort_env
from fort_env.envs.registration import GYM_ID
from fort_env.game.errors import ConfigError

pytestmark = pytest.mark.skipif(
    not fort_env.native.backend.available(), reason="needs the compiled core"
)


def make(num_envs: int = 6, **kwargs: object) -> gymnasium.vector.VectorEnv:
    return gymnasium.make_vec(
        GYM_ID, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
    )


def masked_random(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    assert masks.dtype == bool and masks.any(axis=1).all(), "an all-zero mask reached the policy"
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks], dtype=np.int64)


def play(envs: gymnasium.vector.VectorEnv, steps: int, seed: int) -> tuple[list, int]:
    rng = np.random.default_rng(seed)
    obs, infos = envs.reset(seed=seed)
    trace, ended = [obs.copy()], 0
    for _ in range(steps):
        obs, rewards, terminations, truncations, infos = envs.step(
            masked_random(infos["action_mask"], rng)
        )
        assert np.array_equal(infos["action_mask"], envs.unwrapped.action_masks())
        assert not truncations.any()
        assert rewards.dtype == np.float64 and terminations.dtype == bool
        ended += int(terminations.sum())
        trace.append((obs.copy(), rewards.copy(), terminations.copy()))
    return trace, ended


def test_make_vec_gives_the_batched_env_with_gymnasium_spaces() -> None:
    envs = make(4, num_players=3)
    assert type(envs.unwrapped).__name__ == "FortVectorEnv"
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.num_envs == 4
    game = fort_env.FortGame(3)
    assert envs.single_action_space == gymnasium.spaces.Discrete(game.num_distinct_actions)
    assert envs.observation_space.shape == (4, game.observation_size)
    obs, infos = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert infos["action_mask"].shape == (4, game.num_distinct_actions)
    assert infos["seat"].shape == (4,) and set(infos["seat"].tolist()) <= {0, 1, 2}
    envs.close()


def test_masked_random_play_ends_games_with_their_final_observation() -> None:
    envs = make(6, num_players=2)
    rng = np.random.default_rng(1)
    _, infos = envs.reset(seed=5)
    ended = 0
    for _ in range(2500):
        obs, rewards, terminations, _, infos = envs.step(masked_random(infos["action_mask"], rng))
        for i in np.flatnonzero(terminations).tolist():
            ended += 1
            assert infos["_final_obs"][i] and infos["_final_info"][i]
            final_obs = infos["final_obs"][i]
            assert final_obs.shape == obs[i].shape and not np.array_equal(final_obs, obs[i])
            won = bool(infos["final_info"]["won"][i])
            assert rewards[i] == (1.0 if won else -1.0)  # win_loss rewards
            assert not infos["final_info"]["action_mask"][i].any()  # the ended game's, kept apart
        assert envs.observation_space.contains(obs)
    assert ended > 20
    envs.close()


def test_the_same_seed_gives_the_same_games() -> None:
    first, ended = play(make(3), 400, seed=11)
    second, _ = play(make(3), 400, seed=11)
    other, _ = play(make(3), 400, seed=12)
    assert ended > 0
    assert np.array_equal(first[0], second[0]) and not np.array_equal(first[0], other[0])
    for a, b in zip(first[1:], second[1:], strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_a_list_of_seeds_seeds_env_by_env() -> None:
    envs = make(2)
    obs_int, _ = envs.reset(seed=40)
    obs_list, _ = envs.reset(seed=[40, 41])
    assert np.array_equal(obs_int, obs_list)
    envs.close()


@pytest.mark.parametrize("seed", [-1, 2**62, True, 1.5, "3"])
def test_a_bad_seed_is_the_engines_error(seed: object) -> None:
    envs = make(2)
    with pytest.raises(ConfigError, match="seed"):
        envs.reset(seed=seed)  # type: ignore[arg-type]
    envs.close()


def test_wrong_use_gets_a_clear_error() -> None:
    envs = make(2)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ConfigError, match="options"):
        envs.reset(options={"x": 1})
    with pytest.raises(ConfigError, match="one per env"):
        envs.reset(seed=[1, 2, 3])
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        envs.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(TypeError, match="integers"):
        envs.step(np.zeros(2, dtype=np.float32))
    envs.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasiums_own_vector_envs_never_hand_out_an_all_zero_mask(mode: str) -> None:
    """Next-step autoreset: an ended env resets on the next step and ignores its action; the last
    step's info mask allows every action, so masked sampling goes on (it raised IndexError on an
    all-zero mask before)."""
    envs = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode=mode, num_players=2)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    rng = np.random.default_rng(2)
    _, infos = envs.reset(seed=7)
    ended = 0
    for _ in range(1200):
        masks = infos["action_mask"].astype(bool)  # int8 (B, N): SingleAgentEnv's, stacked
        _, _, terminations, _, infos = envs.step(masked_random(masks, rng))
        for i in np.flatnonzero(terminations).tolist():
            ended += 1
            assert infos["action_mask"][i].all()  # the ignored step may take any action
    assert ended >= 2
    envs.close()


def test_single_agent_env_last_step_mask() -> None:
    """The last step's info mask is all ones; action_masks() says no action is legal."""
    env = gymnasium.make(GYM_ID, num_players=2).unwrapped
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=3)
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(masked_random(info["action_mask"][None] == 1, rng)[0])
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].all()
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_both_vector_modes_deal_the_same_games_from_one_seed() -> None:
    """Issue 38: ``sync`` (SingleAgentEnvs) and ``vector_entry_point`` (the C++ batch) dealt
    different games from the same seed; now env i's k-th game has seed EventRng(s + i, k) and
    the same learner seat in both (opponents play differently: random in Python or in C++)."""
    seeds: dict[str, list[list[tuple[int, int]]]] = {}
    for mode in ("sync", "vector_entry_point"):
        envs = gymnasium.make_vec(GYM_ID, num_envs=3, vectorization_mode=mode, num_players=3)
        _, infos = envs.reset(seed=21)
        rng = np.random.default_rng(0)
        games: list[list[tuple[int, int]]] = [
            [(int(infos["game_seed"][i]), int(infos["seat"][i]))] for i in range(3)
        ]
        while min(len(g) for g in games) < 4:
            mask = infos["action_mask"].astype(bool)
            _, _, _, _, infos = envs.step(masked_random(mask, rng))
            for i in range(3):  # a new game: its seed (sync resets on the next step)
                now = (int(infos["game_seed"][i]), int(infos["seat"][i]))
                if now != games[i][-1]:
                    games[i].append(now)
        seeds[mode] = [g[:4] for g in games]
        envs.close()
    assert seeds["sync"] == seeds["vector_entry_point"]
    assert len({s for g in seeds["sync"] for s, _ in g}) == 12  # twelve different deals
