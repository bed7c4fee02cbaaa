"""``fort_env.parallel_env``: PettingZoo's parallel API test, the same games as the AEC env, the
``WAIT`` mask convention (never an all-zero mask), the errors, and a masked IPPO-style loop."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import parallel_api_test

import fort_env
from fort_env import IllegalActionError
from fort_env.envs.parallel import FortParallelEnv


def _record(env: FortParallelEnv) -> Any:
    """Everything a refused step must leave as it was."""
    return (
        env.aec_env.to_record(),
        env.state().tobytes(),
        list(env.agents),
        env.aec_env.agent_selection,
    )


def _actor(observations: dict[str, dict[str, np.ndarray]], wait: int) -> str:
    (actor,) = [a for a, o in observations.items() if o["action_mask"][wait] == 0]
    return actor


def _random_actions(
    env: FortParallelEnv, observations: dict[str, dict[str, np.ndarray]], rng: np.random.Generator
) -> dict[str, int]:
    return {a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in env.agents}


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_parallel_api_test_passes_with_no_warning(num_players: int) -> None:
    env = fort_env.parallel_env(num_players=num_players)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parallel_api_test(env, num_cycles=1000)


def test_spaces_are_one_object_each_with_wait_last() -> None:
    env = fort_env.parallel_env(num_players=3)
    n = env.aec_env.game.num_distinct_actions
    assert env.wait_action == n
    for agent in env.possible_agents:
        assert env.action_space(agent) is env.action_space(agent)
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) == spaces.Discrete(n + 1)
    obs, infos = env.reset(seed=3)
    assert env.agents == env.possible_agents
    for agent in env.agents:
        assert env.observation_space(agent).contains(obs[agent])
        np.testing.assert_array_equal(infos[agent]["action_mask"], obs[agent]["action_mask"])
    assert env.state().shape == env.state_space.shape
    np.testing.assert_array_equal(env.state(), env.aec_env.state())


def _aec_game(num_players: int, reward: str, seed: int) -> tuple[list[Any], dict[str, float]]:
    """A random masked game of the AEC env: per decision (agent, every agent's observation,
    action, the step's rewards), and each agent's return from the standard loop."""
    aec = fort_env.env(num_players=num_players, reward=reward)
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace: list[Any] = []
    returns = dict.fromkeys(aec.possible_agents, 0.0)
    for agent in aec.agent_iter():
        obs, reward_now, term, trunc, _ = aec.last()
        returns[agent] += reward_now
        if term or trunc:
            aec.step(None)
            continue
        views = {a: aec.observe(a) for a in aec.agents}
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        aec.step(action)
        trace.append((agent, views, action, dict(aec.rewards)))
    return trace, returns


@pytest.mark.parametrize(
    ("num_players", "reward"),
    [(2, "win_loss"), (3, "rank"), (4, "score_margin"), (4, "win_loss")],
)
def test_a_seeded_game_is_the_aec_envs_game(num_players: int, reward: str) -> None:
    seed = 11 * num_players
    trace, aec_returns = _aec_game(num_players, reward, seed)
    env = fort_env.parallel_env(num_players=num_players, reward=reward)
    wait = env.wait_action
    obs, _ = env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent, views, action, step_rewards in trace:
        assert env.agents == env.possible_agents
        assert _actor(obs, wait) == agent
        for a, view in views.items():
            np.testing.assert_array_equal(obs[a]["observation"], view["observation"])
            np.testing.assert_array_equal(obs[a]["action_mask"][:wait], view["action_mask"])
        actions = dict.fromkeys(env.agents, wait)
        actions[agent] = action
        obs, rewards, terms, truncs, _ = env.step(actions)
        assert rewards == step_rewards
        for a, r in rewards.items():
            returns[a] += r
    assert env.agents == []
    assert all(terms.values()) and not any(truncs.values())
    assert returns == pytest.approx(aec_returns)
    assert set(rewards) == set(env.possible_agents)


def test_reset_without_a_seed_follows_the_aec_envs_seeding() -> None:
    aec = fort_env.env(num_players=2)
    env = fort_env.parallel_env(num_players=2)
    aec.reset(seed=5)
    env.reset(seed=5)
    for _ in range(2):
        aec.reset()
        obs, _ = env.reset()
        for agent in env.agents:
            np.testing.assert_array_equal(
                obs[agent]["observation"], aec.observe(agent)["observation"]
            )


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_no_mask_is_ever_all_zero(num_players: int) -> None:
    env = fort_env.parallel_env(num_players=num_players)
    wait = env.wait_action
    wait_only = np.zeros(wait + 1, dtype=np.int8)
    wait_only[wait] = 1
    rng = np.random.default_rng(num_players)
    obs, infos = env.reset(seed=num_players)
    steps = games = 0
    while steps < 1200 or env.agents:
        live = bool(env.agents)
        for agent, o in obs.items():
            mask = o["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (wait + 1,)
            assert mask.sum() >= 1, f"all-zero mask for {agent} at step {steps}"
            np.testing.assert_array_equal(infos[agent]["action_mask"], mask)
            assert infos[agent]["acting"] == (mask[wait] == 0)
        acting = [a for a, o in obs.items() if o["action_mask"][wait] == 0]
        if live:
            assert len(acting) == 1
            for agent in set(obs) - set(acting):
                np.testing.assert_array_equal(obs[agent]["action_mask"], wait_only)
        else:  # the final observations: WAIT only
            assert acting == []
            games += 1
            obs, infos = env.reset()
            continue
        obs, _, _, _, infos = env.step(_random_actions(env, obs, rng))
        steps += 1
    assert games >= 2


def test_illegal_and_waiting_actions_raise_and_change_nothing() -> None:
    env = fort_env.parallel_env(num_players=3)
    with pytest.raises(RuntimeError, match="reset"):
        env.step({})
    wait = env.wait_action
    obs, _ = env.reset(seed=7)
    rng = np.random.default_rng(0)
    for _ in range(40):  # somewhere into the game, past the first decision
        obs, *_ = env.step(_random_actions(env, obs, rng))
    actor = _actor(obs, wait)
    waiter = next(a for a in env.agents if a != actor)
    mask = obs[actor]["action_mask"]
    legal = int(np.flatnonzero(mask)[0])
    illegal = int(np.flatnonzero(mask[:wait] == 0)[0])
    before = _record(env)

    def refused(actions: dict[str, Any], error: type[Exception], match: str | None) -> None:
        with pytest.raises(error, match=match):
            env.step(actions)
        assert _record(env) == before

    base = dict.fromkeys(env.agents, wait)
    # the acting seat: an illegal action, WAIT, a non-integer, None (the AEC env's errors)
    refused({**base, actor: illegal}, IllegalActionError, None)
    refused({**base, actor: wait}, IllegalActionError, "out of range")
    refused({**base, actor: 1.5}, TypeError, "int")
    refused({**base, actor: None}, ValueError, actor)
    # a waiting seat: anything but WAIT, named
    refused({**base, actor: legal, waiter: legal}, IllegalActionError, waiter)
    refused({**base, actor: legal, waiter: np.int64(0)}, ValueError, f"{waiter} is not to act")
    refused({**base, actor: legal, waiter: "wait"}, TypeError, waiter)
    # the acting seat missing; an unknown agent
    waiters = {a: wait for a in env.agents if a != actor}
    refused(waiters, ValueError, f"no action for {actor}")
    refused({**base, actor: legal, "player_9": wait}, ValueError, "player_9")
    # a legal step still goes; a waiting seat may be left out
    obs, rewards, *_ = env.step({actor: legal})
    assert env.aec_env.to_record()["actions"][-1] == legal
    assert set(rewards) == set(env.possible_agents)


def test_truncation_ends_the_episode_for_every_agent(caplog: pytest.LogCaptureFixture) -> None:
    env = fort_env.parallel_env(num_players=4, max_decisions=5)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(1)
    for i in range(5):
        obs, rewards, terms, truncs, _ = env.step(_random_actions(env, obs, rng))
        assert all(truncs.values()) == (i == 4)
    assert env.agents == []
    assert rewards == dict.fromkeys(env.possible_agents, 0.0)
    assert not any(terms.values())
    assert all(o["action_mask"][env.wait_action] == 1 for o in obs.values())
    assert env.step({}) == ({}, {}, {}, {}, {})  # and PettingZoo's warning, as the AEC env
    assert "step() called after all agents are terminated" in caplog.text


def test_render_ansi_is_the_aec_envs_text() -> None:
    env = fort_env.parallel_env(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str)
    assert text == env.aec_env.table_text()


def test_masked_ippo_style_loop_plays_50_games_to_the_end() -> None:
    """Every agent samples from the masked softmax of its own (random, untrained) policy at
    every step, as IPPO/MAPPO-style samplers do (Gumbel-max over the masked logits): no NaN or
    infinite log-probability, every game ends, and each game's returns are +1 for its winners
    and -1 for the others."""
    rng = np.random.default_rng(2026)
    envs = {n: fort_env.parallel_env(num_players=n) for n in (2, 3, 4)}
    for game in range(50):
        env = envs[2 + game % 3]
        wait = env.wait_action
        d = env.observation_space(env.possible_agents[0])["observation"].shape[0]
        # a tiny two-layer policy per agent: tanh(obs @ u) @ v
        u = {a: rng.normal(0.0, 0.1, (d, 8)) for a in env.possible_agents}
        v = {a: rng.normal(0.0, 1.0, (8, wait + 1)) for a in env.possible_agents}
        obs, _ = env.reset(seed=1000 + game)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        decisions = 0
        while env.agents:
            actions = {}
            for agent in env.agents:
                logits = np.tanh(obs[agent]["observation"] @ u[agent]) @ v[agent]
                masked = np.where(obs[agent]["action_mask"] == 1, logits, -np.inf)
                logp = masked - np.logaddexp.reduce(masked)
                action = int(np.argmax(masked + rng.gumbel(size=masked.shape)))
                assert np.isfinite(logp[action]) and obs[agent]["action_mask"][action] == 1
                actions[agent] = action
            decisions += sum(a != wait for a in actions.values())
            obs, rewards, terms, truncs, _ = env.step(actions)
            for agent, r in rewards.items():
                returns[agent] += r
        assert all(terms.values()) and not any(truncs.values())
        assert decisions == len(env.aec_env.to_record()["actions"])
        winners = {env.possible_agents[p] for p in env.aec_env.fort_state().winners()}
        assert winners
        assert returns == {a: 1.0 if a in winners else -1.0 for a in env.possible_agents}


def test_the_documented_example_plays_a_game_to_the_end() -> None:
    """docs/integrations.md's parallel-view example runs as written, to the end of a game."""
    doc = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
    section = doc.read_text(encoding="utf-8").split("### The parallel view", 1)
    assert len(section) == 2, "docs/integrations.md has no section '### The parallel view'"
    match = re.search(r"```python\n(.*?)```", section[1], re.S)
    assert match, "no python block in '### The parallel view'"
    scope: dict[str, Any] = {}
    exec(compile(match.group(1), "docs/integrations.md", "exec"), scope)
    assert scope["env"].agents == []
    assert sorted(scope["rewards"].values())[-1] == 1.0
