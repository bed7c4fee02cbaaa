"""Re-dealing what a player cannot see (determinisation for search; the leak test).

What ``observer`` cannot see, and so is re-dealt: rivals' hands and decks, the order of every
deck and of the Park deck, the Park deck's cards, rivals' draft packs and kept cards, which
cards lie in rivals' Lookouts (each slot keeps its suits), rivals' made-up rules, the stack
and the rules left in the box, and future shuffles (a new seed). Best Friends stay with their
owner (in that seat's hand, deck or a Lookout slot of their suits). The re-deal is consistent
with the observation (``observation.py``), not with everything the observer could remember of
the game's history (docs/rules.md).

**A function of the information set.** The result depends only on what ``observer`` knows
and on the random draws, never on which hidden card is really where: two states the observer
cannot tell apart give the same re-dealt state for the same seed. The hidden *slots* are
listed in a canonical order, by (zone, owner, suit class for a Lookout slot, mark, declared
coin suit); slots with equal keys are interchangeable. The hidden *cards* (a set the observer
knows: every card it does not see) are taken in ascending id. A re-dealt slot's ``pos`` is its
rank among the hidden slots of its (zone, owner) pile in that order (a deck's top is 0); the
cards are placed at random, so deck orders are uniform. The observer's own deck (contents
known, order hidden) is reordered in place.

**The draws** come from the project's specified generator (``fort_env.game.rng``): one stream,
``EventRng(seed, 0)``, in this order (``cpp/src/views/hidden.cc`` makes the same draws):

1. ``permutation(k)`` for the observer's own deck: its ``i``-th card by id gets ``pos = perm[i]``;
2. each hidden Best Friend held by a rival (ascending id) goes to one of its owner's open
   slots, chosen by ``below(len(options))`` among the open hand and deck slots of that seat and
   the open Lookout slots of that seat with the friend's suits, in slot order; a kind of slot
   is offered only when the cards left can still fill every slot (checked by counting, below);
3. each Lookout slot still open (slot order) takes ``below(len(candidates))`` of the free
   cards with its suits (ascending id);
4. the other open slots (slot order) take the free cards left, ascending id, permuted by
   ``permutation(m)``: slot ``j`` gets ``left[perm[j]]``;
5. the hidden made-up rules (ascending index) take their locations sorted ascending, permuted
   by ``permutation(h)``: rule ``j`` gets ``locs[perm[j]]``;
6. the new game seed is ``below(SEED_LIMIT)`` and ``shuffles`` restarts at 0.

**Only positions that can go on.** A re-deal consistent with the observation need not be
consistent with the history: a seat in the middle of its play chose its card knowing its real
hand, and a re-dealt hand (or Park deck, or Lookout) may no longer complete that play, which
leaves the acting seat with no legal action, or with legal actions that lead to a dead end
(the masks take a play under way as completable). So the re-deal above is try ``k = 0`` of up
to :data:`MAX_REDEALS`: try ``k`` makes all the draws above from ``EventRng(seed, k)`` and its
result is kept when it can go on (:func:`can_go_on`: over, or a legal action and, in a play
under way, a completion: ``validation.py``'s check of a loaded state); else try ``k + 1``.
Each try is a function of the information set, and so is the verdict on it, so the result
still is. If every try fails (not seen: in 285,048 re-deals of random positions, 257 needed
a second try and the most tries taken were 34), the state is returned as it is (a copy,
every hidden card where it lies, the same game seed): it can go on when the state itself
can, which is checked (``StateError`` when it cannot).

The counting check of step 2: with ``B[p, s]`` rival ``p``'s unplaced friends of suit class
``s``, ``L[p, s]`` its open Lookout slots of class ``s``, ``H[p]`` its open hand and deck slots
and ``N[s]`` the free (non-friend) cards of class ``s``, the slots can be filled exactly when
``sum_s max(0, B[p, s] - L[p, s]) <= H[p]`` for every ``p`` and
``sum_p max(0, L[p, s] - B[p, s]) <= N[s]`` for every ``s`` (put as many friends as fit into
Lookout slots of their class; free cards fill every other open slot).
"""

from __future__ import annotations

