"""The game's chance that no seat has seen yet: the order of every deck, and future shuffles.

Fort's randomness (rulebook p.2 "Setup", p.9 "Draw"): the deal, the order of each player's deck
(a player draws from its top at the end of a turn and reshuffles the discard pile into a new
deck when it runs out) and the order of the Park deck (its top card refills the Park). A card
enters a deck only by a shuffle, and no rule lets anyone look into a deck, so, given everything
that has happened, the order of the cards in a deck is uniform over their arrangements, for
every seat and for an onlooker who sees every hand.

:func:`reshuffle_decks` draws that order again. It is the chance model of luck-corrected
evaluation (``agents.arena.luck``): a position and a copy of it with the decks reshuffled are
equally likely to have come from the game so far, and so are what the same action draws from
each. Everything but the order stays: every card's zone and owner, every hand, Lookout, Park,
Yard and made-up rule, so every seat's observation and table observation, and the legal
actions (they never depend on a deck's order: the masks are functions of the acting seat's
information set, ``fort_env.views.hidden``).
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np

from fort_env.game.constants import DECK, PARK_DECK, SEED_LIMIT
from fort_env.game.fields import C_FIRST_PLAYER, C_SEED, C_SHUFFLES
from fort_env.game.state_arrays import StateArrays

__all__ = ["cards_in_decks", "chance_state", "reshuffle_decks"]

S = TypeVar("S", bound=StateArrays)


def cards_in_decks(state: StateArrays) -> int:
    """How many cards lie in the players' decks and the Park deck (an ``int``).

    An action that leaves this count and ``ctx["shuffles"]`` unchanged took nothing from a
    deck and shuffled nothing: it involved no chance.
    """
    zone = np.asarray(state.zone)
    return int(np.count_nonzero((zone == DECK) | (zone == PARK_DECK)))


def chance_state(state: StateArrays) -> tuple[int, int, int]:
    """``(seed, shuffles, first_player)``: the game's seed, the random events drawn so far
    (``fort_env.game.rng``) and the seat that started (rulebook p.2, step 1)."""
    ctx = state.ctx
    return int(ctx[C_SEED]), int(ctx[C_SHUFFLES]), int(ctx[C_FIRST_PLAYER])


def reshuffle_decks(state: S, rng: np.random.Generator) -> S:
    """A copy of ``state`` with every deck's order and the future shuffles drawn again.

    Each player's deck and the Park deck keep their cards; the cards' ``pos`` values (a
    deck's top is its lowest ``pos``) are permuted uniformly among them by ``rng``. The game
    seed becomes ``rng.integers(2**62)`` and ``ctx["shuffles"]`` 0, so that a discard pile
    reshuffled later is drawn from a fresh stream (``fort_env.game.rng``).

    Args:
        state: a position of either backend (unchanged).
        rng: the source of the new order and seed.

    Returns:
        A new state of the same class. Every seat's observation, table observation and legal
        actions are those of ``state`` (``tests/test_luck.py`` checks them on random
        positions of both backends).
    """
    s: S = state.clone()
    zone, owner, pos = np.asarray(s.zone), np.asarray(s.owner), s.pos
    piles = [np.flatnonzero(zone == PARK_DECK)]
    in_deck = zone == DECK
    piles += [np.flatnonzero(in_deck & (owner == p)) for p in range(s.game.num_players)]
    for ids in piles:
        if len(ids) > 1:
            pos[ids] = pos[ids][rng.permutation(len(ids))]
    s.ctx[C_SEED] = int(rng.integers(SEED_LIMIT))
    s.ctx[C_SHUFFLES] = 0
    return s
