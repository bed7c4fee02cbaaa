"""Turn flow: the phases of a turn (p.6-p.10) from Cleanup to Draw, the followers' round
(p.8), recruiting (p.9), Do-Over and Birthday Party (p.16), and the end triggers (p.10).

The flow starts each action program (``program.load_program``, ``run_program``) and goes on
when one ends: it fills in its rows of ``program.PROGRAM_DONE`` (at the end of this module).
"""

from __future__ import annotations

import numpy as np

from fort_env.game import actions as A
from fort_env.game.constants import (
    BIRTHDAY_PARTY,
    COIN,
    DECK,
    DISCARD,
    DO_OVER,
    FOLLOWED,
    HAND,
    HAND_SIZE,
    IN_PLAY,
    MAX_FORT_LEVEL,
    NUM_SUITS,
    PARK_DECK,
    ROUGH_HOUSING,
    SCORE_TRIGGER,
    TERMINAL_PLAYER,
    TRASH,
    YARD,
)
from fort_env.game.fields import (
    C_ACTION_STEP,
    C_ANY_SUIT_PRIVATE,
    C_ANY_SUIT_PUBLIC,
    C_ANY_SUIT_SIDE,
    C_BOTH_FULL,
    C_END_TRIGGERED,
    C_FIRST_PLAYER,
    C_FOLLOW_TRASH,
    C_FOLLOWER,
    C_LEADER,
    C_LEADER_RESOURCE,
    C_MODE,
    C_PLAYED_CARD,
    C_PLAYS,
    C_PROGRAM_FAILED,
    C_PROGRAM_FULL,
    C_PROGRAM_SIDE,
    C_RESOURCE_CHOICE,
    C_ROUGH_HOUSING,
    C_SERIAL,
    C_STAGE,
    C_TRASH_THIS,
    P_FORT_LEVEL,
    P_SCORE,
    P_TURNS,
)
from fort_env.game.rules import base, program
from fort_env.game.rules.base import BOTH_FULL_TAIL, K
from fort_env.game.stages import (
    ST_ACTION,
    ST_ADD,
    ST_ANY_SUIT,
    ST_BIRTHDAY,
    ST_DO_OVER,
    ST_FOLLOW,
    ST_FOLLOW_RUN,
    ST_MODE,
    ST_OVER,
    ST_PLAY,
    ST_RECRUIT,
    ST_ROUGH_HOUSING,
)
from fort_env.game.state_arrays import StateArrays


def begin_turn(state: StateArrays) -> None:
    leader = int(state.ctx[C_LEADER])
    if state.players[leader, P_TURNS] > 0:  # Cleanup, skipped on the first turn (p.7)
        yard = state.cards_in(YARD, leader)
        state.zone[yard] = DISCARD
    state.ctx[C_PLAYS] = 0
    to_play(state)


def to_play(state: StateArrays) -> None:
    state.ctx[C_PLAYED_CARD] = -1
    state.ctx[C_MODE] = -1
    state.ctx[C_ANY_SUIT_PUBLIC] = state.ctx[C_ANY_SUIT_PRIVATE] = -1
    state.ctx[C_LEADER_RESOURCE] = -1
    state.ctx[C_TRASH_THIS] = 0
    state.ctx[C_ROUGH_HOUSING] = -1
    state.mark[:] = 0
    state.coin_as[:] = -1
    state.play_suits[:] = 0
    state.ctx[C_STAGE] = ST_PLAY
    base.set_decision(state, K.PLAY, int(state.ctx[C_LEADER]))


def after_declare_played(state: StateArrays) -> None:
    state.ctx[C_STAGE] = ST_MODE
    base.set_decision(state, K.MODE, int(state.ctx[C_LEADER]))


def used_sides(state: StateArrays) -> tuple[int, ...]:
    first, second, _ = A.MODE_PLAN[int(state.ctx[C_MODE])]
    return (first,) if second < 0 else (first, second)


def after_mode(state: StateArrays) -> None:
    """Choose each used action's "any one suit", then add cards (p.6-7, p.13)."""
    played = int(state.ctx[C_PLAYED_CARD])
    leader = int(state.ctx[C_LEADER])
    for side in used_sides(state):
        slot = C_ANY_SUIT_PUBLIC if side == A.PUBLIC else C_ANY_SUIT_PRIVATE
        if played >= 0 and state.game.has_any_suit[played][side] and state.ctx[slot] < 0:
            state.ctx[C_ANY_SUIT_SIDE] = side
            state.ctx[C_STAGE] = ST_ANY_SUIT
            base.set_decision(state, K.ANY_SUIT, leader)
            return
    if played >= 0 and any(state.game.improvable[played][s] for s in used_sides(state)):
        state.ctx[C_STAGE] = ST_ADD
        base.set_decision(state, K.ADD, leader)
        return
    start_action(state, 0)


