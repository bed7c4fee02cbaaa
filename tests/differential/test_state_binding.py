"""_core.Game and _core.State (docs/cpp.md): the tables checked at the boundary, zero-copy
views that keep their state alive, clone independence, and copying to/from arrays with
dtype/shape checks that name the field. Skipped when the extension is not built."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from fort_env import FortGame
from fort_env.game.state_arrays import ARRAYS, CTX_FIELDS
from fort_env.native import backend as cpp_backend

pytestmark = pytest.mark.skipif(
    not cpp_backend.available(),
    reason=f"the C++ core is not usable: {cpp_backend.why_unavailable()}",
)

NAMES = [*ARRAYS, "ctx"]


@pytest.fixture(scope="module")
def game() -> FortGame:
    return FortGame(3, "advanced")


def test_core_game_is_cached_per_fort_game(game: FortGame) -> None:
    cg = cpp_backend.core_game(game)
    assert cpp_backend.core_game(game) is cg
    assert (cg.num_players, cg.num_cards, cg.advanced) == (3, len(game.cards), True)
    assert cpp_backend.core_game(FortGame(3, "advanced")) is not cg


def test_game_rejects_missing_unknown_and_ill_typed_tables(game: FortGame) -> None:
    core = cpp_backend.require()
    tables = dict(cpp_backend.game_tables(game))
    with pytest.raises(TypeError, match="unknown table bogus"):
        core.Game(**tables, bogus=1)
    missing = {k: v for k, v in tables.items() if k != "seat_board"}
    with pytest.raises(TypeError, match="needs the table seat_board"):
        core.Game(**missing)
    with pytest.raises(ValueError, match="card_board must be a 1-d int32 array, got a 1-d int64"):
        core.Game(**{**tables, "card_board": tables["card_board"].astype(np.int64)})
    with pytest.raises(ValueError, match="advanced must be a bool"):
        core.Game(**{**tables, "advanced": 1})
    with pytest.raises(ValueError, match="num_players must be an int"):
        core.Game(**{**tables, "num_players": True})


def test_views_are_zero_copy_and_keep_the_state_alive(game: FortGame) -> None:
    core = cpp_backend.require()
    s = core.deal(cpp_backend.core_game(game), 5)
    py = game.new_initial_state(5)
    for name in ARRAYS:
        v = s.array(name)
        want = getattr(py, name)
        assert v.dtype == want.dtype and v.shape == want.shape, name
        assert np.array_equal(v, want), name
        assert v.flags.writeable and v.base is s
    ctx = s.ctx_view()
    assert ctx.dtype == np.int64 and ctx.shape == (len(CTX_FIELDS),)
    assert ctx.tolist() == list(py.ctx)
    zone = s.array("zone")
    zone[0] = 7
    assert s.array("zone")[0] == 7  # writes reach the C++ state
    ctx[0] = 123
    assert s.to_arrays()["ctx"][0] == 123
    del s
    gc.collect()
    assert zone[0] == 7 and ctx[0] == 123  # the views hold the state
    with pytest.raises(KeyError, match="no array bogus"):
        core.deal(cpp_backend.core_game(game), 5).array("bogus")


def test_clone_is_independent(game: FortGame) -> None:
    core = cpp_backend.require()
    s = core.deal(cpp_backend.core_game(game), 11)
    t = s.clone()
    s.array("owner")[:] = 2
    s.ctx_view()[3] += 1
    a, b = s.to_arrays(), t.to_arrays()
    assert not np.array_equal(a["owner"], b["owner"])
    assert a["ctx"][3] == b["ctx"][3] + 1
    assert t.game is not None and t.num_cards == s.num_cards


def test_to_and_from_arrays_round_trip_and_check_each_field(game: FortGame) -> None:
    core = cpp_backend.require()
    cg = cpp_backend.core_game(game)
    arrays = core.deal(cg, 2).to_arrays()
    assert sorted(arrays) == sorted(NAMES)
    back = core.State.from_arrays(cg, arrays).to_arrays()
    for name in NAMES:
        assert np.array_equal(back[name], arrays[name]), name
    arrays["players"][0, 0] = 99  # a copy: the state it came from is unchanged
    # another integer dtype whose values fit is taken (test_reliability_core_contracts.py)
    wide = core.State.from_arrays(cg, {**arrays, "pos": arrays["pos"].astype(np.int32)})
    assert np.array_equal(wide.to_arrays()["pos"], arrays["pos"])
    with pytest.raises(ValueError, match="pos must be an integer array of shape"):
        core.State.from_arrays(cg, {**arrays, "pos": arrays["pos"].astype(np.float32)})
    with pytest.raises(ValueError, match=r"prog must be an integer array of shape \(\d+, \d+\)"):
        core.State.from_arrays(cg, {**arrays, "prog": arrays["prog"][:-1]})
    with pytest.raises(ValueError, match="the array done is missing"):
        core.State.from_arrays(cg, {k: v for k, v in arrays.items() if k != "done"})
    with pytest.raises(ValueError, match="unknown array 'extra'"):
        core.State.from_arrays(cg, {**arrays, "extra": arrays["done"]})
    strided = {**arrays, "zone": np.repeat(arrays["zone"], 2)[::2]}  # not contiguous: copied
    assert np.array_equal(core.State.from_arrays(cg, strided).array("zone"), arrays["zone"])


def test_deal_checks_seed_and_first_player(game: FortGame) -> None:
    from fort_env.game.errors import ConfigError

    core = cpp_backend.require()
    cg = cpp_backend.core_game(game)
    with pytest.raises(ConfigError, match="seed must be an int"):
        core.deal(cg, -1)
    with pytest.raises(ConfigError, match=r"first_player must be in \[0, 3\)"):
        core.deal(cg, 0, 3)
    assert core.deal(cg, 0, 2).ctx_view()[CTX_FIELDS.index("first_player")] == 2
