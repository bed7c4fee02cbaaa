"""One player's view as a flat float32 tensor with named slices (DESIGN.md "Observation").

Seat-relative: slot 0 is the observer, slots 1..3 the rivals in turn order (left first);
absent seats are zeros. Only what the observer may see is written: rivals' hands and decks as
counts, rivals' Lookouts as suit counts, rivals' made-up rules as "has one", the made-up rule
stack's contents only while the observer is choosing from it. ``resample_hidden`` leaves every
slice unchanged (tests/test_hidden.py).

Units: card sets are 0/1 per card id; counts are raw counts unless the meaning says "/ N".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .actions import MODES
from .constants import (
    DECK,
    DISCARD,
    DRAFT_KEPT,
    DRAFT_PACK,
    FOLLOWED,
    HAND,
    IN_PLAY,
    IN_STACK,
    LOOKOUT,
    MADE_UP_RULES,
    MAX_FORT_LEVEL,
    MAX_PLAYERS,
    NUM_SUITS,
    PARK,
    PARK_DECK,
    PERKS,
    SCORE_TRIGGER,
    TRASH,
    USED,
    YARD,
)
from .decisions import DecisionKind
from .state_arrays import (
    C_ACTOR,
    C_ANY_PRIV,
    C_ANY_PUB,
    C_CONVERT_DIR,
    C_DECISION,
    C_END,
    C_FIRST,
    C_LEADER,
    C_LEADER_RES,
    C_MODE,
    C_PAY_E,
    C_PAY_P,
    C_PAY_T,
    C_PLAYED,
    C_PROG_FULL,
    C_PROG_SIDE,
    C_RES_CHOICE,
    C_SCULPTURE,
    C_STAGE,
    P_LEVEL,
    P_PACK_P,
    P_PACK_T,
    P_SCORE,
    P_STUFF_P,
    P_STUFF_T,
    P_TURNS,
)

if TYPE_CHECKING:
    from .engine import FortGame, FortState

SIZE_SCALE = 10.0  # pile sizes are divided by this


@dataclass(frozen=True)
class Slice:
    """One named part of the observation: ``obs[offset:offset+size]`` reshaped to ``shape``."""

    name: str
    offset: int
    shape: tuple[int, ...]
    meaning: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


@dataclass(frozen=True)
class ObservationLayout:
    slices: tuple[Slice, ...]
    size: int

    def __getitem__(self, name: str) -> Slice:
        for s in self.slices:
            if s.name == name:
                return s
        raise KeyError(name)

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The named slice of an observation, reshaped."""
        s = self[name]
        return obs[s.offset : s.offset + s.size].reshape(s.shape)


