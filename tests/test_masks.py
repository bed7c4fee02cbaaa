"""Exact masks: the fast masks agree with exhaustive enumeration; no dead ends; refusals
leave the state unchanged (docs/DESIGN.md, "Masks")."""

from __future__ import annotations

import numpy as np
import pytest

from fort_env import FortGame, IllegalActionError
from fort_env.game.fields import C_PROGRAM_FAILED
from tests.reference import BudgetExceeded, reference_legal_actions

CONFIGS = [(2, "basic"), (3, "basic"), (4, "basic"), (2, "advanced")]


@pytest.mark.parametrize(("num_players", "setup"), CONFIGS)
def test_fast_masks_match_reference(num_players: int, setup: str) -> None:
    game = FortGame(num_players, setup)
    compared = skipped = 0
    for seed in range(4):
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            fast = state.legal_actions()
            if rng.random() < 0.5:
                try:
                    slow = reference_legal_actions(state, budget=3000)
                except BudgetExceeded:
                    skipped += 1
                else:
                    assert fast == slow, (seed, state.decision, fast, slow)
                    compared += 1
            state.apply_action(int(rng.choice(fast)))
    assert compared > 200
    assert skipped < compared


@pytest.mark.parametrize(("num_players", "setup"), CONFIGS)
def test_every_legal_action_applies_and_leaves_a_legal_action(num_players: int, setup: str) -> None:
    game = FortGame(num_players, setup)
    rng = np.random.default_rng(7)
    for seed in range(3):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal, state.decision
            for a in legal if rng.random() < 0.2 else []:
                child = state.clone()
                child.apply_action(a)
                assert not child.ctx[C_PROGRAM_FAILED]
                assert child.is_terminal() or child.legal_actions(), (a, child.decision)
            state.apply_action(int(rng.choice(legal)))


def test_mask_and_list_agree_and_illegal_actions_change_nothing() -> None:
    game = FortGame(3)
    state = game.new_initial_state(3)
    rng = np.random.default_rng(3)
    refused = 0
    for _ in range(300):
        if state.is_terminal():
            break
        mask = state.legal_actions_mask()
        legal = state.legal_actions()
        assert mask.dtype == bool and mask.shape == (game.num_distinct_actions,)
        assert np.flatnonzero(mask).tolist() == legal
        illegal = np.flatnonzero(~mask)
        before = state.to_dict()
        for a in rng.choice(illegal, size=3, replace=False):
            with pytest.raises(IllegalActionError, match=f"action {a} is not legal at decision"):
                state.apply_action(int(a))
            refused += 1
        assert state.to_dict() == before
        state.apply_action(int(rng.choice(legal)))
    for bad in (-1, game.num_distinct_actions):
        with pytest.raises(IllegalActionError, match="out of range"):
            state.apply_action(bad)
    assert refused >= 300


def test_search_shortcuts_match_reference_with_an_empty_memo() -> None:
    """The search's shortcuts (docs/rules.md R32): interchangeable suits as one class when a
    coin is declared or "any one suit" chosen, mode witnesses tried first, "adding cannot help"
    after a failed "stop adding" in two-action modes, and cards, modes or follows whose first
    step cannot start. At every decision they touch (plays, suit choices, modes, adds,
    follows) the mask,
    computed with an empty memo so no earlier search can answer, must equal exhaustive
    enumeration."""
    from fort_env.game.decisions import DecisionKind as K

    compared = 0
    for num_players in (2, 4):
        game = FortGame(num_players)
        for seed in range(24):
            state = game.new_initial_state(100 + seed)
            rng = np.random.default_rng(seed)
            while not state.is_terminal():
                kind = state.decision.kind
                if kind in (K.PLAY, K.DECLARE_COIN, K.ANY_SUIT, K.MODE, K.ADD, K.FOLLOW):
                    game.search_tables.search_memo.clear()
                    fast = state.clone().legal_actions()
                    try:
                        slow = reference_legal_actions(state, budget=4000)
                    except BudgetExceeded:
                        pass
                    else:
                        assert fast == slow, (seed, state.decision, fast, slow)
                        compared += 1
                state.apply_action(int(rng.choice(state.legal_actions())))
    assert compared > 1000


