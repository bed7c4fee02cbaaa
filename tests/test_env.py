"""The PettingZoo environment (``fort_env/envs/aec.py``): PettingZoo's own checks and the spec."""

from __future__ import annotations

import copy
import importlib
import pickle
import re
import warnings
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pettingzoo
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, render_test, seed_test

import fort_env
from fort_env import ConfigError, FortGame, IllegalActionError, fort_v0, observation_layout
from fort_env.envs.aec import (
    SCORE_MARGIN_SCALE,
    count_slice_bounds,
    final_rewards,
    rank_rewards,
    score_margin_rewards,
)

# fort_env.env is the env() function; its module is fort_env.envs.aec.
env_module = importlib.import_module("fort_env.envs.aec")
README = Path(__file__).resolve().parent.parent / "README.md"
# api_test exempts only PettingZoo's own envs by name from these two warnings about Dict
# observations (as chess and connect_four have); any other warning is a failure.
EXPECTED_API_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
)


def random_action(env: Any, rng: np.random.Generator) -> int | None:
    """The standard masked random agent."""
    obs, _, term, trunc, _ = env.last()
    return None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))


def play(env: Any, rng: np.random.Generator, steps: int | None = None) -> None:
    """Step ``env`` with random legal actions, ``steps`` times or until no agent is left."""
    done = 0
    while env.agents and (steps is None or done < steps):
        env.step(random_action(env, rng))
        done += 1


