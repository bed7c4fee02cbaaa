"""The C++ state's legal-action cache (``search.h`` ``cached_legal_actions``, docs/cpp.md):
computed once per position, reused while every byte of the arrays and ``ctx`` is unchanged.

The arrays are public, writable zero-copy views, so the cache must see a write made through
them after the legal actions were asked (it compares the position byte for byte on every
use); a clone, a ``from_dict`` and an unpickled state start without it. Each test asks the
legal actions first (filling the cache), then changes the position another way than
``apply_action``, and checks every entry point (``legal_actions``, ``legal_actions_mask``,
``apply_action``, ``_core.is_legal``) against the Python engine on a copy of the changed
position. With the byte comparison removed (the cache trusted while its flag is set) they
fail.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from fort_env import FortGame
from fort_env.game.constants import ZONES
from fort_env.game.decisions import DecisionKind
from fort_env.game.errors import IllegalActionError
from fort_env.game.fields import C_ACTOR, C_DECISION, C_STAGE
from fort_env.game.stages import ST_OVER
from fort_env.native import backend as cpp_backend
from fort_env.native.backend import CppFortState
from fort_env.testing.differential import game

pytestmark = pytest.mark.skipif(
    not cpp_backend.available(),
    reason=f"the C++ core is not usable: {cpp_backend.why_unavailable()}",
)

HAND, DISCARD = ZONES.index("hand"), ZONES.index("discard")


def _at(kind: str, n: int = 3, setup: str = "basic", skip: int = 0) -> CppFortState:
    """A C++ state at the ``skip``-th position of random play with a ``kind`` decision."""
    g = game(n, setup, "cpp")
    for seed in range(50):
        s = g.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            if DecisionKind(int(s.ctx[C_DECISION])).name == kind:
                if skip == 0:
                    assert isinstance(s, CppFortState)
                    return s
                skip -= 1
            s.apply_action(int(rng.choice(s.legal_actions())))
    raise AssertionError(f"no {kind} decision reached")


def reference(s: CppFortState) -> list[int]:
    """The Python engine's legal actions at a copy of ``s`` (no cache of any kind)."""
    return cpp_backend.state_from_arrays(s.game, s.core_state.to_arrays()).legal_actions()


def agrees(s: CppFortState, expected: list[int]) -> None:
    """Every entry point of ``s`` gives ``expected``, the legal actions it should have now."""
    assert s.legal_actions() == expected
    assert s.legal_actions_mask().nonzero()[0].tolist() == expected
    core = cpp_backend.require()
    assert core.legal_actions(s.core_state).tolist() == expected
    n = s.game.num_distinct_actions
    assert [a for a in range(n) if core.is_legal(s.core_state, a)] == expected


def test_a_hand_card_moved_through_the_zone_view_is_no_longer_playable() -> None:
    s = _at("PLAY")
    before = s.legal_actions()  # cached
    seat = s.current_player()
    layout = s.game.layout
    playable = [
        c
        for c in range(s.game.num_cards)
        if s.zone[c] == HAND and s.owner[c] == seat and layout.PLAY_CARD + c in before
    ]
    assert playable
    c = playable[0]
    s.zone[c] = DISCARD  # through the view: C++ sees only the bytes change
    after = reference(s)
    assert layout.PLAY_CARD + c in before and layout.PLAY_CARD + c not in after
    agrees(s, after)
    snapshot = s.to_dict()
    with pytest.raises(IllegalActionError, match="not legal at decision PLAY"):
        s.apply_action(layout.PLAY_CARD + c)  # legal a moment ago; refused, nothing changed
    assert s.to_dict() == snapshot
    s.zone[c] = HAND  # undone: the first list again
    agrees(s, before)


def test_more_stuff_written_into_the_players_view_is_seen() -> None:
    """The same kind of write as the existing lockstep test, on every decision kind reached
    in a few games: write a seat's pizza and toys, compare with the Python engine."""
    g = game(4, "basic", "cpp")
    changed = 0
    for seed in range(3):
        s = g.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            legal = s.legal_actions()
            probe = s.clone()
            probe.legal_actions()
            seat = probe.current_player()
            probe.players[seat, 0:2] = 4 - probe.players[seat, 0:2]  # other Stuff
            after = reference(probe)
            changed += after != legal
            assert probe.legal_actions() == after
            s.apply_action(int(legal[rng.integers(len(legal))]))
    assert changed > 10  # writes that change the legal actions were among them


