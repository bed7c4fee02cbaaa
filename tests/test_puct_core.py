"""PUCT in C++ (cpp/src/bots/puct.cc through ``_core.puct_search``, ``puct:engine=core``): every
simulation is counted at the root, the search is reproducible from its seed at a fixed number
of simulations (with batches and threads too), a function of the seat's information set only,
follows its prior when values do not differ, and refuses bad settings and a network of another
game."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.learned.core_network import core_network
from agents.learned.puct import PUCTAgent
from agents.learned.zoo import shipped_model
from fort_env import FortGame
from fort_env.native import backend

pytestmark = pytest.mark.skipif(not backend.available(), reason="needs the compiled core")

SETTINGS = {"c": 1.5, "batch": 1, "threads": 1, "noise_alpha": 0.3, "noise_fraction": 0.0}


def _position(num_players: int = 2, seed: int = 3, skip: int = 7) -> Any:
    """A C++ state some decisions into a game, with a choice pending."""
    state = backend.CppFortState.from_state(FortGame(num_players).new_initial_state(seed))
    rng = np.random.default_rng(seed)
    k = 0
    while k < skip or len(state.legal_actions()) < 2:
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
        k += 1
    return state


def _search(state: Any, net: Any, **settings: Any) -> dict[str, Any]:
    args = {**SETTINGS, "seed": 5, "simulations": 64, "seconds": 0.0, **settings}
    return backend.require().puct_search(state.core_state, state.current_player(), net, **args)


@pytest.fixture(scope="module")
def net() -> Any:
    return core_network(shipped_model(2))


def test_every_simulation_is_counted_at_the_root(net: Any) -> None:
    state = _position()
    for batch, threads in ((1, 1), (8, 1), (1, 3), (4, 2)):
        r = _search(state, net, simulations=97, batch=batch, threads=threads)
        legal = sorted(state.legal_actions())
        assert r["actions"] == legal and r["action"] in legal
        assert r["simulations"] == 97
        # each tree's first simulation expands its root; every other passes one root edge
        assert sum(r["visits"]) == 97 - threads
        assert np.isclose(sum(r["priors"]), 1.0, atol=1e-5)
        assert all(0.0 <= v <= 1.0 for v in r["values"]) and 0.0 <= r["root_value"] <= 1.0
        assert r["evaluations"] >= threads * state.game.num_players


def test_reproducible_from_its_seed_at_a_fixed_simulation_count(net: Any) -> None:
    state = _position()
    for settings in ({}, {"batch": 8}, {"threads": 2}, {"noise_fraction": 0.25}):
        first = _search(state, net, **settings)
        again = _search(state, net, **settings)
        for key in ("action", "visits", "values", "priors", "nodes", "evaluations"):
            assert first[key] == again[key], (settings, key)
    assert any(
        _search(state, net, seed=s)["visits"] != _search(state, net)["visits"] for s in (6, 7, 8)
    )


def test_a_function_of_the_information_set(net: Any) -> None:
    """Any state of the seat's information set (its hidden cards re-dealt) gives the same
    search: the search reads the position only through its own re-deals."""
    state = _position(3, seed=11, skip=20)
    seat = state.current_player()
    first = _search(state, net, simulations=48)
    for r in range(3):
        other = state.resample_hidden(seat, np.random.default_rng(r))
        assert _search(other, net, simulations=48)["visits"] == first["visits"]


def test_the_prior_decides_when_values_do_not() -> None:
    """A network whose values are constant and whose policy favours one action: the search
    plays that action whenever it is legal (the PUCT term is all that differs)."""
    core = backend.require()
    game = FortGame(2)
    d, n = game.observation_size, game.num_distinct_actions
    state = _position()
    legal = sorted(state.legal_actions())
    favourite = legal[len(legal) // 2]
    bias = np.zeros(n, np.float32)
    bias[favourite] = 8.0
    zeros = np.zeros((4, d), np.float32)
    net = core.PolicyValueNet(
        d,
        n,
        "ReLU",
        [(zeros, np.zeros(4, np.float32))],
        [],
        [],
        (np.zeros((n, 4), np.float32), bias),
        (np.zeros((1, 4), np.float32), np.zeros(1, np.float32)),
    )
    r = _search(state, net, simulations=200)
    assert r["action"] == favourite
    assert r["visits"][r["actions"].index(favourite)] == max(r["visits"])


def test_bad_settings_and_a_network_of_another_game(net: Any) -> None:
    state = _position()
    for key, value, message in (
        ("simulations", 0, "simulations must be an int in"),
        ("seconds", -1.0, "seconds must be finite and at least 0"),
        ("seconds", float("inf"), "seconds must be finite"),
        ("c", -0.5, "c must be finite and at least 0"),
        ("batch", 0, "batch must be an int in"),
        ("threads", 65, "threads must be an int in"),
        ("noise_fraction", 1.0, r"noise_fraction must be in \[0, 1\)"),
        ("noise_alpha", 0.0, "noise_alpha must be finite and above 0"),
        ("seed", -1, "seed must be an int in"),
    ):
        with pytest.raises(ValueError, match=message):
            _search(state, net, **{key: value})
    with pytest.raises(TypeError, match="simulations must be an int"):
        _search(state, net, simulations=True)
    with pytest.raises(TypeError, match="c must be a number"):
        _search(state, net, c=np.complex128(1.5))
    # a time budget too long for the clock's nanoseconds is no limit, not an instant stop
    assert _search(state, net, simulations=9, seconds=1e300)["simulations"] == 9
    core = backend.require()
    small = core.PolicyValueNet(
        10,
        3,
        "ReLU",
        [],
        [],
        [],
        (np.zeros((3, 10), np.float32), np.zeros(3, np.float32)),
        (np.zeros((1, 10), np.float32), np.zeros(1, np.float32)),
    )
    with pytest.raises(ValueError, match="network reads observations of 10 entries"):
        _search(state, small)
    other_seat = (state.current_player() + 1) % 2
    with pytest.raises(ValueError, match="is not the acting seat"):
        core.puct_search(
            state.core_state, other_seat, net, seed=1, simulations=4, seconds=0, **SETTINGS
        )


def test_the_agent_plays_the_core_search(net: Any) -> None:
    """``puct:sims=N`` (engine core) reports the core's answer; ``ms`` alone is timed."""
    state = _position()
    seat = state.current_player()
    agent = PUCTAgent(sims=40, seed=3, players=2)
    assert agent.seconds == 0.0 and agent.engine == "core"
    action = agent.search_core(lambda r: state.clone(), seat, state.legal_actions())
    assert action == agent.last_search["action"] and agent.last_iterations == 40
    assert sum(agent.last_visits.values()) == 39
    timed = PUCTAgent(players=2)
    assert timed.seconds == 0.05  # bare puct: 50 ms a decision


def test_without_the_core_puct_falls_back_to_the_python_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(backend, "available", lambda: False)
    assert PUCTAgent(players=2, sims=4).engine == "python"