# ---------------------------------------------------------------------- PettingZoo's tests
@pytest.mark.parametrize(
    ("num_players", "setup"), [(2, "basic"), (3, "basic"), (4, "basic"), (2, "advanced")]
)
def test_api_test(num_players: int, setup: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(fort_env.env(num_players=num_players, setup=setup), num_cycles=300)
    unexpected = {str(w.message) for w in caught} - set(EXPECTED_API_WARNINGS)
    assert not unexpected


@pytest.mark.parametrize("num_players", [2, 4])
def test_seed_test(num_players: int) -> None:
    seed_test(partial(fort_env.env, num_players=num_players), num_cycles=100)


def test_render_test() -> None:
    render_test(partial(fort_env.env, num_players=3))


# ---------------------------------------------------------------------- construction
def test_entry_points_and_metadata() -> None:
    assert fort_v0.env is fort_env.env is env_module.env
    assert fort_v0.raw_env is fort_env.raw_env
    wrapped = fort_v0.env()
    assert isinstance(wrapped, pettingzoo.utils.OrderEnforcingWrapper)
    assert isinstance(wrapped.unwrapped, fort_env.raw_env)
    meta = fort_env.raw_env.metadata
    assert meta["name"] == "fort_v0" and meta["is_parallelizable"] is False
    assert meta["render_modes"] == ["human", "ansi"]
    assert str(wrapped) == "fort_v0"


def test_pettingzoo_make_finds_fort_v0() -> None:
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry (before 1.27)")
    made = pettingzoo.make("aec", "fort_env/fort_v0", num_players=3, setup="advanced")
    assert made.unwrapped.game.num_players == 3 and made.unwrapped.game.setup == "advanced"
    assert pettingzoo.spec("aec", fort_v0.ENV_ID).entry_point == fort_v0.ENTRY_POINT


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 5},
        {"setup": "expert"},
        {"reward": "points"},
        {"render_mode": "rgb_array"},
        {"max_decisions": 0},
        {"max_decisions": True},
    ],
)
def test_bad_arguments_raise_config_error(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        fort_env.raw_env(**kwargs)


@pytest.mark.parametrize("seed", [-1, 2**62, 1.5, True])
def test_bad_seeds_raise_config_error(seed: Any) -> None:
    with pytest.raises(ConfigError):
        fort_env.raw_env().reset(seed=seed)


# ---------------------------------------------------------------------- spaces and observe
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_spaces_are_shared_objects_with_the_game_sizes(num_players: int) -> None:
    env = fort_env.raw_env(num_players=num_players)
    game = FortGame(num_players)
    assert env.possible_agents == [f"player_{i}" for i in range(num_players)]
    obs_space = env.observation_space("player_0")
    act_space = env.action_space("player_0")
    for agent in env.possible_agents:
        assert env.observation_space(agent) is obs_space
        assert env.action_space(agent) is act_space
    assert act_space == spaces.Discrete(game.num_distinct_actions)
    assert isinstance(obs_space, spaces.Dict)
    assert obs_space["observation"].shape == (game.observation_size,)
    assert obs_space["observation"].dtype == np.float32
    mask_space = obs_space["action_mask"]
    assert mask_space.shape == (game.num_distinct_actions,) and mask_space.dtype == np.int8
    assert mask_space.low.min() == 0 and mask_space.high.max() == 1
    assert env.state_space.shape == (num_players * game.observation_size,)


def test_count_slice_bounds_name_layout_slices() -> None:
    game = FortGame(4)
    names = {s.name for s in observation_layout(4, game).slices}
    assert set(count_slice_bounds(game)) <= names
    # park_deck_size is scaled by cards.PARK_DECK_SIZE: at the start it matches the Park deck
    env = fort_env.raw_env(num_players=4)
    env.reset(seed=0)
    state = env.fort_state()
    obs = env.observe(env.agent_selection)["observation"]
    park_deck = np.count_nonzero(state.zone == fort_env.game.constants.PARK_DECK)
    view = observation_layout(4, game).view(obs, "park_deck_size")
    assert view[0] == pytest.approx(park_deck / fort_env.game.cards.PARK_DECK_SIZE)


@pytest.mark.parametrize(("num_players", "setup"), [(2, "basic"), (4, "basic"), (3, "advanced")])
def test_observe_is_fresh_own_view_and_masks_follow_the_engine(
    num_players: int, setup: str
) -> None:
    env = fort_env.raw_env(num_players=num_players, setup=setup)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    layout = observation_layout(num_players, env.game)
    binary = [s for s in layout.slices if s.name not in count_slice_bounds(env.game)]
    box = env.observation_space("player_0")
    steps = 0
    while not any(env.terminations.values()):
        state = env.fort_state()
        actor = env.agent_selection
        assert actor == f"player_{state.current_player()}"
        for agent in env.agents:
            seat = int(agent.split("_")[1])
            obs = env.observe(agent)
            assert box.contains(obs)
            assert np.array_equal(obs["observation"], state.observation_tensor(seat))
            for s in binary:
                assert set(np.unique(layout.view(obs["observation"], s.name))) <= {0.0, 1.0}, s.name
            expected_mask = (
                state.legal_actions_mask()
                if agent == actor
                else np.zeros(env.game.num_distinct_actions, dtype=bool)
            )
            assert np.array_equal(obs["action_mask"], expected_mask.astype(np.int8))
            assert np.array_equal(env.infos[agent]["action_mask"], obs["action_mask"])
        # fresh arrays: writing into one observation changes nothing later
        obs = env.observe(actor)
        obs["observation"][:] = -1
        obs["action_mask"][:] = 1
        assert env.observe(actor)["observation"].min() >= 0
        assert np.array_equal(env.observe(actor)["action_mask"], env.infos[actor]["action_mask"])
        env.step(int(rng.choice(state.legal_actions())))
        steps += 1
    assert steps > 50
    for agent in env.agents:
        assert not env.observe(agent)["action_mask"].any()


def test_reset_seed_deals_the_engine_game_and_reseeds_deterministically() -> None:
    env = fort_env.raw_env(num_players=3)
    env.reset(seed=11)
    state = FortGame(3).new_initial_state(seed=11)
    assert env.agent_selection == f"player_{state.current_player()}"
    assert env.fort_state().to_dict() == state.to_dict()
    a, b = fort_env.raw_env(num_players=3), fort_env.raw_env(num_players=3)
    a.reset(seed=5)
    b.reset(seed=5)
    a.reset()
    b.reset()
    assert a.fort_state().to_dict() == b.fort_state().to_dict()
    assert a.to_record()["seed"] != 5


def test_state_is_every_seat_observation_concatenated() -> None:
    env = fort_env.raw_env(num_players=3)
    env.reset(seed=2)
    play(env, np.random.default_rng(2), steps=40)
    glob = env.state()
    assert glob.dtype == np.float32 and env.state_space.contains(glob)
    parts = np.split(glob, 3)
    for seat, part in enumerate(parts):
        assert np.array_equal(part, env.observe(f"player_{seat}")["observation"])


# ---------------------------------------------------------------------- the AEC loop
def test_readme_loop_runs() -> None:
    """The snippet of README.md's section "The PettingZoo environment" runs as written."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## The PettingZoo environment", 1)
    assert len(section) == 2, "README.md has no section '## The PettingZoo environment'"
    match = re.search(r"```python\n(.*?)```", section[1], re.DOTALL)
    assert match, "the section has no python code block"
    exec(compile(match.group(1), "README.md", "exec"), {})


@pytest.mark.parametrize("reward", ["win_loss", "rank", "score_margin"])
@pytest.mark.parametrize("num_players", [2, 4])
def test_returns_are_the_final_rewards_for_every_agent(reward: str, num_players: int) -> None:
    env = fort_env.env(num_players=num_players, reward=reward)
    env.reset(seed=num_players)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    finished: list[str] = []
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        returns[agent] += rew
        assert not trunc
        if term:
            finished.append(agent)
            assert not obs["action_mask"].any() and not info["action_mask"].any()
            env.step(None)
        else:
            assert rew == 0.0
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sorted(finished) == env.possible_agents and env.agents == []
    final = env.unwrapped.fort_state()
    expected = final_rewards(final, reward)
    assert [returns[a] for a in env.possible_agents] == pytest.approx(expected.tolist())
    if reward == "win_loss":
        assert np.array_equal(expected, final.returns())
    # the rank standing agrees with the engine's winners (points, then Fort Level, p.11)
    rank = final_rewards(final, "rank")
    assert np.flatnonzero(rank == rank.max()).tolist() == final.winners()


@pytest.mark.parametrize(
    ("standings", "expected"),
    [
        ([(10, 1), (7, 1), (3, 1), (5, 1)], [1.0, 1 / 3, -1.0, -1 / 3]),
        ([(10, 1), (10, 1), (5, 1), (3, 1)], [2 / 3, 2 / 3, -1 / 3, -1.0]),
        ([(10, 1), (10, 0), (3, 0)], [1.0, 0.0, -1.0]),  # the Fort Level breaks the tie (p.11)
        ([(8, 1), (8, 1)], [0.0, 0.0]),  # a shared victory of two
    ],
)
def test_rank_rewards(standings: list[tuple[int, int]], expected: list[float]) -> None:
    assert rank_rewards(standings).tolist() == pytest.approx(expected)


def test_score_margin_rewards() -> None:
    got = score_margin_rewards([10, 7, 3]).tolist()
    assert got == pytest.approx(
        [3 / SCORE_MARGIN_SCALE, -3 / SCORE_MARGIN_SCALE, -7 / SCORE_MARGIN_SCALE]
    )


def test_max_decisions_truncates_without_reward() -> None:
    env = fort_env.env(num_players=2, max_decisions=25)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    live_steps = 0
    for _ in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        if trunc:
            assert not term and rew == 0.0 and not obs["action_mask"].any()
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        live_steps += 1
    assert live_steps == 25 and env.agents == []
    assert not env.unwrapped.fort_state().is_terminal()
    assert "Truncated after 25 decisions." in env.unwrapped.table_text()


def test_illegal_action_raw_raises_and_wrapped_terminates() -> None:
    raw = fort_env.raw_env(num_players=2)
    raw.reset(seed=0)
    illegal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0])
    before = raw.fort_state()
    with pytest.raises(IllegalActionError):
        raw.step(illegal)
    assert raw.fort_state() == before
    assert raw.to_record()["actions"] == []

    wrapped = fort_env.env(num_players=2)
    wrapped.reset(seed=0)
    actor = wrapped.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns on the illegal move
        wrapped.step(illegal)
    assert wrapped.terminations[actor] and wrapped.rewards[actor] == -1.0
    assert all(r == 0.0 for a, r in wrapped.rewards.items() if a != actor)


def pettingzoo_wrapped(**kwargs: Any) -> Any:
    """``raw_env`` in PettingZoo's own wrapper classes: what ``env()`` must behave as."""
    wrapped: Any = fort_env.raw_env(**kwargs)
    wrapped = pettingzoo.utils.TerminateIllegalWrapper(wrapped, illegal_reward=-1.0)
    wrapped = pettingzoo.utils.AssertOutOfBoundsWrapper(wrapped)
    return pettingzoo.utils.OrderEnforcingWrapper(wrapped)


def _outcome(call: Any) -> Any:
    """What ``call()`` returns or raises, comparable across two envs."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call()
    except Exception as error:
        return type(error), str(error)
    return "ok", repr(result)


def _snapshot(env: Any) -> Any:
    """Everything the AEC API shows now: the episode dicts and the selected agent's last()."""
    obs, rew, term, trunc, info = env.last()
    masks = {a: i["action_mask"].tobytes() for a, i in env.infos.items()}
    return (
        env.agents[:],
        env.agent_selection,
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        masks,
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        rew,
        term,
        trunc,
        info["action_mask"].tobytes(),
    )


def _final(env: Any) -> Any:
    """The episode dicts once no agent is left."""
    return (env.agents, env.rewards, env._cumulative_rewards, env.terminations, env.infos)


def test_env_wrappers_are_pettingzoos_and_read_the_raw_attributes() -> None:
    wrapped = fort_env.env(num_players=2)
    layers = []
    layer = wrapped
    while isinstance(layer, pettingzoo.utils.BaseWrapper):
        layers.append(layer)
        layer = layer.env
    assert isinstance(layer, fort_env.raw_env)
    kinds = (
        pettingzoo.utils.OrderEnforcingWrapper,
        pettingzoo.utils.AssertOutOfBoundsWrapper,
        pettingzoo.utils.TerminateIllegalWrapper,
    )
    assert len(layers) == 3 and all(isinstance(w, k) for w, k in zip(layers, kinds, strict=True))
    assert str(wrapped) == str(pettingzoo_wrapped(num_players=2)) == "fort_v0"
    # before reset(): the same errors as PettingZoo's own wrappers
    plain = pettingzoo_wrapped(num_players=2)
    names = ["agents", "agent_selection", "rewards", "terminations", "truncations", "infos"]
    names += ["num_agents", "_cumulative_rewards", "possible_agents", "no_such_name", "_private"]
    for name in names:
        assert _outcome(lambda n=name: getattr(wrapped, n)) == _outcome(
            lambda n=name: getattr(plain, n)
        ), name
    # after reset(): every layer reads the raw env's own objects, also after it replaces them
    wrapped.reset(seed=0)
    raw = wrapped.unwrapped
    play(wrapped, np.random.default_rng(0), steps=5)
    for w in layers:
        for name in ["agents", "agent_selection", "rewards", "terminations", "infos"]:
            assert getattr(w, name) is getattr(raw, name), name
        assert w._cumulative_rewards is raw._cumulative_rewards
    # copies read their own raw env
    for other in (copy.deepcopy(wrapped), pickle.loads(pickle.dumps(wrapped))):
        assert other.agents is other.unwrapped.agents is not raw.agents
        assert other.env.env.infos is other.unwrapped.infos
    # an attribute set on a wrapper hides the raw env's there, as with PettingZoo's wrappers
    layers[0].rewards = {}
    assert wrapped.rewards == {} and raw.rewards != {}


@pytest.mark.parametrize("num_players", [2, 4])
def test_env_plays_exactly_as_in_pettingzoos_own_wrappers(num_players: int) -> None:
    fast, plain = fort_env.env(num_players=num_players), pettingzoo_wrapped(num_players=num_players)
    for seed in (0, 1):
        fast.reset(seed=seed)
        plain.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while plain.agents:
            assert _snapshot(fast) == _snapshot(plain)
            action = random_action(plain, rng)
            fast.step(action)
            plain.step(action)
        assert fast.agents == [] and _final(fast) == _final(plain)
    assert fast.unwrapped.to_record() == plain.unwrapped.to_record()


# What the raw env refuses (TypeError, IllegalActionError, ValueError for None): the wrapped env
# refuses it with the raw env's error (issue 26), where PettingZoo's wrappers would raise
# AssertionError (numpy's ValueError for True).
_N = FortGame(3).num_distinct_actions  # one past the last action (the shipped set: 676)
REFUSED_ACTIONS = [
    -1, _N, 10**20, 10**5000, None, 2.0, "1", True, np.bool_(True), np.int64(_N),
    np.timedelta64(3), np.array([3]),
]  # fmt: skip


@pytest.mark.parametrize("action", REFUSED_ACTIONS, ids=lambda a: type(a).__name__)
def test_env_refuses_what_the_raw_env_refuses_with_its_error(action: Any) -> None:
    fast, raw, plain = (
        fort_env.env(num_players=3), fort_env.raw_env(num_players=3),
        pettingzoo_wrapped(num_players=3),
    )  # fmt: skip
    for e in (fast, raw, plain):
        e.reset(seed=7)
        play(e, np.random.default_rng(7), steps=20)
    before = fast.unwrapped.fort_state().to_dict()
    refused = _outcome(lambda: fast.step(action))
    assert refused[0] != "ok" and refused == _outcome(lambda: raw.step(action))
    assert fast.unwrapped.fort_state().to_dict() == before
    _finish_like(fast, plain)


@pytest.mark.parametrize(
    "action", ["illegal", "illegal_np", "legal_np", "illegal_uint64", "legal_uint64"]
)
def test_env_takes_in_range_actions_as_pettingzoos_own_wrappers(action: Any) -> None:
    """An in-range action, numpy integers included (np.uint64 too, which PettingZoo's
    AssertOutOfBoundsWrapper refuses): the outcome of PettingZoo's wrappers given it as a
    Python int (an illegal one ends the game, -1 to the offender), and the same episode."""
    fast, plain = fort_env.env(num_players=3), pettingzoo_wrapped(num_players=3)
    for e in (fast, plain):
        e.reset(seed=7)
        play(e, np.random.default_rng(7), steps=20)
    mask = plain.last()[0]["action_mask"]
    illegal, legal = np.flatnonzero(mask == 0), np.flatnonzero(mask)
    chosen = {
        "illegal": int(illegal[0]), "illegal_np": np.int32(illegal[-1]),
        "legal_np": np.int64(legal[0]), "illegal_uint64": np.uint64(illegal[1]),
        "legal_uint64": np.uint64(legal[-1]),
    }[action]  # fmt: skip
    assert _outcome(lambda: fast.step(chosen)) == _outcome(lambda: plain.step(int(chosen)))
    _finish_like(fast, plain)


def _finish_like(fast: Any, plain: Any) -> None:
    """Play both envs to the end with the same actions: the same episode throughout."""
    rng = np.random.default_rng(1)
    while plain.agents:
        assert _snapshot(fast) == _snapshot(plain)
        if plain.last()[2] or plain.last()[3]:
            # a done agent given an action raises; then None removes it
            assert _outcome(lambda: fast.step(0)) == _outcome(lambda: plain.step(0))
            nxt = None
        else:
            nxt = random_action(plain, rng)
        assert _outcome(lambda a=nxt: fast.step(a)) == _outcome(lambda a=nxt: plain.step(a))
    assert _final(fast) == _final(plain)
    assert _outcome(lambda: fast.step(None)) == _outcome(lambda: plain.step(None))


def test_infos_masks_are_fresh_and_separate() -> None:
    env = fort_env.env(num_players=4)
    env.reset(seed=5)
    play(env, np.random.default_rng(5), steps=30)
    actor = env.agent_selection
    masks = [env.infos[a]["action_mask"] for a in env.agents]
    assert len({id(m) for m in masks}) == len(masks)
    legal = env.observe(actor)["action_mask"].copy()
    assert legal.any()
    for m in masks:
        m[:] = 1
    assert np.array_equal(env.observe(actor)["action_mask"], legal)
    for a in env.agents:
        if a != actor:
            assert not env.observe(a)["action_mask"].any()
    env.step(int(np.flatnonzero(legal)[0]))
    for a, info in env.infos.items():
        assert np.array_equal(info["action_mask"], env.observe(a)["action_mask"])


# ---------------------------------------------------------------------- copies, render, extras
def _continue(env: Any, seed: int, steps: int) -> list[Any]:
    """A trace of up to ``steps`` more random steps: agent, observation, reward, flags."""
    rng = np.random.default_rng(seed)
    trace = []
    while env.agents and len(trace) < steps:
        obs, rew, term, trunc, _ = env.last()
        trace.append(
            (
                env.agent_selection,
                obs["observation"].tobytes(),
                obs["action_mask"].tobytes(),
                rew,
                term,
                trunc,
            )
        )
        env.step(random_action(env, rng))
    return trace


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("wrapped", [True, False])
def test_deepcopy_and_pickle_keep_the_whole_state(how: str, wrapped: bool) -> None:
    env = (fort_env.env if wrapped else fort_env.raw_env)(num_players=3, reward="rank")
    env.reset(seed=4)
    play(env, np.random.default_rng(4), steps=60)
    other = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert other.unwrapped.fort_state().to_dict() == env.unwrapped.fort_state().to_dict()
    assert other.agent_selection == env.agent_selection
    assert other.unwrapped.to_record() == env.unwrapped.to_record()
    assert other.unwrapped.reward_mode == "rank"
    # both go on identically, to the end, and independently
    assert _continue(other, 9, 2000) == _continue(env, 9, 2000)
    assert other.unwrapped.to_record() == env.unwrapped.to_record()


def test_deepcopy_shares_the_game_and_copies_the_state() -> None:
    env = fort_env.raw_env(num_players=2)
    env.reset(seed=0)
    other = copy.deepcopy(env)
    assert other.game is env.game
    play(other, np.random.default_rng(0), steps=10)
    assert env.to_record()["actions"] == []


def test_render_modes() -> None:
    env = fort_env.raw_env(num_players=2, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str)
    state = env.fort_state()
    assert text.startswith(f"{env.agent_selection} to choose {state.decision.kind.name}")
    for a in state.legal_actions():
        assert state.action_to_string(a) in text
    play(env, np.random.default_rng(0))
    final = env.render()
    assert final.startswith("Game over.") and "Winners: player_" in final
    silent = fort_env.raw_env(num_players=2)
    silent.reset(seed=0)
    with pytest.warns(UserWarning, match="render mode"):
        assert silent.render() is None


def test_human_render_prints(capsys: pytest.CaptureFixture[str]) -> None:
    env = fort_env.raw_env(num_players=2, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "Legal actions of player_" in capsys.readouterr().out


def test_fort_state_is_a_copy_and_set_fort_state_continues() -> None:
    env = fort_env.raw_env(num_players=2)
    env.reset(seed=6)
    play(env, np.random.default_rng(6), steps=15)
    state = env.fort_state()
    state.apply_action(state.legal_actions()[0])
    assert env.fort_state() != state
    other = fort_env.raw_env(num_players=2)
    other.set_fort_state(state)
    assert other.fort_state().game is other.game
    assert other.fort_state().to_dict() == state.to_dict()
    assert other.agent_selection == f"player_{state.current_player()}"
    with pytest.raises(fort_env.records.RecordError):
        other.to_record()
    with pytest.raises(ConfigError):
        fort_env.raw_env(num_players=3).set_fort_state(state)


def test_docstring_tables_match_the_layouts() -> None:
    """The spec tables of env.py's docstring list every action range and observation slice."""
    doc = env_module.__doc__
    assert doc is not None
    game = FortGame(4)
    rows = re.findall(r"^    ([A-Z_]+) +(\d+(?:-\d+)?) +(?:C|\d+) ", doc, re.MULTILINE)
    spans = [
        (name, f"{start}" if size == 1 else f"{start}-{start + size - 1}")
        for name, start, size in game.layout.ranges()
    ]
    assert rows == spans
    slices = re.findall(r"^    ([a-z_]+) +([0-9xC]+) ", doc, re.MULTILINE)
    c = str(game.num_cards)
    layout = [
        (s.name, "x".join(str(d) for d in s.shape)) for s in observation_layout(4, game).slices
    ]
    assert [(n, shape.replace("C", c)) for n, shape in slices] == layout
