"""The C++ deal and generator against the Python engine's (docs/cpp.md, phase 1).

For 2, 3 and 4 players and both setups, seeds 0..499 and a few large seeds, the state dealt
by ``fort_env.native._core`` equals the Python deal (``to_dict()`` and every array); the generator
gives the spec's test vectors and the same draws as ``fort_env.game.rng``; bad seeds and first
players raise the same errors with the same messages. Skipped, with the reason shown, when the
extension is not built.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from fort_env import FortGame
from fort_env.game.errors import ConfigError
from fort_env.game.rng import EventRng, mix
from fort_env.native import backend as cpp_backend
from fort_env.testing import differential as harness

pytestmark = pytest.mark.skipif(
    not cpp_backend.available(),
    reason=f"the C++ core is not usable: {cpp_backend.why_unavailable()}",
)

CONFIGS = [(n, setup) for n in (2, 3, 4) for setup in ("basic", "advanced")]
LARGE_SEEDS = [2**62 - 1, 2**62 - 2, 2**61 + 12_345, 2**40 + 7, 2**32, 2**31 - 1]


def game(n: int, setup: str) -> FortGame:
    """The Python reference game of this configuration (shared, from the harness)."""
    return harness.game(n, setup, "python")


def core():
    return cpp_backend.require()


def assert_same_deal(g: FortGame, seed: int, first_player: int | None = None) -> None:
    py = g.new_initial_state(seed, first_player)
    cpp = cpp_backend.new_initial_state(g, seed, first_player, backend="cpp")
    assert cpp.to_dict() == py.to_dict(), (g, seed, first_player)
    assert cpp == py, (g, seed, first_player)  # every array, prog and done included
    assert not cpp.prog.flags.writeable  # shared by clones, as the Python deal's


@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_deal_equals_python_for_500_seeds(n: int, setup: str) -> None:
    g = game(n, setup)
    for seed in range(500):
        assert_same_deal(g, seed)


@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_deal_equals_python_for_large_seeds_and_given_first_players(n: int, setup: str) -> None:
    g = game(n, setup)
    for seed in LARGE_SEEDS:
        assert_same_deal(g, seed)
        assert_same_deal(g, np.int64(seed))
    for first in range(n):
        assert_same_deal(g, 17, first)
        assert_same_deal(g, 17, np.int8(first))


def test_cpp_dealt_state_plays_on_like_the_python_one() -> None:
    """The C++ deal gives an ordinary FortState: the Python rules play on it identically."""
    for n, setup in CONFIGS:
        g = game(n, setup)
        py = g.new_initial_state(3)
        cpp = cpp_backend.new_initial_state(g, 3)
        rng = random.Random(n)
        for _ in range(40):
            if py.is_terminal():
                break
            a = rng.choice(py.legal_actions())
            assert cpp.legal_actions() == py.legal_actions()
            py.apply_action(a)
            cpp.apply_action(a)
        assert cpp.to_dict() == py.to_dict()


BAD_SEEDS = [-1, 2**62, 2**64, -(2**70), True, False, 1.0, "3", None, [1], np.int64(-5),
             np.uint64(2**63), np.bool_(True), np.float64(2.0)]  # fmt: skip


def _outcome(fn, *args, **kwargs) -> tuple[type, str] | None:
    try:
        fn(*args, **kwargs)
    except Exception as exc:
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_bad_seed_raises_the_python_error(seed: object) -> None:
    g = game(2, "basic")
    want = _outcome(g.new_initial_state, seed)
    assert want is not None and want[0] is ConfigError
    assert _outcome(cpp_backend.new_initial_state, g, seed, backend="cpp") == want


@pytest.mark.parametrize("first", [-1, 3, 2**70, -(2**70), "x", 1.5, "1", [0], np.int64(7)],
                         ids=repr)  # fmt: skip
def test_bad_or_odd_first_player_behaves_as_python(first: object) -> None:
    g = game(3, "advanced")
    want = _outcome(g.new_initial_state, 9, first)
    got = _outcome(cpp_backend.new_initial_state, g, 9, first, backend="cpp")
    assert got == want
    if want is None:  # accepted the same way (int(1.5) == 1, int("1") == 1)
        assert_same_deal(g, 9, first)  # type: ignore[arg-type]


def test_unknown_backend_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="backend must be one of"):
        cpp_backend.new_initial_state(game(2, "basic"), 0, backend="rust")


def test_malformed_tables_raise_value_error() -> None:
    t = dict(cpp_backend.game_tables(game(2, "basic")))
    t["card_board"] = t["card_board"][:-1]
    with pytest.raises(ValueError, match="num_cards entries"):
        core().Game(**t)
    t = dict(cpp_backend.game_tables(game(2, "basic")), num_players=5)
    with pytest.raises(ValueError, match="num_players must be an int in \\[2, 4\\]"):
        core().Game(**t)


# --------------------------------------------------------------------------- the generator
def test_rng_vectors_of_the_spec() -> None:
    c = core()
    assert c.mix(0x9E3779B97F4A7C15) == 0xE220A8397B1DCDAF
    assert c.mix((2 * 0x9E3779B97F4A7C15) % 2**64) == 0x6E789E6AA1B965F4
    r = c.EventRng(0, 0)
    assert [r.next_u64() for _ in range(3)] == [
        0x568A9B0B1A2C05EC,
        0x44E5B8B147EF718B,
        0x458563AB55521133,
    ]
    assert c.EventRng(42, 7).permutation(10) == [7, 3, 5, 8, 1, 9, 6, 2, 0, 4]
    r = c.EventRng(2**62 - 1, 3)
    assert [r.below(5) for _ in range(3)] == [0, 2, 0]


SIZES = [1, 2, 3, 5, 7, 10, 52, 1000, 2**31 - 1, 2**32 + 1, 2**62 + 3, 2**63 + 1, 2**64 - 1, 2**64]


def test_rng_draws_equal_python_for_many_streams() -> None:
    c = core()
    py_rand = random.Random(0)
    streams = [(s, e) for s in (0, 1, 7, 2**62 - 1, *LARGE_SEEDS) for e in (0, 1, 2, 99, 2**40)]
    streams += [(py_rand.randrange(2**62), py_rand.randrange(1000)) for _ in range(200)]
    for seed, event in streams:
        a, b = EventRng(seed, event), c.EventRng(seed, event)
        assert [a.next_u64() for _ in range(4)] == [b.next_u64() for _ in range(4)]
        assert [a.below(n) for n in SIZES] == [b.below(n) for n in SIZES]
        for n in (0, 1, 2, 8, 11, 60, 300):
            assert a.permutation(n) == b.permutation(n)
    for z in [0, 1, 2**63, 2**64 - 1, *(py_rand.randrange(2**64) for _ in range(500))]:
        assert c.mix(z) == mix(z)


def test_rng_masks_like_python_and_rejects_what_python_rejects() -> None:
    c = core()
    # rng.py masks seeds and events to 64 bits; negative or huge ints give the same streams
    for seed, event in [(-1, 0), (2**64 + 5, 3), (5, -2), (2**70, 2**65 + 1)]:
        assert EventRng(seed, event).next_u64() == c.EventRng(seed, event).next_u64()
    assert c.EventRng(0, 0).permutation(-3) == EventRng(0, 0).permutation(-3) == []
    for n in (0, -1, -(2**70)):
        with pytest.raises(ValueError) as py_err:
            EventRng(0, 0).below(n)
        with pytest.raises(ValueError) as cpp_err:
            c.EventRng(0, 0).below(n)
        assert str(cpp_err.value) == str(py_err.value)
    # Python would loop forever on n > 2**64 (no draw is below its limit); C++ says so
    with pytest.raises(ValueError, match="n <= 2\\*\\*64"):
        c.EventRng(0, 0).below(2**64 + 1)
