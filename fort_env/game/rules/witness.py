"""Cheap sufficient tests used by the exact-mask search: dead cards and modes (no step can
start), and witness runs that complete a play without searching (docs/rules.md R32).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from fort_env.game import actions as A
from fort_env.game.cards import (
    ANY_RESOURCE,
    GATHER,
    MULT_SUIT,
    SCORE,
    TRASH_THIS,
    Effect,
    single_step,
)
from fort_env.game.constants import COIN, COPY_CAT, IN_PLAY, NUM_SUITS, STUFF_CAPACITY
from fort_env.game.fields import (
    C_ACTOR,
    C_CONVERT_FROM,
    C_DECISION,
    C_LEADER,
    C_LEADER_RESOURCE,
    C_PAY_EITHER,
    C_PAY_PIZZA,
    C_PAY_TOYS,
    C_PLAYED_CARD,
    C_PROGRAM_FAILED,
    C_RESOURCE_CHOICE,
    C_STAGE,
    P_STUFF_PIZZA,
    P_STUFF_TOYS,
)
from fort_env.game.rules import base, flow, handlers, legality, program, verbs
from fort_env.game.rules.base import FULL, NONE, K, RulesGame, mults
from fort_env.game.rules.verbs import ONE_STEP_VERBS
from fort_env.game.stages import ST_PROBE, ST_PROBE_DONE
from fort_env.game.state_arrays import StateArrays


def dead_modes_of_choice(state: StateArrays) -> Any:
    """At a PLAY or MODE decision: a test ``action -> True`` for a card or mode that
    provably cannot be used (``_dead_modes``); None at other decisions."""
    kind = state.ctx[C_DECISION]
    L = state.game.layout
    if kind == K.PLAY:

        def dead_card(a: int) -> bool:
            if not L.PLAY_CARD <= a < L.PLAY_CARD + L.num_cards:
                return False
            card = a - L.PLAY_CARD
            blank = [e is None for e in state.game.effects[card]]
            return all(
                flag
                for flag, (first, second, _) in zip(
                    dead_modes(state, card), A.MODE_PLAN, strict=True
                )
                if not blank[first] and (second < 0 or not blank[second])
            )

        return dead_card
    if kind == K.MODE:
        flags = dead_modes(state, int(state.ctx[C_PLAYED_CARD]))
        return lambda a: flags[a - L.MODE]
    if kind == K.FOLLOW:
        # A follower uses the public action fully (p.8): if its first step cannot be done
        # now, discarding a card (which only shrinks the hand) cannot change that.
        tables = cast(RulesGame, state.game).search_tables
        atom = tables.first_atom[int(state.ctx[C_PLAYED_CARD])][A.PUBLIC]
        if atom is not None and statuses(state, int(state.ctx[C_ACTOR]), [atom])[0] == NONE:
            return lambda a: L.FOLLOW_CARD <= a < L.FOLLOW_CARD + L.num_cards
    return None


def statuses(state: StateArrays, p: int, atoms: Sequence[tuple[int, int]]) -> list[int]:
    """``_atom_status`` of each atom for ``p`` as at the start of an action (no resource
    chosen, no conversion direction, no payment under way)."""
    saved = state.ctx
    fresh = saved[:]
    fresh[C_RESOURCE_CHOICE] = fresh[C_CONVERT_FROM] = -1
    fresh[C_PAY_TOYS] = fresh[C_PAY_PIZZA] = fresh[C_PAY_EITHER] = 0
    state.ctx = fresh
    try:
        return [verbs.atom_status(state, p, verb, arg) for verb, arg in atoms]
    finally:
        state.ctx = saved


def dead_modes(state: StateArrays, card: int) -> list[bool]:
    """Per mode of ``card`` (``A.MODE_PLAN`` order), True when that way to use it provably
    cannot be completed by the leader now, without any search.

    A step that cannot be done now (status NONE) cannot become possible before the
    actions start: playing the card, declaring a coin, choosing suits and adding cards only
    take cards out of the hand. So an action whose first step cannot be done fails when it
    must be used fully, and an action none of whose steps can be done changes nothing when
    used as far as it goes. A mode is dead when its fully used action fails at its first
    step, unless the other action runs first and might change what that step needs: it has
    a step that can be done now, and its steps may change something the first step's
    status reads (``STATUS_READS``, ``STEP_CHANGES``; docs/rules.md R32).
    """
    tables = cast(RulesGame, state.game).search_tables
    atoms = tables.all_atoms[card]
    status = dict(zip(atoms, statuses(state, int(state.ctx[C_LEADER]), atoms), strict=True))
    first_dead = [atom is None or status[atom] == NONE for atom in tables.first_atom[card]]
    all_dead = [all(status[atom] == NONE for atom in side) for side in tables.atoms[card]]
    reads, changes = tables.first_reads[card], tables.changes[card]
    out = []
    for first, second, full in A.MODE_PLAN:
        runs_first_alone = second < 0 or full == first
        other = second if full == first else first
        harmless = all_dead[other] or not (reads[full] & changes[other])
        out.append(first_dead[full] and (runs_first_alone or harmless))
    return out


def runs_straight_through(state: StateArrays, a: int) -> bool:
    """A sufficient test that playing card ``a`` (or choosing mode ``a``) can be completed:
    with no added card, and the first allowed option at every choice, the action used
    fully runs to a full use (after the other one, used as far as it goes, when the mode
    runs that one first). That run is then itself a completion, so the search is not
    needed; when it fails the search decides."""
    L = state.game.layout
    kind = state.ctx[C_DECISION]
    g = state.game
    # ways to try: the steps ((side, used fully) in order), and for a play the suits in play
    # after it (a coin declared as ``coin`` first), else None (the play is under way)
    plans: list[tuple[tuple[tuple[int, bool], ...], np.ndarray | None, int]] = []
    if kind == K.PLAY and L.PLAY_CARD <= a < L.PLAY_CARD + L.num_cards:
        card = a - L.PLAY_CARD
        for side in (A.PUBLIC, A.PRIVATE):
            for coin, counts in suits_if_played(state, card, side):
                plans.append((((side, True),), counts, coin))
    elif kind == K.FOLLOW and L.FOLLOW_CARD <= a < L.FOLLOW_CARD + L.num_cards:
        return follow_plainly_usable(state, a - L.FOLLOW_CARD)
    elif kind == K.MODE:
        card = int(state.ctx[C_PLAYED_CARD])
        first, second, full = A.MODE_PLAN[a - L.MODE]
        if second < 0:
            plans = [(((first, True),), None, -1)]
        elif full == second:
            plans = [(((first, False), (second, True)), None, -1)]
        else:
            return False  # "X fully, then Y" shares the class of "X only"
    else:
        return False
    p = int(state.ctx[C_LEADER])
    playing = card if kind == K.PLAY else -1
    effects, any_suit = g.effects[card], g.has_any_suit[card]
    for steps, suits, coin in plans:
        if any(effects[side] is None or any_suit[side] for side, _ in steps):
            continue
        if len(steps) == 1:
            effect = g.effects[card][steps[0][0]]
            counted = state.play_suits if suits is None else suits
            if plainly_usable(state, p, effect, counted, playing):
                return True
        else:  # "Y, then X (fully)": Y used as far as it goes never fails; if none of
            # its steps can change what X reads (its step's status and its count), X is
            # exactly as plainly usable after Y as now
            (y, _), (x, _) = steps
            tables = cast(RulesGame, g).search_tables
            if not (tables.plain_reads[card][x] & tables.changes[card][y]) and plainly_usable(
                state, p, effects[x], state.play_suits, -1
            ):
                return True
        probe = state.clone()
        if suits is not None:  # as if played ("trash this card" names it)
            probe.zone[card] = IN_PLAY
            probe.play_suits[:] = suits
            probe.ctx[C_PLAYED_CARD] = card
            if coin >= 0:
                probe.coin_as[card] = coin
        for side, full in steps:
            probe.ctx[C_STAGE] = ST_PROBE
            program.load_program(probe, g.effects[card][side], p, side, full, probe.play_suits, -1)
            program.run_program(probe)
            # Choices inside the action: take the first allowed option each time. Any run
            # that ends with the action used fully is a witness; a failed one proves
            # nothing.
            while probe.ctx[C_STAGE] == ST_PROBE and not probe.ctx[C_PROGRAM_FAILED]:
                options = legality.raw_legal(probe)
                if not options:
                    break
                handlers.apply(probe, options[0])
            if probe.ctx[C_STAGE] != ST_PROBE_DONE:
                break
        else:
            return True
    return False


def suits_if_played(state: StateArrays, card: int, side: int) -> list[tuple[int, np.ndarray]]:
    """The suits in play right after playing ``card`` (before adding), as ``(declared coin
    suit or -1, counts)``: one entry for a card without a coin; for a coin, declared as a
    suit ``side`` counts (if any) and as one it does not (every suit may be declared)."""
    g = state.game
    base = g.suit_counts[card].copy()
    if not g.has_coin[card]:
        return [(-1, base)]
    base[COIN] = 0  # a played coin counts only as the suit declared for it (p.6)
    counted = sorted(arg for m, arg in mults(g.effects[card][side]) if m == MULT_SUIT)
    uncounted = next(s for s in range(NUM_SUITS) if s not in counted)
    out = []
    for s in ([counted[0]] if counted else []) + [uncounted]:
        suits = base.copy()
        suits[s] += 1
        out.append((s, suits))
    return out


def follow_plainly_usable(state: StateArrays, card: int) -> bool:
    """The counting witness for a follow: following with ``card`` alone completes when
    the leader's public action, counted as the follower's would be, is plainly usable by
    the follower (``plainly_usable``). Copy Cat (a second card) is left to the search."""
    p = int(state.ctx[C_ACTOR])
    if base.has_perk(state, p, COPY_CAT):
        return False
    counts, any_suit = flow.follow_counts(state, [card])
    effect = state.game.effects[int(state.ctx[C_PLAYED_CARD])][A.PUBLIC]
    resource = int(state.ctx[C_LEADER_RESOURCE])  # a follower gathers what the leader chose
    return plainly_usable(state, p, effect, counts, card, any_suit, resource)


def plainly_usable(
    state: StateArrays,
    p: int,
    effect: Effect | None,
    suits: np.ndarray,
    playing: int,
    any_suit: int = -1,
    resource: int = -1,
) -> bool:
    """A cheaper sufficient test for the simplest actions: one step, or one step repeated,
    that ``p`` can do fully right now by plain counting (no choice inside can fail it).

    Scoring and "trash this card" always can; gathering ``n`` of one resource can when the
    Stuff has room for ``n`` of it (with "any", the first resource chosen is kept for the
    whole action, unless ``resource`` is already chosen); one Pack, trash, Lookout, recruit
    or trash-a-rival step can when it can start, judged with card ``playing`` (>= 0: about
    to be played or followed with) already out of the hand. Anything else answers False
    and is left to the witness run.
    """
    step = single_step(effect)
    if step is None:
        return False
    verb, arg, mult, mult_arg = step
    n = program.count_for(state, mult, mult_arg, p, suits, any_suit)
    if n < 1:
        return False  # no step: not a full use (p.7 FAQ)
    if verb in (SCORE, TRASH_THIS):
        return True
    if verb == GATHER:
        stuff = state.players[p, P_STUFF_PIZZA : P_STUFF_TOYS + 1].tolist()
        if arg != ANY_RESOURCE:
            have = stuff[arg]
        else:
            have = stuff[resource] if resource >= 0 else min(stuff)
        return have + n <= STUFF_CAPACITY
    if n == 1 and verb in ONE_STEP_VERBS:
        if playing < 0:
            return statuses(state, p, [(verb, arg)])[0] == FULL
        where = state.zone[playing]
        state.zone[playing] = IN_PLAY  # trash and Lookout choose from the hand
        try:
            return statuses(state, p, [(verb, arg)])[0] == FULL
        finally:
            state.zone[playing] = where
    return False