import weakref
from array import array
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from fort_env.game.constants import (
    DECK,
    DRAFT_KEPT,
    DRAFT_PACK,
    HAND,
    IN_BOX,
    IN_STACK,
    LOOKOUT,
    MAX_PLAYERS,
    PARK_DECK,
    SEED_LIMIT,
)
from fort_env.game.decisions import DecisionKind
from fort_env.game.errors import StateError
from fort_env.game.fields import (
    C_ACTOR,
    C_DECISION,
    C_PENDING_COIN,
    C_SEED,
    C_SERIAL,
    C_SHUFFLES,
    C_STAGE,
)
from fort_env.game.inputs import check_seed
from fort_env.game.rng import EventRng
from fort_env.game.rules import search
from fort_env.game.rules.base import SEARCHED_STAGES
from fort_env.game.stages import ST_FOLLOW, ST_OVER, ST_PLAY
from fort_env.game.state_arrays import ARRAYS, StateArrays

if TYPE_CHECKING:
    from fort_env.game.facts import GameFacts

S = TypeVar("S", bound="StateArrays")

HIDDEN_RIVAL_ZONES = (HAND, DECK, DRAFT_PACK, DRAFT_KEPT, LOOKOUT)  # a rival's, card by card
RESAMPLE_EVENT = 0  # the event number of the re-deal's first try (try k: RESAMPLE_EVENT + k)
# The problems of StateError for a running position that cannot go on (the same in C++)
NO_LEGAL_ACTION = "no legal action in a running game (a position the rules cannot reach)"
NO_COMPLETION = "the play under way cannot be completed within the rules (p.7)"
MAX_REDEALS = 64  # tries of the re-deal before the state is kept as it is (module docstring)

_SUIT_CLASS: weakref.WeakKeyDictionary[GameFacts, np.ndarray] = weakref.WeakKeyDictionary()


def suit_class(game: GameFacts) -> np.ndarray:
    """Per card, the smallest card id with exactly the same suits: int32, ``(num_cards,)``.

    Two cards of one class look the same in a rival's Lookout (only suits show there).
    """
    out = _SUIT_CLASS.get(game)
    if out is None:
        counts = np.asarray(game.suit_counts)
        first: dict[bytes, int] = {}
        out = np.array(
            [first.setdefault(counts[c].tobytes(), c) for c in range(game.num_cards)],
            dtype=np.int32,
        )
        out.flags.writeable = False
        _SUIT_CLASS[game] = out
    return out


def resample_hidden(state: S, observer: int, rng: np.random.Generator) -> S:
    """A copy of ``state`` with everything ``observer`` cannot see re-dealt at random.

    Draws one seed ``rng.integers(2**62)`` and returns
    :func:`resample_hidden_seeded` ``(state, observer, seed)``.

    Args:
        observer: the seat whose knowledge is kept, an int in ``[0, num_players)``.
        rng: the source of the seed (the state's own generator is not used).

    Returns:
        A new state; ``state`` is unchanged. ``observer``'s observation and legal actions are
        the same in both.

    Raises:
        ValueError: ``observer`` is not a seat of the game.
        StateError: the state's hidden cards cannot be re-dealt (only an inconsistent state:
            a Best Friend where its owner cannot hold it), or the state is running and cannot
            go on (no legal action, or a play under way that cannot be completed).
    """
    return resample_hidden_seeded(state, observer, int(rng.integers(SEED_LIMIT)))


def resample_hidden_seeded(state: S, observer: int, seed: int) -> S:
    """:func:`resample_hidden` with the draws of ``EventRng(seed, k)``, try ``k`` of the
    re-deal (``k = 0`` unless that position could not go on: module docstring).

    The result is a function of ``observer``'s information set and ``seed`` only; the C++
    core's ``_core.resample_hidden(state, observer, seed)`` gives the same state.

    Raises:
        ValueError: ``observer`` is not an int in ``[0, num_players)``.
        ConfigError: ``seed`` is not an int in ``[0, 2**62)``.
        StateError: as :func:`resample_hidden`.
    """
    g = state.game
    n = g.num_players
    if isinstance(observer, bool) or not isinstance(observer, (int, np.integer)):
        raise ValueError(f"observer must be a seat in [0, {n}), got {observer!r}")
    if not 0 <= observer < n:
        raise ValueError(f"observer must be a seat in [0, {n}), got {observer!r}")
    observer = int(observer)
    seed = check_seed(seed)
    for k in range(MAX_REDEALS):
        s = _redeal(state, observer, EventRng(seed, RESAMPLE_EVENT + k))
        if can_go_on(s):
            return s
    s = state.clone()  # every try dead-ended: the hidden cards stay where they are
    if not can_go_on(s):
        raise no_way_on(s)
    return s


