"""Issue 12, saved states: a loaded dict either raises StateError naming a field, or plays to
the end with the invariants held (``fort_env/game/validation.py``,
``fort_env/testing/state_fuzz.py``)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fort_env import FortGame, FortState, StateError
from fort_env.game.inputs import describe
from fort_env.native import backend as cpp_backend
from fort_env.native.backend import CppFortState
from fort_env.testing.state_fuzz import CONFIGS, make_bases, try_mutation
from tests.scenario import act, build

BASES = make_bases(40, seed=7)


def _mid_game(num_players: int = 2, setup: str = "basic", steps: int = 30, seed: int = 3):
    game = FortGame(num_players, setup)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        state.apply_action(int(rng.choice(state.legal_actions())))
    return game, state


def _at(kind: str, num_players: int = 2, limit: int = 3000) -> tuple[FortGame, dict[str, Any]]:
    """The dict of the first position of a random game waiting on decision ``kind``."""
    for seed in range(50):
        game = FortGame(num_players)
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        for _ in range(limit):
            if state.is_terminal():
                break
            if state.decision.kind.name == kind:
                return game, state.to_dict()
            state.apply_action(int(rng.choice(state.legal_actions())))
    raise AssertionError(f"no {kind} decision seen")


# the issue's examples: each was accepted, then broke the engine
@pytest.mark.parametrize(
    ("kind", "path", "value", "field"),
    [
        ("PLAY", ("players", 0, "fort_level"), 6, "players[0].fort_level"),
        ("PLAY", ("ctx", "any_suit_private"), 5000, "ctx.any_suit_private"),
        ("PLAY", ("ctx", "convert_from"), 3, "ctx.convert_from"),
        ("PLAY", ("ctx", "stage"), 0, "ctx.stage"),
        ("PLAY", ("ctx", "actor"), -4, "ctx.actor"),
        ("PLAY", ("ctx", "actor"), lambda d: 1 - d["ctx"]["leader"], "ctx.actor"),
        ("PLAY", ("ctx", "decision"), 5, "ctx.decision"),
        ("PLAY", ("ctx", "program_failed"), 1, "ctx.program_failed"),
        ("PLAY", ("players", 1, "stuff_toys"), 5, "players[1].stuff_toys"),
        ("PLAY", ("play_suits",), [0, 2, 0, 0, 0, 0, 0], "play_suits"),
        ("MODE", ("ctx", "played_card"), -1, "ctx.played_card"),
        ("FOLLOW", ("ctx", "follower"), -1, "ctx.follower"),
    ],
)
def test_the_issue_examples_are_refused_by_name(
    kind: str, path: tuple[Any, ...], value: Any, field: str
) -> None:
    game, d = _at(kind)
    node = d
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value(d) if callable(value) else value
    with pytest.raises(StateError) as err:
        FortState.from_dict(game, d)
    assert err.value.field == field, str(err.value)


def test_cards_sharing_a_deck_position_are_refused() -> None:
    game, state = _mid_game()
    d = state.to_dict()
    deck = [i for i, c in enumerate(d["cards"]) if c["zone"] == "deck" and c["owner"] == 0]
    d["cards"][deck[1]]["pos"] = d["cards"][deck[0]]["pos"]
    with pytest.raises(StateError, match="share a pos"):
        FortState.from_dict(game, d)


@pytest.mark.parametrize(("picks", "field"), [(0, "owner"), (5, "owner"), (6, "zone")])
def test_a_draft_with_packs_out_of_step_is_refused(picks: int, field: str) -> None:
    """Found by scripts/fuzz_core.py: a card moved from one seat's draft pack to another's
    loaded, and some rounds later a seat had an empty pack to draft from (no legal action).
    Each seat's kept cards and pack size follow from the round and the seats done."""
    game = FortGame(4, "advanced")
    state = game.new_initial_state(5)
    for _ in range(picks):
        state.apply_action(state.legal_actions()[0])
    d = state.to_dict()
    FortState.from_dict(game, copy.deepcopy(d))  # the real position loads
    card = next(c for c in d["cards"] if c["zone"] == "draft_pack" and c["owner"] == 0)
    if field == "owner":
        card["owner"] = 2
    else:
        card["zone"] = "draft_kept"
    with pytest.raises(StateError, match="draft pack"):
        FortState.from_dict(game, d)


def test_a_position_with_no_legal_action_is_refused() -> None:
    game, d = _at("RECRUIT")
    for c in d["cards"]:  # nothing to recruit anywhere: the engine would skip the phase
        if c["zone"] in ("park", "park_deck") or c["zone"] == "yard":
            c.update(zone="trash", owner=-1)
    d["ctx"]["end_triggered"] = 1
    with pytest.raises(StateError, match="no legal action at RECRUIT"):
        FortState.from_dict(game, d)


