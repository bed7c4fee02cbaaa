"""fort_env's errors survive pickle and copy (process pools, Ray tasks and actors re-raise them)."""

from __future__ import annotations

import copy
import pickle

import pytest

from fort_env.game.errors import CardDataError, ConfigError, IllegalActionError, StateError

ERRORS = [
    IllegalActionError(285, "PLAY", "not in hand"),
    StateError("ctx", "wrong length"),
    CardDataError("cards.toml", "Dog", "cost", "must be >= 0"),
    ConfigError("num_players must be 2, 3 or 4"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("clone", [copy.copy, lambda e: pickle.loads(pickle.dumps(e))])
def test_error_round_trips(error: Exception, clone) -> None:
    twin = clone(error)
    assert type(twin) is type(error)
    assert str(twin) == str(error)
    assert twin.__dict__ == error.__dict__  # action, decision, field, ...
