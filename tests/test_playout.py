"""``fort_env.native.playout`` on the Python engine (no compiled core needed): the specification's
promises that do not need a second implementation. The C++ twin is compared with it in
``tests/differential/test_playout.py``."""

from __future__ import annotations

import numpy as np
import pytest

from fort_env import FortGame
from fort_env.game.errors import ConfigError
from fort_env.game.rng import EventRng
from fort_env.native import backend as cpp_backend
from fort_env.native import playout as P


@pytest.fixture(scope="module")
def game() -> FortGame:
    return FortGame(3, backend="python")


def test_a_playout_ends_the_game_and_returns_its_returns(game: FortGame) -> None:
    state = game.new_initial_state(4)
    before = state.to_dict()
    one = P.playout(state, "random", seed=11)
    assert state.to_dict() == before  # the state passed in is not changed
    assert one.returns.dtype == np.float64 and one.returns.shape == (3,)
    assert set(one.returns.tolist()) <= {-1.0, 1.0} and (one.returns == 1.0).any()
    assert one.decisions > 50  # a whole game
    again = P.playout(state, seed=11)
    assert again.decisions == one.decisions and np.array_equal(again.returns, one.returns)
    # the same draws by hand (decision k draws from EventRng(seed, k)) give the same game
    s, k = state.clone(), 0
    while not s.is_terminal():
        s.apply_action(P.policy_action(s, "random", EventRng(11, k)))
        k += 1
    assert k == one.decisions and np.array_equal(s.returns(), one.returns)
    other = [P.playout(state, seed=sd).decisions for sd in range(12, 15)]
    assert len({one.decisions, *other}) > 1  # the seed matters


def test_random_draws_by_rejection_over_the_locally_legal_actions(game: FortGame) -> None:
    state = game.new_initial_state(0)
    raw, legal = state.local_legal_actions(), set(state.legal_actions())
    for seed in range(20):
        rng, again = EventRng(seed, 3), EventRng(seed, 3)
        a = P.policy_action(state, "random", rng)
        while True:  # the specification, written out
            b = raw[again.below(len(raw))]
            if b in legal:
                break
        assert a == b and a in legal


def test_a_batch_is_the_loop_of_singles(game: FortGame) -> None:
    state = game.new_initial_state(2)
    batch = P.playout_batch(state, 3, seed=40, threads=2)
    assert batch.returns.shape == (3, 3) and batch.decisions.dtype == np.int64
    for i in range(3):
        one = P.playout(state, seed=40 + i)
        assert np.array_equal(batch.returns[i], one.returns)
        assert batch.decisions[i] == one.decisions
    assert np.array_equal(P.playouts(state, 3, seed=40), batch.returns)


def test_bad_arguments(game: FortGame) -> None:
    state = game.new_initial_state(0)
    with pytest.raises(ValueError, match=r"policy must be one of \('random'"):
        P.playout(state, "Random")
    with pytest.raises(ConfigError, match="seed must be"):
        P.playout(state, seed=-1)
    with pytest.raises(ConfigError, match="seed \\+ n"):
        P.playout_batch(state, 2, seed=2**62 - 1)
    with pytest.raises(TypeError, match="n must be an int"):
        P.playouts(state, "3")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="threads must be an int"):
        P.playouts(state, 1, threads=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="state must be a FortState"):
        P.playout(state.to_dict())  # type: ignore[arg-type]


def test_a_policy_without_a_python_twin_and_the_guard(
    game: FortGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = game.new_initial_state(0)
    monkeypatch.setattr(P, "POLICIES", (*P.POLICIES, "made-up"))
    with pytest.raises(ValueError, match="no Python twin"):
        P.playout(state, "made-up")
    monkeypatch.setattr(P, "MAX_PLAYOUT_DECISIONS", 5)
    with pytest.raises(RuntimeError, match="did not end within 5 decisions"):
        P.playout(state)


def test_bench_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    if cpp_backend.available() and hasattr(cpp_backend.require(), "playouts"):
        rate = P.playout_decisions_per_second(0.05, num_players=2)
        assert rate is not None and rate > 1000
    monkeypatch.setattr(cpp_backend, "available", lambda: False)
    assert P.playout_decisions_per_second(0.05) is None
