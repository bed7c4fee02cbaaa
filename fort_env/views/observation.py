"""One player's view as a flat float32 tensor with named slices (docs/DESIGN.md, "Observation").

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

from fort_env.game.actions import MODES
from fort_env.game.cards import PARK_DECK_SIZE, load_card_set
from fort_env.game.constants import (
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
from fort_env.game.decisions import DecisionKind
from fort_env.game.fields import (
    C_ACTOR,
    C_ANY_SUIT_PRIVATE,
    C_ANY_SUIT_PUBLIC,
    C_CONVERT_FROM,
    C_DECISION,
    C_END_TRIGGERED,
    C_FIRST_PLAYER,
    C_LEADER,
    C_LEADER_RESOURCE,
    C_MODE,
    C_PAY_EITHER,
    C_PAY_PIZZA,
    C_PAY_TOYS,
    C_PLAYED_CARD,
    C_PROGRAM_FULL,
    C_PROGRAM_SIDE,
    C_RESOURCE_CHOICE,
    C_SCULPTURE,
    C_STAGE,
    P_FORT_LEVEL,
)
from fort_env.game.stages import ST_ACTION, ST_FOLLOW_RUN

if TYPE_CHECKING:
    from fort_env.game.facts import GameFacts
    from fort_env.game.state_arrays import StateArrays

_RUNNING_STAGES = (ST_ACTION, ST_FOLLOW_RUN)  # an action is running: "running_action" is set

SIZE_SCALE = 10.0  # pile sizes are divided by this
PARK_DECK_CARDS = float(PARK_DECK_SIZE)  # the Park deck's size at setup (rulebook p.2)


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


def observation_layout(num_players: int = 4, game: GameFacts | None = None) -> ObservationLayout:
    """Named slices of the observation (name, offset, shape, meaning).

    The layout is the same for 2, 3 and 4 players (absent seats are zeros) so that one policy
    can play every player count; it depends only on the card set's size.
    """
    num_cards = game.num_cards if game is not None else len(load_card_set(None).cards)
    return _layout(num_cards)


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


_OWNER_SLOTS = MAX_PLAYERS + 1  # owner codes -1..3 shifted to 0..4 in the (zone, owner) key
_LEVELS = MAX_FORT_LEVEL + 1
_PILE_ZONES = (HAND, DECK, DISCARD, YARD, LOOKOUT)  # the order of "pile_sizes"
# players[] columns are divided by these (the level is one-hot, written apart into the dump)
_PLAYER_DIVISOR = np.array([1.0, 1.0, 1.0, 1.0, 1.0, SCORE_TRIGGER, SIZE_SCALE])


@dataclass(frozen=True)
class _SeatTables:
    """Where everything lands for one observer seat in an ``n``-player game.

    Indices past the observation's end point into a scratch tail that is cut off, so hidden
    cards and absent entries need no masking: ``dump`` is the tail's start.
    """

    template: np.ndarray  # float32 (size + num_cards,): the constant entries ("seats")
    card_dst: np.ndarray  # int64 (len(ZONES) * _OWNER_SLOTS,): block of a (zone, owner) key
    pile_src: np.ndarray  # int64 (n * 5,): (zone, owner) keys of the "pile_sizes" entries
    pile_dst: np.ndarray  # int64 (n * 5,)
    player_dst: np.ndarray  # int64 (n, len(PLAYER_FIELDS)): resources, score, turns per seat
    level_base: np.ndarray  # int64 (n,): start of each seat's one-hot Fort Level
    perk_dst: np.ndarray  # int64 (MAX_PLAYERS + 3, len(PERKS)): [perk_loc + 3, perk]
    rule_holder_dst: np.ndarray  # int64 (MAX_PLAYERS + 2,): "has_made_up_rule" by rule_loc + 2
    lookout_rival: np.ndarray  # float32 (len(ZONES) * _OWNER_SLOTS, MAX_PLAYERS - 1): one-hot
    # rival (1..3 seats to the left, as 0..2) of a key in a rival's Lookout, zeros otherwise
    rel: tuple[int, ...]  # seat -> seat relative to the observer
    dump: int


@lru_cache(maxsize=64)
def _seat_tables(num_cards: int, n: int, player: int) -> _SeatTables:
    table, off = _card_blocks(num_cards)
    size = _layout(num_cards).size
    dump = size
    rel = tuple((s - player) % n for s in range(n))

    card_dst = np.full((len(ZONES), _OWNER_SLOTS), dump, dtype=np.int64)
    for z in range(len(ZONES)):
        if table[z, MAX_PLAYERS] >= 0:
            card_dst[z, 0] = table[z, MAX_PLAYERS]
        for s in range(n):
            if table[z, rel[s]] >= 0:
                card_dst[z, s + 1] = table[z, rel[s]]

    pile_src = np.array(
        [z * _OWNER_SLOTS + s + 1 for s in range(n) for z in _PILE_ZONES], dtype=np.int64
    )
    pile_dst = np.array(
        [off["pile_sizes"] + 5 * rel[s] + j for s in range(n) for j in range(5)], dtype=np.int64
    )
    player_dst = np.full((n, len(_PLAYER_DIVISOR)), dump, dtype=np.int64)
    for s in range(n):
        player_dst[s, :4] = off["resources"] + 4 * rel[s] + np.arange(4)
        player_dst[s, 5] = off["score"] + rel[s]
        player_dst[s, 6] = off["turns"] + rel[s]
    level_base = np.array([off["fort_level"] + rel[s] * _LEVELS for s in range(n)], np.int64)

    perk_dst = np.full((MAX_PLAYERS + 3, len(PERKS)), dump, dtype=np.int64)
    perk_dst[USED + 3] = off["perk_used"] + np.arange(len(PERKS))
    perk_dst[IN_STACK + 3] = off["perk_row"] + np.arange(len(PERKS))
    for s in range(n):
        perk_dst[s + 3] = off["perks"] + rel[s] * len(PERKS) + np.arange(len(PERKS))
    rule_holder_dst = np.full(MAX_PLAYERS + 2, dump, dtype=np.int64)
    for s in range(n):
        rule_holder_dst[s + 2] = off["has_made_up_rule"] + rel[s]
    lookout_rival = np.zeros((len(ZONES), _OWNER_SLOTS, MAX_PLAYERS - 1), dtype=np.float32)
    for s in range(n):
        if s != player:
            lookout_rival[LOOKOUT, s + 1, rel[s] - 1] = 1.0

    template = np.zeros(size + num_cards, dtype=np.float32)
    template[[off["seats"] + rel[s] for s in range(n)]] = 1.0
    tables = (card_dst.ravel(), pile_src, pile_dst, player_dst, level_base, perk_dst,
              rule_holder_dst, lookout_rival.reshape(-1, MAX_PLAYERS - 1))  # fmt: skip
    for t in (template, *tables):
        t.flags.writeable = False
    return _SeatTables(template, *tables, rel, dump)


def observation_tensor(state: StateArrays, player: int) -> np.ndarray:
    """``player``'s observation: float32, shape ``(layout.size,)``; a fresh array.

    Built from per-seat lookup tables with a few numpy scatters (docs/performance.md);
    ``tests/reference_observation.py`` writes the same tensor slice by slice and
    ``tests/test_observation.py`` checks that they agree.
    """
    g = state.game
    c = g.num_cards
    n = g.num_players
    t = _seat_tables(c, n, player)
    off = _card_blocks(c)[1]
    buf = t.template.copy()
    zone, owner = state.zone, state.owner
    ctx = state.ctx

    # Cards: one scatter for every zone the observer may see card by card; pile sizes from
    # the same (zone, owner) key.
    key = zone * _OWNER_SLOTS
    key += owner
    key += 1
    buf[t.card_dst[key] + g.card_ids] = 1.0
    piles = np.bincount(key, minlength=len(ZONES) * _OWNER_SLOTS)
    buf[t.pile_dst] = piles[t.pile_src] / SIZE_SCALE
    buf[off["park_deck_size"]] = piles[PARK_DECK * _OWNER_SLOTS] / PARK_DECK_CARDS

    # Per seat: resources, score, turns (scaled), Fort Level (one-hot), perks, rule holders.
    players = state.players
    buf[t.player_dst] = players / _PLAYER_DIVISOR
    buf[t.level_base + players[:, P_FORT_LEVEL]] = 1.0
    buf[t.perk_dst[state.perk_loc + 3, g.perk_ids]] = 1.0
    rule_loc = state.rule_loc.tolist()
    for i, loc in enumerate(rule_loc):
        if loc >= 0:
            buf[t.rule_holder_dst[loc + 2]] = 1.0
            if loc == player:
                buf[off["my_made_up_rule"] + i] = 1.0
    # Rivals' Lookouts: suits only, summed per rival as (rivals, cards) @ (cards, suits).
    lk = off["rival_lookout_suits"]
    rivals_suits = t.lookout_rival[key].T @ g.suit_counts_f32
    buf[lk : lk + (MAX_PLAYERS - 1) * NUM_SUITS] = rivals_suits.ravel()

    kind = ctx[C_DECISION]
    buf[off["decision"] + kind] = 1.0
    if kind != DecisionKind.TERMINAL:
        buf[off["actor"] + t.rel[ctx[C_ACTOR]]] = 1.0
    buf[off["leader"] + t.rel[ctx[C_LEADER]]] = 1.0
    buf[off["first_player"] + t.rel[ctx[C_FIRST_PLAYER]]] = 1.0
    if ctx[C_PLAYED_CARD] >= 0:
        buf[off["played_card"] + ctx[C_PLAYED_CARD]] = 1.0
    if ctx[C_MODE] >= 0:
        buf[off["mode"] + ctx[C_MODE]] = 1.0
    if ctx[C_STAGE] in _RUNNING_STAGES:
        buf[off["running_action"] + ctx[C_PROGRAM_SIDE]] = 1.0
        buf[off["running_action"] + 2] = float(ctx[C_PROGRAM_FULL])
    ps = off["play_suits"]
    buf[ps : ps + NUM_SUITS] = state.play_suits
    if ctx[C_ANY_SUIT_PUBLIC] >= 0:
        buf[off["any_suit"] + ctx[C_ANY_SUIT_PUBLIC]] = 1.0
    if ctx[C_ANY_SUIT_PRIVATE] >= 0:
        buf[off["any_suit"] + NUM_SUITS + ctx[C_ANY_SUIT_PRIVATE]] = 1.0
    if ctx[C_RESOURCE_CHOICE] >= 0:
        buf[off["resource_choice"] + ctx[C_RESOURCE_CHOICE]] = 1.0
    if ctx[C_LEADER_RESOURCE] >= 0:
        buf[off["resource_choice"] + 2 + ctx[C_LEADER_RESOURCE]] = 1.0
    if ctx[C_CONVERT_FROM] >= 0:
        buf[off["convert_from"] + ctx[C_CONVERT_FROM]] = 1.0
    cost = off["cost_to_pay"]
    buf[cost] = ctx[C_PAY_TOYS]
    buf[cost + 1] = ctx[C_PAY_PIZZA]
    buf[cost + 2] = ctx[C_PAY_EITHER]
    if kind == DecisionKind.PICK_RULE and ctx[C_ACTOR] == player:
        for i, loc in enumerate(rule_loc):
            if loc == IN_STACK:
                buf[off["rule_stack"] + i] = 1.0
    sculpture = ctx[C_SCULPTURE]
    buf[off["sculpture"] + (MAX_PLAYERS if sculpture < 0 else t.rel[sculpture])] = 1.0
    buf[off["rule_stack_size"]] = float(rule_loc.count(IN_STACK))
    buf[off["end_triggered"]] = float(ctx[C_END_TRIGGERED])
    return buf[: t.dump].copy()


# --------------------------------------------------------------------------- the whole table
TABLE_PRIVATE_SLICES = (
    "my_hand",
    "my_deck",
    "my_lookout",
    "my_made_up_rule",
    "my_draft_pack",
    "my_draft_kept",
)
"""The slices of a seat's observation that no rival sees (its hand, its deck's contents, its
Lookout's cards, its made-up rule, its draft pack and kept cards): what the table observation
adds, for each other seat, to the observer's own observation."""


