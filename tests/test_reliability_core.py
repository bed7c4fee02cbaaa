"""Issue 26: re-deals that cannot go on, and the built-in policies on a position with no legal
action (a segfault of the ``builder`` policy reached from ``resample_hidden``).

A re-deal consistent with what the observer sees need not be consistent with the history: a
seat in the middle of its play chose its card knowing its real hand, and a re-dealt hand may
not complete the play. The witnesses below are positions of random games (both setups, 2-4
players) whose first re-deal (try 0) is such a position, found by scanning (docs/reliability.md):
``resample_hidden`` must draw again (``hidden.MAX_REDEALS``) in both engines alike, and every
built-in policy must refuse a position with no legal action with one ``StateError``.
"""

from __future__ import annotations

import numpy as np
import pytest

from fort_env import FortGame, FortState
from fort_env.game.errors import StateError
from fort_env.game.rng import EventRng
from fort_env.game.rules import search
from fort_env.native import backend as cpp_backend
from fort_env.native import playout as P
from fort_env.native.backend import CppFortState
from fort_env.native.policies import POLICIES
from fort_env.views import hidden
from fort_env.views.hidden import (
    MAX_REDEALS,
    NO_LEGAL_ACTION,
    _redeal,
    can_go_on,
    resample_hidden_seeded,
)

needs_core = pytest.mark.skipif(not cpp_backend.available(), reason="no compiled core")

# (players, setup, game, decisions played, observer, re-deal seed): try 0 of the re-deal gives
# the acting seat no legal action ("no legal") or legal actions leading nowhere ("dead end").
NO_LEGAL = [
    (2, "basic", 2, 188, 0, 2937467307694268567),  # MODE: no mode of the played card
    (3, "basic", 1, 167, 0, 2360360630558964031),
    (4, "advanced", 0, 362, 0, 2360360630558964031),
]
DEAD_END = [
    (2, "basic", 1, 246, 0, 2360360630558964031),  # ANY_SUIT: legal suits, no completion
    (3, "basic", 0, 237, 2, 1206473021768521264),  # ADD
    (3, "advanced", 3, 136, 2, 2937467307694268567),
]


def walk(players: int, setup: str, game_seed: int, decisions: int) -> FortState:
    """The Python-engine position after ``decisions`` random legal actions, each drawn from
    ``EventRng(game_seed + 1000, k)`` (the scan's walk)."""
    state = FortGame(players, setup, backend="python").new_initial_state(game_seed)
    for k in range(decisions):
        legal = state.legal_actions()
        state.apply_action(legal[EventRng(game_seed + 1000, k).below(len(legal))])
    return state


def arrays_of(state: FortState) -> list[bytes]:
    names = ("zone", "owner", "pos", "mark", "coin_as", "rule_loc", "ctx")
    return [np.asarray(getattr(state, n)).tobytes() for n in names]


@pytest.fixture(scope="module")
def witnesses() -> dict[tuple[int, str, int, int, int, int], FortState]:
    return {w: walk(*w[:4]) for w in NO_LEGAL + DEAD_END}


@pytest.mark.parametrize("w", NO_LEGAL + DEAD_END, ids=lambda w: f"{w[0]}p-{w[1]}-{w[2]}-{w[3]}")
def test_a_redeal_that_cannot_go_on_is_drawn_again(
    w: tuple[int, str, int, int, int, int],
    witnesses: dict[tuple[int, str, int, int, int, int], FortState],
) -> None:
    state, observer, seed = witnesses[w], w[4], w[5]
    assert can_go_on(state)
    first_try = _redeal(state, observer, EventRng(seed, hidden.RESAMPLE_EVENT))
    assert not can_go_on(first_try)  # the witness still is one: try 0 dead-ends
    assert bool(search.legal_actions(first_try)) == (w in DEAD_END)

    out = resample_hidden_seeded(state, observer, seed)
    assert not out.is_terminal() and out.legal_actions()
    assert can_go_on(out)
    assert arrays_of(out) != arrays_of(first_try)
    # a position that can go on plays to the end
    assert P.playout(out, "random", 5).decisions > 0


@needs_core
@pytest.mark.parametrize("w", NO_LEGAL + DEAD_END, ids=lambda w: f"{w[0]}p-{w[1]}-{w[2]}-{w[3]}")
def test_the_core_draws_again_alike_and_its_policies_play_on(
    w: tuple[int, str, int, int, int, int],
    witnesses: dict[tuple[int, str, int, int, int, int], FortState],
) -> None:
    state, observer, seed = witnesses[w], w[4], w[5]
    cpp = CppFortState.from_state(state)
    core = cpp_backend.require()
    out = core.resample_hidden(cpp.core_state, observer, seed)
    py_out = resample_hidden_seeded(state, observer, seed)
    assert arrays_of(cpp_backend.wrap_core_state(cpp.game, out)) == arrays_of(py_out)
    for code in range(len(POLICIES)):  # before the fix: "builder" read out of bounds here
        returns, decisions = core.playout(out, code, 3)
        assert decisions > 0 and sorted(set(returns.tolist())) in ([-1.0, 1.0], [1.0])
        assert core.playouts(out, 4, code, 3, 2)[0].shape == (4, w[0])
        assert core.policy_action(out, code, 3, 0) in py_out.legal_actions()