def _spec(num_cards: int) -> list[tuple[str, tuple[int, ...], str]]:
    c, r = num_cards, MAX_PLAYERS - 1
    per_seat = MAX_PLAYERS
    return [
        ("decision", (len(DecisionKind),), "one-hot kind of the pending decision"),
        ("actor", (per_seat,), "one-hot seat (relative) that must act"),
        ("leader", (per_seat,), "one-hot seat (relative) of the leader"),
        ("first_player", (per_seat,), "one-hot seat (relative) of the first player"),
        ("played_card", (c,), "the card being resolved (the leader's played card)"),
        ("mode", (len(MODES),), "one-hot way the leader uses the played card"),
        ("running_action", (3,), "public?, private?, must be used fully?"),
        ("play_suits", (NUM_SUITS,), "suits counted for the played card (with added cards)"),
        ("any_suit", (2, NUM_SUITS), "one-hot 'any one suit' chosen for public, private"),
        ("resource_choice", (2, 2), "pizza/toys chosen in this action; by the leader's public"),
        ("convert_from", (2,), "direction fixed for repeated conversions"),
        ("cost_to_pay", (3,), "toys, pizza, either left to pay for Advance Fort"),
        ("my_hand", (c,), "cards in my hand"),
        ("my_deck", (c,), "cards in my deck (contents; the order is hidden)"),
        ("my_discard", (c,), "cards in my discard pile"),
        ("my_yard", (c,), "cards in my Yard"),
        ("my_lookout", (c,), "cards in my Lookout"),
        ("my_made_up_rule", (len(MADE_UP_RULES),), "one-hot made-up rule I hold"),
        ("rule_stack", (len(MADE_UP_RULES),), "rules in the stack, only while I choose one"),
        ("my_draft_pack", (c,), "advanced setup: the pack I am choosing from"),
        ("my_draft_kept", (c,), "advanced setup: cards I kept"),
        ("in_play", (c,), "played and added cards of the leader (face up)"),
        ("followed", (c,), "cards a follower discarded to follow (face up)"),
        ("park", (c,), "cards in the Park"),
        ("trash", (c,), "cards returned to the box"),
        ("rival_yard", (r, c), "each rival's Yard"),
        ("rival_discard", (r, c), "each rival's discard pile"),
        ("rival_lookout_suits", (r, NUM_SUITS), "suits shown in each rival's Lookout"),
        ("resources", (per_seat, 4), "Stuff pizza, Stuff toys, Pack pizza, Pack toys per seat"),
        ("fort_level", (per_seat, MAX_FORT_LEVEL + 1), "one-hot Fort Level per seat"),
        ("score", (per_seat,), f"Victory Track / {SCORE_TRIGGER} per seat"),
        ("pile_sizes", (per_seat, 5), f"hand, deck, discard, Yard, Lookout sizes / {SIZE_SCALE:g}"),
        ("has_made_up_rule", (per_seat,), "1 if the seat holds a made-up rule"),
        ("perks", (per_seat, len(PERKS)), "perks held per seat"),
        ("perk_row", (len(PERKS),), "perks still in the row"),
        ("perk_used", (len(PERKS),), "once-per-game perks trashed on use"),
        ("sculpture", (per_seat + 1,), "macaroni sculpture: held by seat, or still free (last)"),
        ("turns", (per_seat,), "turns taken per seat / 10"),
        ("park_deck_size", (1,), "cards left in the Park deck / 60"),
        ("rule_stack_size", (1,), "made-up rules left in the stack"),
        ("end_triggered", (1,), "1 once an end trigger happened (p.10)"),
        ("seats", (per_seat,), "1 for each seat in this game"),
    ]


@lru_cache(maxsize=16)
def _layout(num_cards: int) -> ObservationLayout:
    slices, offset = [], 0
    for name, shape, meaning in _spec(num_cards):
        s = Slice(name, offset, shape, meaning)
        slices.append(s)
        offset += s.size
    return ObservationLayout(tuple(slices), offset)


def observation_layout(num_players: int = 4, game: FortGame | None = None) -> ObservationLayout:
    """Named slices of the observation (name, offset, shape, meaning).

    The layout is the same for 2, 3 and 4 players (absent seats are zeros) so that one policy
    can play every player count; it depends only on the card set's size.
    """
    from .engine import FortGame

    g = game if game is not None else FortGame(num_players)
    return _layout(g.num_cards)


