"""Re-dealing what a player cannot see (determinisation for search; the leak test).

What ``observer`` cannot see, and so is re-dealt: rivals' hands and decks, the order of every
deck and of the Park deck, the Park deck's cards, rivals' draft packs and kept cards, which
cards lie in rivals' Lookouts (their suits stay), rivals' made-up rules, the stack and the
rules left in the box, and future shuffles (a new seed). Best Friends stay with their owner.
The re-deal is consistent with the observation (``observation.py``), not with everything the
observer could remember of the game's history (docs/rules.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import numpy as np

from .constants import (
    DECK,
    DRAFT_KEPT,
    DRAFT_PACK,
    HAND,
    IN_BOX,
    IN_STACK,
    LOOKOUT,
    PARK_DECK,
    SEED_LIMIT,
)
from .decisions import DecisionKind
from .state_arrays import C_ACTOR, C_DECISION, C_PENDING_COIN, C_SEED, C_SHUFFLES

if TYPE_CHECKING:
    from .state_arrays import StateArrays

S = TypeVar("S", bound="StateArrays")


def resample_hidden(state: S, observer: int, rng: np.random.Generator) -> S:
    """A copy of ``state`` with everything ``observer`` cannot see re-dealt at random.

    Args:
        observer: the seat whose knowledge is kept.
        rng: the source of randomness (the state's own generator is not used).

    Returns:
        A new state; ``state`` is unchanged. ``observer``'s observation and legal actions are
        the same in both.
    """
    s = state.clone()
    g = s.game
    zone, owner, pos = s.zone, s.owner, s.pos
    # 1. The observer's own deck: same cards, new order.
    own_deck = np.flatnonzero((zone == DECK) & (owner == observer))
    pos[own_deck] = rng.permutation(len(own_deck))
    # 2. Hidden slots elsewhere.
    rival = (owner >= 0) & (owner != observer)
    hidden = (zone == PARK_DECK) | (
        rival & np.isin(zone, (HAND, DECK, DRAFT_PACK, DRAFT_KEPT, LOOKOUT))
    )
    if s.ctx[C_PENDING_COIN] >= 0:  # the coin card whose suit is being declared: ctx names it
        hidden[int(s.ctx[C_PENDING_COIN])] = False
    ids = np.flatnonzero(hidden)
    # a slot keeps its mark and declared coin suit (an added Lookout card stays added)
    slots = [(int(zone[c]), int(owner[c]), int(pos[c]), int(s.mark[c]), int(s.coin_as[c]))
             for c in ids]  # fmt: skip
    bf = g.is_best_friend
    free = [int(c) for c in ids if not bf[c]]
    rng.shuffle(free)
    assignment: dict[int, int] = {}  # slot index -> card
    # 2a. Lookout slots keep their suits; a Best Friend there stays (it can only be its
    # owner's). Each slot's own card is still free when it is reached or was taken by an
    # earlier slot of the same suits, so a card with the right suits is always left.
    for i, c in enumerate(ids):
        if zone[c] != LOOKOUT:
            continue
        if bf[c]:
            assignment[i] = int(c)
            continue
        sig = g.suit_lists[c]
        options = [k for k, d in enumerate(free) if g.suit_lists[d] == sig]
        assignment[i] = free.pop(options[int(rng.integers(len(options)))])
    # 2b. Each rival's hand and deck keep their Best Friends; other slots take free cards.
    by_owner: dict[int, list[int]] = {}
    for i, (z, o, *_) in enumerate(slots):
        if z in (HAND, DECK) and o >= 0:
            by_owner.setdefault(o, []).append(i)
    for idx in by_owner.values():
        friends = [int(ids[i]) for i in idx if bf[ids[i]]]
        contents = friends + [free.pop() for _ in range(len(idx) - len(friends))]
        rng.shuffle(contents)
        for i, card in zip(idx, contents, strict=True):
            assignment[i] = card
    for i in range(len(slots)):
        if i not in assignment:
            assignment[i] = free.pop()
    assert not free
    for i, (z, o, p, m, coin) in enumerate(slots):
        card = assignment[i]
        zone[card], owner[card], pos[card], s.mark[card], s.coin_as[card] = z, o, p, m, coin
    # Deck and Park deck orders are hidden too.
    for o in {o for z, o, *_ in slots if z == DECK}:
        d = np.flatnonzero((zone == DECK) & (owner == o))
        pos[d] = rng.permutation(len(d))
    pd = np.flatnonzero(zone == PARK_DECK)
    pos[pd] = rng.permutation(len(pd))
    # 3. Made-up rules the observer cannot see.
    seeing_stack = s.ctx[C_DECISION] == DecisionKind.PICK_RULE and s.ctx[C_ACTOR] == observer
    hidden_locs = [IN_BOX] + ([] if seeing_stack else [IN_STACK])
    rules = [
        i
        for i, loc in enumerate(s.rule_loc)
        if loc in hidden_locs or (loc >= 0 and loc != observer)
    ]
    locs = s.rule_loc[rules].copy()
    rng.shuffle(locs)
    s.rule_loc[rules] = locs
    # 4. Future shuffles.
    s.ctx[C_SEED] = int(rng.integers(SEED_LIMIT))
    s.ctx[C_SHUFFLES] = 0
    return s
