"""The fast observation writer against the slice-by-slice reference.

``tests/reference_observation.py`` holds the reference.

Every seat's observation is compared at every position of random games in each configuration,
advanced setup included (draft packs, made-up rules, perks), so each table entry of the fast
writer is exercised against the straightforward one.
"""

from __future__ import annotations

import numpy as np
import pytest

from fort_env import FortGame
from tests.reference_observation import reference_observation

CONFIGS = [(n, setup) for setup in ("basic", "advanced") for n in (2, 3, 4)]
GAMES_PER_CONFIG = 4


@pytest.mark.parametrize(("num_players", "setup"), CONFIGS)
def test_fast_observation_equals_the_reference_at_every_position(
    num_players: int, setup: str
) -> None:
    game = FortGame(num_players, setup)
    rng = np.random.default_rng(num_players)
    compared = 0
    for g in range(GAMES_PER_CONFIG):
        state = game.new_initial_state(seed=1000 * num_players + g)
        while True:
            for seat in range(num_players):
                fast = state.observation_tensor(seat)
                ref = reference_observation(state, seat)
                assert fast.dtype == np.float32 and fast.shape == ref.shape
                if not np.array_equal(fast, ref):
                    bad = np.flatnonzero(fast != ref)
                    where = f"seat {seat}, {state.decision}, entries {bad[:10]}"
                    raise AssertionError(f"{where}: {fast[bad[:10]]} != {ref[bad[:10]]}")
                compared += 1
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert compared > 100 * num_players


def test_observation_is_a_fresh_array_that_owns_its_data() -> None:
    state = FortGame(2).new_initial_state(seed=3)
    a = state.observation_tensor(0)
    b = state.observation_tensor(0)
    assert a.flags.owndata and a.flags.writeable
    a[:] = 7.0
    assert not np.array_equal(a, b)
    assert np.array_equal(b, state.observation_tensor(0))
