"""``fort_env.envs.vector.FortBatchVecEnv``: the C++ batch behind SB3's VecEnv API.

The C++ batch itself is proved equal to ``SingleAgentEnv`` decision by decision in
``tests/differential/test_batch.py``; here: the same games through the Python layer (Python
opponents grouped and called, one game ahead), SB3's conventions (shapes, dtypes, spaces,
``terminal_observation``, seeding, ``reset_infos``, ``env_method``/``has_attr``), the errors
at the boundary (one clear error, nothing changed), and MaskablePPO learning on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from fort_env.envs.single_agent import SingleAgentEnv
from fort_env.envs.vector import FortBatchVecEnv, opponent_code, random_legal_actions
from fort_env.game.errors import ConfigError, IllegalActionError
from fort_env.native import backend as cpp_backend

if not cpp_backend.available():  # pragma: no cover
    pytest.skip(
        f"compiled core not usable: {cpp_backend.why_unavailable()}", allow_module_level=True
    )

core = cpp_backend.require()


def first_legal(observation: Mapping[str, Any], info: Mapping[str, Any]) -> int:
    """A deterministic Python opponent (the same on both sides of a comparison)."""
    return int(info["legal_actions"][0])


class LastLegal:
    """An agent with ``act`` and ``name`` (called env by env)."""

    name = "last"

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> int:
        assert observation["observation"].shape == (info["game"].observation_size,)
        assert np.flatnonzero(observation["action_mask"]).tolist() == info["legal_actions"]
        return int(info["legal_actions"][-1])


class BatchedFirst:
    """An agent with ``act_batch``: one call for every env waiting for it."""

    name = "batched"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> int:
        raise AssertionError("act_batch should be used")

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert observations.dtype == np.float32 and masks.dtype == bool
        self.calls.append(len(observations))
        return np.argmax(masks, axis=1)  # the first legal action of each row


# --------------------------------------------------------------------------- the same games
@pytest.mark.parametrize("threads", [1, 3])
def test_the_same_games_as_single_agent_envs(threads: int) -> None:
    """FortBatchVecEnv(seed=s) plays env i's games as a SingleAgentEnv reset with seed s + i
    (which deals the batch's seed sequence and seats: SingleAgentEnv's "Seeding"):
    observations, rewards (shaping and the rank reward), dones, infos, with Python opponents of
    both kinds (called env by env; batched) in a 3-player game."""
    b, seed, n = 3, 5, 3
    opponents = [first_legal, BatchedFirst()]
    venv = FortBatchVecEnv(
        b,
        seed=seed,
        num_players=n,
        opponents=opponents,
        reward="rank",
        shaping=0.5,
        threads=threads,
    )
    refs = [
        SingleAgentEnv(
            num_players=n, opponents=[first_legal, first_legal], reward="rank", shaping=0.5
        )
        for _ in range(b)
    ]
    games = [0] * b

    def ref_reset(i: int) -> np.ndarray:
        obs, _ = refs[i].reset(seed=seed + i if games[i] == 0 else None)  # then the next game
        games[i] += 1
        return obs

    obs = venv.reset()
    expected = np.stack([ref_reset(i) for i in range(b)])
    assert obs.tobytes() == expected.tobytes()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(700):
        actions = random_legal_actions(venv.action_masks(), rng)
        obs, rewards, dones, infos = venv.step(actions)
        for i, ref in enumerate(refs):
            o, r, term, _, info = ref.step(int(actions[i]))
            assert dones[i] == term and np.float32(r) == rewards[i]
            assert infos[i]["seat"] == info["seat"] and infos[i]["game_seed"] == info["game_seed"]
            if term:
                ended += 1
                assert infos[i]["terminal_observation"].tobytes() == o.tobytes()
                assert infos[i]["won"] == info["won"] and infos[i]["winners"] == info["winners"]
                assert infos[i]["opponents"] == [repr(first_legal), "batched"]
                o = ref_reset(i)
            assert obs[i].tobytes() == o.tobytes()
            assert np.array_equal(venv.action_masks()[i], ref.action_masks())
    assert ended >= b
    assert max(opponents[1].calls) > 1  # the batched opponent acted for several envs at once


def test_opponents_are_drawn_one_game_ahead_and_named_in_infos() -> None:
    drawn: list[str] = []

    def sampler(rng: np.random.Generator, num_rivals: int) -> list[Any]:
        pick = ["random", LastLegal()][int(rng.integers(2))]
        drawn.append(pick if isinstance(pick, str) else pick.name)
        return [pick] * num_rivals

    venv = FortBatchVecEnv(4, seed=0, opponent_sampler=sampler)
    venv.reset()
    assert len(drawn) == 4 + 4  # each env's first game's opponents, and its next game's
    rng = np.random.default_rng(0)
    names = set()
    for _ in range(1500):
        _, _, dones, infos = venv.step(random_legal_actions(venv.action_masks(), rng))
        for i in np.flatnonzero(dones):
            names.add(infos[i]["opponents"][0])
    assert names == {"random", "last"}


# --------------------------------------------------------------------------- SB3's conventions
def test_spaces_shapes_and_dtypes() -> None:
    venv = FortBatchVecEnv(5, seed=2, num_players=4)
    game = venv.game
    obs = venv.reset()
    assert obs.shape == (5, game.observation_size) and obs.dtype == np.float32
    assert venv.observation_space.shape == (game.observation_size,)
    assert venv.action_space.n == game.num_distinct_actions
    assert [info.keys() for info in venv.reset_infos] == [{"seat", "game_seed"}] * 5
    rng = np.random.default_rng(0)
    for _ in range(200):
        masks = venv.action_masks()
        assert masks.shape == (5, game.num_distinct_actions) and masks.dtype == bool
        assert masks.any(axis=1).all()
        assert all(venv.observation_space.contains(row) for row in obs)
        obs, rewards, dones, infos = venv.step(random_legal_actions(masks, rng))
        assert rewards.shape == (5,) and rewards.dtype == np.float32
        assert dones.shape == (5,) and dones.dtype == bool and len(infos) == 5
        for i in np.flatnonzero(dones):
            assert venv.observation_space.contains(infos[i]["terminal_observation"])
    # state(i): a copy of env i's game, waiting for the learner whose observation was returned
    s = venv.state(0)
    assert s.current_player() == infos[0]["seat"]
    assert np.array_equal(s.observation_tensor(infos[0]["seat"]), obs[0])


def test_seeding_reproduces_and_distinguishes() -> None:
    def run(venv: FortBatchVecEnv, steps: int = 120) -> bytes:
        rng = np.random.default_rng(0)
        chunks = [venv.reset().tobytes()]
        for _ in range(steps):
            obs, rewards, dones, _ = venv.step(random_legal_actions(venv.action_masks(), rng))
            chunks += [obs.tobytes(), rewards.tobytes(), dones.tobytes()]
        return b"".join(chunks)

    a = run(FortBatchVecEnv(3, seed=7, opponents="random"))
    assert a == run(FortBatchVecEnv(3, seed=7, opponents="random", threads=2))
    venv = FortBatchVecEnv(3, opponents="random")
    assert venv.seed(7) == [7, 8, 9]
    assert run(venv) == a
    assert run(FortBatchVecEnv(3, seed=8, opponents="random")) != a
    unseeded = [FortBatchVecEnv(2).reset().tobytes() for _ in range(2)]
    assert unseeded[0] != unseeded[1]


def test_vec_env_methods() -> None:
    venv = FortBatchVecEnv(3, seed=0)
    venv.reset()
    masks = venv.env_method("action_masks")
    assert len(masks) == 3 and np.array_equal(np.stack(masks), venv.action_masks())
    assert venv.env_method("action_masks", indices=[2])[0].tolist() == masks[2].tolist()
    assert venv.has_attr("action_masks") and not venv.has_attr("no_such_thing")
    assert venv.get_attr("num_players") == [2, 2, 2]
    assert venv.env_is_wrapped(object) == [False] * 3  # type: ignore[arg-type]
    with pytest.raises(AttributeError, match="no per-env method 'render'"):
        venv.env_method("render")
    with pytest.raises(AttributeError, match="cannot set"):
        venv.set_attr("num_players", 3)
    assert venv.env_method("set_opponents", "random") == [None] * 3


def test_set_opponents_applies_from_the_next_game() -> None:
    venv = FortBatchVecEnv(2, seed=0, opponents=LastLegal())
    venv.reset()
    venv.env_method("set_opponents", "random")
    rng = np.random.default_rng(0)
    seen: list[list[str]] = [[], []]
    while min(len(x) for x in seen) < 2:
        _, _, dones, infos = venv.step(random_legal_actions(venv.action_masks(), rng))
        for i in np.flatnonzero(dones):
            seen[i].append(infos[i]["opponents"][0])
    assert [x[:2] for x in seen] == [["last", "random"], ["last", "random"]]


def test_bad_input_gives_one_clear_error() -> None:
    with pytest.raises(ValueError, match="num_envs must be >= 1"):
        FortBatchVecEnv(0)
    with pytest.raises(ConfigError, match="reward must be one of"):
        FortBatchVecEnv(2, reward="points")
    with pytest.raises(ConfigError, match="seat must be None or in"):
        FortBatchVecEnv(2, seat=2)
    with pytest.raises(ConfigError, match="opponent 'nope'"):  # no policy, no agent of that name
        FortBatchVecEnv(2, opponents="nope")
    with pytest.raises(ConfigError, match="2 opponents for 1 rival seats"):
        FortBatchVecEnv(2, opponents=["random", "random"])
    venv = FortBatchVecEnv(2, seed=0)
    with pytest.raises(RuntimeError, match="call reset"):
        venv.step(np.zeros(2, np.int64))
    venv.reset()
    with pytest.raises(ValueError, match=r"actions must have shape \(2,\)"):
        venv.step(np.zeros(3, np.int64))
    with pytest.raises(TypeError, match="actions must be integers"):
        venv.step(np.zeros(2))
    venv._seeds = [2**63, 0]  # past seed()'s check (test_reliability_core_contracts.py)
    rngs = list(venv._rngs)
    with pytest.raises(ValueError, match=r"seed of env 0 must be in \[0, 2\*\*63\)"):
        venv.reset()
    assert venv._rngs == rngs  # nothing changed
    assert opponent_code(None) == opponent_code("random") == 0
    assert opponent_code(LastLegal()) == core.EXTERNAL


def test_an_illegal_learner_action_ends_its_episode() -> None:
    venv = FortBatchVecEnv(2, seed=0, illegal_reward=-3.0)
    venv.reset()
    actions = random_legal_actions(venv.action_masks(), np.random.default_rng(0))
    actions[1] = venv.game.num_distinct_actions + 5
    _, rewards, dones, infos = venv.step(actions)
    assert dones.tolist() == [False, True] and rewards[1] == -3.0
    assert infos[1]["illegal_action"] is True and "won" not in infos[1]
    assert venv.action_masks()[1].any()  # the next game is under way


def test_an_opponents_illegal_action_raises_naming_it() -> None:
    def cheat(observation: Mapping[str, Any], info: Mapping[str, Any]) -> int:
        return int(np.flatnonzero(observation["action_mask"] == 0)[0])

    venv = FortBatchVecEnv(2, seed=1, opponents=cheat)
    with pytest.raises(IllegalActionError, match=r"not legal for seat . of env . \(chosen by"):
        venv.reset()
        rng = np.random.default_rng(0)
        for _ in range(50):
            venv.step(random_legal_actions(venv.action_masks(), rng))
    with pytest.raises(RuntimeError, match="call reset"):  # half-stepped envs: reset first
        venv.step(np.zeros(2, np.int64))
    venv.close()
    with pytest.raises(RuntimeError, match="closed"):
        venv.reset()


def test_maskable_ppo_learns_on_it() -> None:
    """MaskablePPO trains on it (two rollouts, one update each) against a mixed league: the
    built-in random, a Python agent, a frozen policy acting in batches."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import torch
    from stable_baselines3.common.vec_env import VecMonitor

    import agents
    from agents.learned.ppo import PPOAgent

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the training scripts' setting; more threads crawl on a busy box
    try:
        venv = VecMonitor(FortBatchVecEnv(8, seed=0, opponents="random", shaping=0.5))
        model = sb3_contrib.MaskablePPO(
            "MlpPolicy",
            venv,
            n_steps=32,
            batch_size=128,
            n_epochs=1,
            policy_kwargs={"net_arch": [32]},
            seed=0,
            verbose=0,
        )
        before = [p.detach().clone() for p in model.policy.parameters()]
        snapshot = PPOAgent(policy=model.policy, deterministic=False, seed=0)
        league = [agents.make("random"), agents.make("builder"), snapshot]
        venv.env_method(
            "set_opponent_sampler", lambda rng, k: [league[int(rng.integers(3))] for _ in range(k)]
        )
        model.learn(512)
    finally:
        torch.set_num_threads(threads)
    assert model.num_timesteps >= 512
    after = list(model.policy.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(after, before, strict=True))


