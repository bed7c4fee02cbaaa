"""Static facts of a Fort game: players, setup, the card set and its per-card tables.

These are read by the rules (``fort_env.game.rules``) and by the views; ``fort_env.core.FortGame``
adds what needs the layers above (the search's tables, action handlers, observation size).
"""

from __future__ import annotations

import os

import numpy as np

from fort_env.game import actions as A
from fort_env.game.cards import (
    MULT_ANY_SUIT,
    MULT_SUIT,
    Card,
    CardSet,
    Effect,
    FortStep,
    load_card_set,
    multipliers,
)
from fort_env.game.constants import COIN, MAX_PLAYERS, MIN_PLAYERS, NUM_SUITS, PERKS
from fort_env.game.errors import ConfigError, describe

SETUPS = ("basic", "advanced")


class GameFacts:
    """Players, setup, card set and per-card lookup tables (immutable once built).

    Args:
        num_players: 2, 3 or 4 (rulebook p.1).
        setup: ``"basic"`` or ``"advanced"`` (the draft of 8 passes, p.2).
        cards: a directory of card data (``docs/cards.md``), or ``None`` for the shipped set.

    Raises:
        ConfigError: a bad player count or setup name, or ``cards`` not ``None``, a str or
            an ``os.PathLike``.
        CardDataError: the card data is malformed (file, card and field named).
    """

    def __init__(
        self, num_players: int = 4, setup: str = "basic", cards: str | None = None
    ) -> None:
        if (
            isinstance(num_players, bool)
            or not isinstance(num_players, int)
            or not MIN_PLAYERS <= num_players <= MAX_PLAYERS
        ):
            raise ConfigError(f"num_players must be 2, 3 or 4, got {describe(num_players)}")
        if not isinstance(setup, str) or setup not in SETUPS:
            raise ConfigError(f"setup must be one of {SETUPS}, got {describe(setup)}")
        if cards is not None and not (
            isinstance(cards, (str, os.PathLike)) and isinstance(os.fspath(cards), str)
        ):
            raise ConfigError(f"cards must be None or a path, got {describe(cards)}")
        self.num_players = num_players
        self.setup = setup
        self.card_set: CardSet = load_card_set(None if cards is None else os.fspath(cards))
        self.cards: tuple[Card, ...] = self.card_set.cards
        self.num_cards = len(self.cards)
        self.layout = A.ActionLayout(self.num_cards)
        self.num_distinct_actions: int = self.layout.num_actions
        c = self.cards
        # Per-card lookup tables used on the hot path.
        self.suit_counts = np.zeros((self.num_cards, NUM_SUITS), dtype=np.int16)
        for card in c:
            for s in card.suits:
                self.suit_counts[card.id, s] += 1
        self.suit_counts_f32 = self.suit_counts.astype(np.float32)  # for the observation
        self.card_ids = np.arange(self.num_cards, dtype=np.int64)
        self.perk_ids = np.arange(len(PERKS), dtype=np.int64)
        self.suit_lists: list[tuple[int, ...]] = [card.suits for card in c]
        self.has_coin = [COIN in card.suits for card in c]
        self.kind = [card.kind for card in c]
        self.is_best_friend = np.array([card.is_best_friend for card in c], dtype=bool)
        self.effects: list[tuple[Effect | None, Effect | None]] = [
            (card.public_effect, card.private_effect) for card in c
        ]
        # per card and side: does a multiplier count suits ("x suit", "x any one suit")?
        self.improvable: list[tuple[bool, bool]] = [
            tuple(  # type: ignore[misc]
                any(m in (MULT_SUIT, MULT_ANY_SUIT) for m, _ in multipliers(e))
                for e in (card.public_effect, card.private_effect)
            )
            for card in c
        ]
        # suits a fixed "x suit" multiplier of either action counts, per card
        self.counted_suits: list[frozenset[int]] = [
            frozenset(arg for e in effects if e for m, arg in multipliers(e) if m == MULT_SUIT)
            for effects in self.effects
        ]
        self.has_any_suit: list[tuple[bool, bool]] = [
            tuple(  # type: ignore[misc]
                any(m == MULT_ANY_SUIT for m, _ in multipliers(e))
                for e in (card.public_effect, card.private_effect)
            )
            for card in c
        ]
        self.board_of_seat = self.card_set.boards[:num_players]
        self.fort_steps = self.card_set.fort_steps
        self.level_points = self.card_set.level_points

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_players={self.num_players}, setup={self.setup!r})"


def advance_cost(step: FortStep, modifier: int) -> tuple[int, int, int]:
    """``(toys, pizza, either)`` to pay for Fort step ``step`` with a card's cost modifier
    (-1, 0 or +1: "costs one less or one more resource, as shown, of either type", p.13).

    +1 adds one "either" unit. -1 removes one printed resource of the payer's choice
    (docs/rules.md R25): removing a toy or a pizza is never worse than removing an "either"
    unit, and the payments allowed by "one toy less" or "one pizza less" together are exactly
    those of one toy and one pizza turned into one "either" unit; so when both are printed that
    is the cost, and the choice is made by paying that unit at the PAY decisions.
    """
    t, z, e = step.toys, step.pizza, step.either
    if modifier > 0:
        e += modifier
    elif modifier < 0:
        if t > 0 and z > 0:
            t, z, e = t - 1, z - 1, e + 1
        elif t > 0:
            t -= 1
        elif z > 0:
            z -= 1
        else:
            e = max(0, e - 1)
    return t, z, e


def config_card_set(game: GameFacts) -> str | None:
    """The ``card_set`` entry of a saved state: ``None`` for the shipped set, else its path."""
    source = game.card_set.source
    return None if source.endswith("fort_env/data") else source