def test_the_core_knows_the_same_number_of_tries() -> None:
    if cpp_backend.available():
        assert cpp_backend.require().MAX_REDEALS == MAX_REDEALS


@pytest.fixture(scope="module")
def dead(
    witnesses: dict[tuple[int, str, int, int, int, int], FortState],
) -> tuple[FortState, tuple[int, str, int, int, int, int]]:
    """A running position with no legal action (try 0 of a witness's re-deal)."""
    w = NO_LEGAL[0]
    position = _redeal(witnesses[w], w[4], EventRng(w[5], hidden.RESAMPLE_EVENT))
    assert not position.is_terminal() and not position.legal_actions()
    return position, w


def test_the_python_policy_refuses_a_position_with_no_legal_action(
    dead: tuple[FortState, tuple[int, str, int, int, int, int]],
) -> None:
    position, _ = dead
    with pytest.raises(StateError, match=r"no legal action in a running game") as err:
        P.policy_action(position, "random", EventRng(0, 0))
    assert err.value.field == "ctx.decision" and NO_LEGAL_ACTION in str(err.value)
    with pytest.raises(StateError, match=r"no legal action in a running game"):
        P.playout(position, "random", 0)


@needs_core
@pytest.mark.parametrize("policy", POLICIES)
def test_every_core_policy_refuses_a_position_with_no_legal_action(
    policy: str, dead: tuple[FortState, tuple[int, str, int, int, int, int]]
) -> None:
    position, _ = dead
    cpp = CppFortState.from_state(position)  # copied without the checks of from_dict
    core, code = cpp_backend.require(), P.policy_code(policy)
    before = arrays_of(cpp)
    for call in (
        lambda: core.policy_action(cpp.core_state, code, 0, 0),
        lambda: P.playout(cpp, policy, 0),
        lambda: P.playouts(cpp, 3, policy, 0, threads=2),
    ):
        with pytest.raises(StateError, match=r"no legal action in a running game") as err:
            call()
        assert err.value.field == "ctx.decision" and NO_LEGAL_ACTION in str(err.value)
    assert arrays_of(cpp) == before


def test_a_state_that_cannot_go_on_is_refused_by_the_redeal_in_both_engines(
    dead: tuple[FortState, tuple[int, str, int, int, int, int]],
) -> None:
    """Re-dealt for the acting seat itself, whose hand stays, no try can go on: the state is
    refused (it is the input that cannot go on), with the same error in both engines."""
    position, _ = dead
    actor = position.current_player()
    with pytest.raises(StateError, match=r"no legal action in a running game"):
        resample_hidden_seeded(position, actor, 11)
    if cpp_backend.available():
        cpp = CppFortState.from_state(position)
        with pytest.raises(StateError, match=r"no legal action in a running game"):
            cpp_backend.require().resample_hidden(cpp.core_state, actor, 11)


@needs_core
def test_redeals_of_random_positions_always_go_on() -> None:
    """The scan that found the segfault, small: every re-deal of positions of random games
    (2-4 players, both setups, every observer) can go on and plays to the end with the
    builder."""
    core = cpp_backend.require()
    checked = 0
    for players in (2, 3, 4):
        for setup in ("basic", "advanced"):
            game = FortGame(players, setup, backend="cpp")
            state = game.new_initial_state(players)
            k = 0
            while not state.is_terminal():
                if k % 7 == 0:
                    for observer in range(players):
                        out = state.resample_hidden(observer, np.random.default_rng(k))
                        assert out.is_terminal() or out.legal_actions()
                        if k % 35 == 0:
                            core.playout(out.core_state, P.policy_code("builder"), k)
                        checked += 1
                legal = state.legal_actions()
                state.apply_action(legal[EventRng(players, k).below(len(legal))])
                k += 1
    assert checked > 100


@needs_core
def test_the_core_refuses_a_payment_counter_past_an_int() -> None:
    """Found by ``scripts/fuzz_core.py`` once it played out raw states (issue 26): ctx
    ``pay_either = 2**31`` passed the counters' bound (2**40), the rules cast it to an int
    (-2**31) and subtracted one (UBSan: signed overflow in legality.cc). The payment counters
    are now bounded by 2**20 before any rule reads them."""
    from fort_env.game.fields import C_PAY_EITHER, C_PAY_PIZZA, C_PAY_TOYS

    core = cpp_backend.require()
    state = FortGame(2, "basic", backend="cpp").new_initial_state(1)
    assert isinstance(state, CppFortState)
    for field in (C_PAY_TOYS, C_PAY_PIZZA, C_PAY_EITHER):
        for value in (2**31, -(2**31), 2**20 + 1):
            bad = state.clone()
            bad.ctx[field] = value
            for call in (
                core.legal_actions,
                lambda s: core.playout(s, P.policy_code("random"), 0),
                lambda s: core.policy_action(s, P.policy_code("builder"), 0, 0),
            ):
                with pytest.raises(ValueError, match="a ctx payment counter"):
                    call(bad.core_state)
    fine = state.clone()
    fine.ctx[C_PAY_EITHER] = 2**20  # the bound itself is accepted
    core.legal_actions(fine.core_state)
