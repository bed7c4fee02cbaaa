"""Gumbel root selection with Sequential Halving in the C++ search (``puct:gumbel=1``;
cpp/include/fort/bots/puct.h): the answer is a legal action the halving kept, the simulations
go to the actions it considers (the survivor most), the improved policy is a distribution over
the root's actions, the search is reproducible from its seed, and bad settings are refused."""

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


def _position(seed: int, min_legal: int = 2, skip: int = 7) -> Any:
    state = backend.CppFortState.from_state(FortGame(2).new_initial_state(seed))
    rng = np.random.default_rng(seed)
    k = 0
    while k < skip or len(state.legal_actions()) < min_legal:
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
        k += 1
    return state


def _search(state: Any, net: Any, **settings: Any) -> dict[str, Any]:
    args = {**SETTINGS, "seed": 5, "simulations": 64, "seconds": 0.0, "gumbel": True, **settings}
    return backend.require().puct_search(state.core_state, state.current_player(), net, **args)


@pytest.fixture(scope="module")
def net() -> Any:
    return core_network(shipped_model(2))


def test_halving_spends_the_budget_on_the_considered_actions(net: Any) -> None:
    for seed in range(6):
        state = _position(seed, min_legal=4)
        legal = sorted(state.legal_actions())
        for k in (2, 4, 16):
            r = _search(state, net, simulations=200, gumbel_actions=k, batch=1 + seed % 3)
            visits = np.array(r["visits"])
            assert r["actions"] == legal and r["action"] in legal
            assert 0 < visits.sum() <= 199 and r["simulations"] <= 200
            considered = min(k, len(legal))
            assert np.count_nonzero(visits) <= considered  # only the considered are simulated
            chosen = visits[legal.index(r["action"])]
            assert chosen == visits.max()  # the survivor of every phase has the most visits
            improved = np.array(r["improved_policy"])
            assert improved.shape == (len(legal),) and np.isclose(improved.sum(), 1.0)
            assert np.all(improved >= 0)


def test_one_considered_action_is_the_gumbel_top_one_without_simulations(net: Any) -> None:
    state = _position(3, min_legal=3)
    r = _search(state, net, gumbel_actions=1)
    assert sum(r["visits"]) == 0 and r["simulations"] == 1  # the root's expansion only
    assert r["action"] in r["actions"]


def test_reproducible_from_its_seed(net: Any) -> None:
    state = _position(4, min_legal=3)
    a, b = _search(state, net, seed=11), _search(state, net, seed=11)
    assert (a["action"], a["visits"], a["improved_policy"]) == (
        b["action"],
        b["visits"],
        b["improved_policy"],
    )
    # with one action considered the answer is a draw of Gumbel-top-1: the prior's own law
    flat = next(
        p for p in (_position(s, min_legal=3) for s in range(20)) if max(_priors(p, net)) < 0.7
    )
    draws = {_search(flat, net, seed=s, gumbel_actions=1)["action"] for s in range(40)}
    assert len(draws) >= 2  # the Gumbel draws explore: other seeds take other actions


def _priors(state: Any, net: Any) -> list[float]:
    return list(_search(state, net, gumbel=False, simulations=2)["priors"])


def test_without_gumbel_the_result_has_no_improved_policy(net: Any) -> None:
    assert "improved_policy" not in _search(_position(2), net, gumbel=False)


def test_bad_settings_are_refused(net: Any) -> None:
    state = _position(2)
    with pytest.raises(ValueError, match="gumbel needs threads 1"):
        _search(state, net, threads=2)
    with pytest.raises(ValueError, match="noise_fraction must be 0"):
        _search(state, net, noise_fraction=0.25)
    with pytest.raises(ValueError, match="gumbel_actions"):
        _search(state, net, gumbel_actions=0)
    with pytest.raises(TypeError, match="gumbel must be a bool"):
        _search(state, net, gumbel=1)
    with pytest.raises(ValueError, match="gumbel needs sims"):
        PUCTAgent(gumbel=True)
    with pytest.raises(ValueError, match="gumbel needs sims"):
        PUCTAgent(gumbel=True, sims=32, threads=2)
    with pytest.raises(ValueError, match="gumbel must be 0 or 1"):
        PUCTAgent(gumbel=2, sims=32)
    with pytest.raises(ValueError, match="core engine only"):
        PUCTAgent(gumbel=True, sims=32, engine="python")
