"""The straightforward observation writer, kept as the reference for the fast one.

``fort_env.views.observation.observation_tensor`` builds the same tensor with per-seat lookup tables
and a few numpy scatters (docs/performance.md); tests/test_observation.py checks that the two
agree on thousands of random positions. This version writes slice by slice and is easier to
read against the layout in ``fort_env/views/observation.py``.

What a seat may see card by card is decided here by its own table, :data:`SEEN_BY_OWNER`,
:data:`SEEN_BY_RIVALS` and :data:`SEEN_BY_ALL`, written from the rulebook (and the zone table of
``docs/state.md``), not taken from the implementation: the fast writer's visibility is checked
against it. Quotes are from the rulebook (the one docs/rules.md cites).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fort_env.game.constants import (
    DECK,
    DISCARD,
    HAND,
    IN_STACK,
    LOOKOUT,
    MAX_FORT_LEVEL,
    MAX_PLAYERS,
    NUM_SUITS,
    PARK_DECK,
    PERKS,
    SCORE_TRIGGER,
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
)
from fort_env.views.observation import PARK_DECK_CARDS, SIZE_SCALE, observation_layout

if TYPE_CHECKING:
    from fort_env.core import FortState

# Which cards a seat sees card by card, by zone (zone name -> the observation slice they go to).
# A zone in none of the tables is never seen card by card.
SEEN_BY_OWNER = {
    "hand": "my_hand",  # my hand; rivals see only how many cards it holds
    "deck": "my_deck",  # which cards my deck holds (my cards not elsewhere), not their order
    "discard": "my_discard",  # "Discard piles are face up and public information."
    "yard": "my_yard",  # "Cards you do not use are placed here face up" (board, Yard)
    "lookout": "my_lookout",  # tucked under my board, "showing only its suit" to others
    "draft_kept": "my_draft_kept",  # advanced setup: "keeps one card ... facedown"
    "draft_pack": "my_draft_pack",  # advanced setup: the pack passed to me
}
SEEN_BY_RIVALS = {
    "discard": "rival_discard",  # face up and public
    "yard": "rival_yard",  # face up; rivals may recruit from it
    # hand, deck, draft piles: hidden; lookout: only its suits show (written below)
}
SEEN_BY_ALL = {  # shared, face up
    "in_play": "in_play",  # the played card and the cards added to it, shown to all
    "followed": "followed",  # cards discarded to follow, shown to all
    "park": "park",  # setup step 8: "making a face-up row"
    "trash": "trash",  # returned to the box in view of all
    # park_deck (setup step 8: "a facedown Park deck") and out_of_game: never
}


def reference_observation(state: FortState, player: int) -> np.ndarray:
    """``player``'s observation: float32, shape ``(layout.size,)``; a fresh array."""
    from fort_env.game.stages import ST_ACTION, ST_FOLLOW_RUN

    g = state.game
    c = g.num_cards
    n = g.num_players
    layout = observation_layout(n, g)
    off = {s.name: s.offset for s in layout.slices}
    obs = np.zeros(layout.size, dtype=np.float32)
    zone, owner = state.zone, state.owner
    ctx = list(state.ctx)

    # Cards, one by one, as the visibility tables say.
    for cid in range(c):
        name, who = ZONES[int(zone[cid])], int(owner[cid])
        if name in SEEN_BY_ALL:
            obs[off[SEEN_BY_ALL[name]] + cid] = 1.0
        elif who == player and name in SEEN_BY_OWNER:
            obs[off[SEEN_BY_OWNER[name]] + cid] = 1.0
        elif who >= 0 and who != player and name in SEEN_BY_RIVALS:
            r = (who - player) % n  # 1 = the next seat to my left
            obs[off[SEEN_BY_RIVALS[name]] + (r - 1) * c + cid] = 1.0
    # Piles per (zone, seat) in one count.
    key = zone.astype(np.int64) * MAX_PLAYERS + np.where(owner >= 0, owner, 0)
    piles = np.bincount(key[owner >= 0], minlength=len(ZONES) * MAX_PLAYERS)

    kind = ctx[C_DECISION]
    obs[off["decision"] + kind] = 1.0
    if not state.is_terminal():
        obs[off["actor"] + (ctx[C_ACTOR] - player) % n] = 1.0
    obs[off["leader"] + (ctx[C_LEADER] - player) % n] = 1.0
    obs[off["first_player"] + (ctx[C_FIRST_PLAYER] - player) % n] = 1.0
    if ctx[C_PLAYED_CARD] >= 0:
        obs[off["played_card"] + ctx[C_PLAYED_CARD]] = 1.0
    if ctx[C_MODE] >= 0:
        obs[off["mode"] + ctx[C_MODE]] = 1.0
    if ctx[C_STAGE] in (ST_ACTION, ST_FOLLOW_RUN):
        obs[off["running_action"] + ctx[C_PROGRAM_SIDE]] = 1.0
        obs[off["running_action"] + 2] = float(ctx[C_PROGRAM_FULL])
    obs[off["play_suits"] : off["play_suits"] + NUM_SUITS] = state.play_suits
    for i, slot in enumerate((C_ANY_SUIT_PUBLIC, C_ANY_SUIT_PRIVATE)):
        if ctx[slot] >= 0:
            obs[off["any_suit"] + i * NUM_SUITS + ctx[slot]] = 1.0
    for i, slot in enumerate((C_RESOURCE_CHOICE, C_LEADER_RESOURCE)):
        if ctx[slot] >= 0:
            obs[off["resource_choice"] + i * 2 + ctx[slot]] = 1.0
    if ctx[C_CONVERT_FROM] >= 0:
        obs[off["convert_from"] + ctx[C_CONVERT_FROM]] = 1.0
    obs[off["cost_to_pay"] : off["cost_to_pay"] + 3] = (
        ctx[C_PAY_TOYS],
        ctx[C_PAY_PIZZA],
        ctx[C_PAY_EITHER],
    )

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
    obs[off["end_triggered"]] = float(ctx[C_END_TRIGGERED])
    return obs
