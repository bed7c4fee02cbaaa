"""Local legality: the actions the rules allow at the pending decision, before the search
that removes those after which the play cannot be completed (``search.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import actions as A
from ..cards import (
    GATHER,
    MULT_ANY_SUIT,
    MULT_SUIT,
    multipliers,
)
from ..constants import (
    COIN,
    DISCARD,
    DIY,
    DRAFT_PACK,
    HAND,
    IN_STACK,
    LOOKOUT,
    MAX_FORT_LEVEL,
    NUM_SUITS,
    PARK,
    PARK_DECK,
    PIZZA,
    RECYCLING,
    STICKY_FINGERS,
    STUFF_CAPACITY,
    TOYS,
    YARD,
)
from ..state_arrays import (
    C_ACTOR,
    C_ANY_PRIV,
    C_ANY_PUB,
    C_BOTH_FULL,
    C_DECISION,
    C_LEADER,
    C_MODE,
    C_PAY_E,
    C_PAY_P,
    C_PAY_T,
    C_PC,
    C_PENDING_COIN,
    C_PLAYED,
    C_PLAYS,
    C_SERIAL,
    P_LEVEL,
    P_PACK_P,
    P_STUFF_P,
)
from . import base, flow, program, search, verbs
from .base import BOTH_FULL_TAIL, NONE, K, repeats_plain_body

if TYPE_CHECKING:
    from ..core import FortState


def raw_legal(state: FortState) -> list[int]:
    """Actions allowed by the local rules of the pending decision, before the search
    that removes those after which the play cannot be completed."""
    g, L = state.game, state.game.layout
    kind = int(state.ctx[C_DECISION])
    p = int(state.ctx[C_ACTOR])
    out: list[int] = []
    if kind == K.PLAY:
        out += (state.cards_in(HAND, p) + L.PLAY_CARD).tolist()
        out.append(L.SKIP_PLAY)
        if (
            state.ctx[C_PLAYS] == 0
            and base.has_perk(state, p, DIY)
            and state.players[p, P_LEVEL] < MAX_FORT_LEVEL
        ):
            t, z, e = program.cost(state, p, 1)
            if program.payable(state, p, t, z, e):
                out.append(L.USE_DIY)
        if base.has_perk(state, p, RECYCLING):
            out += [L.RECYCLE + int(c) for c in state.cards_in(DISCARD, p)]
    elif kind == K.DECLARE_COIN:
        out += [L.SUIT + s for s in range(NUM_SUITS)]
    elif kind == K.MODE:
        played = int(state.ctx[C_PLAYED])
        blank = [e is None for e in g.effects[played]]
        for m, (first, second, _) in enumerate(A.MODE_PLAN):
            if not blank[first] and (second < 0 or not blank[second]):
                out.append(L.MODE + m)
    elif kind == K.ANY_SUIT:
        out += [L.SUIT + s for s in range(NUM_SUITS)]
    elif kind == K.ADD:
        out += [L.ADD_CARD + c for c in addable(state)]
        out.append(L.STOP_ADDING)
    elif kind == K.ADD_COIN:
        cid = int(state.ctx[C_PENDING_COIN])
        useful = useful_suits(state)
        out += [L.SUIT + s for s in useful if changes_outcome_with(state, cid, s)]
    elif kind == K.RESOURCE:
        pc = int(state.ctx[C_PC])
        verb = int(state.prog[pc, 0])
        pl = state.players[p]
        for r in (PIZZA, TOYS):
            ok = (
                pl[P_STUFF_P + r] < STUFF_CAPACITY
                if verb == GATHER
                else pl[P_STUFF_P + r] + pl[P_PACK_P + r] > 0
            )
            if ok:
                out.append(L.RESOURCE + r)
    elif kind == K.PACK:
        pl = state.players[p]
        sticky = base.has_perk(state, p, STICKY_FINGERS) and base.is_leader(state, p)
        for i, (r, supply) in enumerate(A.PACK_OPTIONS):
            if (supply and sticky) or (not supply and pl[P_STUFF_P + r] > 0):
                out.append(L.PACK_FROM + i)
    elif kind == K.LOOKOUT:
        for c in verbs.lookout_sources(state, p):
            out.append(L.LOOKOUT_PARK_DECK if c < 0 else L.LOOKOUT_CARD + c)
    elif kind == K.TRASH:
        out += [L.TRASH_CARD + int(c) for c in verbs.trash_sources(state, p)]
    elif kind in (K.RECRUIT, K.BIRTHDAY):
        zone = state.zone
        where = zone == PARK
        if kind == K.RECRUIT:  # and every rival's Yard
            where |= (zone == YARD) & (state.owner != p)
        out += (where.nonzero()[0] + L.RECRUIT_CARD).tolist()
        if (state.zone == PARK_DECK).any():
            out.append(L.RECRUIT_PARK_DECK)
        if kind == K.BIRTHDAY:
            out.append(L.PASS)
    elif kind == K.PAY:
        pl = state.players[p]
        t, z, e = int(state.ctx[C_PAY_T]), int(state.ctx[C_PAY_P]), int(state.ctx[C_PAY_E])
        for i, (r, from_pack) in enumerate(A.PAY_OPTIONS):
            col = (P_PACK_P if from_pack else P_STUFF_P) + r
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
            ok = program.payable(state, p, nt, nz, ne)
            pl[col] += 1
            if ok:
                out.append(L.PAY + i)
    elif kind == K.SPEND:
        pl = state.players[p]
        r_fixed = program.resource_of(state, int(state.prog[int(state.ctx[C_PC]), 1]))
        for i, (r, from_pack) in enumerate(A.PAY_OPTIONS):
            if r == r_fixed and pl[(P_PACK_P if from_pack else P_STUFF_P) + r] > 0:
                out.append(L.SPEND_FROM + i)
    elif kind == K.TRASH_RIVAL:
        rivals_yards = (state.zone == YARD) & (state.owner != p)
        out += (rivals_yards.nonzero()[0] + L.TRASH_RIVAL_CARD).tolist()
    elif kind == K.COPY_RIVAL:
        for k, r in enumerate(base.rivals(state, p)):
            if verbs.copy_status(state, p, r) != NONE:
                out.append(L.COPY_RIVAL + k)
    elif kind == K.CONVERT:
        out += [L.CONVERT + i for i in verbs.convert_options(state, p)]
    elif kind == K.PICK_RULE:
        out += [L.PICK_RULE + int(i) for i in (state.rule_loc == IN_STACK).nonzero()[0]]
    elif kind == K.PICK_PERK:
        out += [L.PICK_PERK + int(i) for i in (state.perk_loc == IN_STACK).nonzero()[0]]
    elif kind == K.FOLLOW or kind == K.FOLLOW_SECOND:
        match = set(flow.leader_suits(state))
        for c in state.cards_in(HAND, p):
            if any(s == COIN or s in match for s in g.suit_lists[c]):
                out.append(L.FOLLOW_CARD + int(c))
        out.append(L.PASS)
    elif kind == K.ROUGH_HOUSING:
        out += [L.ROUGH_HOUSE, L.PASS]
    elif kind == K.DO_OVER:
        out += [L.DO_OVER, L.PASS]
    elif kind == K.STOP_OR_CONTINUE:
        out += [L.STOP_ACTION, L.CONTINUE_ACTION]
    elif kind == K.DRAFT:
        out += [L.DRAFT_CARD + int(c) for c in state.cards_in(DRAFT_PACK, p)]
    return out


def useful_suits(state: FortState) -> list[int]:
    """Suits counted by a used action of the played card (its "x suit" and any-one-suit)."""
    played = int(state.ctx[C_PLAYED])
    out: list[int] = []
    for side in flow.used_sides(state):
        for mult, arg in multipliers(state.game.effects[played][side]):
            s = arg if mult == MULT_SUIT else -1
            if mult == MULT_ANY_SUIT:
                s = int(state.ctx[C_ANY_PUB if side == A.PUBLIC else C_ANY_PRIV])
            if s >= 0 and s not in out:
                out.append(s)
    return out


def addable(state: FortState) -> list[int]:
    """Cards that may be added now: from hand or not-yet-added Lookout cards (p.6-7) whose
    suits change the outcome of a used action."""
    leader = int(state.ctx[C_LEADER])
    cands = (
        (state.owner == leader)
        & ((state.zone == HAND) | ((state.zone == LOOKOUT) & (state.mark == 0)))
    ).nonzero()[0]
    useful = useful_suits(state)
    ok_suit = {s: changes_outcome(state, s) for s in useful}
    out = []
    for c in cands:
        suits = state.game.suit_lists[c]
        if any(ok_suit[s] for s in useful if s in suits or COIN in suits):
            out.append(int(c))
    return out


def changes_outcome_with(state: FortState, card: int, suit: int) -> bool:
    return changes_outcome(state, suit)


def changes_outcome(state: FortState, suit: int) -> bool:
    """Whether one more ``suit`` changes what a used action does (p.7): it raises the
    count of the action used fully, or changes what the other one does as it is carried out.

    The action used fully is checked by the play search; the other by a probe run with one
    more ``suit``, in the play's order, the first action searched: when the other action is
    one step (or one "then" chain) repeated per suit, used as far as it goes, it changes if
    some step of its extra repetition can be carried out (``BOTH_FULL_TAIL``: Blitz's extra
    recruit with a full Stuff); for any other shape, if it can then be completed in full
    (docs/rules.md R7).
    """
    played = int(state.ctx[C_PLAYED])
    plan = A.MODE_PLAN[int(state.ctx[C_MODE])]
    for side in flow.used_sides(state):
        effect = state.game.effects[played][side]
        any_suit = int(state.ctx[C_ANY_PUB if side == A.PUBLIC else C_ANY_PRIV])
        counts = [
            (m == MULT_SUIT and a == suit) or (m == MULT_ANY_SUIT and any_suit == suit)
            for m, a in multipliers(effect)
        ]
        if not any(counts):
            continue
        if side == plan[2]:
            return True
        probe = state.clone()
        probe.play_suits[suit] += 1
        probe.ctx[C_BOTH_FULL] = BOTH_FULL_TAIL if repeats_plain_body(effect) else 1
        goal = int(probe.ctx[C_SERIAL])
        flow.start_action(probe, 0)
        if search.search(probe, goal):
            return True
    return False
