"""Writes through the state's views cannot crash or hang either engine (issue 42, item 1).

A ``CppFortState``'s arrays are zero-copy views of the C++ state, writable (hand-built scenarios
write into them); a Python state's arrays are plain numpy arrays. A write may leave a position
the rules never reach. Every entry point must then either work or raise an exception: never
crash the interpreter (the sanitizer job runs this file) and never loop. The legality search is
bounded by ``constants.SEARCH_NODE_BUDGET`` (``StateError``), its depth by the recursion limit.

- the reproduction of the issue: a 4-player draft position whose ``stage`` is written to PLAY
  (or PROBE) looped forever holding the GIL on both engines; now ``StateError``;
- a fuzz target: random in-range writes (``zone``, ``owner``, ``ctx`` within the ranges
  ``validation`` checks) into positions of random games, then every entry point.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

from fort_env import FortGame
from fort_env.game import validation
from fort_env.game.constants import DRAFT_KEPT, DRAFT_PACK, ZONES
from fort_env.game.errors import FortError, StateError
from fort_env.game.fields import C_STAGE
from fort_env.game.rules import search
from fort_env.game.stages import ST_PLAY, ST_PROBE
from fort_env.native import backend as cpp_backend

BACKENDS = ["python", pytest.param("cpp", marks=pytest.mark.skipif(
    not cpp_backend.available(), reason="compiled core not built"))]  # fmt: skip
# what a refused call may raise: the project's errors, the core's range checks (ValueError),
# and the Python engine's indexing of a field past its table (IndexError, KeyError)
REFUSALS: tuple[type[Exception], ...] = (FortError, ValueError, IndexError, KeyError)
PYTHON_BUDGET = 3_000  # the Python engine expands ~30k positions a second: keep the test short


@pytest.fixture(autouse=True)
def _small_python_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "SEARCH_NODE_BUDGET", PYTHON_BUDGET)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("stage", [ST_PLAY, ST_PROBE])
@pytest.mark.parametrize("zone", [0, DRAFT_KEPT])
def test_a_draft_position_moved_to_another_stage_is_refused_not_looped(
    backend: str, stage: int, zone: int
) -> None:
    game = FortGame(4, setup="advanced", backend=backend)
    s = game.new_initial_state(3)
    card = int(np.flatnonzero(np.asarray(s.zone) == DRAFT_PACK)[0])
    s.zone[card] = zone
    s.ctx[C_STAGE] = stage
    with pytest.raises(StateError, match="legality search"):
        s.legal_actions()
    with pytest.raises(StateError, match="legality search"):
        s.legal_actions_mask()


def _entry_points(s: Any, rng: random.Random) -> None:
    """Every public entry point of a state, each allowed to raise (the caller counts them)."""
    n = s.game.num_players
    calls = [
        s.legal_actions, s.legal_actions_mask, s.local_legal_actions, s.is_terminal,
        s.current_player, s.returns, s.winners, s.score_breakdown, s.to_dict, s.clone,
        s.in_searched_stage, lambda: str(s),
        lambda: [s.observation_tensor(p) for p in range(n)],
        lambda: [s.table_observation_tensor(p) for p in range(n)],
        lambda: s.resample_hidden(rng.randrange(n), np.random.default_rng(rng.randrange(99))),
        lambda: s.clone().apply_action(rng.randrange(s.game.num_distinct_actions)),
        lambda: s.clone().apply_action(s.legal_actions()[0]),
        lambda: s.never_strands(rng.randrange(s.game.num_distinct_actions)),
    ]  # fmt: skip
    if s.game.backend == "cpp":
        from fort_env.native.playout import playout

        calls.append(lambda: playout(s, "random", rng.randrange(99)))
    allowed = REFUSALS
    for call in calls:
        try:
            call()
        except allowed as e:
            _entry_points.errors[s.game.backend, type(e).__name__] += 1  # type: ignore[attr-defined]


_entry_points.errors = Counter()  # type: ignore[attr-defined]


def _write(s: Any, ranges: dict[int, tuple[int, int]], rng: random.Random) -> None:
    n, cards = s.game.num_players, len(s.zone)
    what = rng.randrange(3)
    if what == 0:
        s.zone[rng.randrange(cards)] = rng.randrange(len(ZONES))
    elif what == 1:
        s.owner[rng.randrange(cards)] = rng.randrange(-1, n)
    else:
        field, (lo, hi) = rng.choice(sorted(ranges.items()))
        s.ctx[field] = rng.randint(lo, hi)


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_writes_through_the_views_never_crash_or_loop(backend: str) -> None:
    rng = random.Random(42)
    trials = 0
    for players, setup in ((2, "basic"), (3, "advanced"), (4, "advanced")):
        game = FortGame(players, setup=setup, backend=backend)
        ranges = validation._ctx_ranges(game)
        for seed in range(8):
            s = game.new_initial_state(seed)
            steps = rng.randrange(0, 120)
            for _ in range(steps):
                if s.is_terminal():
                    break
                s.apply_action(rng.choice(s.legal_actions()))
            for _ in range(16):
                bad = s.clone()
                for _ in range(rng.randint(1, 3)):
                    _write(bad, ranges, rng)
                _entry_points(bad, rng)
                trials += 1
    assert trials == 3 * 8 * 16
    refused = {k: v for k, v in _entry_points.errors.items() if k[0] == backend}
    assert sum(refused.values()) > 0, refused  # some writes were refused, as they must be