def can_go_on(state: StateArrays) -> bool:
    """Whether a position can go on: it is over, or the acting seat has a legal action and,
    in a play under way, the play can be completed (``validation.py``'s check of a loaded
    state), judged by the Python rules. Computes and caches the position's legal actions."""
    state = _for_the_rules(state)
    stage = int(state.ctx[C_STAGE])
    if stage == ST_OVER:
        return True
    if not search.legal_actions(state):
        return False
    if stage in SEARCHED_STAGES and stage not in (ST_PLAY, ST_FOLLOW):
        return search.search(state.clone(), int(state.ctx[C_SERIAL]))
    return True


def _for_the_rules(state: StateArrays) -> StateArrays:
    """``state`` if the Python rules can run on it, else a Python copy of its arrays: a
    state whose class replaces ``clone`` keeps its arrays elsewhere (a C++ state's views)."""
    if type(state).clone is StateArrays.clone:
        return state
    plain: StateArrays = StateArrays.empty(state.game)
    for name in ARRAYS:
        getattr(plain, name)[...] = getattr(state, name)
    plain.ctx = array("q", state.ctx)
    return plain


def no_way_on(state: StateArrays) -> StateError:
    """The error for a running position that cannot go on (the words of the C++ core's
    ``fort::StateError`` for it, ``cpp/src/views/hidden.cc``)."""
    state = _for_the_rules(state)
    if not search.legal_actions(state):
        return StateError("ctx.decision", NO_LEGAL_ACTION)
    return StateError("ctx.stage", NO_COMPLETION)