def start_action(state: StateArrays, step: int) -> None:
    plan = A.MODE_PLAN[int(state.ctx[C_MODE])]
    side = plan[step] if step < 2 else -1
    if side < 0:
        end_leader_play(state)
        return
    state.ctx[C_ACTION_STEP] = step
    state.ctx[C_STAGE] = ST_ACTION
    leader = int(state.ctx[C_LEADER])
    effect = state.game.effects[int(state.ctx[C_PLAYED_CARD])][side]
    any_suit = int(state.ctx[C_ANY_SUIT_PUBLIC if side == A.PUBLIC else C_ANY_SUIT_PRIVATE])
    full = side == plan[2] or state.ctx[C_BOTH_FULL] == 1
    program.load_program(state, effect, leader, side, full, state.play_suits, any_suit)
    program.run_program(state)


def end_action(state: StateArrays) -> None:
    """The leader's running action has ended (``program.program_done`` at ST_ACTION): the next
    one starts. Inside a legality probe (``search.changes_outcome``, R7) in which the action
    used partially must carry out the repetition an added card brings, the probe fails if it
    did not (``program.repetition_used``)."""
    both_full = int(state.ctx[C_BOTH_FULL])
    tail = both_full >= BOTH_FULL_TAIL and not state.ctx[C_PROGRAM_FULL]
    if tail and not program.repetition_used(state, both_full - BOTH_FULL_TAIL):
        state.ctx[C_PROGRAM_FAILED] = 1  # search.changes_outcome's probe: no change
        return
    if state.ctx[C_PROGRAM_SIDE] == A.PUBLIC:
        state.ctx[C_LEADER_RESOURCE] = state.ctx[C_RESOURCE_CHOICE]
    start_action(state, int(state.ctx[C_ACTION_STEP]) + 1)


def end_leader_play(state: StateArrays) -> None:
    """The leader's card is resolved; rivals may follow its public action (p.8)."""
    state.ctx[C_SERIAL] += 1
    played = int(state.ctx[C_PLAYED_CARD])
    if played >= 0 and state.game.effects[played][A.PUBLIC] is not None:
        next_follower(state, int(state.ctx[C_LEADER]))
    else:
        after_follow(state)


def next_follower(state: StateArrays, after: int) -> None:
    """Ask the next rival in turn order. Every rival is asked, even one who can only pass,
    so that who is asked reveals nothing about hands (docs/rules.md)."""
    n = state.game.num_players
    leader = int(state.ctx[C_LEADER])
    nxt = (after + 1) % n
    if nxt == leader:
        state.ctx[C_FOLLOWER] = -1
        # Rough Housing: "instead of following ..., and after each other rival player has
        # followed or chosen not to" (p.16): its holder, if a rival who did not follow
        # (C_ROUGH_HOUSING -2 marks one who did), decides now, having seen every follow (R16).
        owner = int(state.perk_loc[ROUGH_HOUSING])
        if owner >= 0 and owner != leader and state.ctx[C_ROUGH_HOUSING] == -1:
            state.ctx[C_STAGE] = ST_ROUGH_HOUSING
            base.set_decision(state, K.ROUGH_HOUSING, owner)
            return
        after_follow(state)
        return
    state.ctx[C_FOLLOWER] = nxt
    state.ctx[C_STAGE] = ST_FOLLOW
    base.set_decision(state, K.FOLLOW, nxt)


def start_follow_program(state: StateArrays) -> None:
    f = int(state.ctx[C_FOLLOWER])
    played = int(state.ctx[C_PLAYED_CARD])
    counts, any_suit = follow_counts(state, state.cards_in(FOLLOWED, f).tolist())
    state.ctx[C_STAGE] = ST_FOLLOW_RUN
    state.ctx[C_FOLLOW_TRASH] = 0
    effect = state.game.effects[played][A.PUBLIC]
    program.load_program(state, effect, f, A.PUBLIC, True, counts, any_suit)
    state.ctx[C_RESOURCE_CHOICE] = state.ctx[C_LEADER_RESOURCE]
    program.run_program(state)


def follow_counts(state: StateArrays, cards: list[int]) -> tuple[np.ndarray, int]:
    """A follower's suit counts for ``cards`` and its "any one suit" (docs/rules.md R11):
    a coin counts as each suit of the leader's card, once per multiplier; "any one suit"
    is the leader's suit the follower holds most of."""
    follow_suits = leader_suits(state)
    counts = np.zeros(NUM_SUITS, dtype=np.int16)
    for cid in cards:
        for s in state.game.suit_lists[cid]:
            if s == COIN:
                for t in follow_suits:
                    counts[t] += 1
            else:
                counts[s] += 1
    return counts, max(follow_suits, key=lambda t: int(counts[t]))


