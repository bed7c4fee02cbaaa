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
from typing import TYPE_CHECKING

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
    ZONES,
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
)

if TYPE_CHECKING:
    from .engine import FortGame, FortState

SIZE_SCALE = 10.0  # pile sizes are divided by this
PARK_DECK_CARDS = 60.0  # the Park deck's size at setup (rulebook p.2)


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


@lru_cache(maxsize=16)
def _card_blocks(num_cards: int) -> tuple[np.ndarray, dict[str, int]]:
    """Where each (zone, owner seen from the observer) writes its per-card 0/1 block.

    ``table[zone, r]`` is the offset of the block for a card in ``zone`` whose owner is ``r``
    seats to the observer's left (``r = MAX_PLAYERS`` for no owner), or -1 when the observer
    may not see which card it is.
    """
    lay = _layout(num_cards)
    off = {s.name: s.offset for s in lay.slices}
    table = np.full((len(ZONES), MAX_PLAYERS + 1), -1, dtype=np.int64)
    for z, name in ((HAND, "my_hand"), (DECK, "my_deck"), (DISCARD, "my_discard"),
                    (YARD, "my_yard"), (LOOKOUT, "my_lookout"), (DRAFT_KEPT, "my_draft_kept"),
                    (DRAFT_PACK, "my_draft_pack")):  # fmt: skip
        table[z, 0] = off[name]
    for r in range(1, MAX_PLAYERS):
        table[YARD, r] = off["rival_yard"] + (r - 1) * num_cards
        table[DISCARD, r] = off["rival_discard"] + (r - 1) * num_cards
    for z, name in ((IN_PLAY, "in_play"), (FOLLOWED, "followed"), (PARK, "park"), (TRASH, "trash")):
        table[z, :] = off[name]
    return table, off


def observation_tensor(state: FortState, player: int) -> np.ndarray:
    """``player``'s observation: float32, shape ``(layout.size,)``; a fresh array."""
    from .engine import ST_ACTION, ST_FOLLOW_RUN

    g = state.game
    c = g.num_cards
    table, off = _card_blocks(c)
    obs = np.zeros(_layout(c).size, dtype=np.float32)
    n = g.num_players
    zone, owner = state.zone, state.owner
    ctx = state.ctx.tolist()

    # Cards: one scatter for every zone the observer may see card by card.
    rel_owner = np.where(owner >= 0, (owner - player) % n, MAX_PLAYERS)
    target = table[zone, rel_owner]
    seen = target >= 0
    obs[target[seen] + np.flatnonzero(seen)] = 1.0
    # Piles per (zone, seat) in one count.
    key = zone.astype(np.int64) * MAX_PLAYERS + np.where(owner >= 0, owner, 0)
    piles = np.bincount(key[owner >= 0], minlength=len(ZONES) * MAX_PLAYERS)

    kind = ctx[C_DECISION]
    obs[off["decision"] + kind] = 1.0
    if not state.is_terminal():
        obs[off["actor"] + (ctx[C_ACTOR] - player) % n] = 1.0
    obs[off["leader"] + (ctx[C_LEADER] - player) % n] = 1.0
    obs[off["first_player"] + (ctx[C_FIRST] - player) % n] = 1.0
    if ctx[C_PLAYED] >= 0:
        obs[off["played_card"] + ctx[C_PLAYED]] = 1.0
    if ctx[C_MODE] >= 0:
        obs[off["mode"] + ctx[C_MODE]] = 1.0
    if ctx[C_STAGE] in (ST_ACTION, ST_FOLLOW_RUN):
        obs[off["running_action"] + ctx[C_PROG_SIDE]] = 1.0
        obs[off["running_action"] + 2] = float(ctx[C_PROG_FULL])
    obs[off["play_suits"] : off["play_suits"] + NUM_SUITS] = state.play_suits
    for i, slot in enumerate((C_ANY_PUB, C_ANY_PRIV)):
        if ctx[slot] >= 0:
            obs[off["any_suit"] + i * NUM_SUITS + ctx[slot]] = 1.0
    for i, slot in enumerate((C_RES_CHOICE, C_LEADER_RES)):
        if ctx[slot] >= 0:
            obs[off["resource_choice"] + i * 2 + ctx[slot]] = 1.0
    if ctx[C_CONVERT_DIR] >= 0:
        obs[off["convert_from"] + ctx[C_CONVERT_DIR]] = 1.0
    obs[off["cost_to_pay"] : off["cost_to_pay"] + 3] = (ctx[C_PAY_T], ctx[C_PAY_P], ctx[C_PAY_E])

    rule_loc = state.rule_loc.tolist()
    if player in rule_loc:
        obs[off["my_made_up_rule"] + rule_loc.index(player)] = 1.0
    if kind == DecisionKind.PICK_RULE and ctx[C_ACTOR] == player:
        for i, loc in enumerate(rule_loc):
            if loc == IN_STACK:
                obs[off["rule_stack"] + i] = 1.0
    # Rivals' Lookouts: suits only.
    for cid in np.flatnonzero((zone == LOOKOUT) & (owner != player)).tolist():
        r = (int(owner[cid]) - player) % n
        base = off["rival_lookout_suits"] + (r - 1) * NUM_SUITS
        obs[base : base + NUM_SUITS] += g.suit_counts[cid]
    perk_loc = state.perk_loc.tolist()
    players = state.players.tolist()
    for seat in range(n):
        r = (seat - player) % n
        stuff_p, stuff_t, pack_p, pack_t, level, score, turns = players[seat]
        base = off["resources"] + 4 * r
        obs[base : base + 4] = (stuff_p, stuff_t, pack_p, pack_t)
        obs[off["fort_level"] + r * (MAX_FORT_LEVEL + 1) + level] = 1.0
        obs[off["score"] + r] = score / SCORE_TRIGGER
        base = off["pile_sizes"] + 5 * r
        for j, z in enumerate((HAND, DECK, DISCARD, YARD, LOOKOUT)):
            obs[base + j] = piles[z * MAX_PLAYERS + seat] / SIZE_SCALE
        obs[off["has_made_up_rule"] + r] = float(seat in rule_loc)
        for i, loc in enumerate(perk_loc):
            if loc == seat:
                obs[off["perks"] + r * len(PERKS) + i] = 1.0
        obs[off["turns"] + r] = turns / SIZE_SCALE
        obs[off["seats"] + r] = 1.0
    for i, loc in enumerate(perk_loc):
        if loc == IN_STACK:
            obs[off["perk_row"] + i] = 1.0
        elif loc == USED:
            obs[off["perk_used"] + i] = 1.0
    sculpture = ctx[C_SCULPTURE]
    obs[off["sculpture"] + (MAX_PLAYERS if sculpture < 0 else (sculpture - player) % n)] = 1.0
    obs[off["park_deck_size"]] = np.count_nonzero(zone == PARK_DECK) / PARK_DECK_CARDS
    obs[off["rule_stack_size"]] = float(rule_loc.count(IN_STACK))
    obs[off["end_triggered"]] = float(ctx[C_END])
    return obs
