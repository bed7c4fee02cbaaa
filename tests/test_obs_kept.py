"""The batched envs' observation rows written again (``step(..., obs_kept=True)``).

With ``obs_kept`` the core clears a row only where the observation it wrote there last was
non-zero (``views/observation.h`` ``observation_update``) instead of the whole row. Every row
must still be exactly the seat's observation: compared at every stop of random games with a
twin batch that clears in full, with ``observation`` of the env's state, and, when the buffer
moves between calls, with rows that start out as garbage (a row at a new address is cleared in
full whatever ``obs_kept`` says).
"""

from __future__ import annotations

import numpy as np
import pytest

from fort_env.core import FortGame
from fort_env.envs.vector import random_legal_actions
from fort_env.native import backend as cpp_backend

if not cpp_backend.available():  # pragma: no cover
    pytest.skip(
        f"compiled core not usable: {cpp_backend.why_unavailable()}", allow_module_level=True
    )


@pytest.mark.parametrize("num_players", [2, 4])
def test_kept_rows_equal_rows_cleared_in_full(num_players: int) -> None:
    core = cpp_backend.require()
    game = cpp_backend.core_game(FortGame(num_players))
    kept, full = core.SelfPlay(game, 6, threads=2), core.SelfPlay(game, 6)
    out_kept, out_full = kept.buffers(), full.buffers()
    ids = np.arange(6)
    kept.reset(ids, ids + 11, out_kept)
    full.reset(ids, ids + 11, out_full)
    rng = np.random.default_rng(num_players)
    for _ in range(300):
        np.testing.assert_array_equal(out_kept["obs"], out_full["obs"])
        for i in (0, 5):
            state, actor = kept.state(i), int(out_kept["actor"][i])
            np.testing.assert_array_equal(out_kept["obs"][i], core.observation(state, actor))
        actions = random_legal_actions(out_full["mask"], rng)
        kept.step(ids, actions, out_kept, obs_kept=True)
        full.step(ids, actions, out_full)


def test_a_row_at_a_new_address_is_cleared_in_full() -> None:
    """Two buffers in turn: each call writes every row at another address than the env's
    last, so rows filled with garbage beforehand come out as the observation."""
    core = cpp_backend.require()
    game = cpp_backend.core_game(FortGame(3))
    batch = core.Batch(game, 4)
    outs = [batch.buffers(), batch.buffers()]
    ids = np.arange(4)
    batch.reset(ids, ids + 2, outs[0])
    rng = np.random.default_rng(1)
    for k in range(60):
        last, out = outs[k % 2], outs[(k + 1) % 2]
        actions = random_legal_actions(last["mask"], rng)
        out["obs"].fill(7.0)  # garbage where the env has never written
        batch.step(ids, actions, out, obs_kept=True)
        for i in ids:
            expected = core.observation(batch.state(int(i)), int(out["actor"][i]))
            np.testing.assert_array_equal(out["obs"][i], expected)
