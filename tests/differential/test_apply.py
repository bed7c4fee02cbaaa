"""The C++ apply path against the Python engine (docs/cpp.md, phase 2; issue 16).

``_core.apply_unchecked(state, a)`` must do exactly what ``fort_env.game.rules.handlers.apply``
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

from fort_env import FortGame
from fort_env.core import FortState
from fort_env.game.decisions import DecisionKind
from fort_env.game.fields import C_STAGE
from fort_env.game.rules import handlers, legality
from fort_env.game.state_arrays import ARRAYS, CTX_FIELDS
from fort_env.native import backend as cpp_backend
from fort_env.testing import differential as harness

pytestmark = pytest.mark.skipif(
    not cpp_backend.available(),
    reason=f"the C++ core is not usable: {cpp_backend.why_unavailable()}",
)

CONFIGS = [(n, setup) for n in (2, 3, 4) for setup in ("basic", "advanced")]
GAMES_PER_CONFIG = 34  # 204 random games in all


def game(n: int, setup: str) -> FortGame:
    """The Python reference game of this configuration (shared, from the harness)."""
    return harness.game(n, setup, "python")


def core() -> Any:
    return cpp_backend.require()


def arrays(state: FortState) -> dict[str, np.ndarray]:
    """Copies of every array of a Python state, ``ctx`` as int64."""
    out = {name: getattr(state, name).copy() for name in ARRAYS}
    out["ctx"] = np.frombuffer(state.ctx, dtype=np.int64).copy()
    return out


def cpp_state(g: FortGame, source: dict[str, np.ndarray]) -> Any:
    """A ``_core.State`` of ``g`` holding copies of ``source`` (arrays as ``arrays`` gives)."""
    return core().State.from_arrays(cpp_backend.core_game(g), source)


def cpp_arrays(state: Any) -> dict[str, np.ndarray]:
    """Zero-copy views of every array of a ``_core.State`` and its ``ctx``."""
    out = {name: state.array(name) for name in ARRAYS}
    out["ctx"] = state.ctx_view()
    return out


def assert_equal(cpp: Any, want: dict[str, np.ndarray], where: str) -> None:
    got = cpp_arrays(cpp)
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
    play_alike(n, setup, range(GAMES_PER_CONFIG))


@pytest.mark.expensive
@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_many_random_games_step_alike(n: int, setup: str) -> None:
    """``scripts/run_expensive.sh``: 2,400 more games (400 per setup), other seeds (about 15
    minutes; CI's slow step runs the mask path's 2,400 and the lockstep harness's 60 instead)."""
    play_alike(n, setup, range(10_000, 10_400))


def play_alike(n: int, setup: str, seeds: range) -> None:
    g = game(n, setup)
    kinds: set[int] = set()
    for seed in seeds:
        py = g.new_initial_state(seed)
        cpp = core().deal(cpp_backend.core_game(g), seed)
        assert_equal(cpp, arrays(py), f"{n}p {setup} seed {seed}: the deal")
        rng = random.Random(seed)
        steps = 0
        while not py.is_terminal():
            kinds.add(py.decision_kind)
            a = rng.choice(py.legal_actions())
            py.apply_action(a)  # handlers.apply, then flow.check_end
            core().apply_unchecked(cpp, a)
            core().check_end(cpp)
            steps += 1
            assert_equal(cpp, arrays(py), f"{n}p {setup} seed {seed} step {steps}")
        assert steps > 50
    # the decisions of a play, the followers' round, the rewards, R3's stop-or-continue
    assert {int(k) for k in DecisionKind} - kinds <= {
        DecisionKind.TERMINAL,
        DecisionKind.DRAFT if setup == "basic" else -1,
        DecisionKind.FOLLOW_SECOND,
        DecisionKind.BIRTHDAY,
        DecisionKind.ROUGH_HOUSING,
        DecisionKind.DO_OVER,
        DecisionKind.ADD_COIN,
    }, sorted(kinds)


def boosted(g: FortGame, seed: int) -> FortState:
    """A fresh game of ``g`` with every seat at Fort Level 1-4, resources in Stuff and Pack,
    perks handed out at random (any of the 9, some to nobody) and the macaroni sculpture
    perhaps taken: the rarer paths (every perk, Level 5 twice, full Stuff and Packs) come
    within a few turns of random play."""
    from fort_env.game.constants import IN_BOX, IN_STACK, PERKS, XXL
    from fort_env.game.fields import (
        C_SCULPTURE,
        P_FORT_LEVEL,
        P_PACK_PIZZA,
        P_PACK_TOYS,
        P_STUFF_PIZZA,
    )

    s = g.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    n = g.num_players
    for perk in range(len(PERKS)):
        s.perk_loc[perk] = rng.choice([IN_STACK, IN_BOX, *range(n), *range(n)])
    for p in range(n):
        level = int(rng.integers(1, 5) if seed % 2 else rng.integers(0, 3))
        s.players[p, P_FORT_LEVEL] = level
        s.players[p, P_STUFF_PIZZA : P_STUFF_PIZZA + 2] = rng.integers(0, 5, size=2)
        room = level + 1 + (2 if s.perk_loc[XXL] == p else 0)
        pizza = int(rng.integers(0, room + 1))
        s.players[p, P_PACK_PIZZA] = pizza
        s.players[p, P_PACK_TOYS] = int(rng.integers(0, room - pizza + 1))
    s.ctx[C_SCULPTURE] = int(rng.choice([-1, -1, *range(n)]))
    return s


@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_boosted_games_step_alike(n: int, setup: str) -> None:
    """Games from boosted positions (``boosted``), the C++ state stepping on its own."""
    g = game(n, setup)
    for seed in range(8):
        py = boosted(g, 500 + seed)
        cpp = cpp_state(g, arrays(py))
        rng = random.Random(seed)
        steps = 0
        while not py.is_terminal():
            a = rng.choice(py.legal_actions())
            py.apply_action(a)
            core().apply_unchecked(cpp, a)
            core().check_end(cpp)
            steps += 1
            assert_equal(cpp, arrays(py), f"boosted {n}p {setup} seed {seed} step {steps}")


@contextmanager
def mirrored_apply(calls: list[int]) -> Iterator[None]:
    """Every ``handlers.apply`` the Python engine makes is repeated on a C++ copy."""
    original = handlers.apply

    def apply(state: FortState, a: int) -> None:
        before = arrays(state)
        original(state, a)
        cpp = cpp_state(state.game, before)
        core().apply_unchecked(cpp, a)
        calls.append(int(before["ctx"][C_STAGE]))
        assert_equal(cpp, arrays(state), f"action {a} at stage {calls[-1]}")

    handlers.apply = apply
    try:
        yield
    finally:
        handlers.apply = original


@pytest.mark.parametrize(("n", "setup"), CONFIGS)
def test_every_apply_of_the_engine_is_mirrored(n: int, setup: str) -> None:
    """The search's and the witness probes' applications too (probe stages, both-full), in
    two plain and two boosted games per setup."""
    g = game(n, setup)
    stages: list[int] = []
    with mirrored_apply(stages):
        for seed in range(4):
            s = g.new_initial_state(1000 + seed) if seed < 2 else boosted(g, 1000 + seed)
            rng = random.Random(seed)
            while not s.is_terminal():
                s.apply_action(rng.choice(s.legal_actions()))
    assert len(stages) > 1000
    from fort_env.game.stages import ST_ACTION, ST_PROBE

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
                cpp = cpp_state(g, before)
                core().apply_unchecked(cpp, a)
                assert_equal(cpp, arrays(py), f"raw action {a}")
                checked += 1
            s.apply_action(rng.choice(s.legal_actions()))
    assert checked > 1000


def test_bad_actions_raise_and_leave_the_state_unchanged() -> None:
    g = game(3, "basic")
    L = g.layout
    state = core().deal(cpp_backend.core_game(g), 7)
    before = {k: v.copy() for k, v in cpp_arrays(state).items()}
    for bad, error in (
        (-1, IndexError),
        (g.num_distinct_actions, IndexError),
        (2**70, IndexError),
        (L.MODE, ValueError),  # a range the PLAY decision does not offer
        (L.PASS, ValueError),
        (True, TypeError),
        (1.0, TypeError),
        ("3", TypeError),
    ):
        with pytest.raises(error):
            core().apply_unchecked(state, bad)
        assert_equal(state, before, f"after the bad action {bad!r}")
    core().apply_unchecked(state, np.int64(L.SKIP_PLAY))  # numpy ints are ints


def test_a_finished_game_refuses_every_action() -> None:
    g = game(2, "basic")
    py = g.new_initial_state(11)
    rng = random.Random(0)
    while not py.is_terminal():
        py.apply_action(rng.choice(py.legal_actions()))
    state = cpp_state(g, arrays(py))
    for a in (0, g.layout.PASS, g.num_distinct_actions - 1):
        with pytest.raises(IndexError, match="over"):
            core().apply_unchecked(state, a)
    assert_equal(state, arrays(py), "a finished game")


@pytest.mark.parametrize(
    "change",
    ["score", "level", "empty_park_deck", "nothing", "already"],
)
def test_check_end_matches_python(change: str) -> None:
    from fort_env.game.constants import PARK_DECK, TRASH
    from fort_env.game.fields import C_END_TRIGGERED, P_FORT_LEVEL, P_SCORE
    from fort_env.game.rules import flow

    g = game(4, "basic")
    py = g.new_initial_state(5)
    if change == "score":
        py.players[2, P_SCORE] = 25
    elif change == "level":
        py.players[1, P_FORT_LEVEL] = 5
    elif change == "empty_park_deck":
        py.zone[py.zone == PARK_DECK] = TRASH
    elif change == "already":
        py.ctx[C_END_TRIGGERED] = 1
    state = cpp_state(g, arrays(py))
    flow.check_end(py)
    core().check_end(state)
    assert_equal(state, arrays(py), f"check_end after {change}")
    assert py.ctx[C_END_TRIGGERED] == (change != "nothing")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("leader", 4),
        ("played_card", 68),
        ("pending_coin", -2),
        ("mode", 6),
        ("any_suit_public", 7),
        ("resource_choice", 2),
        ("program_length", 129),
        ("pc", 1),  # beyond program_length 0
        ("program_side", 2),
        ("follower", -3),
    ],
)
def test_a_state_with_a_field_out_of_range_is_refused(field: str, value: int) -> None:
    """Fields the rules index by are checked before anything changes (memory safety)."""
    g = game(2, "basic")
    source = arrays(g.new_initial_state(3))
    source["ctx"][CTX_FIELDS.index(field)] = value
    state = cpp_state(g, source)
    with pytest.raises(ValueError, match=f"ctx.{field}|out of range"):
        core().apply_unchecked(state, g.layout.SKIP_PLAY)
    assert_equal(state, source, f"a bad {field}")


