"""Issue 26: contract gaps of the compiled core's Python boundary.

``_core.State.from_arrays`` refused arrays equal in every value to what it wants (an unpickled
array: "must be int8 of shape (68,), got int8 of shape (68,)", dtypes compared by identity);
``FortBatchVecEnv`` took ``True`` and ``5.0`` for seeds and raised a raw ``TypeError`` for
``'5'``.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

from fort_env import FortGame
from fort_env.game.errors import ConfigError
from fort_env.game.state_arrays import ARRAYS
from fort_env.native import backend as cpp_backend

pytestmark = pytest.mark.skipif(not cpp_backend.available(), reason="no compiled core")


def arrays_of(state: Any) -> dict[str, np.ndarray]:
    out = {name: np.array(getattr(state, name)) for name in ARRAYS}
    out["ctx"] = np.frombuffer(state.ctx, dtype=np.int64).copy()
    return out


@pytest.fixture(scope="module")
def position() -> Any:
    state = FortGame(3, "advanced", backend="cpp").new_initial_state(5)
    for k in range(40):
        state.apply_action(state.legal_actions()[k % len(state.legal_actions())])
    return state


def build(state: Any, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    core = cpp_backend.require()
    built = core.State.from_arrays(cpp_backend.core_game(state.game), arrays)
    return {k: np.asarray(v) for k, v in built.to_arrays().items()}


def same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(
        a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]) for k in a
    )


def big_endian(a: np.ndarray) -> np.ndarray:
    return a.astype(a.dtype.newbyteorder(">"))


def strided(a: np.ndarray) -> np.ndarray:
    """The same values as a non-contiguous view (every other element of a doubled array)."""
    doubled = np.repeat(a.reshape(-1), 2).reshape(*a.shape[:-1], a.shape[-1] * 2)
    view = doubled[..., ::2]
    assert not view.flags.c_contiguous
    return view


def read_only(a: np.ndarray) -> np.ndarray:
    b = a.copy()
    b.flags.writeable = False
    return b


@pytest.mark.parametrize(
    "change",
    [
        lambda a: pickle.loads(pickle.dumps(a)),  # an equal dtype, not the same object
        big_endian,  # '>i2' for pos, '>i8' for ctx ('|i1' for int8)
        lambda a: a.astype(">i2") if a.dtype.itemsize <= 2 else big_endian(a),
        lambda a: a.astype(np.int64),  # wider, values fit
        strided,
        read_only,
    ],
    ids=["unpickled", "big-endian", "big-endian-int16", "int64", "non-contiguous", "read-only"],
)
def test_from_arrays_takes_any_integer_array_whose_values_fit(position: Any, change: Any) -> None:
    arrays = arrays_of(position)
    expected = build(position, arrays)
    assert same(build(position, {k: change(v) for k, v in arrays.items()}), expected)


def test_from_arrays_says_what_really_differs(position: Any) -> None:
    core = cpp_backend.require()
    game = cpp_backend.core_game(position.game)
    arrays = arrays_of(position)
    wide = dict(arrays, zone=arrays["zone"].astype(np.int16))
    wide["zone"][3] = 300
    with pytest.raises(ValueError, match=r"zone holds values in \[\d+, 300\], outside int8's") as e:
        core.State.from_arrays(game, wide)
    assert "got int8" not in str(e.value)
    floats = dict(arrays, pos=arrays["pos"].astype(np.float64))
    with pytest.raises(ValueError, match=r"pos must be an integer array .* got float64"):
        core.State.from_arrays(game, floats)
    short = dict(arrays, owner=arrays["owner"][:-1])
    with pytest.raises(ValueError, match=r"owner must be .* of shape \(\d+,\).* of shape"):
        core.State.from_arrays(game, short)
    with pytest.raises(ValueError, match=r"mark must be an integer array"):
        core.State.from_arrays(game, dict(arrays, mark=arrays["mark"].astype(bool)))


BAD_SEEDS = [True, False, 5.0, np.float64(5), "5", -1, 2**62, [5], np.bool_(True)]


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_the_batch_env_refuses_what_new_initial_state_refuses(seed: Any) -> None:
    from fort_env.envs.vector import FortBatchVecEnv

    with pytest.raises(ConfigError) as expected:
        FortGame(2, backend="python").new_initial_state(seed)
    with pytest.raises(ConfigError) as got:
        FortBatchVecEnv(2, seed=seed)
    assert str(got.value) == str(expected.value)
    venv = FortBatchVecEnv(2, seed=3)
    with pytest.raises(ConfigError) as got:
        venv.seed(seed)
    assert str(got.value) == str(expected.value)
    assert venv._seeds == [3, 4]  # nothing changed


def test_the_batch_env_takes_ints_and_numpy_integers() -> None:
    from fort_env.envs.vector import FortBatchVecEnv

    ref = FortBatchVecEnv(3, seed=5).reset()
    for seed in (np.int64(5), np.uint8(5), np.int32(5)):
        venv = FortBatchVecEnv(3, seed=seed)
        assert venv._seeds == [5, 6, 7] and all(type(s) is int for s in venv._seeds)
        assert np.array_equal(venv.reset(), ref)
    assert FortBatchVecEnv(3).seed(2**62 - 3) == [2**62 - 3, 2**62 - 2, 2**62 - 1]
    with pytest.raises(ConfigError, match=r"seed \+ num_envs must be at most 2\*\*62"):
        FortBatchVecEnv(3, seed=2**62 - 2)
    assert len(FortBatchVecEnv(2).seed(None)) == 2  # None: SB3's random seed, as before
