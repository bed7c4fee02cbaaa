"""The action-program interpreter: an action is unrolled into steps ``(verb, arg, req_lo,
req_hi)`` with its multipliers counted when it starts (docs/rules.md), then carried out step
by step until one needs a choice ("then" chains, p.14; the other action skips what cannot be
done and may be stopped after a step, p.6, docs/rules.md R3).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from fort_env.game import actions as A
from fort_env.game.cards import (
    ANY_RESOURCE,
    ATOM,
    GATHER,
    MULT_ANY_SUIT,
    MULT_CONST,
    MULT_FORT_LEVEL,
    MULT_LOOKOUT_SIZE,
    MULT_PACK_SIZE,
    MULT_SUIT,
    SPEND,
    THEN,
    Effect,
)
from fort_env.game.constants import (
    COIN,
    IN_STACK,
    LOOKOUT,
    MAX_FORT_LEVEL,
)
from fort_env.game.errors import StateError
from fort_env.game.fields import (
    C_ANY_SUIT_PRIVATE,
    C_ANY_SUIT_PUBLIC,
    C_BOTH_FULL,
    C_CONTINUE_PC,
    C_CONVERT_FROM,
    C_COPIED,
    C_MODE,
    C_PAY_EITHER,
    C_PAY_PIZZA,
    C_PAY_TOYS,
    C_PC,
    C_PLAYED_CARD,
    C_PROGRAM_FAILED,
    C_PROGRAM_FULL,
    C_PROGRAM_LENGTH,
    C_PROGRAM_OWNER,
    C_PROGRAM_SIDE,
    C_RESOURCE_CHOICE,
    C_REWARD,
    C_SCULPTURE,
    C_SERIAL,
    C_STAGE,
    NUM_PROG_COLUMNS,
    P_FORT_LEVEL,
    P_PACK_PIZZA,
    P_PACK_TOYS,
    PROG_REQ_HI,
    PROG_REQ_LO,
)
from fort_env.game.rules import base, verbs
from fort_env.game.rules.base import (
    FULL,
    NONE,
    REWARD_PERK,
    REWARD_RULE,
    K,
    mults,
    repeats_plain_body,
)
from fort_env.game.rules.verbs import VERB_DECISION, cost  # program.cost: kept for callers
from fort_env.game.stages import ST_ACTION, ST_PROBE, ST_PROBE_DONE
from fort_env.game.state_arrays import MAX_STEPS, StateArrays

# Unrolled programs by (effect tree, multiplier counts): a cache of the pure function
# ``unroll``. Effect trees are plain tuples, so equal trees share entries whatever card set they
# come from; the arrays are read-only, shared by every state that runs them. Bounded.
PROGRAM_CACHE_LIMIT = 50_000
_program_cache: dict[tuple[Effect | None, tuple[int, ...]], tuple[np.ndarray, int]] = {}


def count_for(
    state: StateArrays, mult: int, arg: int, p: int, suits: np.ndarray, any_suit: int
) -> int:
    if mult == MULT_CONST:
        return arg
    if mult == MULT_SUIT:
        return int(suits[arg])
    if mult == MULT_ANY_SUIT:
        return int(suits[any_suit]) if any_suit >= 0 else 0
    if mult == MULT_FORT_LEVEL:
        return int(state.players[p, P_FORT_LEVEL])
    if mult == MULT_PACK_SIZE:
        return int(state.players[p, P_PACK_PIZZA] + state.players[p, P_PACK_TOYS])
    if mult == MULT_LOOKOUT_SIZE:
        return state.count_in(LOOKOUT, p)
    raise AssertionError(mult)


def load_program(
    state: StateArrays,
    effect: Effect | None,
    p: int,
    side: int,
    full: bool,
    suits: np.ndarray,
    any_suit: int,
) -> None:
    """Unroll an action into steps ``(verb, arg, req_lo, req_hi)``, counts fixed now.

    Multipliers are evaluated when the action starts (docs/rules.md). A step whose
    ``req`` range is set happens only if some step of that range was done ("then", p.14).
    """
    counts = tuple(count_for(state, m, a, p, suits, any_suit) for m, a in mults(effect))
    key = (effect, counts)
    cached = _program_cache.get(key)
    if cached is None:
        if len(_program_cache) >= PROGRAM_CACHE_LIMIT:
            _program_cache.clear()
        steps = unroll(effect, counts)
        # padded with zero rows (equal states compare equal after a round trip) and
        # read-only: states share it, and clone() does not copy it
        padded = np.zeros((MAX_STEPS, NUM_PROG_COLUMNS), dtype=np.int16)
        padded[: len(steps)] = steps
        padded.flags.writeable = False
        cached = _program_cache[key] = (padded, len(steps))
    state.prog, n = cached
    state.done[:] = 0
    state.ctx[C_PROGRAM_LENGTH] = n
    state.ctx[C_PC] = 0
    state.ctx[C_PROGRAM_FULL] = int(full)
    state.ctx[C_PROGRAM_OWNER] = p
    state.ctx[C_PROGRAM_SIDE] = side
    state.ctx[C_PROGRAM_FAILED] = 0
    state.ctx[C_RESOURCE_CHOICE] = -1
    state.ctx[C_CONVERT_FROM] = -1
    state.ctx[C_REWARD] = 0
    state.ctx[C_COPIED] = 0
    state.ctx[C_CONTINUE_PC] = -1
    if full and n == 0:  # a blank (or x 0) action cannot be used fully (p.7 FAQ)
        state.ctx[C_PROGRAM_FAILED] = 1


def unroll(effect: Effect | None, counts: tuple[int, ...]) -> np.ndarray:
    """The steps of an action given its multipliers' counts (in ``multipliers`` order:
    pre-order, so every repetition of a nested multiplier reads the same count)."""
    steps: list[list[int]] = []
    fixed: dict[int, int] = {}
    order = iter(counts)

    def assign(node: Effect | None) -> None:  # same walk as cards.multipliers
        if node is None or node[0] == ATOM:
            return
        if node[0] == THEN:
            assign(node[1])
            assign(node[2])
        else:
            fixed[id(node)] = next(order)
            assign(node[1])

    assign(effect)

    def count_of(node: Effect) -> int:
        return fixed[id(node)]

    def emit(node: Effect) -> tuple[int, int]:
        start = len(steps)
        if node[0] == ATOM:
            steps.append([node[1], node[2], -1, -1])  # PROG_COLUMNS' order
        elif node[0] == THEN:
            lo, hi = emit(node[1])
            r0, r1 = emit(node[2])
            for st in steps[r0:r1]:
                if st[PROG_REQ_LO] < 0:
                    st[PROG_REQ_LO], st[PROG_REQ_HI] = lo, hi
        else:
            for _ in range(count_of(node)):
                emit(node[1])
        if len(steps) > MAX_STEPS:
            raise OverflowError(f"an action unrolls to more than {MAX_STEPS} steps")
        return start, len(steps)

    if effect is not None:
        emit(effect)
    return np.array(steps, dtype=np.int16).reshape(-1, NUM_PROG_COLUMNS)


def run_program(state: StateArrays) -> None:
    """Carry out steps until one needs a choice, or the action ends."""
    p = int(state.ctx[C_PROGRAM_OWNER])
    full = bool(state.ctx[C_PROGRAM_FULL])
    while True:
        if state.ctx[C_PROGRAM_FAILED]:
            return
        if state.ctx[C_REWARD]:
            base.set_decision(
                state, K.PICK_RULE if state.ctx[C_REWARD] == REWARD_RULE else K.PICK_PERK, p
            )
            return
        pc = int(state.ctx[C_PC])
        if pc >= state.ctx[C_PROGRAM_LENGTH]:
            program_done(state)
            return
        verb, arg, lo, hi = state.prog[pc].tolist()
        if lo >= 0 and not state.done[lo:hi].any():
            if full:
                state.ctx[C_PROGRAM_FAILED] = 1
                return
            state.ctx[C_PC] = pc + 1
            continue
        status = verbs.atom_status(state, p, verb, arg)
        if status != FULL and full:
            state.ctx[C_PROGRAM_FAILED] = 1
            return
        if status == NONE:
            state.ctx[C_PC] = pc + 1  # as far as it goes: skip what cannot be done
            continue
        if not full and state.ctx[C_CONTINUE_PC] != pc and may_stop_before(state, pc):
            base.set_decision(state, K.STOP_OR_CONTINUE, p)  # R3: stop here, or go on
            return
        decision = choice_needed(state, p, verb, arg)
        paying = state.ctx[C_PAY_TOYS] + state.ctx[C_PAY_PIZZA] + state.ctx[C_PAY_EITHER] > 0
        if decision == K.PAY and not paying and start_payment(state, p, arg):
            continue  # a free step: already levelled up
        if decision is not None:
            base.set_decision(state, decision, p)
            return
        verbs.do_atom(state, p, verb, arg)
        step_done(state)


def may_stop_before(state: StateArrays, pc: int) -> bool:
    """Whether the leader may stop the action used partially before step ``pc``, a step
    that can be done now (p.6: "you can use the other action partially or fully";
    docs/rules.md R3).

    Offered only in the leader's own play (a follower uses the public action fully, R11),
    outside the legality probes, once some step of the action was done (stopping before the
    first step is the same play as the mode that leaves this action out), and never where
    stopping would break a rule: when a "then" whose left side was done still has its right
    side ahead (p.14: it must then be done if it can), or when a card was added that counts
    only for this action (p.7: an added card must change the effect of an action you use).
    """
    if state.ctx[C_STAGE] != ST_ACTION or state.ctx[C_BOTH_FULL]:
        return False
    done = state.done
    if not done[:pc].any():
        return False
    prog = state.prog
    for k in range(pc, int(state.ctx[C_PROGRAM_LENGTH])):
        lo, hi = int(prog[k, PROG_REQ_LO]), int(prog[k, PROG_REQ_HI])
        if 0 <= lo < pc and done[lo : min(hi, pc)].any():
            return False  # the right side of a "then" already begun is still to come
    return not added_only_for_this_action(state)


def added_only_for_this_action(state: StateArrays) -> bool:
    """Whether a card added to the play (from hand or Lookout) has no suit counted by the
    action used fully, so that only the running (partial) action justifies it (p.7)."""
    played = int(state.ctx[C_PLAYED_CARD])
    full_side = A.MODE_PLAN[int(state.ctx[C_MODE])][2]
    counted = set()
    for mult, arg in mults(state.game.effects[played][full_side]):
        if mult == MULT_SUIT:
            counted.add(arg)
        elif mult == MULT_ANY_SUIT:
            counted.add(
                int(state.ctx[C_ANY_SUIT_PUBLIC if full_side == A.PUBLIC else C_ANY_SUIT_PRIVATE])
            )
    suit_lists, coin_as = state.game.suit_lists, state.coin_as
    for c in state.mark.nonzero()[0].tolist():
        suits = {coin_as[c] if s == COIN else s for s in suit_lists[c]}
        if not suits & counted:
            return True
    return False


def step_done(state: StateArrays) -> None:
    pc = int(state.ctx[C_PC])
    state.done[pc] = 1
    state.ctx[C_PC] = pc + 1


# as cpp/include/fort/game/errors.h
PROGRAM_IN_NO_STAGE = (
    "an action's program ended in a stage that runs none (a position the rules cannot reach)"
)


def program_done(state: StateArrays) -> None:
    """The running action has ended: go on as the stage that ran it says (``PROGRAM_DONE``)."""
    stage = state.ctx[C_STAGE]
    then = PROGRAM_DONE.get(stage)
    if then is None:
        raise StateError("ctx.stage", PROGRAM_IN_NO_STAGE)  # a state written from outside
    then(state)


def probe_done(state: StateArrays) -> None:
    """A witness run (``witness.runs_straight_through``) used its action fully."""
    state.ctx[C_STAGE] = ST_PROBE_DONE
    state.ctx[C_SERIAL] += 1


# What follows the end of an action, by the stage that ran it (``program_done``). The turn flow
# starts the leader's actions (ST_ACTION) and the follows (ST_FOLLOW_RUN), so it goes on after
# them too; flow.py imports this module to run programs, so it fills in those rows itself
# (``flow.end_action``, ``flow.end_follow``) rather than being called from here.
PROGRAM_DONE: dict[int, Callable[[StateArrays], None]] = {ST_PROBE: probe_done}


def repetition_used(state: StateArrays, first: int) -> bool:
    """Whether some step of repetition ``first`` (0-based) of the running action, or of a
    later one, was carried out: the action is one plain body repeated
    (``base.repeats_plain_body``), so repetition ``k`` is steps ``k * len(body)`` on. In a
    probe (no stop, R3) a repetition none of whose steps can be done changes nothing, so
    no later one can be done either: this is "repetition ``first`` was used"."""
    effect = state.game.effects[int(state.ctx[C_PLAYED_CARD])][int(state.ctx[C_PROGRAM_SIDE])]
    assert effect is not None and repeats_plain_body(effect)
    body = len(unroll(effect[1], ()))
    end = int(state.ctx[C_PROGRAM_LENGTH])
    return bool(state.done[first * body : end].any())


def choice_needed(state: StateArrays, p: int, verb: int, arg: int) -> int | None:
    if verb in (GATHER, SPEND) and arg == ANY_RESOURCE and state.ctx[C_RESOURCE_CHOICE] < 0:
        return K.RESOURCE
    if verb == SPEND:
        return K.SPEND
    return VERB_DECISION.get(verb)


def start_payment(state: StateArrays, p: int, modifier: int) -> bool:
    """Set the cost to pay; True if it is free (then the level is gained at once)."""
    t, z, e = cost(state, p, modifier)
    state.ctx[C_PAY_TOYS], state.ctx[C_PAY_PIZZA], state.ctx[C_PAY_EITHER] = t, z, e
    if t + z + e == 0:
        level_up(state, p)
        return True
    return False


def level_up(state: StateArrays, p: int) -> None:
    """Go up one Fort Level and take its reward (p.10)."""
    state.players[p, P_FORT_LEVEL] += 1
    level = int(state.players[p, P_FORT_LEVEL])
    if level == 1 and (state.rule_loc == IN_STACK).any() and not (state.rule_loc == p).any():
        state.ctx[C_REWARD] = REWARD_RULE
    elif level == 2 and (state.perk_loc == IN_STACK).any():
        state.ctx[C_REWARD] = REWARD_PERK
    elif level == MAX_FORT_LEVEL and state.ctx[C_SCULPTURE] < 0:
        state.ctx[C_SCULPTURE] = p
    step_done(state)