def test_the_game_ended_through_ctx_has_no_legal_action() -> None:
    s = _at("FOLLOW", n=2)
    before = s.legal_actions()
    assert before
    s.ctx[C_STAGE] = ST_OVER
    assert s.is_terminal() and s.current_player() < 0
    agrees(s, [])
    with pytest.raises(IllegalActionError, match="not legal"):
        s.apply_action(before[0])


def test_a_field_written_out_of_range_after_caching_is_refused() -> None:
    """The cache holds no checked verdict for a changed position: the state is checked again
    (ValueError naming the field) instead of answering from the list of the old position."""
    s = _at("PLAY")
    legal = s.legal_actions()
    s.ctx[C_ACTOR] = 7
    core = cpp_backend.require()
    for call in (
        s.legal_actions,
        s.legal_actions_mask,
        lambda: core.is_legal(s.core_state, legal[0]),
        lambda: s.apply_action(legal[0]),
    ):
        with pytest.raises(ValueError, match=r"ctx\.actor"):
            call()


def test_a_write_through_the_core_state_views_is_seen() -> None:
    """``_core.State.array()`` hands out other views of the same arrays."""
    s = _at("PLAY", skip=2)
    before = s.legal_actions()
    seat = s.current_player()
    zone = s.core_state.array("zone")
    hand = [c for c in range(s.game.num_cards) if zone[c] == HAND and s.owner[c] == seat]
    zone[hand] = DISCARD  # the whole hand gone
    after = reference(s)
    assert after != before
    agrees(s, after)


def test_clones_do_not_share_the_cache() -> None:
    s = _at("PLAY")
    before = s.legal_actions()
    for c in (s.clone(), copy.copy(s), copy.deepcopy(s)):
        assert c.legal_actions() == before
        c.apply_action(before[0])
        assert s.legal_actions() == before  # the original's position and list unchanged
        agrees(c, reference(c))
        seat = c.current_player()
        hand = [i for i in range(c.game.num_cards) if c.zone[i] == HAND and c.owner[i] == seat]
        c.zone[hand] = DISCARD  # a write into the clone...
        agrees(c, reference(c))
        agrees(s, before)  # ...is not seen by the original


def test_from_dict_and_pickling_start_from_the_position_they_load() -> None:
    """A state rebuilt from another position's dict (or pickle) answers for that position,
    and an existing state's cache is not carried over to it."""
    a = _at("PLAY")
    b = _at("PLAY", skip=3)
    la, lb = a.legal_actions(), b.legal_actions()
    assert la != lb
    for loaded in (
        CppFortState.from_dict(a.game, b.to_dict()),
        pickle.loads(pickle.dumps(b)),
    ):
        agrees(loaded, lb)
    assert a.zone.base is a.core_state  # a view made before...
    a.__setstate__(b.__getstate__())  # in place, as pickle does: a now holds b's position
    agrees(a, lb)
    assert a.zone.base is a.core_state and a.to_dict() == b.to_dict()  # ...is not kept


def test_the_cache_is_per_position_not_per_game() -> None:
    """Two states of one game at different positions keep their own lists; asking one does
    not disturb the other's."""
    s = _at("PLAY")
    t = s.clone()
    t.apply_action(t.legal_actions()[0])
    ls, lt = s.legal_actions(), t.legal_actions()
    for _ in range(3):
        assert s.legal_actions() == ls and t.legal_actions() == lt


def test_python_engine_legal_cache_attribute_is_inert() -> None:
    """``legal_cache`` (the Python engine's) is always None on a C++ state and ignores
    assignments: the C++ cache is the one that counts."""
    s = _at("PLAY")
    s.legal_cache = [1, 2, 3]
    assert s.legal_cache is None
    assert s.legal_actions() == reference(s)


def test_the_python_backend_is_unaffected() -> None:
    """Only the C++ state has this cache; the Python engine's own cache is cleared by its
    rules (rules/handlers.apply), as before."""
    g = FortGame(2, "basic", backend="python")
    s = g.new_initial_state(1)
    legal = s.legal_actions()
    assert s.legal_cache == legal
