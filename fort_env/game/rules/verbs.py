"""The verbs of the action language: whether a step can be done now (its status) and
carrying out the steps that need no choice (rulebook p.12-15), with the small state changes
and costs of the steps (``resource_of``, ``cost``, ``payable``, ``gain``, ``copy_from``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fort_env.game import actions as A
from fort_env.game import verb_table
from fort_env.game.cards import (
    ADVANCE,
    ANY_RESOURCE,
    CONVERT,
    COPY_PACK,
    COPY_RIVAL_PACK,
    GATHER,
    LOOKOUT_V,
    MULT_FORT_LEVEL,
    MULT_LOOKOUT_SIZE,
    MULT_PACK_SIZE,
    PACK,
    RECRUIT,
    SCORE,
    SPEND,
    TRASH_RIVAL,
    TRASH_THIS,
    TRASH_V,
    VERBS,
    Effect,
    single_step,
)
from fort_env.game.constants import (
    BRIBE,
    DISCARD,
    HAND,
    LOOKOUT,
    MAX_FORT_LEVEL,
    PARK,
    PIZZA,
    STICKY_FINGERS,
    STUFF_CAPACITY,
    TOYS,
    YARD,
)
from fort_env.game.facts import advance_cost
from fort_env.game.fields import (
    C_CONVERT_FROM,
    C_FOLLOW_TRASH,
    C_PAY_EITHER,
    C_PAY_PIZZA,
    C_PAY_TOYS,
    C_PROGRAM_FAILED,
    C_PROGRAM_FULL,
    C_RESOURCE_CHOICE,
    C_STAGE,
    C_TRASH_THIS,
    P_FORT_LEVEL,
    P_PACK_PIZZA,
    P_PACK_TOYS,
    P_SCORE,
    P_STUFF_PIZZA,
    P_STUFF_TOYS,
)
from fort_env.game.rules import base
from fort_env.game.rules.base import FULL, NONE, PARTIAL, K
from fort_env.game.stages import ST_FOLLOW_RUN
from fort_env.game.state_arrays import StateArrays

# What a step's status (can it be done now?) reads, and what doing a step can change, for the
# player doing it: the tags below name parts of the state (verb_table.TAGS, in order).
STUFF, PACK_TAG, LEVEL, PERK_TAG, HAND_TAG, DISCARD_TAG, LOOKOUT_TAG, PARK_TAG, YARDS = range(9)
assert len(verb_table.TAGS) == 9
ALL_TAGS = frozenset(range(len(verb_table.TAGS)))


@dataclass(frozen=True)
class VerbRule:
    """One verb of the action language (docs/cards.md): the facts the engine needs about it.

    ``reads``: what its status (``atom_status``) reads; ``changes``: what doing it can change;
    ``decision``: the decision it asks once reached (None: carried out at once by ``do_atom``,
    else resolved by that decision's handler in ``handlers.py``); ``one_step``: once it can
    start, it is used fully whatever is chosen in it.
    """

    reads: frozenset[int]
    changes: frozenset[int]
    decision: int | None
    one_step: bool = False


def _tags(names: tuple[str, ...]) -> frozenset[int]:
    return frozenset(verb_table.TAGS.index(name) for name in names)


# verb code -> its row of the verb table
VERB_RULES: dict[int, VerbRule] = {
    code: VerbRule(
        _tags(v.reads),
        _tags(v.changes),
        None if v.decision is None else int(getattr(K, v.decision)),
        v.one_step,
    )
    for code, v in enumerate(verb_table.VERBS)
}
# The table's columns, for the hot paths
STATUS_READS = {verb: rule.reads for verb, rule in VERB_RULES.items()}
STEP_CHANGES = {verb: rule.changes for verb, rule in VERB_RULES.items()}
ONE_STEP_VERBS = frozenset(verb for verb, rule in VERB_RULES.items() if rule.one_step)
VERB_DECISION = {verb: rule.decision for verb, rule in VERB_RULES.items() if rule.decision}
# what a multiplier's count reads (suits in play cannot change once the actions start)
COUNT_READS = {MULT_FORT_LEVEL: frozenset((LEVEL,)), MULT_PACK_SIZE: frozenset((PACK_TAG,)),
               MULT_LOOKOUT_SIZE: frozenset((LOOKOUT_TAG,))}  # fmt: skip


def plain_reads(effect: Effect | None) -> frozenset[int]:
    """What a one-step action (``ATOM`` or ``REPEAT`` of one) reads to be done fully: its
    step's status and its count; everything for any other shape."""
    step = single_step(effect)
    if step is None:
        return ALL_TAGS
    verb, _arg, mult, _mult_arg = step
    return STATUS_READS[verb] | COUNT_READS.get(mult, frozenset())


def atom_status(state: StateArrays, p: int, verb: int, arg: int) -> int:
    """Whether an atom can be done now: FULL, PARTIAL (copying part of a Pack) or NONE."""
    pl = state.players[p]
    if verb == GATHER:
        rs = (
            (PIZZA, TOYS)
            if arg == ANY_RESOURCE and state.ctx[C_RESOURCE_CHOICE] < 0
            else (resource_of(state, arg),)
        )
        return FULL if any(pl[P_STUFF_PIZZA + r] < STUFF_CAPACITY for r in rs) else NONE
    if verb in (SCORE, TRASH_THIS):
        return FULL
    if verb == PACK:
        if pl[P_PACK_PIZZA] + pl[P_PACK_TOYS] >= base.pack_capacity(state, p):
            return NONE
        sticky = base.has_perk(state, p, STICKY_FINGERS) and base.is_leader(state, p)
        return FULL if sticky or pl[P_STUFF_PIZZA] + pl[P_STUFF_TOYS] > 0 else NONE
    if verb == LOOKOUT_V:
        if state.count_in(LOOKOUT, p) >= base.lookout_capacity(state, p):
            return NONE
        # Recycling, usable at this step's decision, can bring a card to hand (R15)
        return FULL if len(lookout_sources(state, p)) or base.can_recycle(state, p) else NONE
    if verb == TRASH_V:
        return FULL if len(trash_sources(state, p)) else NONE
    if verb == RECRUIT:
        return FULL if base.recruit_options(state, p, yards=True) else NONE
    if verb == ADVANCE:
        if state.ctx[C_PAY_TOYS] + state.ctx[C_PAY_PIZZA] + state.ctx[C_PAY_EITHER] > 0:
            return FULL  # a payment under way
        if pl[P_FORT_LEVEL] >= MAX_FORT_LEVEL:
            return NONE
        t, z, e = cost(state, p, arg)
        return FULL if payable(state, p, t, z, e) else NONE
    if verb == SPEND:
        rs = (
            (PIZZA, TOYS)
            if arg == ANY_RESOURCE and state.ctx[C_RESOURCE_CHOICE] < 0
            else (resource_of(state, arg),)
        )
        return FULL if any(pl[P_STUFF_PIZZA + r] + pl[P_PACK_PIZZA + r] > 0 for r in rs) else NONE
    if verb == TRASH_RIVAL:
        return FULL if any(state.count_in(YARD, r) for r in base.rivals(state, p)) else NONE
    if verb == COPY_PACK:
        return copy_status(state, p, p)
    if verb == COPY_RIVAL_PACK:
        best = NONE
        for r in base.rivals(state, p):
            best = max(best, copy_status(state, p, r))
        return best
    if verb == CONVERT:
        return FULL if convert_options(state, p) else NONE
    raise AssertionError(VERBS[verb])


def copy_status(state: StateArrays, p: int, source: int) -> int:
    pl, src = state.players[p], state.players[source]
    want = (int(src[P_PACK_PIZZA]), int(src[P_PACK_TOYS]))
    if sum(want) == 0:
        return NONE  # copying an empty Pack changes nothing: not a use (docs/rules.md)
    room = (STUFF_CAPACITY - int(pl[P_STUFF_PIZZA]), STUFF_CAPACITY - int(pl[P_STUFF_TOYS]))
    if all(w <= r for w, r in zip(want, room, strict=True)):
        return FULL
    return PARTIAL if any(min(w, r) > 0 for w, r in zip(want, room, strict=True)) else NONE


def lookout_sources(state: StateArrays, p: int) -> list[int]:
    """Cards that may be tucked: hand, plus Park and every Yard with Bribe (p.16)."""
    out = [int(c) for c in state.cards_in(HAND, p)]
    if base.has_perk(state, p, BRIBE) and base.is_leader(state, p):
        out += [int(c) for c in ((state.zone == PARK) | (state.zone == YARD)).nonzero()[0]]
        top = base.top_of_park_deck(state)
        if top >= 0:
            out.append(-1)  # the Park deck's top card
    return out


def trash_sources(state: StateArrays, p: int) -> np.ndarray:
    return (((state.zone == HAND) | (state.zone == DISCARD)) & (state.owner == p)).nonzero()[0]


def convert_options(state: StateArrays, p: int) -> list[int]:
    pl = state.players[p]
    out = []
    for i, (src, in_pack) in enumerate(A.CONVERT_OPTIONS):
        if state.ctx[C_CONVERT_FROM] >= 0 and state.ctx[C_CONVERT_FROM] != src:
            continue
        dst = 1 - src
        if in_pack:
            ok = pl[P_PACK_PIZZA + src] > 0
        else:
            ok = pl[P_STUFF_PIZZA + src] > 0 and pl[P_STUFF_PIZZA + dst] < STUFF_CAPACITY
        if ok:
            out.append(i)
    return out


def do_atom(state: StateArrays, p: int, verb: int, arg: int) -> None:
    """Carry out an atom that needs no choice."""
    if verb == GATHER:
        gain(state, p, resource_of(state, arg), 1)
    elif verb == SCORE:
        state.players[p, P_SCORE] += 1
    elif verb == TRASH_THIS:
        if state.ctx[C_STAGE] == ST_FOLLOW_RUN:
            state.ctx[C_FOLLOW_TRASH] = 1
        else:
            state.ctx[C_TRASH_THIS] = 1
    elif verb == COPY_PACK:
        copy_from(state, p, p)
    else:
        raise AssertionError(VERBS[verb])


# The state changes and costs of the steps. They were the program interpreter's
# (program.py), but verbs need them (a step's status, do_atom) and the interpreter needs the
# verbs: they live with the verbs, so that program.py imports verbs.py and not the reverse.
def resource_of(state: StateArrays, arg: int) -> int:
    return int(state.ctx[C_RESOURCE_CHOICE]) if arg == ANY_RESOURCE else arg


def cost(state: StateArrays, p: int, modifier: int) -> tuple[int, int, int]:
    """``(toys, pizza, either)`` for ``p`` to advance from the current Fort Level with the
    card's cost modifier (``game.advance_cost``, R25)."""
    return advance_cost(state.game.fort_steps[int(state.players[p, P_FORT_LEVEL])], modifier)


def payable(state: StateArrays, p: int, t: int, z: int, e: int) -> bool:
    pl = state.players[p]
    toys = int(pl[P_STUFF_TOYS] + pl[P_PACK_TOYS])
    pizza = int(pl[P_STUFF_PIZZA] + pl[P_PACK_PIZZA])
    return toys >= t and pizza >= z and toys + pizza >= t + z + e


def gain(state: StateArrays, p: int, r: int, n: int) -> None:
    col = P_STUFF_PIZZA + r
    state.players[p, col] = min(STUFF_CAPACITY, int(state.players[p, col]) + n)


def copy_from(state: StateArrays, p: int, source: int) -> None:
    status = copy_status(state, p, source)
    gain(state, p, PIZZA, int(state.players[source, P_PACK_PIZZA]))
    gain(state, p, TOYS, int(state.players[source, P_PACK_TOYS]))
    if status != FULL and state.ctx[C_PROGRAM_FULL]:
        state.ctx[C_PROGRAM_FAILED] = 1