@pytest.mark.parametrize("where", ["zone", "owner", "coin_as", "level", "verb", "then"])
def test_a_state_with_a_bad_array_entry_is_refused(where: str) -> None:
    from fort_env.game.fields import C_PROGRAM_LENGTH, P_FORT_LEVEL

    g = game(3, "basic")
    source = arrays(g.new_initial_state(4))
    if where == "zone":
        source["zone"][5] = 13
    elif where == "owner":
        source["owner"][5] = 3
    elif where == "coin_as":
        source["coin_as"][5] = 7
    elif where == "level":
        source["players"][1, P_FORT_LEVEL] = 6
    else:
        source["ctx"][C_PROGRAM_LENGTH] = 1
        source["prog"][0] = (99, 0, -1, -1) if where == "verb" else (0, 0, 0, 5)
    state = cpp_state(g, source)
    with pytest.raises(ValueError, match="out of range"):
        core().apply_unchecked(state, g.layout.SKIP_PLAY)
    assert_equal(state, source, f"a bad {where}")


def test_mutated_states_raise_or_apply_but_never_crash() -> None:
    """Mid-game states with a few fields set to values the rules do not expect, and actions
    of any range: apply_unchecked applies them or raises a Python exception (run under
    scripts/sanitize.sh, any memory error is reported)."""
    rng = np.random.default_rng(0)
    outcomes: dict[str, int] = {}
    for n, setup in CONFIGS:
        g = game(n, setup)
        py = g.new_initial_state(int(rng.integers(1000)))
        pyrng = random.Random(n)
        snapshots = []
        while not py.is_terminal() and len(snapshots) < 60:
            snapshots.append((arrays(py), legality.raw_legal(py)))
            py.apply_action(pyrng.choice(py.legal_actions()))
        for source, raw in snapshots:
            bad = {k: v.copy() for k, v in source.items()}
            for _ in range(int(rng.integers(1, 4))):
                name = str(rng.choice(["ctx", "ctx", "zone", "owner", "players", "coin_as"]))
                flat = bad[name].reshape(-1)
                flat[rng.integers(flat.size)] = rng.integers(-3, 12)
            state = cpp_state(g, bad)
            for k in range(3):
                # mostly an action the position offered before the mutation
                a = int(rng.choice(raw) if k < 2 else rng.integers(g.num_distinct_actions))
                try:
                    core().apply_unchecked(state, a)
                    outcome = "applied"
                except (IndexError, ValueError, RuntimeError, OverflowError) as exc:
                    outcome = type(exc).__name__
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes.get("applied", 0) > 150 and outcomes.get("ValueError", 0) > 100, outcomes
