"""``resample_hidden`` is a function of the observer's information set and the seed.

Two states the observer cannot tell apart (hidden cards swapped between slots that look the
same to it, hidden orders and positions changed, hidden made-up rules moved, another game
seed) give exactly the same re-dealt state for the same seed. The variants are made here
independently of ``fort_env/views/hidden.py``: from the rulebook's notion of what a seat sees
(``tests/test_oracles.py`` has the statistical checks: counts, Best Friends, nothing visible
moves, every hidden card varies).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from fort_env import FortGame, FortState
from fort_env.game.constants import (
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
from fort_env.game.decisions import DecisionKind
from fort_env.game.errors import ConfigError
from fort_env.game.fields import C_ACTOR, C_DECISION, C_PENDING_COIN, C_SEED, C_SHUFFLES
from fort_env.views.hidden import resample_hidden_seeded
from tests.scenario import build

RIVAL_HIDDEN = (HAND, DECK, DRAFT_PACK, DRAFT_KEPT, LOOKOUT)  # a rival's, seen as a count only


def hidden_cards(state: FortState, observer: int) -> list[int]:
    """Cards ``observer`` cannot identify: the Park deck and rivals' hand, deck, draft packs
    and kept cards and Lookout (where only the suits show), except a coin being declared."""
    out = []
    for c in range(state.game.num_cards):
        z, o = int(state.zone[c]), int(state.owner[c])
        seen_as_count = z == PARK_DECK or (o >= 0 and o != observer and z in RIVAL_HIDDEN)
        if seen_as_count and c != state.ctx[C_PENDING_COIN]:
            out.append(c)
    return out


def fits(state: FortState, card: int, slot_of: int) -> bool:
    """Whether ``card`` could lie where ``slot_of`` lies, as far as a rival can tell."""
    g = state.game
    z, o = int(state.zone[slot_of]), int(state.owner[slot_of])
    if z == LOOKOUT and sorted(g.cards[card].suits) != sorted(g.cards[slot_of].suits):
        return False
    if g.is_best_friend[card]:  # a Best Friend stays with its owner, in hand, deck or Lookout
        return o == state.owner[card] and z in (HAND, DECK, LOOKOUT)
    return True


def variant(state: FortState, observer: int, rng: np.random.Generator) -> FortState:
    """A state ``observer`` cannot tell from ``state`` (built without ``fort_env.views.hidden``)."""
    s = state.clone()
    cards = hidden_cards(s, observer)
    fields = (s.zone, s.owner, s.pos, s.mark, s.coin_as)
    for _ in range(4 * len(cards)):  # random swaps of two hidden cards between their slots
        a, b = (int(x) for x in rng.choice(cards, 2, replace=False))
        if fits(s, a, b) and fits(s, b, a):
            for arr in fields:
                arr[a], arr[b] = arr[b], arr[a]
    # hidden orders: every deck (the observer's too) and the Park deck; unordered piles' pos
    for c in cards:
        if s.zone[c] not in (DECK, PARK_DECK):
            s.pos[c] = rng.integers(0, 100)
    piles = {(int(s.zone[c]), int(s.owner[c])) for c in cards if s.zone[c] in (DECK, PARK_DECK)}
    piles.add((DECK, observer))
    for z, o in piles:
        ids = np.flatnonzero((s.zone == z) & (s.owner == o))
        s.pos[ids] = rng.permutation(s.pos[ids])
    # made-up rules the observer does not see; the future shuffles
    sees_stack = s.ctx[C_DECISION] == DecisionKind.PICK_RULE and s.ctx[C_ACTOR] == observer
    rules = [i for i, loc in enumerate(s.rule_loc.tolist())
             if loc == IN_BOX or (loc == IN_STACK and not sees_stack)
             or (loc >= 0 and loc != observer)]  # fmt: skip
    s.rule_loc[rules] = rng.permutation(s.rule_loc[rules])
    s.ctx[C_SEED] = int(rng.integers(SEED_LIMIT))
    s.ctx[C_SHUFFLES] = int(rng.integers(100))
    return s


def random_positions(num_players: int, setup: str, seed: int, every: int) -> Iterator[FortState]:
    game = FortGame(num_players, setup)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    k = 0
    while not state.is_terminal():
        if k % every == 0:
            yield state
        state.apply_action(int(rng.choice(state.legal_actions())))
        k += 1
    yield state


@pytest.mark.parametrize(
    ("num_players", "setup"), [(2, "basic"), (3, "basic"), (4, "basic"), (3, "advanced")]
)
def test_states_an_observer_cannot_tell_apart_resample_alike(num_players: int, setup: str) -> None:
    rng = np.random.default_rng(num_players)
    checked = changed = 0
    for state in random_positions(num_players, setup, seed=11, every=9):
        for observer in range(num_players):
            other = variant(state, observer, rng)
            assert np.array_equal(
                other.observation_tensor(observer), state.observation_tensor(observer)
            )
            changed += other.to_dict() != state.to_dict()
            seed = int(rng.integers(SEED_LIMIT))
            want = resample_hidden_seeded(state, observer, seed)
            assert resample_hidden_seeded(other, observer, seed).to_dict() == want.to_dict()
            assert np.array_equal(
                want.observation_tensor(observer), state.observation_tensor(observer)
            )
            checked += 1
    assert checked > 20 and changed > 0.9 * checked  # the variants really differ


# Seat 1 (blue board) has the Best Friends Ace (a coin) and Punky. Seat 0 sees one coin card in
# seat 1's Lookout: Ace or a Bud (also a plain coin) cannot be told apart there.
def _ace_or_bud(ace_in_lookout: bool) -> FortState:
    tucked, in_hand = ("Ace", "Bud") if ace_in_lookout else ("Bud", "Ace")
    return build(
        2, leader=0,
        hands={0: ["Doc", "Wart"], 1: [in_hand, "Rusty", "Crash"]},
        deck={1: ["Penny", "Punky"]}, lookout={1: [tucked]}, level={0: 1, 1: 1},
    )  # fmt: skip


def test_a_best_friend_in_a_lookout_is_resampled_like_a_card_with_its_suits() -> None:
    a, b = _ace_or_bud(True), _ace_or_bud(False)
    assert a.to_dict() != b.to_dict()
    assert np.array_equal(a.observation_tensor(0), b.observation_tensor(0))
    ace = next(c.id for c in a.game.cards if c.name == "Ace")
    where = set()
    for seed in range(60):
        ra, rb = resample_hidden_seeded(a, 0, seed), resample_hidden_seeded(b, 0, seed)
        assert ra.to_dict() == rb.to_dict()
        assert ra.owner[ace] == 1
        where.add(int(ra.zone[ace]))
        FortState.from_dict(a.game, ra.to_dict())  # a consistent position
    assert where == {HAND, DECK, LOOKOUT}  # Ace moves between all its owner's hidden piles


def test_the_generator_form_draws_one_seed() -> None:
    s = _ace_or_bud(True)
    seed = int(np.random.default_rng(3).integers(SEED_LIMIT))
    got = s.resample_hidden(0, np.random.default_rng(3))
    assert got.to_dict() == resample_hidden_seeded(s, 0, seed).to_dict()
    assert got.ctx[C_SHUFFLES] == 0 and got.ctx[C_SEED] != s.ctx[C_SEED]


@pytest.mark.parametrize("observer", [-1, 2, 1.0, True, "0", None])
def test_a_bad_observer_is_refused(observer: object) -> None:
    s = _ace_or_bud(True)
    with pytest.raises(ValueError, match="observer must be a seat in"):
        resample_hidden_seeded(s, observer, 0)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [-1, SEED_LIMIT, 1.5, "1", None, True])
def test_a_bad_seed_is_refused(seed: object) -> None:
    with pytest.raises(ConfigError, match="seed must be"):
        resample_hidden_seeded(_ace_or_bud(True), 0, seed)  # type: ignore[arg-type]
