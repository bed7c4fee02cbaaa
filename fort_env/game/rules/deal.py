"""Setup: the deal (rulebook p.2, steps 1-11), the Park deck's shuffle and the Park's refill.
Every random draw comes from ``fort_env.game.rng.EventRng`` keyed by the state's seed and event
count (``base.event_rng``; docs/state.md, "Random numbers").

The deal ends by starting the first turn, so this module sits above the turn flow; what the
flow and the verbs need too lives below it: ``base.event_rng``, ``base.top_of_park_deck`` and
the Draw phase, ``flow.draw``.
"""

from __future__ import annotations

from typing import TypeVar

from fort_env.game.constants import (
    DECK,
    DRAFT_KEPT,
    DRAFT_PACK,
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
from fort_env.game.errors import ConfigError
from fort_env.game.facts import GameFacts
from fort_env.game.fields import C_DRAFT_ROUND, C_FIRST_PLAYER, C_LEADER, C_SEED, C_STAGE
from fort_env.game.inputs import check_seed
from fort_env.game.rng import EventRng
from fort_env.game.rules import base, flow
from fort_env.game.rules.base import K, event_rng, top_of_park_deck
from fort_env.game.stages import ST_DRAFT
from fort_env.game.state_arrays import StateArrays

S = TypeVar("S", bound=StateArrays)


def new_state(cls: type[S], game: GameFacts, seed: int, first_player: int | None) -> S:
    seed = check_seed(seed)  # ConfigError out of [0, SEED_LIMIT)
    s = cls.empty(game)
    s.ctx[C_SEED] = seed
    rng = event_rng(s)
    n = game.num_players
    first = rng.below(n) if first_player is None else int(first_player)
    if not 0 <= first < n:
        raise ConfigError(f"first_player must be in [0, {n}), got {first_player!r}")
    s.ctx[C_FIRST_PLAYER] = s.ctx[C_LEADER] = first
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


def finish_setup(state: StateArrays) -> None:
    """Steps 10-11: each shuffles kids + Best Friends into a deck and draws 5."""
    rng = event_rng(state)
    for p in range(state.game.num_players):
        ids = ((state.owner == p) & ((state.zone == DECK) | (state.zone == DRAFT_KEPT))).nonzero()[
            0
        ]
        state.zone[ids] = DECK
        state.pos[ids] = rng.permutation(len(ids))
        flow.draw(state, p, HAND_SIZE)
    flow.begin_turn(state)


def shuffle_park_deck(state: StateArrays, rng: EventRng) -> None:
    ids = (state.zone == PARK_DECK).nonzero()[0]
    state.pos[ids] = rng.permutation(len(ids))


def refill_park(state: StateArrays, slot: int) -> None:
    cid = top_of_park_deck(state)
    if cid >= 0:
        state.zone[cid] = PARK
        state.pos[cid] = slot
