"""The evaluation function of the search agents: how good a (determinised) state is for a seat.

``seat_value(state, p)`` estimates seat ``p``'s standing in victory points; ``evaluate(state, p)``
turns the standings into a number in ``[0, 1]``: at the end of the game 1 for a win (shared
or not) and 0 for a loss, before it ``sigmoid((value(p) - best rival value) / scale)``, with
``scale = end_scale`` once the end is triggered.

Before the end is triggered a seat's value is a weighted sum (weights in points, :data:`FITTED`):

========================================  =========================================
feature                                   weight (points)
========================================  =========================================
Victory Track points                      1
Fort Level                                ``level_value``: 0, 8, 13.5, 24.5, 37.5, 60
resources the next Fort step needs        2.0 each (``agents.bots.econ``'s "useful")
other resources                           0.35 each
made-up rule points now                   0.5 per point
macaroni sculpture                        4
cards owned beyond the starting 10        -0.8 each (a thinner deck draws its best cards)
perks held                                0.7 each
========================================  =========================================

The weights were fitted, then rounded (``python -m agents.analysis.fit_evaluation``): a logistic
regression of "this seat wins" on the differences of these features between the two seats, at
the start of every turn of 1,200 two-player games between the heuristics (46,000 positions;
held-out accuracy 71%), divided by the Victory Track coefficient to express them in points.
The same fit gives the sigmoid's ``scale``: 9 points of lead are one logit. A Fort Level is
worth far more than the points it scores at the end (0, 0, 1, 3, 9, 23) because the game is a
race to Level 5. Two weights depart from the fit: Pack and Lookout, which it found slightly
negative (who packs is a matter of style, not a cause of losing), are 0; the made-up rule,
which it found nearly worthless mid-game (0.1), is 0.5 so that the search still counts it.

Once the end is triggered (rulebook p.10: "the leader finishes their turn, then the players
finish the current round of turns") only the round's last turns are left, so the real final
totals (``score_breakdown``) decide: the value is ``total + 0.1 * (the estimate)``. Those
values are on another footing than the estimates (a Fort Level counts its 0-23 end points, not
its 0-60 race value), and little can change them: at most one round of turns, each worth a few
points. So their lead is read with ``end_scale`` = 3 points per logit, not the 9 of a game
still running: a clear lead in the real totals is close to a sure win, which is what it is.
Without this a one-play lookahead rated a winning, game-ending play (lead 13 in real totals,
0.83 at scale 9) below a quiet one (lead 25 in the estimate, 0.94).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fort_env import FortState
from fort_env.game.constants import LOOKOUT, MACARONI_POINTS, MAX_FORT_LEVEL
from fort_env.views.scoring import made_up_rule_points, owned_cards

__all__ = [
    "FITTED",
    "HAND_MADE",
    "WEIGHTS",
    "Weights",
    "evaluate",
    "evaluate_all",
    "seat_value",
    "values",
]

STARTING_CARDS = 10  # 8 kid cards and 2 Best Friends (rulebook p.2)


@dataclass(frozen=True)
class Weights:
    """Weights of :func:`seat_value`, in victory points (module docstring)."""

    level_value: tuple[float, ...] = (0.0, 8.0, 13.5, 24.5, 37.5, 60.0)
    useful: float = 2.0
    surplus: float = 0.35
    pack: float = 0.0
    lookout: float = 0.0
    rule: float = 0.5
    cards: float = -0.8
    perks: float = 0.7
    scale: float = 9.0
    end_scale: float = 3.0


FITTED = Weights()
# The first, hand-made weights (kept for comparison in experiments).
HAND_MADE = Weights(
    level_value=(0.0, 4.6, 10.5, 15.7, 22.2, 32.0),
    useful=1.0,
    surplus=0.5,
    pack=0.2,
    lookout=0.6,
    rule=1.0,
    cards=0.0,
    perks=0.0,
    scale=4.0,
)
WEIGHTS = {"fitted": FITTED, "hand": HAND_MADE}  # by name, for agent specs (evaluation=hand)


def _estimate(state: FortState, p: int, w: Weights) -> float:
    level = state.fort_level(p)
    v = float(state.score(p)) + w.level_value[level]
    (stuff_p, stuff_t), (pack_p, pack_t) = state.stuff(p), state.pack(p)
    toys, pizza = stuff_t + pack_t, stuff_p + pack_p
    if level < MAX_FORT_LEVEL:
        step = state.game.fort_steps[level]
        use_t, use_p = min(toys, step.toys), min(pizza, step.pizza)
        use_e = min(toys - use_t + pizza - use_p, step.either)
        useful = use_t + use_p + use_e
    else:
        useful = 0
    v += w.useful * useful + w.surplus * (toys + pizza - useful)
    if w.pack:
        v += w.pack * (pack_p + pack_t)
    if w.lookout:
        v += w.lookout * len(state.cards_in(LOOKOUT, p))
    if w.cards:
        v += w.cards * (len(owned_cards(state, p)) - STARTING_CARDS)
    if w.perks:
        v += w.perks * len(state.perks_held(p))
    v += w.rule * made_up_rule_points(state, p)
    if state.macaroni_holder == p:
        v += MACARONI_POINTS
    return v


def values(state: FortState, w: Weights = FITTED) -> list[float]:
    """:func:`seat_value` of every seat."""
    n = state.game.num_players
    if state.end_triggered:
        rows = state.score_breakdown()
        return [rows[p]["total"] + 0.1 * _estimate(state, p, w) for p in range(n)]
    return [_estimate(state, p, w) for p in range(n)]


def seat_value(state: FortState, p: int, w: Weights = FITTED) -> float:
    """Seat ``p``'s estimated standing in points (module docstring)."""
    return values(state, w)[p]


def evaluate_all(state: FortState, w: Weights = FITTED) -> list[float]:
    """:func:`evaluate` of every seat (one pass over the state)."""
    n = state.game.num_players
    if state.is_terminal():
        winners = set(state.winners())
        return [1.0 if p in winners else 0.0 for p in range(n)]
    v = values(state, w)
    scale = w.end_scale if state.end_triggered else w.scale
    out = []
    for p in range(n):
        lead = v[p] - max(v[q] for q in range(n) if q != p)
        out.append(1.0 / (1.0 + math.exp(-lead / scale)))
    return out


def evaluate(state: FortState, p: int, w: Weights = FITTED) -> float:
    """How good ``state`` is for seat ``p``, in ``[0, 1]`` (module docstring)."""
    return evaluate_all(state, w)[p]