def leader_suits(state: StateArrays) -> tuple[int, ...]:
    """Suits a follower must match: the played card's, its coin as declared (p.8)."""
    played = int(state.ctx[C_PLAYED_CARD])
    out = []
    for s in state.game.suit_lists[played]:
        t = int(state.coin_as[played]) if s == COIN else s
        if t not in out:
            out.append(t)
    return tuple(out)


def end_follow(state: StateArrays) -> None:
    f = int(state.ctx[C_FOLLOWER])
    ids = state.cards_in(FOLLOWED, f)
    state.zone[ids] = TRASH if state.ctx[C_FOLLOW_TRASH] else DISCARD
    state.ctx[C_SERIAL] += 1
    next_follower(state, f)


def after_follow(state: StateArrays) -> None:
    """Rough Housing, then "trash this card", then Do-Over (p.12, p.16)."""
    played = int(state.ctx[C_PLAYED_CARD])
    leader = int(state.ctx[C_LEADER])
    if played >= 0 and (state.ctx[C_ROUGH_HOUSING] >= 0 or state.ctx[C_TRASH_THIS]):
        state.zone[played] = TRASH
    if (
        state.ctx[C_PLAYS] == 1
        and played >= 0  # Do-Over follows a played card, not DIY (docs/rules.md)
        and base.has_perk(state, leader, DO_OVER)
        # a card to play: in hand, or one Recycling can bring there first (R14, R15)
        and (state.count_in(HAND, leader) > 0 or base.can_recycle(state, leader))
    ):
        state.ctx[C_STAGE] = ST_DO_OVER
        base.set_decision(state, K.DO_OVER, leader)
        return
    to_recruit(state)


def to_recruit(state: StateArrays) -> None:
    leader = int(state.ctx[C_LEADER])
    state.ctx[C_PLAYED_CARD] = -1
    if base.recruit_options(state, leader, yards=True):
        state.ctx[C_STAGE] = ST_RECRUIT
        base.set_decision(state, K.RECRUIT, leader)
        return
    to_birthday(state)  # nothing to recruit: the phase is skipped (docs/rules.md)


def to_birthday(state: StateArrays) -> None:
    leader = int(state.ctx[C_LEADER])
    if base.has_perk(state, leader, BIRTHDAY_PARTY) and base.recruit_options(
        state, leader, yards=False
    ):
        state.ctx[C_STAGE] = ST_BIRTHDAY
        base.set_decision(state, K.BIRTHDAY, leader)
        return
    end_turn(state)


def end_turn(state: StateArrays) -> None:
    """Discard (p.9) and Draw (p.9) phases; then the next turn or the end (p.10)."""
    leader = int(state.ctx[C_LEADER])
    in_play = state.cards_in(IN_PLAY, leader)
    state.zone[in_play] = DISCARD
    hand = state.cards_in(HAND, leader)
    bf = state.game.is_best_friend[hand]
    state.zone[hand[bf]] = DISCARD
    state.zone[hand[~bf]] = YARD
    draw(state, leader, HAND_SIZE)
    state.players[leader, P_TURNS] += 1
    check_end(state)
    nxt = (leader + 1) % state.game.num_players
    if state.ctx[C_END_TRIGGERED] and nxt == state.ctx[C_FIRST_PLAYER]:
        state.ctx[C_STAGE] = ST_OVER
        base.set_decision(state, K.TERMINAL, TERMINAL_PLAYER)
        return
    state.ctx[C_LEADER] = nxt
    begin_turn(state)


def draw(state: StateArrays, p: int, n: int) -> None:
    """Draw phase (p.9): draw n, reshuffling the discard pile when the deck runs out."""
    while n > 0:
        ids = ((state.zone == DECK) & (state.owner == p)).nonzero()[0]
        if len(ids) == 0:
            pile = ((state.zone == DISCARD) & (state.owner == p)).nonzero()[0]
            if len(pile) == 0:
                return
            state.zone[pile] = DECK
            state.pos[pile] = base.event_rng(state).permutation(len(pile))
            ids = pile
        top = ids[np.argsort(state.pos[ids], kind="stable")[:n]]  # lowest pos on top
        state.zone[top] = HAND
        n -= len(top)


def check_end(state: StateArrays) -> None:
    """End triggers (p.10): 25+ points, a Fort at Level 5, or an empty Park deck."""
    if state.ctx[C_END_TRIGGERED]:
        return
    if (
        any(row[P_SCORE] >= SCORE_TRIGGER or row[P_FORT_LEVEL] >= MAX_FORT_LEVEL
            for row in state.players.tolist())
        or PARK_DECK not in state.zone.tobytes()  # zone codes are single bytes (int8)
    ):  # fmt: skip
        state.ctx[C_END_TRIGGERED] = 1


# The flow goes on when an action program it started ends (program.py cannot import this
# module, which imports it): the leader's action, then a follower's run.
program.PROGRAM_DONE[ST_ACTION] = end_action
program.PROGRAM_DONE[ST_FOLLOW_RUN] = end_follow
