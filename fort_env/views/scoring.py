"""End-of-game scoring (rulebook p.11) and the made-up rules (glossary p.15).

"Cards you have" are those in your deck, discard pile, hand, Yard and Lookout (p.15). A coin is
never counted as a suit by a made-up rule (reference FAQ; Russian glossary).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fort_env.game.cards import ADVANCE, count_verb
from fort_env.game.constants import (
    COIN,
    DECK,
    DISCARD,
    HAND,
    LOOKOUT,
    MACARONI_POINTS,
    NUM_SUITS,
    PLAIN_SUITS,
    RULE_INDEX,
    YARD,
    ZONES,
)
from fort_env.game.fields import (
    C_SCULPTURE,
    P_FORT_LEVEL,
    P_PACK_PIZZA,
    P_PACK_TOYS,
    P_SCORE,
    P_STUFF_PIZZA,
    P_STUFF_TOYS,
)

if TYPE_CHECKING:
    from fort_env.game.state_arrays import StateArrays

OWNED_ZONES = (DECK, DISCARD, HAND, YARD, LOOKOUT)
MINIMALISM_LEVEL, MINIMALISM_POINTS = 2, 8
LONER_POINTS = 5
SLEEPOVER_MOST, SLEEPOVER_TIED = 8, 4
ALL_SIX_BONUS = 1
_IS_OWNED_ZONE = np.isin(np.arange(len(ZONES)), OWNED_ZONES)  # by zone code (a cheap lookup)


def owned_cards(state: StateArrays, p: int) -> np.ndarray:
    """Ids of the cards player ``p`` has, in the zones made-up rules count (p.15)."""
    return np.flatnonzero(_IS_OWNED_ZONE[state.zone] & (state.owner == p))


def made_up_rule_points(state: StateArrays, p: int) -> int:
    """Points from ``p``'s made-up rule (0 without one), as the glossary p.15 says."""
    held = np.flatnonzero(state.rule_loc == p)
    if len(held) == 0:
        return 0
    rule = int(held[0])
    g = state.game
    cards = owned_cards(state, p)
    suits = g.suit_counts[cards].sum(axis=0) if len(cards) else np.zeros(NUM_SUITS, int)
    pl = state.players[p]
    if rule == RULE_INDEX["Big Plans"]:
        # every Advance Fort printed on your cards, public and private (not the DIY perk)
        return sum(count_verb(e, ADVANCE) for c in cards for e in g.effects[c])
    if rule == RULE_INDEX["Friendship Bracelet"]:
        distinct = int(np.count_nonzero(suits[list(PLAIN_SUITS)]))
        return distinct + (ALL_SIX_BONUS if distinct == len(PLAIN_SUITS) else 0)
    if rule == RULE_INDEX["Piggy Bank"]:
        return int(pl[P_STUFF_TOYS] + pl[P_PACK_TOYS])
    if rule == RULE_INDEX["Pizza Party"]:
        return int(pl[P_STUFF_PIZZA] + pl[P_PACK_PIZZA])
    if rule == RULE_INDEX["Loner"]:
        return 0 if g.is_best_friend[cards].any() else LONER_POINTS
    if rule == RULE_INDEX["Minimalism"]:
        return MINIMALISM_POINTS if pl[P_FORT_LEVEL] == MINIMALISM_LEVEL else 0
    if rule == RULE_INDEX["Popularity"]:
        return int(np.count_nonzero((state.zone == LOOKOUT) & (state.owner == p)))
    if rule == RULE_INDEX["Play Palace"]:
        return int(suits[1])  # crown
    if rule == RULE_INDEX["Secret Stash"]:
        return int(pl[P_PACK_PIZZA] + pl[P_PACK_TOYS])
    if rule == RULE_INDEX["Sleepover"]:
        counts = [len(owned_cards(state, q)) for q in range(g.num_players)]
        mine, best = counts[p], max(counts)
        if mine < best:
            return 0
        return SLEEPOVER_MOST if counts.count(best) == 1 else SLEEPOVER_TIED
    if rule == RULE_INDEX["Slime Lab"]:
        return int(suits[0])  # book
    raise AssertionError(rule)


def score_breakdown(state: StateArrays) -> list[dict[str, int]]:
    """Per seat: ``track`` (Victory Track), ``fort_level`` (its points), ``made_up_rule``,
    ``macaroni`` (4 for the sculpture), ``total`` (their sum, rulebook p.11), and ``level``
    (the Fort Level itself, the tie-break; not part of the total)."""
    out = []
    for p in range(state.game.num_players):
        row = {
            "track": int(state.players[p, P_SCORE]),
            "fort_level": state.game.level_points[int(state.players[p, P_FORT_LEVEL])],
            "made_up_rule": made_up_rule_points(state, p),
            "macaroni": MACARONI_POINTS if state.ctx[C_SCULPTURE] == p else 0,
        }
        row["total"] = sum(row.values())
        row["level"] = int(state.players[p, P_FORT_LEVEL])  # the Fort Level itself (tie-break)
        out.append(row)
    return out


SCORE_COLUMNS = ("track", "fort_level", "made_up_rule", "macaroni", "total", "level")
"""The keys of a :func:`score_breakdown` row, in order: the columns of the batched envs'
``end_scores`` buffer (int32 ``(B, MAX_PLAYERS, 6)``; cpp/include/fort/envs/rewards.h SCORE_*)."""


def score_rows(block: np.ndarray, num_players: int) -> list[dict[str, int]]:
    """One env's ``end_scores`` block (int ``(MAX_PLAYERS, 6)``) as :func:`score_breakdown`'s
    list of dicts, one per seat of ``num_players``."""
    return [
        {key: int(v) for key, v in zip(SCORE_COLUMNS, block[p], strict=True)}
        for p in range(num_players)
    ]


def winners(state: StateArrays) -> list[int]:
    """Most points; tie -> highest Fort Level; still tied -> shared victory (p.11)."""
    totals = [row["total"] for row in score_breakdown(state)]
    key = [(t, int(state.players[p, P_FORT_LEVEL])) for p, t in enumerate(totals)]
    best = max(key)
    return [p for p, k in enumerate(key) if k == best]


assert COIN == NUM_SUITS - 1  # made-up rules index suits without the coin
