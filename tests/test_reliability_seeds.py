"""Issue 12, seeds: one range [0, SEED_LIMIT), one check, at the deal, reset, records, states."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import fort_env
from fort_env import ConfigError, FortGame, FortState, StateError
from fort_env.envs.single_agent import SingleAgentEnv
from fort_env.game.constants import SEED_LIMIT
from fort_env.game.inputs import check_seed, describe, is_seed
from fort_env.native import backend as cpp_backend

BAD = [
    -1, SEED_LIMIT, SEED_LIMIT + 1, 2**63, 1.5, True, np.bool_(False), "3", None,
    10**5000, -(10**5000), np.timedelta64(3),  # issue 26: repr's ValueError; numpy "integer"
]  # fmt: skip
GOOD = [0, 1, SEED_LIMIT - 1, np.int64(SEED_LIMIT - 1), np.uint8(7)]


@pytest.mark.parametrize("seed", GOOD, ids=repr)
def test_good_seeds(seed: object) -> None:
    assert is_seed(seed)
    assert check_seed(seed) == int(seed)  # type: ignore[call-overload]
    FortGame(2).new_initial_state(seed=seed)  # type: ignore[arg-type]
    fort_env.raw_env(num_players=2).reset(seed=seed)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", BAD, ids=describe)
def test_bad_seeds_refused_with_the_same_words_everywhere(seed: object) -> None:
    assert not is_seed(seed)
    calls = [
        lambda: check_seed(seed),
        lambda: FortGame(2).new_initial_state(seed=seed),  # type: ignore[arg-type]
    ]
    if seed is not None:  # reset(seed=None) draws a seed
        calls.append(lambda: fort_env.raw_env(num_players=2).reset(seed=seed))  # type: ignore[arg-type]
        calls.append(lambda: SingleAgentEnv(num_players=2).reset(seed=seed))  # type: ignore[arg-type]
    calls.append(lambda: FortGame(2, backend="python").new_initial_state(seed=seed))  # type: ignore[arg-type]
    if cpp_backend.available():
        calls.append(lambda: FortGame(2, backend="cpp").new_initial_state(seed=seed))  # type: ignore[arg-type]
    for call in calls:
        with pytest.raises(ConfigError, match=r"seed must be an int in \[0, 2\*\*62\)") as err:
            call()
        assert len(str(err.value)) < 200


@pytest.mark.parametrize(
    "first",
    [True, False, np.bool_(True), 1.0, "1", np.timedelta64(1), -1, 2, 10**5000],
    ids=lambda v: type(v).__name__ + ("" if isinstance(v, int) and v > 10**9 else f"({v!r})"),
)
@pytest.mark.parametrize("backend", ["python", "cpp"])
def test_bad_first_player_refused_on_both_backends(first: object, backend: str) -> None:
    """Issue 26: ``first_player=True`` dealt seat 1 (a bool is not an int here); a 5,000-digit
    one raised repr's ValueError."""
    if backend == "cpp" and not cpp_backend.available():
        pytest.skip("the C++ core is not usable")
    with pytest.raises(ConfigError, match=r"first_player must be in \[0, 2\), got ") as err:
        FortGame(2, backend=backend).new_initial_state(0, first)  # type: ignore[arg-type]
    assert len(str(err.value)) < 200


@pytest.mark.parametrize("backend", ["python", "cpp"])
def test_numpy_first_player_is_a_seat(backend: str) -> None:
    if backend == "cpp" and not cpp_backend.available():
        pytest.skip("the C++ core is not usable")
    game = FortGame(2, backend=backend)
    assert (
        game.new_initial_state(5, np.int64(1)).to_dict() == game.new_initial_state(5, 1).to_dict()
    )


@pytest.mark.parametrize("seed", [SEED_LIMIT, SEED_LIMIT + 5, -1])
def test_from_dict_refuses_the_seeds_reset_refuses(seed: int) -> None:
    game = FortGame(2)
    d = game.new_initial_state(seed=3).to_dict()
    d["ctx"]["seed"] = seed
    with pytest.raises(StateError) as err:
        FortState.from_dict(game, d)
    assert err.value.field == "ctx.seed"
    if seed == SEED_LIMIT:  # the bound that the dict parser alone let through
        assert "must be an int in [0, 2**62)" in str(err.value)


def test_from_dict_takes_the_largest_seed_and_plays_on() -> None:
    game = FortGame(2)
    d = game.new_initial_state(seed=3).to_dict()
    d["ctx"]["seed"] = SEED_LIMIT - 1
    state = FortState.from_dict(game, d)
    rng = np.random.default_rng(0)
    while not state.is_terminal():  # shuffles draw from the seed: no overflow
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_unpickling_refuses_a_bad_seed_too() -> None:
    state = FortGame(2).new_initial_state(seed=3)
    data = state.__getstate__()
    data["state"]["ctx"]["seed"] = SEED_LIMIT
    other = FortState.__new__(FortState)
    with pytest.raises(StateError, match=r"ctx\.seed"):
        other.__setstate__(data)
    assert pickle.loads(pickle.dumps(state)).to_dict() == state.to_dict()


@pytest.mark.parametrize("seed", [SEED_LIMIT, -1, True])
def test_a_record_with_a_bad_seed_is_refused(seed: object) -> None:
    from fort_env.records import RecordError, replay

    env = fort_env.raw_env(num_players=2)
    env.reset(seed=1)
    record = env.to_record()
    record["seed"] = seed
    with pytest.raises(RecordError, match=r"seed.*\[0, 2\*\*62\)"):
        replay(record)
