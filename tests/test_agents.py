"""The bot zoo: registry, legality, seeding, the seat view, and play from the PettingZoo env."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import fort_env
from agents import MissingInfoError, SeatView, make
from agents.arena.games import decision_info, play_game
from agents.bots.evaluation import evaluate, evaluate_all

_GAMES: dict[int, fort_env.FortGame] = {}


def game_for(n: int) -> fort_env.FortGame:
    if n not in _GAMES:
        _GAMES[n] = fort_env.FortGame(n)
    return _GAMES[n]


def test_registry_names_and_errors() -> None:
    for name in ("random", "builder", "scorer", "opportunist", "heuristic", "greedy", "ismcts"):
        assert name in agents.available()
        agent = make(name, seed=0)
        assert agent.name == name
        assert isinstance(agent, agents.Agent)
    assert make("heuristic").__class__.__name__ == f"{agents.HEURISTIC.capitalize()}Agent"
    with pytest.raises(ValueError, match=r"unknown agent 'nope'.*random"):
        make("nope")
    with pytest.raises((ValueError, FileNotFoundError)):  # no model there (or no [train] extra)
        make("ppo:/no/such/model.zip")
    with pytest.raises(ValueError, match="key=value"):
        make("ismcts:200")


def test_make_passes_arguments() -> None:
    agent = make("ismcts:iterations=7:c=0.5:rollout=random")
    assert (agent.iterations, agent.c, agent.rollout) == (7, 0.5, "random")
    assert agent.name == "ismcts:iterations=7:c=0.5:rollout=random"
    assert make("greedy:samples=2").samples == 2


def test_register_a_new_kind() -> None:
    agents.register("test-first", lambda args: agents.RandomAgent(), overwrite=True)
    assert make("test-first").name == "test-first"
    with pytest.raises(ValueError, match="already registered"):
        agents.register("test-first", lambda args: agents.RandomAgent())
    with pytest.raises(ValueError):
        agents.register("bad:name", lambda args: agents.RandomAgent())


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("spec", ["random", "builder", "scorer", "opportunist"])
def test_agents_play_legal_games(spec: str, num_players: int) -> None:
    bots = [make(spec, seed=k) for k in range(num_players)]
    record, state = play_game(game_for(num_players), bots, seed=num_players)  # raises if illegal
    assert state.is_terminal()
    assert record.decisions > 0 and record.winners


@pytest.mark.parametrize("spec", ["greedy:samples=1", "ismcts:iterations=4"])
def test_search_agents_play_legal_games(spec: str) -> None:
    bots = [make(spec, seed=1), make("builder", seed=2)]
    _, state = play_game(game_for(2), bots, seed=5)
    assert state.is_terminal()


def _actions(spec: str, seed: int) -> list[int]:
    game = game_for(2)
    state = game.new_initial_state(seed=11, first_player=0)
    agent = make(spec, seed=seed)
    out = []
    while not state.is_terminal() and len(out) < 120:
        info = decision_info(state, state.current_player())
        a = agent.act({"action_mask": info["action_mask"]}, info)
        out.append(a)
        state.apply_action(a)
    return out


@pytest.mark.parametrize("spec", ["random", "heuristic", "opportunist", "ismcts:iterations=3"])
def test_same_seed_same_actions(spec: str) -> None:
    assert _actions(spec, 5) == _actions(spec, 5)


def test_random_agent_seed_changes_actions() -> None:
    assert _actions("random", 1) != _actions("random", 2)


def test_seat_view_matches_observation() -> None:
    for n in (2, 4):
        game = game_for(n)
        state = game.new_initial_state(seed=3)
        rng = np.random.default_rng(0)
        steps = 0
        while not state.is_terminal() and steps < 150:
            for seat in range(n):
                a = SeatView.from_state(state, seat)
                b = SeatView.from_observation(state.observation_tensor(seat), game)
                assert a.equals(b), (n, steps, seat)
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            steps += 1


def test_seat_view_hides_what_the_seat_cannot_see() -> None:
    """Re-dealing the hidden information leaves the view unchanged (no leak)."""
    game = game_for(3)
    state = game.new_initial_state(seed=8)
    rng = np.random.default_rng(1)
    for _ in range(60):
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    for seat in range(3):
        other = state.resample_hidden(seat, np.random.default_rng(seat))
        assert SeatView.from_state(state, seat).equals(SeatView.from_state(other, seat))


def test_agents_play_through_the_pettingzoo_env() -> None:
    """From fort_env.env() agents get only the observation and the mask."""
    env = fort_env.env(num_players=2)
    env.reset(seed=4)
    bots = {"player_0": make("heuristic", seed=0), "player_1": make("scorer", seed=1)}
    steps = 0
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = bots[name].act(obs, info)
        assert obs["action_mask"][action] == 1
        env.step(action)
        steps += 1
    assert steps > 20


def test_search_agents_need_determinize() -> None:
    game = game_for(2)
    state = game.new_initial_state(seed=0, first_player=0)
    info = decision_info(state, 0)
    bare = {"action_mask": info["action_mask"]}
    obs = {"observation": state.observation_tensor(0), "action_mask": info["action_mask"]}
    for spec in ("greedy", "ismcts"):
        with pytest.raises(MissingInfoError, match="determinize"):
            make(spec).act(obs, bare)


def test_evaluation_range_and_terminal_values() -> None:
    game = game_for(2)
    record, state = play_game(game, [make("builder", seed=0), make("random", seed=1)], seed=2)
    values = evaluate_all(state)
    assert sorted(values) in ([0.0, 1.0], [1.0, 1.0])
    assert values[record.winners[0]] == 1.0
    start = game.new_initial_state(seed=0)
    assert evaluate(start, 0) == pytest.approx(0.5)


def test_decision_info_builds_the_view_only_when_read() -> None:
    from agents.arena.games import decision_info

    state = game_for(3).new_initial_state(seed=5)
    seat = state.current_player()
    info = decision_info(state, seat)
    assert "view" not in info._items  # a random or network agent never pays for it
    assert sorted(info) == sorted(("seat", "game", "legal_actions", "action_mask", "view",
                                   "determinize"))  # fmt: skip
    assert info["legal_actions"] == state.legal_actions()
    assert np.flatnonzero(info["action_mask"]).tolist() == state.legal_actions()
    assert info["view"].equals(SeatView.from_state(state, seat))
    assert info.get("view") is info["view"]  # built once
