"""The single-agent adapter (``fort_env/envs/single_agent.py``): checkers, seats, whose obs and
reward."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agents
from agents.arena.games import decision_info
from fort_env import ConfigError, FortGame
from fort_env.envs.aec import final_rewards, observation_box
from fort_env.envs.single_agent import SingleAgentEnv
from tests.scenario import replaced


def masked_random(env: SingleAgentEnv, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(env.action_masks())))


class Spy:
    """A random opponent that records the seats it is asked to act for."""

    name = "spy"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(0)
        self.seats: list[int] = []

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        self.seats.append(int(info["seat"]))
        mask = observation["action_mask"]
        assert mask.dtype == np.int8
        return int(self.rng.choice(np.flatnonzero(mask)))


# ---------------------------------------------------------------------- the checkers
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_gymnasium_check_env(num_players: int) -> None:
    with warnings.catch_warnings():
        # Only the env has no registered spec (it is not made through gymnasium.make).
        warnings.filterwarnings("ignore", message=".*not having a spec.*")
        check_env(SingleAgentEnv(num_players=num_players), skip_render_check=True)


@pytest.mark.parametrize("opponents", ["random", "builder"])
def test_sb3_check_env(opponents: str) -> None:
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    env = SingleAgentEnv(
        num_players=3, opponents=agents.make(opponents), opponent_info=decision_info, shaping=0.5
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SB3 warns about anything it finds odd
        sb3_checker.check_env(env, warn=True)


def test_maskable_ppo_accepts_the_env() -> None:
    """sb3-contrib finds the mask through ``action_masks()`` and plays only legal actions."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = SingleAgentEnv()
    assert is_masking_supported(env)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(128)
    obs, _ = env.reset(seed=3)
    for _ in range(50):
        action, _ = model.predict(obs, action_masks=get_action_masks(env))
        assert env.action_masks()[int(action)]
        obs, _, terminated, _, info = env.step(int(action))
        assert "illegal_action" not in info
        if terminated:
            obs, _ = env.reset()


# ---------------------------------------------------------------------- spaces
def test_spaces_match_the_pettingzoo_env() -> None:
    env = SingleAgentEnv(num_players=3)
    game = FortGame(3)
    box = observation_box(game)
    assert env.observation_space == box
    assert env.action_space.n == game.num_distinct_actions
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.float32 and obs.shape == (game.observation_size,)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8
    assert env.action_masks().dtype == bool


# ---------------------------------------------------------------------- whose obs, whose reward
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_observation_mask_and_reward_belong_to_the_learner(num_players: int) -> None:
    spy = Spy()
    env = SingleAgentEnv(num_players=num_players, opponents=spy)
    rng = np.random.default_rng(num_players)
    for episode in range(2):
        obs, info = env.reset(seed=100 + episode)
        seat = info["seat"]
        spy.seats.clear()
        total = 0.0
        terminated = False
        while not terminated:
            state = env.state
            # The learner is to act, and what we hold is its view and its mask.
            assert state.current_player() == seat
            np.testing.assert_array_equal(obs, state.observation_tensor(seat))
            np.testing.assert_array_equal(env.action_masks(), state.legal_actions_mask())
            np.testing.assert_array_equal(info["action_mask"], env.action_masks().astype(np.int8))
            obs, reward, terminated, truncated, info = env.step(masked_random(env, rng))
            assert not truncated and info["seat"] == seat
            total += reward
        state = env.state
        assert state.is_terminal()
        np.testing.assert_array_equal(obs, state.observation_tensor(seat))
        assert reward == state.returns()[seat]
        assert total == state.returns()[seat]
        assert info["won"] == (seat in state.winners())
        assert not env.action_masks().any()
        # Opponents acted for every other seat and never for the learner's.
        assert spy.seats and seat not in spy.seats
        assert set(spy.seats) == set(range(num_players)) - {seat}


@pytest.mark.parametrize("mode", ["rank", "score_margin"])
def test_reward_modes(mode: str) -> None:
    env = SingleAgentEnv(num_players=3, reward=mode)
    rng = np.random.default_rng(0)
    env.reset(seed=5)
    reward, terminated = 0.0, False
    while not terminated:
        _, reward, terminated, _, _ = env.step(masked_random(env, rng))
    assert reward == pytest.approx(final_rewards(env.state, mode)[env.seat])


def test_shaping_adds_up_to_the_final_margin() -> None:
    env = SingleAgentEnv(num_players=2, shaping=0.5)
    rng = np.random.default_rng(1)
    env.reset(seed=9)
    total, terminated = 0.0, False
    while not terminated:
        _, reward, terminated, _, _ = env.step(masked_random(env, rng))
        total += reward
    state = env.state
    win_loss = state.returns()[env.seat]
    margin = final_rewards(state, "score_margin")[env.seat]
    assert total == pytest.approx(win_loss + 0.5 * margin)