def table_private_columns(layout: ObservationLayout) -> np.ndarray:
    """The observation's indices of :data:`TABLE_PRIVATE_SLICES`, in that order: int64
    ``(P,)``."""
    slices = [layout[name] for name in TABLE_PRIVATE_SLICES]
    return np.concatenate([np.arange(s.offset, s.offset + s.size) for s in slices]).astype(np.int64)


def max_active_features(num_players: int = 4, game: GameFacts | None = None) -> int:
    """The most non-zero entries an observation can have (an int): every entry of the slices
    whose size does not grow with the card set, plus one per card (a card lies in one zone, so
    at most one entry of the card-by-card slices is its) and the played card. The width of the
    padded active features the batched envs write (C++ ``max_active_features``,
    ``fort_env.envs.self_play.SelfPlayBatch(features=True)``); random games reach about 100 of
    it at 2 players and 125 at 4."""
    fixed, per_card = _layout(0).size, _layout(1).size - _layout(0).size
    num_cards = (observation_layout(num_players, game).size - fixed) // per_card
    return fixed + num_cards + 1


def table_observation_size(num_players: int, game: GameFacts | None = None) -> int:
    """The table observation's length: ``D + (num_players - 1) * P`` (D the observation's, P
    the private slices' total)."""
    layout = observation_layout(num_players, game)
    return layout.size + (num_players - 1) * len(table_private_columns(layout))


