"""Writes through a state's views into a finished game.

The C++ state's arrays are zero-copy views (a Python state's plain arrays): a finished game
whose ``ctx.decision`` and ``ctx.mode`` are rewritten to every kind and mode must never crash
the interpreter (run in a subprocess, so that a crash fails the test instead of the test run),
and either answers as the game is over (no legal action, on both engines alike) or raises the
project's ``StateError`` naming the field, never a plain ``ValueError``.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

import fort_env
from fort_env.game.actions import MODES
from fort_env.game.decisions import DecisionKind
from fort_env.game.errors import StateError
from fort_env.game.fields import C_DECISION, C_PLAYED_CARD
from fort_env.native import backend

BACKENDS = ["python", pytest.param("cpp", marks=pytest.mark.skipif(
    not backend.available(), reason="needs the compiled core"))]  # fmt: skip

SCAN = r"""
import json, random, sys
import fort_env
from fort_env.game.decisions import DecisionKind
from fort_env.game.fields import C_DECISION, C_MODE
from fort_env.game.actions import MODES

state = fort_env.FortGame(2, backend=sys.argv[1]).new_initial_state(seed=1)
rng = random.Random(0)
while not state.is_terminal():
    state.apply_action(rng.choice(state.legal_actions()))
answers = []
for kind in range(len(DecisionKind)):
    for mode in range(-1, len(MODES)):
        s = state.clone()
        s.ctx[C_DECISION] = kind
        s.ctx[C_MODE] = mode
        for call in (s.local_legal_actions, s.legal_actions, s.legal_actions_mask):
            try:
                answers.append([int(a) for a in call()])
            except Exception as e:
                answers.append(type(e).__name__ + ": " + str(e))
print(json.dumps(answers))
"""


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_rewritten_decisions_of_a_finished_game_never_crash(backend_name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCAN, backend_name], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answers = json.loads(done.stdout)
    assert len(answers) == len(DecisionKind) * (len(MODES) + 1) * 3
    # the game is over: nothing is legal, whatever the decision fields say (a plain ValueError
    # on the compiled core, ValueError and IndexError from the Python engine's local rules)
    assert all(a == [] or (isinstance(a, list) and not any(a)) for a in answers), [
        a for a in answers if isinstance(a, str)
    ][:3]


def finished(backend_name: str) -> fort_env.FortState:
    state = fort_env.FortGame(2, backend=backend_name).new_initial_state(seed=1)
    rng = random.Random(0)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_finished_game_with_a_written_decision_offers_nothing(backend_name: str) -> None:
    """A follow decision written into a finished game: no action, on both engines."""
    s = finished(backend_name)
    s.ctx[C_DECISION] = DecisionKind.FOLLOW
    assert s.legal_actions() == []
    assert s.local_legal_actions() == []
    mask = s.legal_actions_mask()
    assert mask.dtype == bool and mask.shape == (s.game.num_distinct_actions,) and not mask.any()


@pytest.mark.skipif(not backend.available(), reason="needs the compiled core")
def test_the_cores_refusal_of_a_written_field_is_a_state_error() -> None:
    """The compiled core refuses a field it will not index: a StateError naming it (it was a
    plain ValueError), from the finished game's score and from a running game's rules."""
    s = finished("cpp")
    s.ctx[C_DECISION] = DecisionKind.FOLLOW  # a follow needs a follower; the game has none
    with pytest.raises(StateError, match=r"field 'ctx\.follower': ctx\.follower out of range") as e:
        s.score_breakdown()
    assert e.value.field == "ctx.follower"
    assert isinstance(e.value.__cause__, ValueError)  # the core's words are kept
    running = fort_env.FortGame(2, backend="cpp").new_initial_state(seed=1)
    rng = random.Random(1)
    while running.decision_kind != DecisionKind.MODE:
        running.apply_action(rng.choice(running.legal_actions()))
    running.ctx[C_PLAYED_CARD] = -1  # a mode to choose for no played card
    for call in (
        running.legal_actions, running.legal_actions_mask, lambda: running.apply_action(0),
    ):  # fmt: skip
        with pytest.raises(StateError) as e:
            call()
        assert e.value.field == "ctx.played_card"
