"""Local legality: the actions the rules allow at the pending decision, before the search
that removes those after which the play cannot be completed (``search.py``): one row of the
table ``LEGAL`` per decision kind.
"""

from __future__ import annotations

from collections.abc import Callable

from fort_env.game import actions as A
from fort_env.game import verb_table
from fort_env.game.cards import GATHER, MULT_ANY_SUIT, MULT_SUIT, multipliers
from fort_env.game.constants import (
    COIN,
    DISCARD,
    DIY,
    DRAFT_PACK,
    HAND,
    IN_STACK,
    MAX_FORT_LEVEL,
    NUM_SUITS,
    PARK,
    PARK_DECK,
    PIZZA,
    STICKY_FINGERS,
    STUFF_CAPACITY,
    TOYS,
    YARD,
)
from fort_env.game.fields import (
    C_ACTOR,
    C_ANY_SUIT_PRIVATE,
    C_ANY_SUIT_PUBLIC,
    C_DECISION,
    C_MODE,
    C_PAY_EITHER,
    C_PAY_PIZZA,
    C_PAY_TOYS,
    C_PC,
    C_PLAYED_CARD,
    C_PLAYS,
    C_PROGRAM_FULL,
    C_STAGE,
    P_FORT_LEVEL,
    P_PACK_PIZZA,
    P_STUFF_PIZZA,
    PROG_ARG,
    PROG_VERB,
)
from fort_env.game.rules import base, flow, verbs
from fort_env.game.rules.base import NONE, RECYCLE_STAGES, K
from fort_env.game.state_arrays import StateArrays


def raw_legal(state: StateArrays) -> list[int]:
    """Actions allowed by the local rules of the pending decision, before the search
    that removes those after which the play cannot be completed (``LEGAL``), then Recycling
    where the leader may use it (``recycle_rows``)."""
    rows = LEGAL.get(int(state.ctx[C_DECISION]))
    if rows is None:
        return []
    p = int(state.ctx[C_ACTOR])
    out = rows(state, p)
    if state.ctx[C_STAGE] in RECYCLE_STAGES and base.can_recycle(state, p):
        out += recycle_rows(state, p)
    return out


def recycle_rows(state: StateArrays, p: int) -> list[int]:
    """Recycling (p.16: "Anytime on your turn, you may trash this card to take a card from
    your discard pile and add it to your hand"): each card of ``p``'s discard pile, offered at
    every decision of the leader's own turn in ``base.RECYCLE_STAGES`` (docs/rules.md R15).
    The decision stays pending: it is asked again with the card in hand."""
    L = state.game.layout
    return [L.RECYCLE + int(c) for c in state.cards_in(DISCARD, p)]


