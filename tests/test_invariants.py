"""Invariants over many random games for every player count and setup (the checks:
``fort_env.testing.invariants``).

The sweep is marked ``slow`` (deselected by default; ``pytest -m slow`` runs it). The number of
games per configuration is ``FORT_INVARIANT_GAMES`` (default 1000; CI's slow step sets 300).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from fort_env import FortGame, FortState
from fort_env.game.constants import HAND_SIZE
from fort_env.game.fields import P_TURNS
from fort_env.testing.invariants import play_random_game

GAMES = int(os.environ.get("FORT_INVARIANT_GAMES", "1000"))
CONFIGS = [(2, "basic"), (3, "basic"), (4, "basic"), (2, "advanced"), (4, "advanced")]


@pytest.mark.slow
@pytest.mark.parametrize(("num_players", "setup"), CONFIGS)
def test_random_games_keep_invariants(num_players: int, setup: str) -> None:
    game = FortGame(num_players, setup)
    games = GAMES if setup == "basic" else max(1, GAMES // 5)
    for seed in range(games):
        state, _ = play_random_game(game, seed)
        turns = state.players[:, P_TURNS]
        assert (turns == turns[0]).all(), f"seed {seed}: unequal turns {turns}"
        assert state.ctx[4] == 1  # end_triggered
        returns = state.returns()
        assert set(returns.tolist()) <= {1.0, -1.0} and 1.0 in returns
        totals = [row["total"] for row in state.score_breakdown()]
        assert max(totals) == totals[state.winners()[0]]
        hands = [
            np.count_nonzero((state.zone == 2) & (state.owner == p)) for p in range(num_players)
        ]
        assert max(hands) <= HAND_SIZE


@pytest.mark.parametrize(("num_players", "setup"), CONFIGS)
def test_seeded_games_repeat_exactly(num_players: int, setup: str) -> None:
    game = FortGame(num_players, setup)
    for seed in (0, 1):
        a, steps_a = play_random_game(game, seed)
        b, steps_b = play_random_game(game, seed)
        assert steps_a == steps_b and a.to_dict() == b.to_dict()
    c, _ = play_random_game(game, 2)
    assert c.to_dict() != a.to_dict()


def test_clone_is_independent_and_dict_round_trips() -> None:
    import json

    game = FortGame(3, "advanced")
    state = game.new_initial_state(5)
    rng = np.random.default_rng(5)
    for _ in range(400):
        if state.is_terminal():
            break
        copy = state.clone()
        before = state.to_dict()
        d = json.loads(json.dumps(before))
        again = FortState.from_dict(game, d)
        assert again == state and again.to_dict() == state.to_dict()
        assert again.legal_actions() == state.legal_actions()
        a = int(rng.choice(state.legal_actions()))
        state.apply_action(a)
        # the clone shares no array with the state: the action moved only the state
        assert copy.to_dict() == before and copy != state
        copy.apply_action(a)
        assert copy == state
