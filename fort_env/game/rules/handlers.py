"""Applying an action: one handler per action range (``fort_env.game.actions``), found through the
table ``HANDLERS`` (built from the rows of ``verb_table.RANGES``).
"""

from __future__ import annotations

from typing import cast

from fort_env.game import actions as A
from fort_env.game import verb_table
from fort_env.game.cards import ADVANCE, ATOM
from fort_env.game.constants import (
    COIN,
    COPY_CAT,
    DISCARD,
    DIY,
    DO_OVER,
    DRAFT_KEPT,
    DRAFT_PACK,
    FOLLOWED,
    HAND,
    IN_PLAY,
    LOOKOUT,
    PARK,
    RECYCLING,
    ROUGH_HOUSING,
    STARTING_KIDS,
    TOYS,
    TRASH,
    USED,
)
from fort_env.game.fields import (
    C_ACTION_STEP,
    C_ACTOR,
    C_ANY_SUIT_PRIVATE,
    C_ANY_SUIT_PUBLIC,
    C_ANY_SUIT_SIDE,
    C_CONTINUE_PC,
    C_CONVERT_FROM,
    C_DECISION,
    C_DRAFT_ROUND,
    C_FIRST_PLAYER,
    C_MODE,
    C_PAY_EITHER,
    C_PAY_PIZZA,
    C_PAY_TOYS,
    C_PC,
    C_PENDING_COIN,
    C_PLAYED_CARD,
    C_PLAYS,
    C_PROGRAM_LENGTH,
    C_RESOURCE_CHOICE,
    C_REWARD,
    C_ROUGH_HOUSING,
    C_STAGE,
    P_PACK_PIZZA,
    P_STUFF_PIZZA,
)
from fort_env.game.rules import base, deal, flow, program, verbs
from fort_env.game.rules.base import Handler, K, RulesGame
from fort_env.game.stages import (
    ST_ACTION,
    ST_ADD,
    ST_ADD_COIN,
    ST_BIRTHDAY,
    ST_DECLARE,
    ST_FOLLOW_SECOND,
    ST_RECRUIT,
)
from fort_env.game.state_arrays import StateArrays


def apply(state: StateArrays, a: int) -> None:
    """Apply an action known to be legal."""
    state.legal_cache = None
    handler, i = cast(RulesGame, state.game).handlers[a]
    handler(state, state.ctx[C_ACTOR], i, state.ctx[C_DECISION])


def _count_suits(state: StateArrays, p: int, c: int, stage: int, kind: int) -> bool:
    """Count card ``c``'s suits for the play; a coin waits for its declared suit (decision
    ``kind`` at ``stage``, p.6). Returns whether that decision is now pending."""
    for s in state.game.suit_lists[c]:
        if s != COIN:
            state.play_suits[s] += 1
    if not state.game.has_coin[c]:
        return False
    state.ctx[C_PENDING_COIN] = c
    state.ctx[C_STAGE] = stage
    base.set_decision(state, kind, p)
    return True


def on_play_card(state: StateArrays, p: int, c: int, kind: int) -> None:
    state.zone[c] = IN_PLAY
    state.ctx[C_PLAYED_CARD] = c
    state.ctx[C_PLAYS] += 1
    if not _count_suits(state, p, c, ST_DECLARE, K.DECLARE_COIN):
        flow.after_declare_played(state)


def on_skip_play(state: StateArrays, p: int, i: int, kind: int) -> None:
    flow.end_leader_play(state)


def on_use_diy(state: StateArrays, p: int, i: int, kind: int) -> None:
    state.perk_loc[DIY] = USED
    state.ctx[C_PLAYS] += 1
    # DIY is no card: its one action (mode "private only") cannot be followed.
    state.ctx[C_MODE] = 1
    state.ctx[C_ACTION_STEP] = 0
    state.ctx[C_STAGE] = ST_ACTION
    program.load_program(state, (ATOM, ADVANCE, 1), p, A.PRIVATE, True, state.play_suits, -1)
    program.run_program(state)


def on_recycle(state: StateArrays, p: int, c: int, kind: int) -> None:
    """Recycling (p.16; R15): the card goes to hand and the pending decision, whichever it is,
    is asked again."""
    state.perk_loc[RECYCLING] = USED
    state.zone[c] = HAND


