"""Playouts in C++ against the Python twin (``fort_env/native/playout.py``'s specification).

- From positions of random games (2, 3, 4 players, both setups), ``_core.playout`` on the C++
  state gives the same returns and decision count as the Python twin played by the **Python
  engine** on the Python state (the whole playout: rules and draws).
- Draw for draw, on many more positions: the Python twin's loop played on a C++ state
  (``_python_playout``'s steps: the exact legal set, rejection over ``raw_legal``) chooses at
  every decision ``k`` the action ``_core.policy_action(state, code, seed, k)`` chooses (the C++
  rejection, which searches only the drawn action's class), and ends with ``_core.playout``'s
  returns and count; at each position many seeds' first draws agree, are legal, and cover the
  legal actions.
- A batch is the loop of singles (playout ``i`` has seed ``seed + i``), whatever the thread
  count; the GIL is released during a batch; the state passed in is never changed; a finished
  game gives its returns after 0 decisions; bad arguments raise one clear error.

Skipped, with the reason shown, when the extension is not built.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fort_env import FortGame, FortState
from fort_env.game.errors import ConfigError
from fort_env.game.rng import EventRng
from fort_env.game.state_arrays import CTX_FIELDS
from fort_env.native import backend as cpp_backend
from fort_env.native import playout as P
from fort_env.testing import differential as harness


def _usable() -> bool:
    return cpp_backend.available() and hasattr(cpp_backend.require(), "playouts")


pytestmark = pytest.mark.skipif(
    not _usable(),
    reason=f"the C++ core is not usable or binds no playouts: {cpp_backend.why_unavailable()}",
)

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = [(n, setup) for n in (2, 3, 4) for setup in ("basic", "advanced")]
RANDOM = P.policy_code("random")
POSITION_EVERY = 40  # decisions between two positions taken from a game
FIRST_DRAW_SEEDS = 48  # seeds whose first draw is compared at each position
SLOW_GAMES = 40  # games per configuration under -m slow


def core() -> Any:
    return cpp_backend.require()


def cpp_game(n: int, setup: str) -> FortGame:
    return harness.game(n, setup, "cpp")


def positions(n: int, setup: str, seed: int, every: int = POSITION_EVERY) -> Iterator[FortState]:
    """Positions of a random C++ game: the deal, every ``every`` decisions, and the end."""
    state = cpp_game(n, setup).new_initial_state(seed)
    rng = np.random.default_rng(seed)
    k = 0
    while not state.is_terminal():
        if k % every == 0:
            yield state.clone()
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
        k += 1
    yield state


def python_twin(state: FortState) -> FortState:
    """The same position on the Python engine."""
    return FortState.from_dict(harness.game(state.game.num_players, state.game.setup,
                                            "python"), state.to_dict())  # fmt: skip


def draw_for_draw(state: FortState, seed: int) -> P.Playout:
    """The Python twin's loop on a C++ state, checking C++'s choice at every decision."""
    s = state.clone()
    k = 0
    while not s.is_terminal():
        want = P.policy_action(s, "random", EventRng(seed, k))
        got = core().policy_action(s.core_state, RANDOM, seed, k)
        assert got == want, (seed, k, s.decision, want, got)
        s.apply_action(want)
        k += 1
    return P.Playout(s.returns(), k)


def same(a: P.Playout, b: P.Playout, what: object) -> None:
    assert b.decisions == a.decisions, what
    assert np.array_equal(b.returns, a.returns), what
    assert a.returns.dtype == b.returns.dtype == np.float64, what


# ------------------------------------------------------------------ C++ = Python twin
@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_cpp_playout_equals_the_python_engine_playout(n: int, setup: str) -> None:
    """The whole playout on the Python engine (its rules and the twin's draws)."""
    for i, state in enumerate(positions(n, setup, seed=100 + n, every=150)):
        seed = 7 * i + n
        got = P.playout(state, seed=seed)
        want = P.playout(python_twin(state), seed=seed)
        assert not isinstance(python_twin(state), cpp_backend.CppFortState)
        same(want, got, (n, setup, i))
        if not state.is_terminal():
            assert got.decisions > 0 and (got.returns == 1.0).any()
            assert set(got.returns.tolist()) <= {-1.0, 1.0}


@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_cpp_draws_equal_the_python_twin_draw_for_draw(n: int, setup: str) -> None:
    compared = searched = 0
    for game_seed in range(2):
        for i, state in enumerate(positions(n, setup, seed=game_seed)):
            seed = 1000 * game_seed + i
            same(draw_for_draw(state, seed), P.playout(state, seed=seed), (game_seed, i))
            compared += 1
            if state.is_terminal():
                continue
            # many seeds' first draws: equal, legal, and every legal action is drawn
            legal = set(state.legal_actions())
            raw = state.local_legal_actions()
            assert len(set(raw)) == len(raw) and legal <= set(raw)  # the spec's premise
            searched += len(raw) > len(legal)
            drawn = set()
            for s in range(FIRST_DRAW_SEEDS):
                want = P.policy_action(state, "random", EventRng(s, 0))
                assert core().policy_action(state.core_state, RANDOM, s, 0) == want
                drawn.add(want)
            assert drawn <= legal
            if len(legal) <= 4:
                assert drawn == legal, (drawn, legal)
    assert compared >= 10 and searched >= 1, (compared, searched)


def test_rejection_draws_only_legal_actions_where_the_search_removes_some() -> None:
    """Positions whose raw list holds actions the search removes: the C++ draws never play
    one, and reach every legal action (a uniform choice over the legal set)."""
    found = 0
    for n, setup in CONFIGS:
        for state in positions(n, setup, seed=3, every=1):
            if state.is_terminal():
                continue
            raw, legal = state.local_legal_actions(), set(state.legal_actions())
            if len(raw) == len(legal) or len(legal) > 6:
                continue
            counts = {a: 0 for a in legal}
            for s in range(60 * len(legal)):
                counts[core().policy_action(state.core_state, RANDOM, s, 5)] += 1
            assert min(counts.values()) > 0, counts  # KeyError above: an illegal draw
            found += 1
            if found >= 3 * len(CONFIGS):
                return
    assert found >= 6


# ------------------------------------------------------------------ batches and threads
def test_batch_is_the_loop_of_singles_for_any_thread_count() -> None:
    state = next(positions(3, "advanced", seed=5, every=30))
    seed, n = 2**62 - 40, 13  # near the top: seed + n must stay <= 2**62
    singles = [P.playout(state, seed=seed + i) for i in range(n)]
    want = np.stack([p.returns for p in singles])
    for threads in (1, 2, 3, 5, 16):
        batch = P.playout_batch(state, n, "random", seed, threads=threads)
        assert batch.returns.shape == (n, 3) and batch.returns.dtype == np.float64
        assert batch.decisions.dtype == np.int64
        assert np.array_equal(batch.returns, want), threads
        assert batch.decisions.tolist() == [p.decisions for p in singles], threads
    assert np.array_equal(P.playouts(state, n, seed=seed, threads=2), want)
    # the Python twin's batch on the Python engine is the same loop
    py = P.playout_batch(python_twin(state), 2, "random", seed)
    assert np.array_equal(py.returns, want[:2])
    assert py.decisions.tolist() == [p.decisions for p in singles[:2]]


def test_empty_batch_and_finished_game() -> None:
    states = list(positions(2, "basic", seed=1, every=10_000))
    start, over = states[0], states[-1]
    assert over.is_terminal()
    assert P.playout_batch(start, 0).returns.shape == (0, 2)
    for s in (over, python_twin(over)):
        one = P.playout(s, seed=3)
        assert one.decisions == 0 and np.array_equal(one.returns, over.returns())
        batch = P.playout_batch(s, 3, seed=3, threads=2)
        assert batch.decisions.tolist() == [0, 0, 0]
        assert np.array_equal(batch.returns, np.tile(over.returns(), (3, 1)))
    with pytest.raises(ValueError, match="game is over"):
        core().policy_action(over.core_state, RANDOM, 0, 0)


def test_the_state_passed_in_is_not_changed() -> None:
    state = next(positions(4, "basic", seed=2, every=17))
    py = python_twin(state)
    before = state.to_dict()
    cs_before = state.core_state.to_arrays()
    P.playout(state, seed=1)
    P.playout_batch(state, 4, seed=1, threads=2)
    core().policy_action(state.core_state, RANDOM, 1, 0)
    P.playout(py, seed=1)
    assert state.to_dict() == before == py.to_dict()
    after = state.core_state.to_arrays()
    assert all(np.array_equal(after[k], v) for k, v in cs_before.items())


def test_the_gil_is_released_during_a_batch() -> None:
    """A Python thread keeps running while a long batch runs in another thread."""
    state = cpp_game(2, "basic").new_initial_state(0)
    # A batch long enough to tell (>= 50 ms): doubled until it is, as the speed varies with the
    # build and the machine's load.
    n = 150
    while True:
        window: list[float] = []
        ticks: list[float] = []

        def batch(count: int = n, out: list[float] = window) -> None:
            out.append(time.perf_counter())
            P.playout_batch(state, count, seed=0)
            out.append(time.perf_counter())

        worker = threading.Thread(target=batch)
        worker.start()
        while worker.is_alive():
            ticks.append(time.perf_counter())
            time.sleep(0.001)
        worker.join()
        if window[1] - window[0] > 0.05 or n >= 10_000:
            break
        n *= 2
    inside = [t for t in ticks if window[0] < t < window[1]]
    assert window[1] - window[0] > 0.05, "the batch was too short to tell"
    assert len(inside) >= 10, (len(inside), window[1] - window[0])


# ------------------------------------------------------------------ the boundary
def test_bad_arguments_raise_one_clear_error_and_change_nothing() -> None:
    state = next(positions(2, "advanced", seed=4, every=25))
    before = state.to_dict()
    with pytest.raises(ValueError, match="policy must be one of"):
        P.playout(state, "greedy")
    with pytest.raises(ValueError, match="policy must be one of"):
        P.playout(state, 0)  # type: ignore[arg-type]  # a code is not a name
    for bad in (-1, 2**62, True, 1.5, "1", None):
        with pytest.raises(ConfigError, match=r"seed must be an int in \[0, 2\*\*62\)"):
            P.playout(state, seed=bad)  # type: ignore[arg-type]
        with pytest.raises(ConfigError, match="seed must be"):
            P.playout_batch(state, 2, seed=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="seed \\+ n must be at most 2\\*\\*62"):
        P.playout_batch(state, 3, seed=2**62 - 2)
    with pytest.raises(ValueError, match=r"n must be an int in \[0\]"):
        P.playout_batch(state, -1)
    with pytest.raises(TypeError, match="n must be an int"):
        P.playout_batch(state, 2.0)  # type: ignore[arg-type]
    for bad_threads in (0, P.MAX_PLAYOUT_THREADS + 1):
        with pytest.raises(ValueError, match="threads must be an int in"):
            P.playout_batch(state, 2, threads=bad_threads)
    with pytest.raises(TypeError, match="state must be a FortState"):
        P.playout(state.core_state)
    assert state.to_dict() == before
    # the binding checks every value itself
    cs = state.core_state
    for bad_code in (-1, len(P.POLICIES), True, "random"):
        with pytest.raises(ValueError, match="policy must be a policy code"):
            core().playout(cs, bad_code, 0)
    with pytest.raises(ConfigError, match="seed must be"):
        core().playouts(cs, 2, RANDOM, -5)
    with pytest.raises(ValueError, match="threads must be an int"):
        core().playouts(cs, 2, RANDOM, 0, 0)
    with pytest.raises(ValueError, match="n must be an int"):
        core().playouts(cs, -2, RANDOM, 0)
    with pytest.raises(ValueError, match="event must be an int"):
        core().policy_action(cs, RANDOM, 0, -1)
    assert state.to_dict() == before


def test_a_state_with_a_field_out_of_range_is_refused() -> None:
    state = next(positions(3, "basic", seed=6, every=12))
    state.ctx[CTX_FIELDS.index("actor")] = 7  # a seat that does not exist
    for call in (
        lambda: P.playout(state, seed=0),
        lambda: P.playout_batch(state, 2, seed=0, threads=2),
        lambda: core().policy_action(state.core_state, RANDOM, 0, 0),
    ):
        with pytest.raises(ValueError, match="actor"):
            call()


def test_a_core_built_before_a_new_policy_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(P, "POLICIES", (*P.POLICIES, "made-up"))
    state = cpp_game(2, "basic").new_initial_state(0)
    with pytest.raises(ConfigError, match="rebuild"):
        P.playout(state, "made-up")


def test_policy_codes_are_generated_from_the_python_names() -> None:
    assert len(P.POLICIES) == core().NUM_POLICIES
    header = (ROOT / "cpp" / "include" / "fort" / "constants.h").read_text(encoding="utf-8")
    for code, name in enumerate(P.POLICIES):
        assert f"POLICY_{name.upper()} = {code};" in header
    assert f"MAX_PLAYOUT_DECISIONS = {P.MAX_PLAYOUT_DECISIONS};" in header
    assert f"MAX_PLAYOUT_THREADS = {P.MAX_PLAYOUT_THREADS};" in header


# ------------------------------------------------------------------ more, under -m slow
@pytest.mark.slow
@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_many_more_positions_draw_for_draw(n: int, setup: str) -> None:
    for game_seed in range(2, SLOW_GAMES + 2):
        for i, state in enumerate(positions(n, setup, seed=game_seed, every=25)):
            seed = 1000 * game_seed + i
            same(draw_for_draw(state, seed), P.playout(state, seed=seed), (game_seed, i))
        python = python_twin(next(positions(n, setup, seed=game_seed, every=10_000)))
        same(P.playout(python, seed=game_seed),
             P.playout(cpp_backend.CppFortState.from_state(python), seed=game_seed),
             game_seed)  # fmt: skip
