"""Setup and randomness: the deal (rulebook p.2, steps 1-11), shuffles and the Draw phase
(p.9). Every random draw comes from ``fort_env.rng.EventRng`` keyed by the state's seed and
event count (docs/state.md, "Random numbers").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import numpy as np

from ..constants import (
    DECK,
    DISCARD,
    DRAFT_KEPT,
    DRAFT_PACK,
    HAND,
    HAND_SIZE,
    IN_BOX,
    IN_STACK,
    MADE_UP_RULES,
    OUT_OF_GAME,
    PARK,
    PARK_DECK,
    PARK_SIZE,
    PERKS,
    STARTING_KIDS,
)
from ..errors import ConfigError
from ..inputs import check_seed
from ..rng import EventRng
from ..stages import (
    ST_DRAFT,
)
from ..state_arrays import (
    C_DRAFT_ROUND,
    C_FIRST,
    C_LEADER,
    C_SEED,
    C_SHUFFLES,
    C_STAGE,
)
from . import base, flow
from .base import K

if TYPE_CHECKING:
    from ..core import FortGame, FortState

S = TypeVar("S", bound="FortState")


def new_state(cls: type[S], game: FortGame, seed: int, first_player: int | None) -> S:
    seed = check_seed(seed)  # ConfigError out of [0, SEED_LIMIT)
    s = cls.empty(game)
    s.ctx[C_SEED] = seed
    rng = event_rng(s)
    n = game.num_players
    first = rng.below(n) if first_player is None else int(first_player)
    if not 0 <= first < n:
        raise ConfigError(f"first_player must be in [0, {n}), got {first_player!r}")
    s.ctx[C_FIRST] = s.ctx[C_LEADER] = first
    # Made-up rules: a facedown stack of N+1 (step 6); perks: a face-up row of N+1 (step 7).
    s.rule_loc[:] = IN_BOX
    s.rule_loc[rng.permutation(len(MADE_UP_RULES))[: n + 1]] = IN_STACK
    s.perk_loc[:] = IN_BOX
    s.perk_loc[rng.permutation(len(PERKS))[: n + 1]] = IN_STACK
    # Best Friends by board; the rest of the boards' friends stay in the box.
    for cid, card in enumerate(game.cards):
        if card.is_best_friend:
            seat = game.board_of_seat.index(card.board) if card.board in game.board_of_seat else -1
            s.zone[cid] = DECK if seat >= 0 else OUT_OF_GAME
            s.owner[cid] = seat
        else:
            s.zone[cid] = PARK_DECK
    s.prog.flags.writeable = False  # shared by clones, as every program the engine loads
    shuffle_park_deck(s, rng)
    for slot in range(PARK_SIZE):
        refill_park(s, slot)
    # Each player draws 8 kid cards (step 9) or drafts them (advanced setup).
    for p in range(n):
        for _ in range(STARTING_KIDS):
            cid = top_of_park_deck(s)
            s.zone[cid] = DECK if game.setup == "basic" else DRAFT_PACK
            s.owner[cid] = p
    if game.setup == "basic":
        finish_setup(s)
    else:
        s.ctx[C_DRAFT_ROUND] = 0
        s.ctx[C_STAGE] = ST_DRAFT
        base.set_decision(s, K.DRAFT, first)
    return s


def finish_setup(state: FortState) -> None:
    """Steps 10-11: each shuffles kids + Best Friends into a deck and draws 5."""
    rng = event_rng(state)
    for p in range(state.game.num_players):
        ids = ((state.owner == p) & ((state.zone == DECK) | (state.zone == DRAFT_KEPT))).nonzero()[
            0
        ]
        state.zone[ids] = DECK
        state.pos[ids] = rng.permutation(len(ids))
        draw(state, p, HAND_SIZE)
    flow.begin_turn(state)


def event_rng(state: FortState) -> EventRng:
    """The generator of the next random event, keyed by (seed, events so far) (``rng.py``).

    Keeping only two integers makes ``clone()`` and ``to_dict()`` exact and cheap.
    """
    count = int(state.ctx[C_SHUFFLES])
    state.ctx[C_SHUFFLES] = count + 1
    return EventRng(int(state.ctx[C_SEED]), count)


def shuffle_park_deck(state: FortState, rng: EventRng) -> None:
    ids = (state.zone == PARK_DECK).nonzero()[0]
    state.pos[ids] = rng.permutation(len(ids))


def top_of_park_deck(state: FortState) -> int:
    ids = (state.zone == PARK_DECK).nonzero()[0]
    if len(ids) == 0:
        return -1
    return int(ids[np.argmin(state.pos[ids])])


def refill_park(state: FortState, slot: int) -> None:
    cid = top_of_park_deck(state)
    if cid >= 0:
        state.zone[cid] = PARK
        state.pos[cid] = slot


def draw(state: FortState, p: int, n: int) -> None:
    """Draw phase (p.9): draw n, reshuffling the discard pile when the deck runs out."""
    while n > 0:
        ids = ((state.zone == DECK) & (state.owner == p)).nonzero()[0]
        if len(ids) == 0:
            pile = ((state.zone == DISCARD) & (state.owner == p)).nonzero()[0]
            if len(pile) == 0:
                return
            state.zone[pile] = DECK
            state.pos[pile] = event_rng(state).permutation(len(pile))
            ids = pile
        top = ids[np.argsort(state.pos[ids], kind="stable")[:n]]  # lowest pos on top
        state.zone[top] = HAND
        n -= len(top)
