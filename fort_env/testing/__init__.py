"""The test kit: generic checks any Fort game can be put through, in the manner of OpenSpiel's
``basic_tests``. The project's own tests and scripts run them on the shipped card set; run them
on your own card set (a ``cards`` directory, ``docs/cards.md``), on the compiled core, or on
the states a wrapper of the environment plays.

- :mod:`~fort_env.testing.invariants`: :func:`check_state` (what holds in every position) and
  :func:`play_random_game` (a random game checked at each step: OpenSpiel's
  ``RandomSimTest``).
- :mod:`~fort_env.testing.differential`: :func:`lockstep`, one random game on the Python
  engine and the C++ core at once, compared at every decision (:class:`Divergence` at the
  first difference); :func:`schedule`, the games the tests and ``scripts/differential.py``
  play.
- :mod:`~fort_env.testing.state_fuzz`: saved states mutated one to three values at a time
  (``make_bases``, ``try_mutation``): ``from_dict`` refuses each or it plays to the end with
  the invariants held.
- :mod:`~fort_env.testing.core_fuzz`: the coverage-guided fuzz target of the C++ core
  (``one_input``; ``scripts/fuzz_core.py`` runs it under atheris), with its seed corpus.

A card set of your own, on both engines::

    from fort_env import FortGame
    from fort_env.testing import lockstep, play_random_game, schedule

    game = FortGame(4, "basic", cards="my_cards/")
    for seed in range(200):
        play_random_game(game, seed)              # AssertionError: a broken invariant
    for num_players, setup, seed in schedule(30):
        lockstep(num_players, setup, seed, cards="my_cards/")   # Divergence: the engines differ

A wrapper: step it as usual and check what it plays, ``check_state(env.unwrapped.fort_state())``
after each step.

The checks raise ``AssertionError`` (as a test expects; they are skipped under ``python -O``).
Nothing here is imported by the environment itself, and it imports neither the bots nor the
training code.
"""

from __future__ import annotations

from fort_env.testing.differential import Checks, Divergence, lockstep, replay, schedule
from fort_env.testing.invariants import MAX_DECISIONS, check_state, play_random_game

__all__ = [
    "MAX_DECISIONS",
    "Checks",
    "Divergence",
    "check_state",
    "lockstep",
    "play_random_game",
    "replay",
    "schedule",
]