def test_a_card_whose_steps_cannot_start_is_refused_without_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R32 "dead" modes: with full Stuff and a full Pack, Rusty (public "gather(any) x shovel",
    private "pack") has no step that can start, so it cannot be played; with room in the Pack,
    "pack" can run first and free the Stuff for the gather, so "private, then public (fully)"
    stays legal even though the gather could not start on its own."""
    monkeypatch.setenv("FORT_ENV_BACKEND", "python")  # reads the Python engine's internals
    from fort_env.game.rules import base, witness
    from tests.scenario import act, build, can, card_id, legal

    full = build(2, hands={0: ["Rusty", "Bug"]}, stuff={0: (4, 4)}, pack={0: (1, 0)}, level={0: 0})
    assert base.pack_capacity(full, 0) == 1  # the Pack is full at Fort Level 0
    assert not can(full, "play Rusty")
    assert witness.dead_modes(full, card_id(full, "Rusty", "hand", 0)) == [True] * 6
    assert reference_legal_actions(full) == full.legal_actions()

    room = build(2, hands={0: ["Rusty", "Bug"]}, stuff={0: (4, 4)}, pack={0: (0, 0)}, level={0: 0})
    act(room, "play Rusty")
    assert "use private, then public (fully)" in legal(room)
    assert "use public (fully)" not in legal(room)  # the gather alone cannot start
    act(room, "use private, then public (fully)")
    assert room.ctx[C_PROGRAM_FAILED] == 0
    assert not room.is_terminal()


def test_a_one_step_action_is_judged_without_the_card_being_played() -> None:
    """The counting shortcut for one-step actions (R32 witnesses) judges "trash" and
    "Lookout" with the played card already out of the hand: Kitty (public "gather(toys) x
    glue", private "trash") cannot be played as the only card in hand with full toys and an
    empty discard pile, since it would have to trash itself; with a card in the discard pile
    it can."""
    from tests.scenario import build, can

    alone = build(2, hands={0: ["Kitty"]}, stuff={0: (0, 4)}, discard={0: []})
    assert not can(alone, "play Kitty")
    assert reference_legal_actions(alone) == alone.legal_actions()
    spare = build(2, hands={0: ["Kitty"]}, stuff={0: (0, 4)}, discard={0: ["Bug"]})
    assert can(spare, "play Kitty")
    assert reference_legal_actions(spare) == spare.legal_actions()


def test_a_first_action_that_cannot_help_the_second_does_not_keep_a_mode_alive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R32 dead modes, "Y, then X (fully)": Giggles (public "gather(toys) x any_suit", private
    "lookout") with full toys cannot gather, and tucking a card into the Lookout changes
    nothing the gather needs, so "private, then public (fully)" is refused without search,
    although the Lookout step itself can be done."""
    monkeypatch.setenv("FORT_ENV_BACKEND", "python")  # reads the Python engine's internals
    from fort_env.game.rules import witness
    from tests.scenario import act, build, card_id, legal

    s = build(2, hands={0: ["Giggles", "Bug", "Ant"]}, stuff={0: (0, 4)}, level={0: 1})
    giggles = card_id(s, "Giggles", "hand", 0)
    dead = witness.dead_modes(s, giggles)
    assert dead[5] and dead[0]  # private, then public (fully); public (fully)
    assert not dead[1]  # private (fully): the Lookout step can be done
    act(s, "play Giggles")
    assert "use private, then public (fully)" not in legal(s)
    assert "use private (fully)" in legal(s)
    assert reference_legal_actions(s) == s.legal_actions()


@pytest.mark.parametrize(("leader_choice", "can_follow"), [("toys", False), ("pizza", True)])
def test_a_follow_is_judged_with_the_leaders_resource(leader_choice: str, can_follow: bool) -> None:
    """The counting witness for a follow (R32) uses the resource the leader chose for "any"
    (R11): after Rusty's "gather(any) x shovel" with toys, a follower whose toys are full
    cannot follow with The Moles (two shovels: two toys); after pizza, it can."""
    from tests.scenario import act, build, can

    s = build(2, hands={0: ["Rusty", "Bug"], 1: ["The Moles", "Ant"]}, stuff={1: (0, 4)})
    act(s, "play Rusty", "use public (fully)", "stop adding", f"choose {leader_choice}")
    assert s.current_player() == 1
    assert can(s, "follow with The Moles") == can_follow
    assert reference_legal_actions(s) == s.legal_actions()