def on_suit(state: StateArrays, p: int, s: int, kind: int) -> None:
    if kind in (K.DECLARE_COIN, K.ADD_COIN):
        c = int(state.ctx[C_PENDING_COIN])
        state.coin_as[c] = s
        state.play_suits[s] += 1
        state.ctx[C_PENDING_COIN] = -1
        if kind == K.DECLARE_COIN:
            flow.after_declare_played(state)
        else:
            state.ctx[C_STAGE] = ST_ADD
            base.set_decision(state, K.ADD, p)
    else:  # ANY_SUIT
        side = int(state.ctx[C_ANY_SUIT_SIDE])
        state.ctx[C_ANY_SUIT_PUBLIC if side == A.PUBLIC else C_ANY_SUIT_PRIVATE] = s
        flow.after_mode(state)


def on_mode(state: StateArrays, p: int, m: int, kind: int) -> None:
    state.ctx[C_MODE] = m
    flow.after_mode(state)


def on_add_card(state: StateArrays, p: int, c: int, kind: int) -> None:
    state.mark[c] = 1
    if state.zone[c] == HAND:
        state.zone[c] = IN_PLAY
    _count_suits(state, p, c, ST_ADD_COIN, K.ADD_COIN)


def on_stop_adding(state: StateArrays, p: int, i: int, kind: int) -> None:
    flow.start_action(state, 0)


def on_resource(state: StateArrays, p: int, r: int, kind: int) -> None:
    state.ctx[C_RESOURCE_CHOICE] = r
    program.run_program(state)


def on_pack_from(state: StateArrays, p: int, i: int, kind: int) -> None:
    r, supply = A.PACK_OPTIONS[i]
    if not supply:
        state.players[p, P_STUFF_PIZZA + r] -= 1
    state.players[p, P_PACK_PIZZA + r] += 1
    program.step_done(state)
    program.run_program(state)


def on_lookout_card(state: StateArrays, p: int, c: int, kind: int) -> None:
    if state.zone[c] == PARK:
        deal.refill_park(state, int(state.pos[c]))
    state.zone[c] = LOOKOUT
    state.owner[c] = p
    program.step_done(state)
    program.run_program(state)


def on_lookout_park_deck(state: StateArrays, p: int, i: int, kind: int) -> None:
    on_lookout_card(state, p, base.top_of_park_deck(state), kind)


def on_trash_card(state: StateArrays, p: int, c: int, kind: int) -> None:
    state.zone[c] = TRASH
    program.step_done(state)
    program.run_program(state)


def recruit(state: StateArrays, p: int, c: int) -> None:
    if state.zone[c] == PARK:
        slot = int(state.pos[c])
        state.zone[c] = DISCARD
        deal.refill_park(state, slot)
    else:
        state.zone[c] = DISCARD
    state.owner[c] = p


def on_recruit_card(state: StateArrays, p: int, c: int, kind: int) -> None:
    recruit(state, p, c)
    after_recruit(state, p, kind)


def on_recruit_park_deck(state: StateArrays, p: int, i: int, kind: int) -> None:
    recruit(state, p, base.top_of_park_deck(state))
    after_recruit(state, p, kind)


def after_recruit(state: StateArrays, p: int, kind: int) -> None:
    stage = state.ctx[C_STAGE]
    if stage == ST_RECRUIT:
        flow.to_birthday(state)
    elif stage == ST_BIRTHDAY:
        flow.end_turn(state)
    else:
        program.step_done(state)
        program.run_program(state)


def on_pay(state: StateArrays, p: int, i: int, kind: int) -> None:
    r, from_pack = A.PAY_OPTIONS[i]
    state.players[p, (P_PACK_PIZZA if from_pack else P_STUFF_PIZZA) + r] -= 1
    fixed = C_PAY_TOYS if r == TOYS else C_PAY_PIZZA
    if state.ctx[fixed] > 0:
        state.ctx[fixed] -= 1
    else:
        state.ctx[C_PAY_EITHER] -= 1
    if state.ctx[C_PAY_TOYS] + state.ctx[C_PAY_PIZZA] + state.ctx[C_PAY_EITHER] == 0:
        program.level_up(state, p)
        program.run_program(state)


def on_spend_from(state: StateArrays, p: int, i: int, kind: int) -> None:
    r, from_pack = A.PAY_OPTIONS[i]
    state.players[p, (P_PACK_PIZZA if from_pack else P_STUFF_PIZZA) + r] -= 1
    program.step_done(state)
    program.run_program(state)


def on_trash_rival_card(state: StateArrays, p: int, c: int, kind: int) -> None:
    state.zone[c] = TRASH
    program.step_done(state)
    program.run_program(state)


def on_copy_rival(state: StateArrays, p: int, k: int, kind: int) -> None:
    verbs.copy_from(state, p, base.rivals(state, p)[k])
    program.step_done(state)
    program.run_program(state)


