"""The C++ views against the Python engine's (docs/cpp.md, phase 2: observation, scoring,
re-deal).

Random games (2, 3 and 4 players, both setups, fixed seeds) are played by the Python engine;
at every decision a C++ state is built from the Python state's arrays
(``_core.State.from_arrays``) and

- ``_core.observation(state, seat, out)`` equals ``observation_tensor(state, seat)`` for every
  seat, bit for bit (``np.array_equal`` and the bytes);
- ``_core.score_breakdown`` and ``_core.winners`` equal ``scoring``'s (at every decision and
  at the end; every few decisions also with each made-up rule given to some seat, so every
  rule's points are compared on real positions);
- at every few decisions, ``_core.resample_hidden(state, observer, seed)`` equals
  ``hidden.resample_hidden_seeded(state, observer, seed)`` (every array) for each observer.

Then the boundary: bad seats, observers, seeds and output buffers raise the Python engine's
exception types and messages. Skipped, with the reason shown, when the extension is not built.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from fort_env import FortGame, FortState
from fort_env.game.constants import IN_BOX, MADE_UP_RULES
from fort_env.game.errors import ConfigError, StateError
from fort_env.game.state_arrays import ARRAYS
from fort_env.native import backend as cpp_backend
from fort_env.testing import differential as harness
from fort_env.views.hidden import resample_hidden_seeded
from fort_env.views.scoring import score_breakdown, winners

pytestmark = pytest.mark.skipif(
    not cpp_backend.available(),
    reason=f"the C++ core is not usable: {cpp_backend.why_unavailable()}",
)

CONFIGS = [(n, setup) for n in (2, 3, 4) for setup in ("basic", "advanced")]
SEEDS = (0, 1, 2)
RESAMPLE_EVERY = 3  # decisions between two re-deal checks
RULES_EVERY = 4  # decisions between two checks of every made-up rule's points


def game(n: int, setup: str) -> FortGame:
    """The Python reference game of this configuration (shared, from the harness)."""
    return harness.game(n, setup, "python")


def core() -> Any:
    return cpp_backend.require()


def to_cpp(state: FortState) -> Any:
    """The C++ twin of a Python state (copies of its arrays)."""
    arrays = {name: getattr(state, name) for name in ARRAYS}
    arrays["ctx"] = np.frombuffer(state.ctx, dtype=np.int64)
    return core().State.from_arrays(cpp_backend.core_game(state.game), arrays)


def arrays_of(cpp_state: Any) -> dict[str, np.ndarray]:
    return cpp_state.to_arrays()


def assert_same_state(cpp_state: Any, py: FortState, what: object) -> None:
    got = arrays_of(cpp_state)
    for name in ARRAYS:
        assert np.array_equal(got[name], getattr(py, name)), (what, name)
    assert got["ctx"].tolist() == list(py.ctx), what


def positions(n: int, setup: str, seed: int) -> Iterator[FortState]:
    """Every decision of a random game played by the Python engine, and the end."""
    state = game(n, setup).new_initial_state(seed)
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        yield state
        state.apply_action(int(rng.choice(state.legal_actions())))
    yield state


@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_views_equal_python_at_every_decision(n: int, setup: str) -> None:
    g = game(n, setup)
    size = core().observation_size(cpp_backend.core_game(g))
    assert size == g.observation_size
    out = np.empty(size, dtype=np.float32)
    rng = np.random.default_rng(n)
    decisions = resampled = 0
    for seed in SEEDS:
        last = None
        for k, state in enumerate(positions(n, setup, seed)):
            cs = to_cpp(state)
            for seat in range(n):
                want = state.observation_tensor(seat)
                out.fill(np.nan)  # every entry must be written
                core().observation(cs, seat, out)
                assert np.array_equal(out, want), (seed, k, seat, np.flatnonzero(out != want))
                assert out.tobytes() == want.tobytes(), (seed, k, seat)
            assert core().score_breakdown(cs) == score_breakdown(state), (seed, k)
            assert core().winners(cs) == winners(state), (seed, k)
            if k % RULES_EVERY == 0:  # every made-up rule, held by some seat, scores alike
                for rule in range(len(MADE_UP_RULES)):
                    held = state.clone()
                    held.rule_loc[:] = IN_BOX
                    held.rule_loc[rule] = (k // RULES_EVERY + rule) % n
                    assert core().score_breakdown(to_cpp(held)) == score_breakdown(held), rule
                    assert core().winners(to_cpp(held)) == winners(held), rule
            if k % RESAMPLE_EVERY == 0:
                for observer in range(n):
                    r = int(rng.integers(2**62))
                    want_state = resample_hidden_seeded(state, observer, r)
                    assert_same_state(core().resample_hidden(cs, observer, r), want_state,
                                      (seed, k, observer))  # fmt: skip
                    resampled += 1
            decisions += 1
            last = state
        assert last is not None and last.is_terminal()
        # the end: the scores that decide the game
        assert core().score_breakdown(to_cpp(last)) == score_breakdown(last)
        assert core().winners(to_cpp(last)) == winners(last)
    assert decisions > 100 * len(SEEDS) and resampled > 30 * n


def test_resample_hidden_keeps_the_input_and_is_deterministic() -> None:
    g = game(3, "basic")
    state = g.new_initial_state(4)
    for _ in range(30):
        state.apply_action(state.legal_actions()[0])
    cs = to_cpp(state)
    before = arrays_of(cs)
    a = core().resample_hidden(cs, 1, 123)
    b = core().resample_hidden(cs, np.int64(1), np.uint32(123))
    for name, arr in arrays_of(cs).items():
        assert np.array_equal(arr, before[name]), name  # the input is unchanged
        assert np.array_equal(arrays_of(a)[name], arrays_of(b)[name]), name
    assert not all(np.array_equal(arrays_of(a)[x], before[x]) for x in ("zone", "pos", "owner"))


# ------------------------------------------------------------------------------- boundary
@pytest.fixture(scope="module")
def cs() -> Any:
    return to_cpp(game(2, "basic").new_initial_state(0))


def _python_error(fn: Any) -> BaseException:
    with pytest.raises(Exception) as info:
        fn()
    return info.value


@pytest.mark.parametrize("observer", [-1, 2, 1.0, True, "0", None, np.int64(7)])
def test_bad_observer_raises_as_python(cs: Any, observer: object) -> None:
    py = game(2, "basic").new_initial_state(0)
    want = _python_error(lambda: resample_hidden_seeded(py, observer, 0))  # type: ignore[arg-type]
    with pytest.raises(type(want)) as got:
        core().resample_hidden(cs, observer, 0)
    assert str(got.value) == str(want)


@pytest.mark.parametrize("seed", [-1, 2**62, 2**64, 1.5, "1", None, True, np.int64(-3)])
def test_bad_seed_raises_as_python(cs: Any, seed: object) -> None:
    py = game(2, "basic").new_initial_state(0)
    want = _python_error(lambda: resample_hidden_seeded(py, 0, seed))  # type: ignore[arg-type]
    assert isinstance(want, ConfigError)
    with pytest.raises(ConfigError) as got:
        core().resample_hidden(cs, 0, seed)
    assert str(got.value) == str(want)


def test_an_inconsistent_state_raises_state_error() -> None:
    """A rival's Best Friend in a draft pack (no slot of its owner can hold it): both sides
    refuse to re-deal with the same StateError."""
    g = game(2, "advanced")
    py = g.new_initial_state(0)  # the draft: seat 1's Best Friends wait in its deck
    friend = next(c for c in range(g.num_cards) if g.is_best_friend[c] and py.owner[c] == 1)
    py.zone[friend] = 10  # DRAFT_PACK
    want = _python_error(lambda: resample_hidden_seeded(py, 0, 5))
    assert isinstance(want, StateError)
    with pytest.raises(StateError) as got:
        core().resample_hidden(to_cpp(py), 0, 5)
    assert str(got.value) == str(want)


@pytest.mark.parametrize("seat", [-1, 2, 1.0, True, "0", None])
def test_observation_checks_the_seat(cs: Any, seat: object) -> None:
    out = np.empty(game(2, "basic").observation_size, np.float32)
    with pytest.raises(ValueError, match=r"seat must be a seat in \[0, 2\), got "):
        core().observation(cs, seat, out)


def test_observation_checks_the_buffer(cs: Any) -> None:
    size = game(2, "basic").observation_size
    bad = {
        "must be a numpy float32 array": [0.0] * size,
        "must be a float32 array, got float64": np.empty(size, np.float64),
        rf"must have shape \({size},\), got \({size + 1},\)": np.empty(size + 1, np.float32),
        rf"must have shape \({size},\), got \(1, {size}\)": np.empty((1, size), np.float32),
        "must be C-contiguous": np.empty(2 * size, np.float32)[::2],
    }
    for message, out in bad.items():
        with pytest.raises(ValueError, match=message):
            core().observation(cs, 0, out)
    ro = np.empty(size, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="must be writeable"):
        core().observation(cs, 0, ro)
    ok = np.empty(size, np.float32)
    core().observation(cs, np.int8(1), ok)  # numpy integers are seats
    assert np.array_equal(ok, game(2, "basic").new_initial_state(0).observation_tensor(1))


# --------------------------------------------------------------- re-deals of built positions
def _built(**kw: Any) -> FortState:
    from tests.scenario import build

    base = {"hands": {0: ["Doc", "Wart"], 1: ["Rusty", "Crash"]}, "level": {0: 1, 1: 1}}
    return build(2, leader=0, **{**base, **kw})


@pytest.mark.parametrize(
    "kw",
    [
        # seat 1's Best Friend Ace (a coin) or a Bud in its Lookout: both can be re-dealt there
        {"lookout": {1: ["Ace"]}, "deck": {1: ["Penny", "Punky"]}},
        {"lookout": {1: ["Bud"]}, "hands": {0: ["Doc"], 1: ["Ace", "Rusty"]}},
        # every other coin card is seen: the Lookout's coin slot can only hold Ace
        {"lookout": {1: ["Ace"]}, "hands": {0: ["Bud", "Bud", "Doc"]}, "discard": {0: ["Bud"]}},
        # two coin slots in seat 1's Lookout, Ace and Punky both hidden
        {"lookout": {1: ["Bud", "Ace"]}, "level": {0: 1, 1: 3}, "deck": {1: ["Punky"]}},
    ],
)
def test_resample_of_built_positions_equals_python(kw: dict[str, Any]) -> None:
    state = _built(**kw)
    cs = to_cpp(state)
    for seed in range(40):
        for observer in (0, 1):
            want = resample_hidden_seeded(state, observer, seed)
            assert_same_state(core().resample_hidden(cs, observer, seed), want, (seed, observer))
