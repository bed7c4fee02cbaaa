"""The exact legal mask: raw-legal actions minus those after which the play cannot be
completed within the rules ("use at least one action fully", "an added card must change the
outcome", p.6-7), by a memoised depth-first search over cloned states in which choices that
cannot differ in feasibility are tried once (docs/rules.md, "Exact masks").

Which cards may be added (``addable``, ``coin_suits``: R7, an added card must change the
outcome) is decided here too, by a probe search (``changes_outcome``): this module fills in the
ADD and ADD_COIN rows of ``legality.LEGAL``, the local rules it searches over.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from hashlib import blake2b as _blake2b
from typing import cast

from fort_env.game import actions as A
from fort_env.game.cards import (
    MULT_ANY_SUIT,
    MULT_SUIT,
    REPEAT,
    Effect,
    all_steps,
    first_step,
    multipliers,
)
from fort_env.game.constants import COIN, HAND, LOOKOUT, NUM_SUITS, SEARCH_NODE_BUDGET
from fort_env.game.errors import StateError
from fort_env.game.fields import (
    C_ACTION_STEP,
    C_ANY_SUIT_PRIVATE,
    C_ANY_SUIT_PUBLIC,
    C_BOTH_FULL,
    C_DECISION,
    C_LEADER,
    C_MODE,
    C_PENDING_COIN,
    C_PLAYED_CARD,
    C_PROGRAM_FAILED,
    C_PROGRAM_FULL,
    C_SERIAL,
    C_STAGE,
)
from fort_env.game.rules import flow, handlers, legality, program, witness
from fort_env.game.rules.base import (
    BOTH_FULL_TAIL,
    SEARCHED_STAGES,
    K,
    RulesGame,
    mults,
    repeats_plain_body,
)
from fort_env.game.rules.verbs import STATUS_READS, STEP_CHANGES, plain_reads
from fort_env.game.stages import ST_ACTION, ST_FOLLOW, ST_PLAY
from fort_env.game.state_arrays import StateArrays

SEARCH_MEMO_LIMIT = 200_000  # entries (16-byte digests) before the memo is cleared
SEARCH_BUDGET_EXCEEDED = (
    "the legality search for this play expanded more positions than its budget "
    "(search.SEARCH_NODE_BUDGET): the position is not one the rules reach, or the card set's "
    "actions branch too much"
)  # as cpp/include/fort/game/errors.h
SEARCH_TOO_DEEP = (
    "the legality search for this play went deeper than its limit: the position is not one "
    "the rules reach"
)  # Python's RecursionError; C++'s MAX_SEARCH_DEPTH (errors.h)


class _Budget(threading.local):
    """The positions expanded by the search open on this thread: counted from the outermost
    ``compute_legal`` or ``search`` (``depth`` 0) and refused past
    ``constants.SEARCH_NODE_BUDGET`` with :class:`StateError` (the C++ core's
    ``tl_search_nodes``): a state written through the views, or a card set whose actions
    branch at every step, would make the search exponential (issue 42)."""

    depth = 0
    nodes = 0


_BUDGET = _Budget()


def _open(budget: _Budget) -> None:
    if budget.depth == 0:
        budget.nodes = 0
    budget.depth += 1


class SearchTables:
    """Per-game tables of the search (from the card programs), and its memo.

    The memo maps a state digest to "the play can be completed": a pure function of the
    state, so states of one game share it; bounded by clearing at ``SEARCH_MEMO_LIMIT``.
    """

    def __init__(self, effects: Sequence[tuple[Effect | None, Effect | None]]) -> None:
        # per card and side: the action's first step, and its distinct steps (verb, arg)
        self.first_atom: list[tuple[tuple[int, int] | None, ...]] = [
            tuple(first_step(e) for e in sides) for sides in effects
        ]
        self.atoms: list[tuple[frozenset[tuple[int, int]], ...]] = [
            tuple(frozenset(all_steps(e)) for e in sides) for sides in effects
        ]
        # per card and side: what the first step's status reads, what any step may change
        self.first_reads: list[tuple[frozenset[int], ...]] = [
            tuple(frozenset() if a is None else STATUS_READS[a[0]] for a in firsts)
            for firsts in self.first_atom
        ]
        self.changes: list[tuple[frozenset[int], ...]] = [
            tuple(frozenset().union(*(STEP_CHANGES[v] for v, _ in side)) for side in sides)
            for sides in self.atoms
        ]
        # per card and side: what a one-step action (repeated or not) reads, its count included
        self.plain_reads: list[tuple[frozenset[int], ...]] = [
            tuple(plain_reads(e) for e in sides) for sides in effects
        ]
        self.all_atoms: list[tuple[tuple[int, int], ...]] = [
            tuple(sorted(pub | priv)) for pub, priv in self.atoms
        ]
        self.search_memo: dict[bytes, bool] = {}


def legal_actions(state: StateArrays) -> list[int]:
    """Raw-legal actions, minus those after which the play cannot be completed (sorted;
    computed once per position)."""
    if state.legal_cache is None:
        state.legal_cache = compute_legal(state)
    return state.legal_cache


def legal_set(state: StateArrays) -> frozenset[int] | list[int]:
    legal = legal_actions(state)
    return legal if len(legal) < 16 else frozenset(legal)


def compute_legal(state: StateArrays) -> list[int]:
    raw = legality.raw_legal(state)
    if state.ctx[C_STAGE] not in SEARCHED_STAGES or constraint_met(state):
        return sorted(raw)
    budget = _BUDGET  # one budget for the searches of every class
    _open(budget)
    try:
        return _searched_legal(state, raw)
    except RecursionError:  # a state from outside that loops (C++: MAX_SEARCH_DEPTH)
        raise StateError("position", SEARCH_TOO_DEEP) from None
    finally:
        budget.depth -= 1


def _searched_legal(state: StateArrays, raw: list[int]) -> list[int]:
    L = state.game.layout
    goal = int(state.ctx[C_SERIAL])
    classes: dict[object, list[int]] = {}
    out = []
    for a in raw:
        if unsearched(state, a, L):
            out.append(a)
        else:
            classes.setdefault(equivalence_key(state, a), []).append(a)
    # Inside a play already under way the state is known to be completable (every action
    # that led here was checked), so when only one class is left it needs no search.
    known_completable = state.ctx[C_STAGE] not in (ST_PLAY, ST_FOLLOW)
    remaining = len(classes)
    dead = witness.dead_modes_of_choice(state)
    for members in classes.values():
        if dead is not None and dead(members[0]):
            ok = False  # no step of any way to use it can start: docs/rules.md R32
        elif known_completable and remaining == 1:
            ok = True  # the last class of a completable state: it is the completion
        elif witness.runs_straight_through(state, members[0]):
            ok = True
        else:
            child = state.clone()
            handlers.apply(child, members[0])
            ok = search(child, goal)
        remaining -= 1
        if ok:
            out.extend(members)
            known_completable = False  # one completion found; the rest must be searched
    return sorted(out)


def constraint_met(state: StateArrays) -> bool:
    """True while the leader resolves the second action after the fully used one ended:
    nothing left can strand the play, so no search is needed.

    Never inside a legality probe (``ctx.both_full`` set, ``changes_outcome``):
    there the second action, used partially, must still reach the extra repetition an added
    card brings (R7, p.7), which its later steps decide.
    """
    return bool(
        state.ctx[C_BOTH_FULL] == 0
        and state.ctx[C_STAGE] == ST_ACTION
        and state.ctx[C_ACTION_STEP] == 1
        and not state.ctx[C_PROGRAM_FULL]
        and A.MODE_PLAN[int(state.ctx[C_MODE])][2] == A.MODE_PLAN[int(state.ctx[C_MODE])][0]
    )


def unsearched(state: StateArrays, a: int, L: A.ActionLayout) -> bool:
    """Actions that can never strand a play: skipping, passing a follow, Rough Housing, and
    Recycling at the Play decision (the Play decision comes back, and skipping is always
    allowed). Recycling inside the leader's actions uses up the perk, which a completion of
    the play may need later (a tuck with an empty hand, R15): it is searched there."""
    kind = state.ctx[C_DECISION]
    return (
        a in (L.SKIP_PLAY, L.ROUGH_HOUSE)
        or (a == L.PASS and kind == K.FOLLOW)
        or (kind == K.PLAY and L.RECYCLE <= a < L.RECYCLE + L.num_cards)
    )


def equivalence_key(state: StateArrays, a: int) -> object:
    """Actions with equal keys cannot differ in whether the play can be completed: cards
    chosen inside an action matter only by where they are; played and added cards by
    their design and suits (docs/rules.md, "Exact masks")."""
    L = state.game.layout
    name, i = L.decode(a)
    if name in ("LOOKOUT_CARD", "TRASH_CARD", "RECRUIT_CARD", "TRASH_RIVAL_CARD"):
        return (name, int(state.zone[i]), int(state.owner[i]))
    if name == "PLAY_CARD":
        return (name, state.game.kind[i])
    if name in ("ADD_CARD", "FOLLOW_CARD"):
        return (name, int(state.zone[i]), state.game.suit_lists[i])
    if name == "PICK_RULE":
        return name  # which made-up rule cannot change what can be done now
    if name == "RECYCLE":
        # inside the leader's actions (the only searched decisions that offer it) a hand card
        # matters to the rest of the play only by being there: cards are added before the
        # actions, and a tuck or a trash takes any card (R15)
        return name
    if name == "MODE" and A.MODE_PLAN[i][2] == A.MODE_PLAN[i][0]:
        # "X fully, then Y" can be completed exactly when "X only" can: Y, used as far as
        # it goes, never fails, and every card added for X is still allowed.
        return ("MODE", A.MODE_PLAN[i][0])
    kind = state.ctx[C_DECISION]
    if name == "SUIT" and kind in (K.DECLARE_COIN, K.ANY_SUIT):
        played = int(state.ctx[C_PLAYED_CARD])
        if not any(state.game.has_any_suit[played]):
            # the declared suit matters to the play only if one of the card's multipliers
            # counts it; other suits differ only for followers
            return a if i in state.game.counted_suits[played] else (name, -1)
        if interchangeable_suit(state, i):
            return (name, -1, int(state.play_suits[i]))
    if name == "SUIT" and kind == K.ADD_COIN and i not in legality.useful_suits(state):
        # an added coin declared as a suit no used action counts changes no count of the
        # play: every such suit has the same verdict (R7, docs/rules.md R32)
        return (name, -1)
    return a


def interchangeable_suit(state: StateArrays, s: int) -> bool:
    """Whether, for the rest of the leader's play, suit ``s`` is like any other suit with
    as many in play: no fixed "x suit" of the played card counts it, no "any one suit" has
    chosen it, and no card the leader could add has it (coins match every suit alike).
    Swapping two such suits maps the play's remaining choices one to one, so declaring a
    coin as, or choosing "any one suit" as, either has the same verdict (docs/rules.md R32).
    """
    if s == COIN or s in state.game.counted_suits[int(state.ctx[C_PLAYED_CARD])]:
        return False
    if s in (state.ctx[C_ANY_SUIT_PUBLIC], state.ctx[C_ANY_SUIT_PRIVATE]):
        return False
    leader = int(state.ctx[C_LEADER])
    suit_lists = state.game.suit_lists
    zone, owner, mark = state.zone, state.owner, state.mark
    for c in (owner == leader).nonzero()[0].tolist():
        z = zone[c]
        if (z == HAND or (z == LOOKOUT and not mark[c])) and s in suit_lists[c]:
            return False
    return True


def adding_cannot_help(state: StateArrays) -> bool:
    """After "stop adding" failed: True when more cards cannot make the play possible.

    When the fully used action is one repeat of a body without multipliers, the run with
    n repetitions is a prefix of the run with more; adding only shrinks the hand (fewer
    options, never more); and the other action, if any, counts no suit, so added cards
    change nothing it does. So if n >= 1 failed, every larger count fails too.
    """
    first, second, full = A.MODE_PLAN[int(state.ctx[C_MODE])]
    effects = state.game.effects[int(state.ctx[C_PLAYED_CARD])]
    effect = effects[full]
    if effect is None or effect[0] != REPEAT or mults(effect[1]):
        return False
    if second >= 0:
        other = second if full == first else first
        if any(m in (MULT_SUIT, MULT_ANY_SUIT) for m, _ in mults(effects[other])):
            return False
    any_suit = int(state.ctx[C_ANY_SUIT_PUBLIC if full == A.PUBLIC else C_ANY_SUIT_PRIVATE])
    leader = int(state.ctx[C_LEADER])
    return program.count_for(state, effect[2], effect[3], leader, state.play_suits, any_suit) >= 1


def digest(state: StateArrays) -> bytes:
    """16-byte digest of every array of the state (the search memo's key)."""
    data = b"".join(
        [
            state.zone.tobytes(),
            state.owner.tobytes(),
            state.pos.tobytes(),
            state.mark.tobytes(),
            state.coin_as.tobytes(),
            state.players.tobytes(),
            state.rule_loc.tobytes(),
            state.perk_loc.tobytes(),
            state.play_suits.tobytes(),
            state.prog.tobytes(),
            state.done.tobytes(),
            state.ctx.tobytes(),
        ]
    )
    return _blake2b(data, digest_size=16).digest()


def search(state: StateArrays, goal: int) -> bool:
    """Depth-first: can this play (or follow) still be completed within the rules?

    Consumes the state: callers pass a copy they no longer need.
    """
    if state.ctx[C_PROGRAM_FAILED]:
        return False
    if state.ctx[C_SERIAL] > goal or state.ctx[C_STAGE] not in SEARCHED_STAGES:
        return True
    if constraint_met(state):
        return True
    memo = cast(RulesGame, state.game).search_tables.search_memo
    key = digest(state) + goal.to_bytes(8, "little", signed=True)
    known = memo.get(key)
    if known is not None:
        return known
    if len(memo) >= SEARCH_MEMO_LIMIT:
        memo.clear()
    budget = _BUDGET
    _open(budget)
    try:
        budget.nodes += 1
        if budget.nodes > SEARCH_NODE_BUDGET:
            raise StateError("position", SEARCH_BUDGET_EXCEEDED)
        result = search_children(state, goal)
    finally:
        budget.depth -= 1
    memo[key] = result
    return result


def search_children(state: StateArrays, goal: int) -> bool:
    seen: set[object] = set()
    L = state.game.layout
    if state.ctx[C_DECISION] == K.ADD:
        # Adding nothing is the cheapest completion to try; the addable cards (which need
        # probes to find) are only listed when it fails.
        child = state.clone()
        handlers.apply(child, L.STOP_ADDING)
        if search(child, goal):
            return True
        if adding_cannot_help(state):
            return False
        seen.add(L.STOP_ADDING)
    raw = legality.raw_legal(state)
    if state.ctx[C_DECISION] == K.DECLARE_COIN:
        # a coin declared as a suit the card counts is the likeliest completion: try first
        counted = state.game.counted_suits[int(state.ctx[C_PLAYED_CARD])]
        raw.sort(key=lambda a: a - L.SUIT not in counted)
    elif state.ctx[C_DECISION] == K.MODE:
        dead = witness.dead_modes(state, int(state.ctx[C_PLAYED_CARD]))
        raw = [a for a in raw if not dead[a - L.MODE]]
        # A one-action mode whose straight run is a full use completes the play: try those
        # witnesses before searching any mode's subtree (a failing mode's subtree, with its
        # suit choices and added cards, is the costly part).
        for a in raw:
            if witness.runs_straight_through(state, a):
                return True
    firsts = []  # one action per equivalence class
    at_play = state.ctx[C_DECISION] == K.PLAY
    for a in raw:
        if a == L.SKIP_PLAY or (at_play and L.RECYCLE <= a < L.RECYCLE + L.num_cards):
            continue  # not a way to complete the play under test
        key = equivalence_key(state, a)
        if key not in seen:
            seen.add(key)
            firsts.append(a)
    last = len(firsts) - 1
    for j, a in enumerate(firsts):
        # A searched state is a throwaway copy (its verdict is memoised under the digest
        # taken before its children), so the last child is played on it without a clone.
        child = state if j == last else state.clone()
        handlers.apply(child, a)
        if search(child, goal):
            return True
    return False


# R7: which cards may be added, and as which suit an added coin may be declared (the ADD and
# ADD_COIN rows of legality.LEGAL): each must change the outcome of a used action, which a
# probe search decides (``changes_outcome``). They live here, with the search they run;
# legality.py, which this module imports, gets its two rows from here.
def add_rows(state: StateArrays, p: int) -> list[int]:
    """ADD: the cards that may be added now (``addable``), or stop adding."""
    L = state.game.layout
    out = [L.ADD_CARD + c for c in addable(state)]
    out.append(L.STOP_ADDING)
    return out


def add_coin_rows(state: StateArrays, p: int) -> list[int]:
    """ADD_COIN: an added card's coin is "one suit of your choice" (p.7; README fact 1): any
    suit with which one of the card's suits changes the outcome (R7, ``coin_suits``)."""
    L = state.game.layout
    cid = int(state.ctx[C_PENDING_COIN])
    return [L.SUIT + s for s in coin_suits(state, cid)]


def addable(state: StateArrays) -> list[int]:
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
    useful = legality.useful_suits(state)
    full = legality.fully_counted(state)
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
            key = (int(state.zone[c]), tuple(suits))  # cards alike (equivalence_key)
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


def coin_suits(state: StateArrays, card: int) -> list[int]:
    """The suits ``card``'s coin may be declared as when it is added (ADD_COIN): "one suit of
    your choice" (README fact 1), such that one of the card's suits then changes the
    outcome (``changes_outcome_with``; every suit inside a legality probe, see ``addable``).
    Suits no used action counts share one verdict."""
    if state.ctx[C_BOTH_FULL]:
        return list(range(NUM_SUITS))
    useful = legality.useful_suits(state)
    verdict: dict[int, bool] = {}
    out = []
    for s in range(NUM_SUITS):
        key = s if s in useful else -1
        if key not in verdict:
            verdict[key] = changes_outcome_with(state, card, s)
        if verdict[key]:
            out.append(s)
    return out


def changes_outcome_with(state: StateArrays, card: int, suit: int) -> bool:
    """Whether ``card``, being added (ADD_COIN: its coin not yet declared), changes the
    outcome with its coin declared as ``suit`` (``changes_outcome`` on that play)."""
    full, useful = legality.fully_counted(state), legality.useful_suits(state)
    plain = [s for s in state.game.suit_lists[card] if s != COIN]
    if suit in full or any(s in full for s in plain):
        return True  # it raises the count of the action used fully (as changes_outcome)
    if suit not in useful and not any(s in useful for s in plain):
        return False  # no used action counts any of its suits (as changes_outcome)
    child = state.clone()
    handlers.apply(child, state.game.layout.SUIT + suit)
    return changes_outcome(child, card)


def changes_outcome(state: StateArrays, card: int) -> bool:
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
    played = int(state.ctx[C_PLAYED_CARD])
    full_side = A.MODE_PLAN[int(state.ctx[C_MODE])][2]
    suits = [int(state.coin_as[card]) if s == COIN else s for s in state.game.suit_lists[card]]
    partial = None
    for side in flow.used_sides(state):
        effect = state.game.effects[played][side]
        any_suit = int(state.ctx[C_ANY_SUIT_PUBLIC if side == A.PUBLIC else C_ANY_SUIT_PRIVATE])
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
    return search(state, int(state.ctx[C_SERIAL]))


legality.LEGAL[K.ADD] = add_rows
legality.LEGAL[K.ADD_COIN] = add_coin_rows
assert set(legality.LEGAL) == set(vars(K).values()) - {K.TERMINAL}, "every decision has its row"
