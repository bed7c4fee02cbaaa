"""The C++ exact mask against the Python engine's (issue 16 phase 2; docs/rules.md R32).

At every decision of random games (2, 3 and 4 players, basic and advanced setups; random legal
play), ``_core.legal_actions`` equals ``fort_env.game.rules.search.legal_actions`` (int32,
ascending), ``_core.raw_legal`` equals ``legality.raw_legal`` (same order), and
``_core.legal_mask`` / ``_core.is_legal`` agree with them. Every kind of decision is reached,
including those deep inside plays (declaring coins, modes, adding cards, paying, spending,
following, Copy Cat's second card): the suite counts them and checks the common ones occur.

The C++ state is a fresh copy of the Python one at each decision (``State.from_arrays``), so a
difference is the mask path's, not the apply path's (``test_apply.py`` checks that one).
Positions are compared with the C++ search memo as play left it and, every few decisions,
with an empty memo (no earlier verdict can hide a wrong one). Skipped, with the reason shown,
when the extension is not built.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from fort_env import FortGame
from fort_env.core import FortState
from fort_env.game.decisions import DecisionKind
from fort_env.game.fields import C_ACTOR, C_DECISION, C_PC, C_PLAYED_CARD, C_PROGRAM_LENGTH
from fort_env.game.rules import legality
from fort_env.game.state_arrays import ARRAYS
from fort_env.native import backend as cpp_backend
from fort_env.testing import differential as harness

pytestmark = pytest.mark.skipif(
    not cpp_backend.available(),
    reason=f"the C++ core is not usable: {cpp_backend.why_unavailable()}",
)

CONFIGS = [(n, setup) for n in (2, 3, 4) for setup in ("basic", "advanced")]
GAMES_PER_CONFIG = 36  # 216 games, about 80,000 decisions
SLOW_GAMES_PER_CONFIG = 400
# kinds every default run reaches (the rarer ones, e.g. COPY_RIVAL or BIRTHDAY, are counted)
COMMON_KINDS = {
    "PLAY", "MODE", "DECLARE_COIN", "ANY_SUIT", "ADD", "ADD_COIN", "RESOURCE", "PACK",
    "LOOKOUT", "TRASH", "RECRUIT", "PAY", "SPEND", "TRASH_RIVAL", "CONVERT", "PICK_RULE",
    "PICK_PERK", "FOLLOW", "FOLLOW_SECOND", "DRAFT", "STOP_OR_CONTINUE",
}  # fmt: skip


def game(n: int, setup: str) -> FortGame:
    """The Python reference game of this configuration (shared, from the harness)."""
    return harness.game(n, setup, "python")


def core():
    return cpp_backend.require()


def to_cpp(state: FortState):
    """A ``_core.State`` holding a copy of ``state``'s arrays."""
    arrays = {name: getattr(state, name) for name in ARRAYS}
    arrays["ctx"] = np.frombuffer(state.ctx, dtype=np.int64)
    return core().State.from_arrays(cpp_backend.core_game(state.game), arrays)


def check_position(state: FortState, where: str) -> list[int]:
    """Compare every mask entry point at ``state``; return the (Python) legal actions."""
    c = core()
    cs = to_cpp(state)
    expected = state.legal_actions()
    raw = legality.raw_legal(state)
    assert c.raw_legal(cs) == raw, f"raw_legal differs at {where}"
    got = c.legal_actions(cs)
    assert got.dtype == np.int32 and got.ndim == 1, where
    if got.tolist() != expected:
        extra = sorted(set(got.tolist()) - set(expected))
        missing = sorted(set(expected) - set(got.tolist()))
        kind = DecisionKind(int(state.ctx[C_DECISION])).name
        names = {a: state.action_to_string(a) for a in extra + missing}
        pytest.fail(
            f"legal actions differ at {where} ({kind}): C++ also allows {extra}, "
            f"C++ refuses {missing}: {names}"
        )
    mask = np.ones(state.game.num_distinct_actions, dtype=bool)  # every entry rewritten
    c.legal_mask(cs, mask)
    assert mask.nonzero()[0].tolist() == expected, where
    return expected


def play_and_compare(g: FortGame, seed: int, kinds: Counter[str], clear_every: int = 7) -> None:
    """One random game of ``g`` from ``seed``; every decision compared."""
    c = core()
    state = g.new_initial_state(seed)
    rng = random.Random(seed * 1_000_003 + g.num_players)
    move = 0
    while not state.is_terminal():
        where = f"{g!r} seed {seed} move {move}"
        if move % clear_every == 0:
            c.clear_search_memo()
        legal = check_position(state, where)
        kinds[DecisionKind(int(state.ctx[C_DECISION])).name] += 1
        if len(legal) < len(legality.raw_legal(state)):
            kinds["(search removed some)"] += 1
        a = rng.choice(legal)
        cs = to_cpp(state)
        assert c.is_legal(cs, a) and c.is_legal(cs, np.int64(a)), where
        illegal = next(x for x in range(g.num_distinct_actions) if x not in legal)
        assert not c.is_legal(cs, illegal), where
        state.apply_action(a)
        move += 1
    assert c.legal_actions(to_cpp(state)).size == 0  # terminal: nothing is legal


