"""Writes through the C++ state's zero-copy views cannot crash the interpreter (issue 42, item
1): a finished game whose ``ctx.decision`` and ``ctx.mode`` are rewritten to every kind and mode
gets the engine's error or a list from every legality entry point, never a segfault. Run in a
subprocess, so that a crash fails the test instead of the test run."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fort_env.game.actions import MODES
from fort_env.game.decisions import DecisionKind
from fort_env.native import backend

SCAN = r"""
import random
import fort_env
from fort_env.game.decisions import DecisionKind
from fort_env.game.fields import C_DECISION, C_MODE
from fort_env.game.actions import MODES

state = fort_env.FortGame(2).new_initial_state(seed=1)
rng = random.Random(0)
while not state.is_terminal():
    state.apply_action(rng.choice(state.legal_actions()))
answered = refused = 0
for kind in range(len(DecisionKind)):
    for mode in range(-1, len(MODES)):
        s = state.clone()
        s.ctx[C_DECISION] = kind
        s.ctx[C_MODE] = mode
        for call in (s.local_legal_actions, s.legal_actions, s.legal_actions_mask):
            try:
                call()
                answered += 1
            except (ValueError, IndexError):
                refused += 1
print(answered, refused)
"""


@pytest.mark.skipif(not backend.available(), reason="needs the compiled core")
def test_rewritten_decisions_of_a_finished_game_never_crash() -> None:
    done = subprocess.run([sys.executable, "-c", SCAN], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    answered, refused = map(int, done.stdout.split())
    assert answered + refused == len(DecisionKind) * (len(MODES) + 1) * 3
    assert refused > 0  # the kinds that read a played card or a mode are refused
