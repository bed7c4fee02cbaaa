"""The OpenSpiel bridge (``fort_env/envs/openspiel.py``): ``pyspiel.load_game("python_fort")``."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed (pip install -e '.[openspiel]')"
)
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import fort_env.envs.openspiel as og  # noqa: E402  (registers "python_fort")
from fort_env import ConfigError, FortGame  # noqa: E402


def test_load_game_with_parameters() -> None:
    game = pyspiel.load_game("python_fort", {"players": 3, "setup": "advanced"})
    fort = FortGame(3, "advanced")
    assert game.num_players() == 3
    assert game.num_distinct_actions() == fort.num_distinct_actions
    assert game.observation_tensor_shape() == [fort.observation_size]
    assert game.information_state_tensor_shape() == [fort.observation_size]
    assert game.max_chance_outcomes() == og.DEFAULT_DEALS
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert str(pyspiel.load_game("python_fort")) == "python_fort(deals=65536,players=2,setup=basic)"


def test_root_is_the_deal_and_then_the_engine_decides() -> None:
    game = pyspiel.load_game("python_fort", {"players": 2, "deals": 8})
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(k, 1 / 8) for k in range(8)]
    state.apply_action(5)
    engine = FortGame(2).new_initial_state(seed=5)
    assert state.current_player() == engine.current_player()
    assert state.legal_actions() == engine.legal_actions()
    for p in range(2):
        np.testing.assert_array_equal(state.observation_tensor(p), engine.observation_tensor(p))
        np.testing.assert_array_equal(
            state.information_state_tensor(p), engine.observation_tensor(p)
        )
    assert state.observation_string(0) != state.observation_string(1)  # own hands differ


def test_bad_parameters_are_refused() -> None:
    with pytest.raises((ConfigError, RuntimeError), match="num_players must be 2, 3 or 4"):
        pyspiel.load_game("python_fort", {"players": 5})
    with pytest.raises((ConfigError, RuntimeError), match="deals must be a positive int"):
        pyspiel.load_game("python_fort", {"deals": 0})


@pytest.mark.parametrize(("players", "setup"), [(2, "basic"), (3, "advanced")])
def test_openspiel_random_simulation(players: int, setup: str) -> None:
    """OpenSpiel's own consistency checks over a whole random game (clone, tensors, strings,
    returns, legal actions at every node)."""
    game = pyspiel.load_game("python_fort", {"players": players, "setup": setup, "deals": 64})
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_resample_from_infostate_keeps_the_information_state() -> None:
    game = pyspiel.load_game("python_fort", {"players": 3, "deals": 4})
    state = game.new_initial_state()
    state.apply_action(1)
    rng = np.random.default_rng(0)
    for _ in range(40):
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    other = state.resample_from_infostate(player, np.random.default_rng(1).random)
    assert other.information_state_string(player) == state.information_state_string(player)
    assert other.legal_actions() == state.legal_actions()
    np.testing.assert_array_equal(
        other.information_state_tensor(player), state.information_state_tensor(player)
    )
    rival = (player + 1) % 3
    assert other.fort.to_dict() != state.fort.to_dict()  # hidden cards were re-dealt
    assert other.information_state_string(rival) != state.information_state_string(rival)


class _ScoreMargin(mcts.Evaluator):  # type: ignore[misc]
    """A cheap leaf value for the search: each seat's points against the table mean."""

    def evaluate(self, state: og.OpenSpielState) -> np.ndarray:
        if state.is_terminal():
            return np.asarray(state.returns())
        totals = np.array([row["total"] for row in state.fort.score_breakdown()], dtype=float)
        return np.tanh((totals - totals.mean()) / 10.0)

    def prior(self, state: og.OpenSpielState) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def test_ismcts_bot_plays_full_games() -> None:
    """OpenSpiel's IS-MCTS (resampling through ``resample_from_infostate``) plays seat 0 of
    whole games against uniform random play; every action it picks is legal."""
    game = pyspiel.load_game("python_fort", {"players": 2, "deals": 1024})
    bot = ismcts.ISMCTSBot(
        game, _ScoreMargin(), uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(0)
    )
    rng = np.random.default_rng(0)
    for deal in (3, 7):
        state = game.new_initial_state()
        state.apply_action(deal)
        bot_moves = 0
        while not state.is_terminal():
            if state.current_player() == 0:
                action = int(bot.step(state))
                bot_moves += 1
            else:
                action = int(rng.choice(state.legal_actions()))
            assert action in state.legal_actions()
            state.apply_action(action)
        assert bot_moves > 20
        assert sorted(state.returns()) in ([-1.0, 1.0], [1.0, 1.0])


def test_evaluate_bots_runs_ismcts_through_restartable_bot() -> None:
    """``evaluate_bots`` calls ``restart_at``, which OpenSpiel's Python IS-MCTS lacks; wrapped in
    ``RestartableBot`` two IS-MCTS bots play a whole game through it."""
    from open_spiel.python.algorithms import evaluate_bots

    game = pyspiel.load_game("python_fort", {"players": 2, "deals": 1024})
    bots = [
        ismcts.ISMCTSBot(
            game,
            _ScoreMargin(),
            uct_c=2.0,
            max_simulations=2,
            random_state=np.random.RandomState(i),
        )
        for i in range(2)
    ]
    with pytest.raises(pyspiel.SpielError, match="RestartAt"):
        evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    returns = evaluate_bots.evaluate_bots(
        game.new_initial_state(), [og.RestartableBot(b) for b in bots], np.random.RandomState(0)
    )
    assert sorted(returns) in ([-1.0, 1.0], [1.0, 1.0])