def observation_tensor(state: FortState, player: int) -> np.ndarray:
    """``player``'s observation: float32, shape ``(layout.size,)``; a fresh array."""
    g = state.game
    lay = _layout(g.num_cards)
    obs = np.zeros(lay.size, dtype=np.float32)
    n = g.num_players
    zone, owner, ctx = state.zone, state.owner, state.ctx

    def put(name: str, value: Any, index: Any = slice(None)) -> None:
        lay.view(obs, name)[index] = value

    def rel(seat: int) -> int:
        return (seat - player) % n

    kind = int(ctx[C_DECISION])
    put("decision", 1.0, kind)
    if not state.is_terminal():
        put("actor", 1.0, rel(int(ctx[C_ACTOR])))
    put("leader", 1.0, rel(int(ctx[C_LEADER])))
    put("first_player", 1.0, rel(int(ctx[C_FIRST])))
    if ctx[C_PLAYED] >= 0:
        put("played_card", 1.0, int(ctx[C_PLAYED]))
    if ctx[C_MODE] >= 0:
        put("mode", 1.0, int(ctx[C_MODE]))
    from .engine import ST_ACTION, ST_FOLLOW_RUN

    if ctx[C_STAGE] in (ST_ACTION, ST_FOLLOW_RUN):
        put("running_action", 1.0, int(ctx[C_PROG_SIDE]))
        put("running_action", float(ctx[C_PROG_FULL]), 2)
    put("play_suits", state.play_suits)
    for i, slot in enumerate((C_ANY_PUB, C_ANY_PRIV)):
        if ctx[slot] >= 0:
            put("any_suit", 1.0, (i, int(ctx[slot])))
    for i, slot in enumerate((C_RES_CHOICE, C_LEADER_RES)):
        if ctx[slot] >= 0:
            put("resource_choice", 1.0, (i, int(ctx[slot])))
    if ctx[C_CONVERT_DIR] >= 0:
        put("convert_from", 1.0, int(ctx[C_CONVERT_DIR]))
    put("cost_to_pay", (ctx[C_PAY_T], ctx[C_PAY_P], ctx[C_PAY_E]))

    mine = owner == player
    for name, z in (("my_hand", HAND), ("my_deck", DECK), ("my_discard", DISCARD),
                    ("my_yard", YARD), ("my_lookout", LOOKOUT), ("my_draft_kept", DRAFT_KEPT),
                    ("my_draft_pack", DRAFT_PACK)):  # fmt: skip
        put(name, (zone == z) & mine)
    held = np.flatnonzero(state.rule_loc == player)
    if len(held):
        put("my_made_up_rule", 1.0, int(held[0]))
    if kind == DecisionKind.PICK_RULE and ctx[C_ACTOR] == player:
        put("rule_stack", state.rule_loc == IN_STACK)
    put("in_play", zone == IN_PLAY)
    put("followed", zone == FOLLOWED)
    put("park", zone == PARK)
    put("trash", zone == TRASH)
    suit_counts = g.suit_counts
    for seat in range(n):
        r = rel(seat)
        theirs = owner == seat
        if r > 0:
            put("rival_yard", (zone == YARD) & theirs, r - 1)
            put("rival_discard", (zone == DISCARD) & theirs, r - 1)
            look = np.flatnonzero((zone == LOOKOUT) & theirs)
            put("rival_lookout_suits", suit_counts[look].sum(axis=0), r - 1)
        pl = state.players[seat]
        put("resources", (pl[P_STUFF_P], pl[P_STUFF_T], pl[P_PACK_P], pl[P_PACK_T]), r)
        put("fort_level", 1.0, (r, int(pl[P_LEVEL])))
        put("score", pl[P_SCORE] / SCORE_TRIGGER, r)
        sizes = [
            np.count_nonzero((zone == z) & theirs) for z in (HAND, DECK, DISCARD, YARD, LOOKOUT)
        ]
        put("pile_sizes", np.array(sizes) / SIZE_SCALE, r)
        put("has_made_up_rule", float(np.any(state.rule_loc == seat)), r)
        put("perks", state.perk_loc == seat, r)
        put("turns", pl[P_TURNS] / SIZE_SCALE, r)
        put("seats", 1.0, r)
    put("perk_row", state.perk_loc == IN_STACK)
    put("perk_used", state.perk_loc == USED)
    sculpture = int(ctx[C_SCULPTURE])
    put("sculpture", 1.0, MAX_PLAYERS if sculpture < 0 else rel(sculpture))
    put("park_deck_size", np.count_nonzero(zone == PARK_DECK) / 60.0)
    put("rule_stack_size", float(np.count_nonzero(state.rule_loc == IN_STACK)))
    put("end_triggered", float(ctx[C_END]))
    return obs
