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
from . import base, flow, handlers, program, search, verbs
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
        # an added card's coin is "one suit of your choice" (p.7; README fact 1): any suit
        # with which one of the card's suits changes the outcome (R7)
        cid = int(state.ctx[C_PENDING_COIN])
        out += [L.SUIT + s for s in coin_suits(state, cid)]
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


def fully_counted(state: FortState) -> list[int]:
    """Suits counted by the action used fully (its "x suit" and any-one-suit)."""
    full_side = A.MODE_PLAN[int(state.ctx[C_MODE])][2]
    any_suit = int(state.ctx[C_ANY_PUB if full_side == A.PUBLIC else C_ANY_PRIV])
    out: list[int] = []
    for mult, arg in multipliers(state.game.effects[int(state.ctx[C_PLAYED])][full_side]):
        s = arg if mult == MULT_SUIT else any_suit if mult == MULT_ANY_SUIT else -1
        if s >= 0 and s not in out:
            out.append(s)
    return out


def addable(state: FortState) -> list[int]:
    """Cards that may be added now (p.6-7): from hand, or Lookout cards not yet added, one of
    whose suits (a coin: declared as some suit) changes the outcome of a used action
    (``changes_outcome``, judged on the play with the card added).

    Inside a legality probe (``ctx.both_full`` set) every card with a suit a used action
    counts, or a coin, may be added: the probe asks whether some completion exists in which
    its own card changes the outcome, and a further card that changes nothing there could
    be left out of it (it only takes a card out of the hand), so it needs no probe itself.
    In a probe whose other action runs second, used as far as it goes, only cards that raise
    the count of the action used fully are tried: one more repetition of the other action
    changes neither the first action nor the other's earlier repetitions.
    """
    leader = int(state.ctx[C_LEADER])
    cands = (
        (state.owner == leader)
        & ((state.zone == HAND) | ((state.zone == LOOKOUT) & (state.mark == 0)))
    ).nonzero()[0]
    useful = useful_suits(state)
    full = fully_counted(state)
    probing = int(state.ctx[C_BOTH_FULL])
    first, _, full_side = A.MODE_PLAN[int(state.ctx[C_MODE])]
    only_raising = probing >= BOTH_FULL_TAIL and full_side == first
    add_card = state.game.layout.ADD_CARD
    verdicts: dict[tuple[int, tuple[int, ...]], bool] = {}
    out = []
    for c in cands.tolist():
        suits = state.game.suit_lists[c]
        if not any(s == COIN or s in useful for s in suits):
            continue  # none of its suits serves a purpose (p.7)
        # a suit counted by the action used fully changes its count (a coin: declared so)
        raises_full = any(s != COIN and s in full for s in suits) or (COIN in suits and bool(full))
        if probing:
            if raises_full or not only_raising:
                out.append(c)
            continue
        if not raises_full:
            key = (int(state.zone[c]), tuple(suits))  # cards alike (search.equivalence_key)
            ok = verdicts.get(key)
            if ok is None:
                child = state.clone()
                handlers.apply(child, add_card + c)
                if child.ctx[C_DECISION] == K.ADD_COIN:
                    ok = bool(coin_suits(child, c))
                else:
                    ok = changes_outcome(child, c)
                verdicts[key] = ok
            if not ok:
                continue
        out.append(c)
    return out


def coin_suits(state: FortState, card: int) -> list[int]:
    """The suits ``card``'s coin may be declared as when it is added (ADD_COIN): "one suit of
    your choice" (README fact 1), such that one of the card's suits then changes the
    outcome (``changes_outcome_with``; every suit inside a legality probe, see ``addable``).
    Suits no used action counts share one verdict."""
    if state.ctx[C_BOTH_FULL]:
        return list(range(NUM_SUITS))
    useful = useful_suits(state)
    verdict: dict[int, bool] = {}
    out = []
    for s in range(NUM_SUITS):
        key = s if s in useful else -1
        if key not in verdict:
            verdict[key] = changes_outcome_with(state, card, s)
        if verdict[key]:
            out.append(s)
    return out


def changes_outcome_with(state: FortState, card: int, suit: int) -> bool:
    """Whether ``card``, being added (ADD_COIN: its coin not yet declared), changes the
    outcome with its coin declared as ``suit`` (``changes_outcome`` on that play)."""
    full, useful = fully_counted(state), useful_suits(state)
    plain = [s for s in state.game.suit_lists[card] if s != COIN]
    if suit in full or any(s in full for s in plain):
        return True  # it raises the count of the action used fully (as changes_outcome)
    if suit not in useful and not any(s in useful for s in plain):
        return False  # no used action counts any of its suits (as changes_outcome)
    child = state.clone()
    handlers.apply(child, state.game.layout.SUIT + suit)
    return changes_outcome(child, card)


def changes_outcome(state: FortState, card: int) -> bool:
    """Whether ``card``, just added (its coin declared; ``state`` at the ADD decision that
    follows), changes the effect of a used action (p.7: "at least one of its suits must
    change the effect of at least one action that you use"; docs/rules.md R7).

    A suit of the card counted by the action used fully raises its count: the play search
    then checks that it can still be completed. Else, for the action used partially that
    counts one of its suits, a probe searches the play from here (more cards may still be
    added, the first action's choices are searched): when that action is one step (or one
    "then" chain) repeated per suit, used as far as it goes, some step of the repetition
    the card brings must be carried out (``BOTH_FULL_TAIL + k``; Blitz's extra recruit with
    a full Stuff); for any other shape, both actions must be completed in full.

    Consumes the state (the probe runs on it): callers pass a copy they no longer need.
    """
    played = int(state.ctx[C_PLAYED])
    full_side = A.MODE_PLAN[int(state.ctx[C_MODE])][2]
    suits = [int(state.coin_as[card]) if s == COIN else s for s in state.game.suit_lists[card]]
    partial = None
    for side in flow.used_sides(state):
        effect = state.game.effects[played][side]
        any_suit = int(state.ctx[C_ANY_PUB if side == A.PUBLIC else C_ANY_PRIV])
        counted = [
            s
            for s in suits
            if any(
                (m == MULT_SUIT and a == s) or (m == MULT_ANY_SUIT and any_suit == s)
                for m, a in multipliers(effect)
            )
        ]
        if not counted:
            continue
        if side == full_side:
            return True
        partial = (effect, counted[0])
    if partial is None:
        return False
    effect, suit = partial
    if repeats_plain_body(effect):
        # its one multiplier counts `suit`; the card's repetitions come last
        first = int(state.play_suits[suit]) - suits.count(suit)
        state.ctx[C_BOTH_FULL] = BOTH_FULL_TAIL + first
    else:
        state.ctx[C_BOTH_FULL] = 1
    return search.search(state, int(state.ctx[C_SERIAL]))