def _play(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    out: list[int] = (state.cards_in(HAND, p) + L.PLAY_CARD).tolist()
    out.append(L.SKIP_PLAY)
    if (
        state.ctx[C_PLAYS] == 0
        and base.has_perk(state, p, DIY)
        and state.players[p, P_FORT_LEVEL] < MAX_FORT_LEVEL
    ):
        t, z, e = verbs.cost(state, p, 1)
        if verbs.payable(state, p, t, z, e):
            out.append(L.USE_DIY)
    return out  # Recycling: raw_legal


def _suit(state: StateArrays, p: int) -> list[int]:
    """DECLARE_COIN, ANY_SUIT: every suit."""
    L = state.game.layout
    return [L.SUIT + s for s in range(NUM_SUITS)]


def _mode(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    played = int(state.ctx[C_PLAYED_CARD])
    blank = [e is None for e in state.game.effects[played]]
    out = []
    for m, (first, second, _) in enumerate(A.MODE_PLAN):
        if not blank[first] and (second < 0 or not blank[second]):
            out.append(L.MODE + m)
    return out


def _resource(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    pc = int(state.ctx[C_PC])
    verb = int(state.prog[pc, PROG_VERB])
    pl = state.players[p]
    out = []
    for r in (PIZZA, TOYS):
        ok = (
            pl[P_STUFF_PIZZA + r] < STUFF_CAPACITY
            if verb == GATHER
            else pl[P_STUFF_PIZZA + r] + pl[P_PACK_PIZZA + r] > 0
        )
        if ok:
            out.append(L.RESOURCE + r)
    return out


def _pack(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    pl = state.players[p]
    sticky = base.has_perk(state, p, STICKY_FINGERS) and base.is_leader(state, p)
    out = []
    for i, (r, supply) in enumerate(A.PACK_OPTIONS):
        if (supply and sticky) or (not supply and pl[P_STUFF_PIZZA + r] > 0):
            out.append(L.PACK_FROM + i)
    return out


def _lookout(state: StateArrays, p: int) -> list[int]:
    """LOOKOUT: the cards that may be tucked (``verbs.lookout_sources``). With none, the step
    was reached because Recycling can bring one to hand (``raw_legal`` adds it): in the action
    used partially the leader may instead pass, and the step is skipped as one that cannot be
    done (R3, R15); in the action used fully it must be done."""
    L = state.game.layout
    out = [
        L.LOOKOUT_PARK_DECK if c < 0 else L.LOOKOUT_CARD + c
        for c in verbs.lookout_sources(state, p)
    ]
    if not out and not state.ctx[C_PROGRAM_FULL]:
        out.append(L.PASS)
    return out


def _trash(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    return [L.TRASH_CARD + int(c) for c in verbs.trash_sources(state, p)]


def _recruit(state: StateArrays, p: int) -> list[int]:
    """RECRUIT (the Recruit phase or step), BIRTHDAY (Birthday Party's extra recruit)."""
    L = state.game.layout
    kind = int(state.ctx[C_DECISION])
    zone = state.zone
    where = zone == PARK
    if kind == K.RECRUIT:  # and every rival's Yard
        where |= (zone == YARD) & (state.owner != p)
    out: list[int] = (where.nonzero()[0] + L.RECRUIT_CARD).tolist()
    if (state.zone == PARK_DECK).any():
        out.append(L.RECRUIT_PARK_DECK)
    if kind == K.BIRTHDAY:
        out.append(L.PASS)
    return out


def _pay(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    pl = state.players[p]
    t, z, e = (
        int(state.ctx[C_PAY_TOYS]),
        int(state.ctx[C_PAY_PIZZA]),
        int(state.ctx[C_PAY_EITHER]),
    )
    out = []
    for i, (r, from_pack) in enumerate(A.PAY_OPTIONS):
        col = (P_PACK_PIZZA if from_pack else P_STUFF_PIZZA) + r
        if pl[col] == 0:
            continue
        fixed = t if r == TOYS else z
        if fixed == 0 and e == 0:
            continue
        # after paying this unit, the rest must still be payable
        nt, nz, ne = (
            (t - 1 if r == TOYS and t else t),
            (z - 1 if r == PIZZA and z else z),
            e,
        )
        if (r == TOYS and not t) or (r == PIZZA and not z):
            ne = e - 1
        pl[col] -= 1
        ok = verbs.payable(state, p, nt, nz, ne)
        pl[col] += 1
        if ok:
            out.append(L.PAY + i)
    return out


def _spend(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    pl = state.players[p]
    r_fixed = verbs.resource_of(state, int(state.prog[int(state.ctx[C_PC]), PROG_ARG]))
    out = []
    for i, (r, from_pack) in enumerate(A.PAY_OPTIONS):
        if r == r_fixed and pl[(P_PACK_PIZZA if from_pack else P_STUFF_PIZZA) + r] > 0:
            out.append(L.SPEND_FROM + i)
    return out


def _trash_rival(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    rivals_yards = (state.zone == YARD) & (state.owner != p)
    out: list[int] = (rivals_yards.nonzero()[0] + L.TRASH_RIVAL_CARD).tolist()
    return out


def _copy_rival(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    return [
        L.COPY_RIVAL + k
        for k, r in enumerate(base.rivals(state, p))
        if verbs.copy_status(state, p, r) != NONE
    ]


def _convert(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    return [L.CONVERT + i for i in verbs.convert_options(state, p)]


def _pick_rule(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    return [L.PICK_RULE + int(i) for i in (state.rule_loc == IN_STACK).nonzero()[0]]


def _pick_perk(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    return [L.PICK_PERK + int(i) for i in (state.perk_loc == IN_STACK).nonzero()[0]]


def _follow(state: StateArrays, p: int) -> list[int]:
    """FOLLOW, FOLLOW_SECOND: a hand card matching a suit of the leader's card, or pass."""
    L = state.game.layout
    match = set(flow.leader_suits(state))
    suit_lists = state.game.suit_lists
    out = []
    for c in state.cards_in(HAND, p):
        if any(s == COIN or s in match for s in suit_lists[c]):
            out.append(L.FOLLOW_CARD + int(c))
    out.append(L.PASS)
    return out


def _rough_housing(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    return [L.ROUGH_HOUSE, L.PASS]


def _do_over(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    return [L.DO_OVER, L.PASS]


def _stop_or_continue(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    return [L.STOP_ACTION, L.CONTINUE_ACTION]


def _draft(state: StateArrays, p: int) -> list[int]:
    L = state.game.layout
    return [L.DRAFT_CARD + int(c) for c in state.cards_in(DRAFT_PACK, p)]


LegalRows = Callable[[StateArrays, int], list[int]]
# Decision kind -> its locally legal actions, called as ``rows(state, acting seat)``: the rows
# function ``_<rows>`` above named by its row of ``verb_table.DECISIONS`` (tables, not branches:
# as ``handlers.HANDLERS`` applies them; C++: cpp/src/rules/dispatch.cc). TERMINAL has none.
# The rows of ADD and ADD_COIN are the search's (``"search"``: ``search.add_rows``,
# ``search.add_coin_rows``): an added card must change the outcome (p.7, R7), which a probe
# search decides, and the search lists raw-legal actions itself, so search.py fills them in when
# it is imported (as fort_env.core does) and asserts that every kind has its row.
LEGAL: dict[int, LegalRows] = {
    code: globals()[f"_{d.rows}"]
    for code, d in enumerate(verb_table.DECISIONS)
    if d.rows is not None and d.rows != "search"
}


def useful_suits(state: StateArrays) -> list[int]:
    """Suits counted by a used action of the played card (its "x suit" and any-one-suit)."""
    played = int(state.ctx[C_PLAYED_CARD])
    out: list[int] = []
    for side in flow.used_sides(state):
        for mult, arg in multipliers(state.game.effects[played][side]):
            s = arg if mult == MULT_SUIT else -1
            if mult == MULT_ANY_SUIT:
                s = int(state.ctx[C_ANY_SUIT_PUBLIC if side == A.PUBLIC else C_ANY_SUIT_PRIVATE])
            if s >= 0 and s not in out:
                out.append(s)
    return out


def fully_counted(state: StateArrays) -> list[int]:
    """Suits counted by the action used fully (its "x suit" and any-one-suit)."""
    full_side = A.MODE_PLAN[int(state.ctx[C_MODE])][2]
    any_suit = int(state.ctx[C_ANY_SUIT_PUBLIC if full_side == A.PUBLIC else C_ANY_SUIT_PRIVATE])
    out: list[int] = []
    for mult, arg in multipliers(state.game.effects[int(state.ctx[C_PLAYED_CARD])][full_side]):
        s = arg if mult == MULT_SUIT else any_suit if mult == MULT_ANY_SUIT else -1
        if s >= 0 and s not in out:
            out.append(s)
    return out