def on_convert(state: StateArrays, p: int, i: int, kind: int) -> None:
    src, in_pack = A.CONVERT_OPTIONS[i]
    base = P_PACK_PIZZA if in_pack else P_STUFF_PIZZA
    state.players[p, base + src] -= 1
    state.players[p, base + 1 - src] += 1
    state.ctx[C_CONVERT_FROM] = src
    program.step_done(state)
    program.run_program(state)


def on_pick_rule(state: StateArrays, p: int, i: int, kind: int) -> None:
    state.rule_loc[i] = p
    state.ctx[C_REWARD] = 0
    program.run_program(state)


def on_pick_perk(state: StateArrays, p: int, i: int, kind: int) -> None:
    state.perk_loc[i] = p
    state.ctx[C_REWARD] = 0
    program.run_program(state)


def on_follow_card(state: StateArrays, p: int, c: int, kind: int) -> None:
    state.zone[c] = FOLLOWED
    if base.has_perk(state, p, ROUGH_HOUSING):
        state.ctx[C_ROUGH_HOUSING] = -2  # Rough Housing is instead of following (p.16)
    if kind == K.FOLLOW and base.has_perk(state, p, COPY_CAT):
        state.ctx[C_STAGE] = ST_FOLLOW_SECOND
        base.set_decision(state, K.FOLLOW_SECOND, p)
        return
    flow.start_follow_program(state)


def on_pass(state: StateArrays, p: int, i: int, kind: int) -> None:
    if kind == K.FOLLOW:
        flow.next_follower(state, p)
    elif kind == K.FOLLOW_SECOND:
        flow.start_follow_program(state)
    elif kind == K.DO_OVER:
        flow.to_recruit(state)
    elif kind == K.BIRTHDAY:
        flow.end_turn(state)
    elif kind == K.ROUGH_HOUSING:
        flow.after_follow(state)  # the perk is kept
    elif kind == K.LOOKOUT:
        # a tuck only Recycling could make, in the action used partially: skipped as a step
        # that cannot be done (R3, R15)
        state.ctx[C_PC] += 1
        program.run_program(state)
    else:
        raise AssertionError(kind)


def on_rough_house(state: StateArrays, p: int, i: int, kind: int) -> None:
    state.perk_loc[ROUGH_HOUSING] = USED
    state.ctx[C_ROUGH_HOUSING] = p
    flow.after_follow(state)  # every other rival has followed or passed (R16)


def on_do_over(state: StateArrays, p: int, i: int, kind: int) -> None:
    state.perk_loc[DO_OVER] = USED
    flow.to_play(state)


def on_draft_card(state: StateArrays, p: int, c: int, kind: int) -> None:
    """Advanced setup (p.2): keep one card; when all have kept, pass packs to the left."""
    state.zone[c] = DRAFT_KEPT
    n = state.game.num_players
    first = int(state.ctx[C_FIRST_PLAYER])
    nxt = (p + 1) % n
    if nxt != first:
        base.set_decision(state, K.DRAFT, nxt)
        return
    packs = state.cards_in(DRAFT_PACK)
    state.owner[packs] = (state.owner[packs] + 1) % n  # pass to the left
    state.ctx[C_DRAFT_ROUND] += 1
    if state.ctx[C_DRAFT_ROUND] >= STARTING_KIDS:
        deal.finish_setup(state)
    else:
        base.set_decision(state, K.DRAFT, first)


def on_stop_action(state: StateArrays, p: int, i: int, kind: int) -> None:
    """R3: end the action used partially here; the rest of its steps are not done."""
    state.ctx[C_PC] = state.ctx[C_PROGRAM_LENGTH]
    program.run_program(state)


def on_continue_action(state: StateArrays, p: int, i: int, kind: int) -> None:
    """R3: go on with the action used partially: its next step is carried out."""
    state.ctx[C_CONTINUE_PC] = state.ctx[C_PC]
    program.run_program(state)


# Action range (``verb_table.RANGES``) -> its handler ``on_<range in lower case>`` above, called
# as ``handler(state, acting seat, index within the range, pending decision kind)``; the C++
# table is generated from the same rows (cpp/src/rules/dispatch.cc).
HANDLERS: dict[str, Handler] = {
    r.name: globals()[r.handler] for r in verb_table.RANGES if r.handler in globals()
}


def handler_list(layout: A.ActionLayout) -> list[tuple[Handler, int]]:
    """Per action of ``layout``: ``(handler, index within its range)``, for ``apply``."""
    missing = {name for name, _ in A.RANGES} - set(HANDLERS)
    if missing:
        raise AssertionError(f"action ranges without a handler: {sorted(missing)}")
    return [(HANDLERS[name], i) for name, i in map(layout.decode, range(layout.num_actions))]