def _run(configs: list[tuple[int, str]], games: int, seed0: int) -> Counter[str]:
    kinds: Counter[str] = Counter()
    for n, setup in configs:
        g = game(n, setup)
        for seed in range(seed0, seed0 + games):
            play_and_compare(g, seed, kinds)
    return kinds


_DEFAULT_KINDS: Counter[str] = Counter()


@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_legal_actions_equal_python_at_every_decision(n: int, setup: str) -> None:
    _DEFAULT_KINDS.update(_run([(n, setup)], GAMES_PER_CONFIG, seed0=0))


def test_every_common_decision_kind_was_compared() -> None:
    """Runs after the games above (file order): the positions covered include the deep ones."""
    if sum(_DEFAULT_KINDS.values()) == 0:  # run alone: play a few games here
        _DEFAULT_KINDS.update(_run(CONFIGS, 4, seed0=0))
    missing = COMMON_KINDS - set(_DEFAULT_KINDS)
    assert not missing, f"never reached: {sorted(missing)} (counts {dict(_DEFAULT_KINDS)})"
    assert _DEFAULT_KINDS["(search removed some)"] > 100


@pytest.mark.slow
@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_legal_actions_equal_python_on_many_more_games(n: int, setup: str) -> None:
    _run([(n, setup)], SLOW_GAMES_PER_CONFIG, seed0=10_000)


def test_legal_mask_and_is_legal_check_their_arguments() -> None:
    c = core()
    g = game(2, "basic")
    cs = to_cpp(g.new_initial_state(3))
    n = g.num_distinct_actions
    for bad in (
        np.zeros(n, dtype=np.int8),
        np.zeros(n + 1, dtype=bool),
        np.zeros((1, n), dtype=bool),
        np.zeros(2 * n, dtype=bool)[::2],
        [False] * n,
    ):
        with pytest.raises(ValueError, match="out must be"):
            c.legal_mask(cs, bad)
    frozen = np.zeros(n, dtype=bool)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        c.legal_mask(cs, frozen)
    for bad_action in (1.0, "3", True, None, np.float32(2)):
        with pytest.raises(TypeError, match="action must be an int"):
            c.is_legal(cs, bad_action)
    assert not c.is_legal(cs, -1)
    assert not c.is_legal(cs, n)
    assert not c.is_legal(cs, 2**80)


def test_the_memo_is_bounded_and_can_be_cleared() -> None:
    c = core()
    c.clear_search_memo()
    assert c.search_memo_size() == 0
    g = game(3, "basic")
    kinds: Counter[str] = Counter()
    play_and_compare(g, 5, kinds, clear_every=10**9)
    assert c.search_memo_size() > 0  # the searches of that game were remembered
    c.clear_search_memo()
    assert c.search_memo_size() == 0


def _position(kind: str, setup: str = "basic") -> FortState:
    """The first position of a random 3-player game with a ``kind`` decision pending."""
    g = game(3, setup)
    for seed in range(50):
        state = g.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            if DecisionKind(int(state.ctx[C_DECISION])).name == kind:
                return state
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError(f"no {kind} decision reached")


@pytest.mark.parametrize(
    ("kind", "field", "value", "message"),
    [
        ("PLAY", C_ACTOR, 7, "ctx.actor"),
        ("MODE", C_PLAYED_CARD, -1, "ctx.played_card"),
        ("MODE", C_PLAYED_CARD, 10_000, "ctx.played_card"),
        ("RESOURCE", C_PC, -1, "ctx.pc"),
        ("RESOURCE", C_PROGRAM_LENGTH, 0, "ctx.pc"),
        ("PLAY", C_DECISION, 99, "ctx.decision"),
    ],
)
def test_a_state_with_a_field_out_of_range_is_refused(
    kind: str, field: int, value: int, message: str
) -> None:
    """The arrays are writable from Python: every entry point checks what it indexes by
    (ValueError naming the field) instead of reading out of bounds."""
    c = core()
    state = _position(kind)
    cs = to_cpp(state)
    cs.ctx_view()[field] = value
    mask = np.zeros(state.game.num_distinct_actions, dtype=bool)
    for call in (c.legal_actions, c.raw_legal, lambda s: c.is_legal(s, 0)):
        with pytest.raises(ValueError, match=message):
            call(cs)
    with pytest.raises(ValueError, match=message):
        c.legal_mask(cs, mask)


def test_a_card_zone_out_of_range_is_refused() -> None:
    cs = to_cpp(_position("PLAY"))
    cs.array("zone")[0] = 99
    with pytest.raises(ValueError, match="zone"):
        core().legal_actions(cs)
