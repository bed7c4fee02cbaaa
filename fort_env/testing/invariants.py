"""Invariants every position of every game keeps, and a random game that checks them at each
step (OpenSpiel's ``RandomSimTest``, for Fort).

:func:`check_state` asserts what holds in any position, whatever the card set: every card in a
known zone; at most 3 Park cards, on distinct places; no negative counter; per player a Fort
Level of at most ``MAX_FORT_LEVEL``, at most ``STUFF_CAPACITY`` of each stuff, a pack within
its capacity (level + 1, plus the XXL Backpack's bonus) and at most level + 1 lookout cards;
each made-up rule held by one player at most (the rules: ``docs/rules.md``).

:func:`play_random_game` plays one game with uniformly random legal actions, checking the
invariants after each action and that no score and no Fort Level ever falls.

Your own card set or engine: build its game and play it::

    from fort_env import FortGame
    from fort_env.testing import play_random_game

    game = FortGame(3, "advanced", cards="my_cards/")   # or backend="cpp"
    for seed in range(100):
        state, decisions = play_random_game(game, seed)

A wrapper of the environment: check the state it plays after each step,
``check_state(env.unwrapped.fort_state())`` (``FortAECEnv.fort_state``, a copy).

Errors: ``AssertionError`` naming what broke (and the seed, for a game that does not end), as a
test expects; run without ``python -O``, which drops the checks.
"""

from __future__ import annotations

import numpy as np

from fort_env.core import FortGame, FortState
from fort_env.game.constants import (
    LOOKOUT,
    MAX_FORT_LEVEL,
    PARK,
    STUFF_CAPACITY,
    XXL,
    XXL_BACKPACK_BONUS,
    ZONES,
)
from fort_env.game.fields import P_FORT_LEVEL, P_PACK_PIZZA, P_PACK_TOYS, P_SCORE

__all__ = ["MAX_DECISIONS", "check_state", "play_random_game"]

MAX_DECISIONS = 5000
"""Decisions after which a game counts as stuck: far above any game seen."""


def check_state(state: FortState) -> None:
    """Assert the invariants of any position (module docstring) on ``state``.

    Raises:
        AssertionError: an invariant that does not hold (the values shown).
    """
    g = state.game
    zone, owner = state.zone, state.owner
    assert zone.shape == (g.num_cards,) and zone.min() >= 0 and zone.max() < len(ZONES)
    park = np.flatnonzero(zone == PARK)
    assert len(park) <= 3 and len(set(state.pos[park].tolist())) == len(park)
    players = state.players
    assert players.min() >= 0, players
    for p in range(g.num_players):
        level = int(players[p, P_FORT_LEVEL])
        assert level <= MAX_FORT_LEVEL
        assert players[p, :2].max() <= STUFF_CAPACITY
        cap = level + 1 + (XXL_BACKPACK_BONUS if state.perk_loc[XXL] == p else 0)
        assert players[p, P_PACK_PIZZA] + players[p, P_PACK_TOYS] <= cap
        assert np.count_nonzero((zone == LOOKOUT) & (owner == p)) <= level + 1
    # made-up rules: at most one per player; perks each in one place
    held = state.rule_loc[state.rule_loc >= 0]
    assert len(set(held.tolist())) == len(held)


def play_random_game(game: FortGame, seed: int) -> tuple[FortState, int]:
    """One game of ``game`` dealt with ``seed``, played with random legal actions (drawn by
    ``numpy.random.default_rng(seed + 10_000)``) to the end, :func:`check_state` after each
    action, no score and no Fort Level falling. Returns the final state and the decisions
    played; the same seed gives the same game.

    Raises:
        AssertionError: a position with no legal action before the end, a broken invariant,
            a score or Fort Level that fell, or no end within :data:`MAX_DECISIONS`.
    """
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed + 10_000)
    scores = state.players[:, P_SCORE].copy()
    levels = state.players[:, P_FORT_LEVEL].copy()
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal, (seed, steps, state.decision)
        state.apply_action(int(rng.choice(legal)))
        steps += 1
        assert steps < MAX_DECISIONS, f"seed {seed}: game did not end"
        check_state(state)
        assert (state.players[:, P_SCORE] >= scores).all(), "a score fell"
        assert (state.players[:, P_FORT_LEVEL] >= levels).all(), "a Fort Level fell"
        scores = state.players[:, P_SCORE].copy()
        levels = state.players[:, P_FORT_LEVEL].copy()
    return state, steps