def test_vec_monitor_reports_episodes() -> None:
    from stable_baselines3.common.vec_env import VecMonitor

    venv = VecMonitor(FortBatchVecEnv(4, seed=0, opponents="random"))
    venv.reset()
    rng = np.random.default_rng(0)
    episodes = []
    while len(episodes) < 4:
        masks = np.stack(venv.env_method("action_masks"))  # as MaskablePPO asks
        _, rewards, dones, infos = venv.step(random_legal_actions(masks, rng))
        episodes += [infos[i]["episode"] for i in np.flatnonzero(dones)]
        for i in np.flatnonzero(dones):
            assert infos[i]["episode"]["r"] == rewards[i]  # win/loss: all of it at the end
    assert all(e["l"] > 20 for e in episodes)


def test_the_builder_bot_plays_inside_cpp_as_the_ported_builder() -> None:
    """A ``BuilderAgent`` opponent is played by ``Policy::BUILDER`` (its C++ port), so the
    training league's builders cost no Python (the scorer and opportunist likewise:
    tests/test_cpp_heuristics.py); a heuristic without a port stays external."""
    from agents.bots.heuristics import BuilderAgent, HeuristicAgent, ScorerAgent
    from fort_env.native.policies import POLICIES

    assert opponent_code(BuilderAgent()) == POLICIES.index("builder") == 1
    assert opponent_code(ScorerAgent()) == POLICIES.index("scorer")
    assert opponent_code(HeuristicAgent()) == core.EXTERNAL
    venv = FortBatchVecEnv(4, seed=3, opponents=BuilderAgent())
    venv.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(400):
        _, _, dones, infos = venv.step(random_legal_actions(venv.action_masks(), rng))
        finished += int(dones.sum())
        ended = [info for info, d in zip(infos, dones, strict=True) if d]
        assert all(info["opponents"] == ["builder"] for info in ended)
    assert finished > 0