def table_size_of(observation_size: int, num_players: int) -> int:
    """The table observation's length for a game whose observation has ``observation_size``
    features (the layout is linear in the card set's size, so that size names it).

    Raises:
        ValueError: no observation layout has that size.
    """
    one, two = _layout(1).size, _layout(2).size
    per_card, fixed = two - one, one - (two - one)
    num_cards, rest = divmod(observation_size - fixed, per_card)
    if rest or num_cards < 1:
        raise ValueError(f"no observation layout has {observation_size} features")
    private = len(table_private_columns(_layout(num_cards)))
    return observation_size + (num_players - 1) * private


def table_from_observations(
    observations: np.ndarray, player: int, layout: ObservationLayout
) -> np.ndarray:
    """The table observation of ``player`` from every seat's observation of one position.

    A seat's table observation is its own observation and what each other seat alone sees: it
    holds every hand, deck's contents, Lookout and pack, never the order of a deck. It is the
    whole table as it is, for a critic used in training and at a search's leaves (there, a
    determinised table) but never to choose an action (``agents.learned.network``).
    ``FortState.table_observation_tensor`` is the same for a state; the C++ core's
    ``table_observation_tensor`` (views/observation.h) writes the same floats.

    Args:
        observations: float32 ``(n, D)``, row p seat p's ``observation_tensor``.
        player: the observer, in ``[0, n)``.
        layout: the observation's layout (:func:`observation_layout`).

    Returns:
        float32 ``(D + (n - 1) * P,)``: ``player``'s observation, then, for each other seat in
        turn order from ``player``'s left, that seat's :data:`TABLE_PRIVATE_SLICES`.
    """
    n = observations.shape[0]
    cols = table_private_columns(layout)
    parts = [observations[player]] + [observations[(player + k) % n, cols] for k in range(1, n)]
    return np.concatenate(parts).astype(np.float32, copy=False)
