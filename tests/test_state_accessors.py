"""FortState's accessors (cards_in, made_up_rules_held, perks_held): what bots read instead of
the raw arrays, equal on both engines and consistent with the arrays they summarise."""

from __future__ import annotations

import numpy as np
import pytest

from fort_env import FortGame
from fort_env.game.constants import IN_STACK, MADE_UP_RULES, PERKS, ZONES


def _positions(backend: str, n: int, seed: int, every: int = 7):
    state = FortGame(n, backend=backend).new_initial_state(seed)
    rng = np.random.default_rng(seed)
    k = 0
    while not state.is_terminal():
        if k % every == 0:
            yield state
        state.apply_action(int(rng.choice(state.legal_actions())))
        k += 1
    yield state


@pytest.mark.parametrize("n", [2, 4])
def test_accessors_partition_the_table_alike_on_both_engines(n: int) -> None:
    for seed in range(3):
        for py, cpp in zip(_positions("python", n, seed), _positions("cpp", n, seed), strict=True):
            cards = []
            for zone in range(len(ZONES)):
                here = py.cards_in(zone)
                assert here.dtype == np.int64 and np.all(np.diff(here) > 0)
                np.testing.assert_array_equal(here, cpp.cards_in(zone))
                by_owner = [py.cards_in(zone, q) for q in range(-1, n)]
                np.testing.assert_array_equal(np.sort(np.concatenate(by_owner)), here)
                cards.append(here)
            np.testing.assert_array_equal(np.sort(np.concatenate(cards)), np.arange(len(py.zone)))
            rules = np.concatenate([py.made_up_rules_held(s) for s in range(-1, n)])
            perks = np.concatenate([py.perks_held(s) for s in range(-1, n)])
            assert len(rules) <= len(MADE_UP_RULES) and len(perks) <= len(PERKS)
            for s in range(-1, n):
                np.testing.assert_array_equal(py.made_up_rules_held(s), cpp.made_up_rules_held(s))
                np.testing.assert_array_equal(py.perks_held(s), cpp.perks_held(s))
        assert py.is_terminal() and cpp.is_terminal()


def test_accessors_refuse_a_zone_or_owner_out_of_range() -> None:
    state = FortGame(2).new_initial_state(0)
    with pytest.raises(ValueError, match="zone must be in"):
        state.cards_in(len(ZONES))
    with pytest.raises(ValueError, match="owner must be -1 or a seat"):
        state.cards_in(0, 2)
    assert IN_STACK == -1