# ---------------------------------------------------------------------- seats
def test_seat_rotates_over_episodes() -> None:
    env = SingleAgentEnv(num_players=3)
    _, info = env.reset(seed=0)
    seats = [info["seat"]] + [env.reset()[1]["seat"] for _ in range(5)]
    assert seats[:3] != seats[1:4]
    assert sorted(seats[:3]) == [0, 1, 2]
    assert seats[3:] == seats[:3]


def test_fixed_seat_and_seat_option() -> None:
    env = SingleAgentEnv(num_players=4, seat=2)
    assert {env.reset(seed=s)[1]["seat"] for s in range(4)} == {2}
    assert env.reset(options={"seat": 1})[1]["seat"] == 1
    with pytest.raises(ConfigError):
        SingleAgentEnv(num_players=2, seat=2)


# ---------------------------------------------------------------------- opponents
def test_opponents_per_seat_callables_and_zoo_agents() -> None:
    calls: list[int] = []

    def first_legal(observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        calls.append(int(info["seat"]))
        return int(info["legal_actions"][0])

    builder = agents.make("builder")
    env = SingleAgentEnv(num_players=3, opponents=[first_legal, builder], seat=0)
    rng = np.random.default_rng(0)
    env.reset(seed=1)
    for _ in range(40):
        _, _, terminated, _, _ = env.step(masked_random(env, rng))
        if terminated:
            break
    assert calls and set(calls) == {1}  # the first rival seat (seat 1) is the callable's
    with pytest.raises(ConfigError, match="rival seats"):
        SingleAgentEnv(num_players=3, opponents=[first_legal])


def test_opponent_sampler_draws_at_each_reset() -> None:
    drawn: list[int] = []

    def sampler(rng: np.random.Generator, num_rivals: int) -> Any:
        drawn.append(num_rivals)
        return agents.make("random")

    env = SingleAgentEnv(num_players=4, opponent_sampler=sampler)
    env.reset(seed=0)
    env.reset()
    assert drawn == [3, 3]
    assert [o.name for o in env.opponents] == ["random"] * 3


def test_opponents_see_their_own_seat_view() -> None:
    """Opponents get the tournament's info (with ``view``) and a lazy observation."""
    seen: list[bool] = []

    def check(observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        state_obs = observation["observation"]
        seen.append(info["view"].num_players == 2 and state_obs.dtype == np.float32)
        return int(info["legal_actions"][-1])

    env = SingleAgentEnv(opponents=check, opponent_info=decision_info)
    rng = np.random.default_rng(0)
    env.reset(seed=2)
    for _ in range(10):
        env.step(masked_random(env, rng))
    assert seen and all(seen)


# ---------------------------------------------------------------------- seeding, errors
def test_same_seed_same_episode() -> None:
    def trajectory(seed: int) -> list[tuple[int, float]]:
        env = SingleAgentEnv(num_players=2, opponents=agents.make("random"))
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [(int(obs.sum() * 1000), 0.0)]
        for _ in range(60):
            obs, reward, terminated, _, _ = env.step(masked_random(env, rng))
            out.append((int(obs.sum() * 1000), reward))
            if terminated:
                break
        return out

    assert trajectory(4) == trajectory(4)
    assert trajectory(4) != trajectory(5)


def test_illegal_action_ends_the_episode() -> None:
    env = SingleAgentEnv(illegal_reward=-1.0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not env.action_masks().any()


def test_bad_arguments() -> None:
    with pytest.raises(ConfigError):
        SingleAgentEnv(reward="points")
    with pytest.raises(ConfigError):
        SingleAgentEnv(render_mode="rgb_array")
    with pytest.raises(ConfigError):
        SingleAgentEnv(num_players=5)
    with pytest.raises(RuntimeError, match="reset"):
        SingleAgentEnv().step(0)


def test_render_ansi_is_the_learners_view() -> None:
    env = SingleAgentEnv(render_mode="ansi")
    _, info = env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and text.startswith(f"learner: player_{info['seat']}")


def test_documented_sb3_snippet_runs(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/integrations.md's Stable-Baselines3 snippet runs as written (fewer timesteps)."""
    pytest.importorskip("sb3_contrib")
    import re
    from pathlib import Path

    doc = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
    section = doc.read_text(encoding="utf-8").split("## Stable-Baselines3", 1)
    assert len(section) == 2, "docs/integrations.md has no section '## Stable-Baselines3'"
    match = re.search(r"```python\n(.*?)```", section[1], re.DOTALL)
    assert match, "the section has no python code block"
    code = replaced(match.group(1), "model.learn(20_000)", "model.learn(256)")
    code = replaced(code, "verbose=1", "verbose=0, n_steps=128, batch_size=64, n_epochs=1")
    monkeypatch.chdir(tmp_path)
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(2)  # whatever an earlier test left: the snippet must set it
    try:
        exec(compile(code, "docs/integrations.md", "exec"), {})
        # one torch thread, as the trainer: on a shared CPU every core ran it 8-10x slower
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
    assert (tmp_path / "fort_ppo.safetensors").is_file() and (tmp_path / "fort_ppo.json").is_file()
    agent = agents.make(f"ppo:{tmp_path / 'fort_ppo.safetensors'}")
    assert agent.name.startswith("ppo:")