@pytest.mark.parametrize(("num_players", "setup"), CONFIGS)
def test_every_position_of_real_games_loads(num_players: int, setup: str) -> None:
    """No false alarm: each position of random games round-trips through the validator."""
    game = FortGame(num_players, setup)
    for seed in range(2):
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        while True:
            loaded = FortState.from_dict(game, state.to_dict())
            assert loaded.to_dict() == state.to_dict()
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(base=st.integers(0, len(BASES) - 1), seed=st.integers(0, 2**32 - 1))
def test_a_mutated_state_is_refused_or_plays_to_the_end(base: int, seed: int) -> None:
    config, d = BASES[base]
    outcome, changes = try_mutation(config, copy.deepcopy(d), seed)
    assert outcome.kind in ("accepted", "rejected"), (changes, outcome.detail)
    if outcome.kind == "rejected":
        assert "corrupt state, field '" in outcome.detail


def test_the_fuzz_catches_a_broken_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the validator, mutations that break the engine are accepted: the property
    above can fail."""
    import fort_env.game.validation as validation

    monkeypatch.setattr(validation, "validate_state", lambda game, s: None)
    import fort_env.game.state_arrays  # noqa: F401 - from_dict imports validate_state when called

    failures = 0
    for i in range(150):
        config, d = BASES[i % len(BASES)]
        outcome, _ = try_mutation(config, d, seed=i)
        failures += outcome.kind == "failure"
    assert failures > 0


def test_resampling_keeps_an_added_lookout_card_added() -> None:
    """resample_hidden re-deals a rival's Lookout card with its slot's mark and coin suit:
    the re-dealt position still loads (it once left the mark on the card it moved away)."""
    from fort_env.game.constants import LOOKOUT

    rng = np.random.default_rng(0)
    for seed in range(200):
        game = FortGame(2)
        state = game.new_initial_state(seed)
        play = np.random.default_rng(seed)
        while not state.is_terminal():
            leader = int(state.ctx[3])  # C_LEADER
            marked = (state.mark == 1) & (state.zone == LOOKOUT) & (state.owner == leader)
            if marked.any():
                other = state.resample_hidden(1 - leader, rng)
                again = (other.mark == 1) & (other.zone == LOOKOUT) & (other.owner == leader)
                assert again.sum() == marked.sum()
                assert not ((other.mark == 1) & (other.zone != LOOKOUT) & (other.zone != 7)).any()
                FortState.from_dict(game, other.to_dict())  # a consistent position
                return
            state.apply_action(int(play.choice(state.legal_actions())))
    pytest.skip("no added Lookout card seen")


def test_a_play_that_cannot_be_completed_is_refused() -> None:
    """The masks take a play under way as completable (each action that led to it was
    checked), so a saved one that is not would loop or stall: found by a 10,000-mutation
    fuzz (a Fort Level or a Pack lowered mid-play). Einstein's public "pack x book", named
    as the action used fully, with nothing left in Stuff to pack, cannot be completed."""
    s = build(2, hands={0: ["Einstein"]}, stuff={0: (1, 1)}, pack={0: (1, 0)}, level={0: 2})
    act(s, "play Einstein", "use private, then public (fully)")
    assert s.decision.kind.name == "ADD"
    d = s.to_dict()
    FortState.from_dict(s.game, copy.deepcopy(d))  # as saved: loads
    d["players"][0]["stuff_pizza"] = d["players"][0]["stuff_toys"] = 0
    with pytest.raises(StateError, match=r"ctx\.stage.*cannot be completed"):
        FortState.from_dict(s.game, d)


def _nested(depth: int) -> list[Any]:
    root: list[Any] = []
    inner = root
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return root


HUGE = 10**5000  # past Python's 4,300-digit int-to-text limit: repr() raises ValueError


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("version",), True, "version"),  # True == 1: was accepted
        (("version",), 1.0, "version"),
        (("num_players",), 2.0, "num_players"),  # 2.0 == 2: was accepted
        (("num_players",), np.int64(2), "num_players"),
        (("setup",), ["basic"], "setup"),
        (("version",), HUGE, "version"),
        (("num_players",), HUGE, "num_players"),
        (("card_set",), HUGE, "card_set"),
        (("card_set",), _nested(100_000), "card_set"),
        (("cards", 0, "owner"), HUGE, "cards[0].owner"),
        (("cards", 0, "zone"), _nested(100_000), "cards[0]"),
        (("players", 0, "score"), -HUGE, "players[0].score"),
        (("ctx", "seed"), HUGE, "ctx.seed"),
        (("perks", "Bribe"), HUGE, "perks.Bribe"),
        (("cards",), _nested(100_000), "cards"),
    ],
    ids=lambda v: describe(v)[:30],
)
def test_bad_scalars_and_deep_nesting_are_state_errors(
    path: tuple[Any, ...], value: Any, field: str
) -> None:
    """Issue 26: ``version: True`` and ``num_players: 2.0`` loaded; 5,000-digit ints raised
    repr's ValueError; deep nesting raised RecursionError. Both backends: one StateError."""
    _, state = _mid_game()
    d = state.to_dict()
    target: Any = d
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    for backend in ("python", *(["cpp"] if cpp_backend.available() else [])):
        game = FortGame(2, backend=backend)
        cls = CppFortState if backend == "cpp" else FortState
        with pytest.raises(StateError) as err:
            cls.from_dict(game, d)
        assert err.value.field == field
        assert len(str(err.value)) < 600