def _redeal(state: S, observer: int, r: EventRng) -> S:
    """One try of the re-deal (module docstring, steps 1-6), drawing from ``r``."""
    g = state.game
    s = state.clone()
    zone, owner, pos, mark, coin_as = s.zone, s.owner, s.pos, s.mark, s.coin_as

    # 1. The observer's own deck: same cards, new order.
    own_deck = np.flatnonzero((zone == DECK) & (owner == observer))
    pos[own_deck] = r.permutation(len(own_deck))

    # 2. The hidden slots, in canonical order, and the hidden cards, by id.
    rival = (owner >= 0) & (owner != observer)
    hidden = (zone == PARK_DECK) | (rival & np.isin(zone, HIDDEN_RIVAL_ZONES))
    if s.ctx[C_PENDING_COIN] >= 0:  # the coin card whose suit is being declared: ctx names it
        hidden[int(s.ctx[C_PENDING_COIN])] = False
    cards = np.flatnonzero(hidden)  # ascending id
    sclass = suit_class(g)
    z_all = zone[cards].astype(np.int64)
    o_all = owner[cards].astype(np.int64)
    sig_all = np.where(z_all == LOOKOUT, sclass[cards], -1).astype(np.int64)
    m_all = mark[cards].astype(np.int64)
    c_all = coin_as[cards].astype(np.int64)
    order = np.lexsort((c_all, m_all, sig_all, o_all, z_all))  # last key first
    sz, so, ssig = z_all[order].tolist(), o_all[order].tolist(), sig_all[order].tolist()
    sm, sc = m_all[order].tolist(), c_all[order].tolist()
    num_slots = len(sz)
    filled: list[int] = [-1] * num_slots  # slot -> card

    card_list = cards.tolist()
    is_bound = (g.is_best_friend[cards] & (owner[cards] >= 0)).tolist()
    bound = [c for c, b in zip(card_list, is_bound, strict=True) if b]  # their owner's slots
    free = [c for c, b in zip(card_list, is_bound, strict=True) if not b]
    owner_of, class_of = owner.tolist(), sclass.tolist()
    nc = g.num_cards
    B = np.zeros((MAX_PLAYERS, nc), dtype=np.int64)
    L = np.zeros((MAX_PLAYERS, nc), dtype=np.int64)
    H = np.zeros(MAX_PLAYERS, dtype=np.int64)
    N = np.bincount(sclass[free], minlength=nc).astype(np.int64)
    for c in bound:
        B[owner_of[c], class_of[c]] += 1
    for j in range(num_slots):
        if so[j] >= 0 and sz[j] in (HAND, DECK):
            H[so[j]] += 1
        elif sz[j] == LOOKOUT and so[j] >= 0:
            L[so[j], ssig[j]] += 1

    def fillable() -> bool:
        over = np.maximum(B - L, 0).sum(axis=1)
        short = np.maximum(L - B, 0).sum(axis=0)
        return bool((over <= H).all() and (short <= N).all())

    # 2a. Best Friends held by rivals, each to an open slot of its owner.
    for c in bound:
        p, k = owner_of[c], class_of[c]
        B[p, k] -= 1
        H[p] -= 1
        to_pile = H[p] >= 0 and fillable()
        H[p] += 1
        L[p, k] -= 1
        to_lookout = L[p, k] >= 0 and fillable()
        L[p, k] += 1
        options = [
            j
            for j in range(num_slots)
            if filled[j] < 0
            and so[j] == p
            and (
                (to_pile and sz[j] in (HAND, DECK))
                or (to_lookout and sz[j] == LOOKOUT and ssig[j] == k)
            )
        ]
        if not options:
            raise StateError("cards", f"cannot re-deal Best Friend #{c}: no slot of seat {p}")
        j = options[r.below(len(options))]
        filled[j] = c
        if sz[j] == LOOKOUT:
            L[p, k] -= 1
        else:
            H[p] -= 1

    # 2b. Lookout slots still open: a free card with the slot's suits.
    taken = set()
    for j in range(num_slots):
        if filled[j] >= 0 or sz[j] != LOOKOUT:
            continue
        candidates = [c for c in free if class_of[c] == ssig[j] and c not in taken]
        if not candidates:
            raise StateError("cards", "cannot re-deal a rival's Lookout: no card with its suits")
        c = candidates[r.below(len(candidates))]
        taken.add(c)
        filled[j] = c

    # 2c. Every other open slot: the free cards left, in a random order.
    left = [c for c in free if c not in taken]
    open_slots = [j for j in range(num_slots) if filled[j] < 0]
    if len(left) != len(open_slots):  # pragma: no cover - counts match by construction
        raise StateError("cards", "cannot re-deal: hidden cards and slots differ in number")
    for j, i in zip(open_slots, r.permutation(len(left)), strict=True):
        filled[j] = left[i]

    # 2d. Write the slots: pos is the rank in the (zone, owner) pile.
    rank: dict[tuple[int, int], int] = {}
    ranks = []
    for key in zip(sz, so, strict=True):
        ranks.append(rank.get(key, 0))
        rank[key] = ranks[-1] + 1
    dst = np.array(filled, dtype=np.int64)
    zone[dst], owner[dst], pos[dst], mark[dst], coin_as[dst] = sz, so, ranks, sm, sc

    # 3. Made-up rules the observer cannot see.
    seeing_stack = s.ctx[C_DECISION] == DecisionKind.PICK_RULE and s.ctx[C_ACTOR] == observer
    hidden_locs = (IN_BOX,) if seeing_stack else (IN_BOX, IN_STACK)
    rule_loc = s.rule_loc
    rules = [
        i
        for i, loc in enumerate(rule_loc.tolist())
        if loc in hidden_locs or (loc >= 0 and loc != observer)
    ]
    locs = sorted(rule_loc[rules].tolist())
    for i, k in zip(rules, r.permutation(len(rules)), strict=True):
        rule_loc[i] = locs[k]

    # 4. Future shuffles.
    s.ctx[C_SEED] = r.below(SEED_LIMIT)
    s.ctx[C_SHUFFLES] = 0
    return s
