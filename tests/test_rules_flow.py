"""Turn flow (pp.7-11): following, recruiting, Cleanup/Discard/Draw, end triggers, Fort Level
rewards; and the errors: IllegalActionError, ConfigError, StateError, CardDataError.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest

import fort_env
from fort_env import CardDataError, ConfigError, FortGame, FortState, IllegalActionError, StateError
from tests.scenario import (
    act,
    build,
    build_dict,
    can,
    card_id,
    game_for,
    ids,
    legal,
    names,
    pass_all,
    player,
    replaced,
    zone_of,
)


def kind(s):
    return s.decision.kind.name


def stuff(s, seat):
    r = player(s, seat)
    return r["stuff_pizza"], r["stuff_toys"]


# ================================================================ following (p.8)


def test_follow_needs_a_card_matching_the_played_suit():
    s = build(2, hands={0: ["Bug"], 1: ["Kitty", "Rusty", "Ant"]})
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert kind(s) == "FOLLOW" and s.current_player() == 1
    assert legal(s) == ["follow with Rusty [shovel]", "pass"]


def test_a_coin_card_follows_any_suit_and_counts_once():
    s = build(2, hands={0: ["The Moles"], 1: ["Kitty", "Bud"]})
    act(s, "play The Moles", "use public (fully)", "stop adding")
    assert legal(s) == ["follow with Bud [coin]", "pass"]
    act(s, "follow with Bud")
    assert stuff(s, 1) == (1, 0)  # the coin is one shovel (docs: "a coin counts as any suit")


def test_following_a_coin_card_needs_the_declared_suit():
    s = build(2, hands={0: ["Bud"], 1: ["Kitty", "Bug", "Puddin"]})
    act(s, "play Bud", "suit glue", "use public (fully)", "choose toys")
    assert legal(s) == ["follow with Kitty [glue]", "follow with Puddin [coin/crown]", "pass"]
    act(s, "follow with Kitty")
    assert stuff(s, 1) == (0, 2)  # "gain two toys" as the leader chose


def test_double_suit_counts_twice_when_following():
    s = build(2, hands={0: ["Bug"], 1: ["The Moles"]})
    act(s, "play Bug", "use public (fully)", "stop adding", "follow with The Moles")
    assert stuff(s, 1) == (2, 0)


def test_follower_must_use_the_action_fully():
    # room for one pizza: The Moles (2 shovels) cannot follow, Rusty (1) can
    s = build(2, hands={0: ["Bug"], 1: ["The Moles", "Rusty"]}, stuff={1: (3, 0)})
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert legal(s) == ["follow with Rusty [shovel]", "pass"]
    s = build(2, hands={0: ["Bug"], 1: ["The Moles", "Rusty"]}, stuff={1: (4, 0)})
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert legal(s) == ["pass"]


def test_lookout_does_not_count_for_following():
    s = build(2, hands={0: ["Bug"], 1: ["Rusty"]}, lookout={1: ["Scout"]})
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert legal(s) == ["follow with Rusty [shovel]", "pass"]  # the Lookout card is not offered
    act(s, "follow with Rusty")
    assert stuff(s, 1) == (1, 0)  # not 2: the Lookout shovel is not added
    s = build(2, hands={0: ["Bug"], 1: ["Kitty"]}, lookout={1: ["Scout"]})
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert legal(s) == ["pass"]


def test_the_leaders_chosen_resource_is_carried_over():
    s = build(2, hands={0: ["Rusty"], 1: ["Bug"]})
    act(s, "play Rusty", "use public (fully)", "stop adding", "choose toys")
    act(s, "follow with Bug")
    assert kind(s) != "RESOURCE"
    assert stuff(s, 1) == (0, 1)


def test_a_follower_whose_stuff_cannot_take_the_leaders_choice_cannot_follow():
    s = build(2, hands={0: ["Rusty"], 1: ["Bug"]}, stuff={1: (0, 4)})
    act(s, "play Rusty", "use public (fully)", "stop adding", "choose toys")
    assert legal(s) == ["pass"]


def test_leader_did_not_use_the_public_action_follower_chooses():
    # rules README fact 5: the follower makes the choice the leader never made
    s = build(2, hands={0: ["Rusty"], 1: ["Bug"]}, stuff={0: (1, 0)})
    act(s, "play Rusty", "use private (fully)", "pack pizza from Stuff")
    assert kind(s) == "FOLLOW"  # followable although the leader did not use it
    act(s, "follow with Bug")
    assert kind(s) == "RESOURCE" and s.current_player() == 1
    assert legal(s) == ["choose pizza", "choose toys"]
    act(s, "choose toys")
    assert stuff(s, 1) == (0, 1)


def test_followers_never_draw_and_the_followed_card_is_discarded():
    s = build(2, hands={0: ["Bug"], 1: ["Rusty", "Kitty"]}, deck={1: ["Ant", "Skids"]})
    deck_before = ids(s, "deck", 1)
    act(s, "play Bug", "use public (fully)", "stop adding", "follow with Rusty")
    assert names(s, "hand", 1) == ["Kitty"]
    assert ids(s, "deck", 1) == deck_before
    assert names(s, "discard", 1) == ["Rusty"]


def test_every_rival_is_asked_in_turn_order_even_with_nothing_to_follow():
    # engine choice (docs/rules.md): a rival with no matching card is still asked, and can
    # only pass, so who is asked reveals nothing about hands
    s = build(4, leader=1, hands={1: ["Bug"], 2: ["Kitty"], 3: ["Rusty"], 0: ["Ant"]})
    act(s, "play Bug", "use public (fully)", "stop adding")
    seen = []
    while kind(s) == "FOLLOW":
        seen.append((s.current_player(), legal(s)))
        act(s, "pass")
    assert seen == [
        (2, ["pass"]),
        (3, ["follow with Rusty [shovel]", "pass"]),
        (0, ["pass"]),
    ]
    assert kind(s) == "RECRUIT" and s.current_player() == 1


def test_a_rival_may_follow_after_another_rival_followed():
    s = build(3, hands={0: ["Bug"], 1: ["Rusty"], 2: ["Scout"]})
    act(s, "play Bug", "use public (fully)", "stop adding", "follow with Rusty")
    assert s.current_player() == 2
    act(s, "follow with Scout")
    assert stuff(s, 1) == (1, 0) and stuff(s, 2) == (1, 0)


def test_follower_any_suit_counts_the_followers_matching_suits():
    # docs/rules.md R11 (engine choice; the rulebook does not say how a follower counts
    # "x any one suit"): the leader chose book for Giggles (glue), the follower's glue card
    # matches Giggles and counts once.
    s = build(2, hands={0: ["Giggles", "Chef"], 1: ["Kitty"]})
    act(s, "play Giggles", "use public (fully)", "suit book", "add Chef", "stop adding")
    assert stuff(s, 0) == (0, 1)
    act(s, "follow with Kitty")
    assert stuff(s, 1) == (0, 1)


def test_follower_any_suit_ignores_a_suit_that_does_not_match():
    # Giggles (glue): "gather toys x any one suit". Puddin shows coin + crown; only its coin
    # matches (as glue), so it is one matching suit: one toy.
    s = build(2, hands={0: ["Giggles"], 1: ["Puddin"]})
    act(s, "play Giggles", "use public (fully)", "suit glue", "stop adding", "follow with Puddin")
    assert stuff(s, 1) == (0, 1)


def test_follower_single_coin_counts_once_for_any_suit():
    # Puddin (coin declared glue, + crown), public "gather(any) x any one suit", leader picks
    # crown and gathers 1 toy. Bud shows a single coin: one suit, one toy.
    s = build(2, hands={0: ["Puddin"], 1: ["Bud"]})
    act(s, "play Puddin", "suit glue", "use public (fully)", "suit crown", "stop adding",
        "choose toys")  # fmt: skip
    assert stuff(s, 0) == (0, 1)
    act(s, "follow with Bud")
    assert stuff(s, 1) == (0, 1)


# ================================================================ recruit (p.9)


def recruit_position(**kw):
    base = dict(
        hands={0: ["Doodles"], 1: ["Ant"], 2: ["Ant"]},
        yard={1: ["Rusty"], 2: ["Kitty"]},
        park=["Bones", "Chef", "Doc"],
        park_deck=["Skids", "Dash", "Tiny"],
        deck={0: ["Patch", "Patch", "Ghost"]},  # + 2 Best Friends: the Draw takes these 5
    )
    base.update(kw)
    s = build(3, **base)
    act(s, "skip the Play phase")
    assert kind(s) == "RECRUIT"
    return s


def test_recruit_choices_park_rival_yards_and_park_deck():
    s = recruit_position()
    assert legal(s) == [
        "recruit Bones [book]", "recruit Chef [book]", "recruit Doc [book]",
        "recruit Kitty [glue]", "recruit Rusty [shovel]", "recruit the top of the Park deck",
    ]  # fmt: skip


def test_recruit_from_the_park_refills_the_slot_from_the_park_deck():
    s = recruit_position()
    act(s, "recruit Doc")
    assert zone_of(s, card_id(s, "Doc")) == ("discard", 0)
    skids = card_id(s, "Skids")
    assert zone_of(s, skids) == ("park", -1)
    assert s.to_dict()["cards"][skids]["pos"] == 2
    assert names(s, "park_deck") == ["Dash", "Tiny"]


def test_recruit_from_a_rival_yard_does_not_refill():
    s = recruit_position()
    act(s, "recruit Kitty")
    assert zone_of(s, card_id(s, "Kitty", "discard")) == ("discard", 0)
    assert names(s, "yard", 2) == []
    assert names(s, "park_deck") == ["Dash", "Skids", "Tiny"]
    assert len(names(s, "hand", 2)) == 1  # the rival does not draw


def test_recruit_the_top_of_the_park_deck():
    s = recruit_position()
    act(s, "recruit the top of the Park deck")
    assert zone_of(s, card_id(s, "Skids")) == ("discard", 0)
    assert names(s, "park") == ["Bones", "Chef", "Doc"]


def test_never_recruit_from_own_yard():
    # A follower recruiting (Prince's public "recruit") has a Yard of their own.
    s = build(
        3,
        hands={0: ["Prince"], 1: ["Tiny"], 2: ["Ant"]},
        yard={1: ["Rusty"], 2: ["Kitty"]},
        park=["Bones"],
        park_deck=[],
    )
    act(s, "play Prince", "use public (fully)", "recruit Bones")
    assert kind(s) == "FOLLOW"
    act(s, "follow with Tiny")
    assert s.current_player() == 1 and kind(s) == "RECRUIT"
    assert legal(s) == ["recruit Kitty [glue]"]  # not Rusty: that is seat 1's own Yard


def test_nothing_to_recruit_skips_the_phase():
    s = build(2, hands={0: ["Doodles"], 1: ["Ant"]}, park=[], park_deck=[])
    act(s, "play Doodles", "use private (fully)")
    pass_all(s)
    assert kind(s) == "PLAY" and s.current_player() == 1
    assert player(s, 0)["turns"] == 2


def test_only_rival_yards_left_to_recruit():
    s = build(2, hands={0: ["Doodles"], 1: ["Ant"]}, yard={1: ["Rusty"]}, park=[], park_deck=[])
    act(s, "skip the Play phase")
    assert legal(s) == ["recruit Rusty [shovel]"]


# ================================================================ Cleanup, Discard, Draw


@pytest.mark.parametrize("turns, cleaned", [(0, False), (1, True)])
def test_cleanup_is_skipped_on_the_first_turn(turns, cleaned):
    s = build(
        2, hands={0: ["Doodles"], 1: ["Ant"]}, yard={1: ["Rusty"]}, turns={0: turns, 1: turns}
    )
    act(s, "skip the Play phase", "recruit the top of the Park deck")
    assert s.current_player() == 1 and kind(s) == "PLAY"
    if cleaned:
        assert names(s, "yard", 1) == [] and names(s, "discard", 1) == ["Rusty"]
    else:
        assert names(s, "yard", 1) == ["Rusty"] and names(s, "discard", 1) == []


def test_discard_phase_played_added_and_best_friends_to_discard_the_rest_to_the_yard():
    s = build(
        2,
        hands={0: ["Doodles", "Kitty", "Zip", "Bug"], 1: ["Ant"]},
        deck={0: ["Ant", "Skids", "Dash", "Chef"]},  # + Blades: exactly 5 to draw
        lookout={0: ["Scout"]},
    )
    act(s, "play Doodles", "use public (fully), then private", "add Kitty", "stop adding")
    pass_all(s)
    act(s, "recruit Bones")
    assert names(s, "discard", 0) == ["Bones", "Doodles", "Kitty", "Zip"]
    assert names(s, "yard", 0) == ["Bug"]
    assert names(s, "lookout", 0) == ["Scout"]
    assert names(s, "hand", 0) == ["Ant", "Blades", "Chef", "Dash", "Skids"]
    assert names(s, "deck", 0) == []


def test_draw_five_reshuffles_the_discard_pile():
    s = build(
        2,
        hands={0: ["Doodles"], 1: ["Ant"]},
        deck={0: ["Ant"]},  # + Blades, Zip: 3 cards
        discard={0: ["Rusty", "Chef"]},
    )
    act(s, "play Doodles", "use private (fully)")
    pass_all(s)
    act(s, "recruit Bones")
    # deck 3 drawn first, then the discard pile (Rusty, Chef, Doodles, Bones) reshuffled: 2
    hand = names(s, "hand", 0)
    assert len(hand) == 5
    assert {"Ant", "Blades", "Zip"} <= set(hand)
    assert len(ids(s, "deck", 0)) == 2
    assert names(s, "discard", 0) == []
    assert sorted(names(s, "hand", 0) + names(s, "deck", 0)) == sorted(
        ["Ant", "Blades", "Zip", "Rusty", "Chef", "Doodles", "Bones"]
    )


def test_draw_stops_when_deck_and_discard_are_empty():
    s = build(2, hands={0: ["Doodles"], 1: ["Ant"]}, trash=["Blades", "Zip"])
    act(s, "play Doodles", "use private (fully)")
    pass_all(s)
    act(s, "recruit Bones")
    assert names(s, "hand", 0) == ["Bones", "Doodles"]


# ================================================================ end of the game (p.10)


def finish_turn(s):
    pass_all(s)
    if kind(s) == "RECRUIT":
        if can(s, "recruit the top of the Park deck"):
            act(s, "recruit the top of the Park deck")
        else:
            s.apply_action(s.legal_actions()[0])


def skip_turn(s):
    act(s, "skip the Play phase")
    finish_turn(s)


def test_25_points_triggers_the_end_after_the_round():
    s = build(3, hands={0: ["Doodles"], 1: ["Ant"], 2: ["Ant"]}, score={0: 24})
    act(s, "play Doodles", "use private (fully)")
    assert s.to_dict()["ctx"]["end_triggered"] == 1  # public at once
    finish_turn(s)
    assert not s.is_terminal() and s.current_player() == 1
    skip_turn(s)
    assert not s.is_terminal() and s.current_player() == 2
    skip_turn(s)
    assert s.is_terminal()
    assert s.current_player() == fort_env.TERMINAL_PLAYER
    assert {player(s, p)["turns"] for p in range(3)} == {2}
    assert s.legal_actions() == []


def test_24_points_does_not_trigger():
    s = build(2, hands={0: ["Kitty"], 1: ["Ant"]}, score={0: 23})
    act(s, "play Kitty", "use public (fully)", "stop adding")
    finish_turn(s)
    skip_turn(s)
    assert s.to_dict()["ctx"]["end_triggered"] == 0
    assert not s.is_terminal()


def test_a_trigger_by_a_later_seat_finishes_the_round_only():
    s = build(3, leader=1, first_player=0, hands={1: ["Doodles"], 2: ["Ant"], 0: ["Ant"]},
              score={1: 24})  # fmt: skip
    act(s, "play Doodles", "use private (fully)")
    finish_turn(s)
    assert s.current_player() == 2
    skip_turn(s)
    assert s.is_terminal()  # seat 0 (first player) does not start a new round
    assert [player(s, p)["turns"] for p in range(3)] == [2, 2, 2]


def level_five_position(sculpture=-1):
    return build(
        2,
        hands={0: ["Sarge"], 1: ["Ant"]},
        stuff={0: (4, 4)},
        level={0: 4},
        sculpture=sculpture,
    )


def reach_level_five(s):
    act(s, "play Sarge", "use public (fully)")
    while kind(s) == "PAY":
        act(s, sorted(legal(s))[0])


def test_level_five_takes_the_sculpture_and_triggers_the_end():
    s = level_five_position()
    reach_level_five(s)
    assert player(s, 0)["fort_level"] == 5
    assert sum(stuff(s, 0)) == 2  # 2 toys + 2 pizza + 2 either: 6 of the 8 resources
    d = s.to_dict()
    assert d["ctx"]["sculpture"] == 0 and d["ctx"]["end_triggered"] == 1
    finish_turn(s)
    skip_turn(s)
    assert s.is_terminal()
    assert s.score_breakdown()[0]["macaroni"] == 4
    assert s.score_breakdown()[0]["fort_level"] == 23


def test_level_five_without_the_sculpture_still_triggers_the_end():
    s = level_five_position(sculpture=1)
    reach_level_five(s)
    d = s.to_dict()
    assert player(s, 0)["fort_level"] == 5
    assert d["ctx"]["sculpture"] == 1  # stays with its holder
    assert d["ctx"]["end_triggered"] == 1
    finish_turn(s)
    skip_turn(s)
    assert s.is_terminal()
    assert s.score_breakdown()[0]["macaroni"] == 0
    assert s.score_breakdown()[1]["macaroni"] == 4


def test_empty_park_deck_triggers_the_end_even_with_cards_in_the_park():
    s = build(2, hands={0: ["Doodles"], 1: ["Ant"]}, park=["Bones", "Chef"], park_deck=["Tiny"])
    act(s, "skip the Play phase")
    assert s.to_dict()["ctx"]["end_triggered"] == 0
    act(s, "recruit the top of the Park deck")
    assert s.to_dict()["ctx"]["end_triggered"] == 1
    assert names(s, "park") == ["Bones", "Chef"]
    assert not s.is_terminal()
    skip_turn(s)
    assert s.is_terminal()


def test_recruiting_from_the_park_can_empty_the_park_deck():
    s = build(2, hands={0: ["Doodles"], 1: ["Ant"]}, park=["Bones"], park_deck=["Tiny"])
    act(s, "skip the Play phase", "recruit Bones")
    assert names(s, "park") == ["Tiny"]
    assert s.to_dict()["ctx"]["end_triggered"] == 1


# ================================================================ Fort Level rewards (p.10)


def test_level_one_picks_a_made_up_rule_from_the_stack():
    s = build(2, hands={0: ["Sarge"], 1: ["Ant"]}, stuff={0: (1, 1)},
              rule_stack=["Loner", "Popularity", "Slime Lab"])  # fmt: skip
    act(s, "play Sarge", "use public (fully)", "pay toys from Stuff", "pay pizza from Stuff")
    assert kind(s) == "PICK_RULE" and s.current_player() == 0
    assert legal(s) == [
        "take made-up rule Loner", "take made-up rule Popularity", "take made-up rule Slime Lab",
    ]  # fmt: skip
    act(s, "take made-up rule Popularity")
    rules = s.to_dict()["made_up_rules"]
    assert rules["Popularity"] == 0
    assert rules["Loner"] == -1 and rules["Slime Lab"] == -1
    assert rules["Big Plans"] == -2


def test_level_two_picks_a_perk_from_the_row():
    s = build(2, hands={0: ["Sarge"], 1: ["Ant"]}, stuff={0: (2, 2)}, level={0: 1},
              rules={0: "Loner"}, perk_row=["DIY", "Bribe", "XXL Backpack"])  # fmt: skip
    act(s, "play Sarge", "use public (fully)")
    while kind(s) == "PAY":
        act(s, sorted(legal(s))[0])
    assert kind(s) == "PICK_PERK"
    assert legal(s) == ["take perk Bribe", "take perk DIY", "take perk XXL Backpack"]
    act(s, "take perk XXL Backpack")
    perks = s.to_dict()["perks"]
    assert perks["XXL Backpack"] == 0 and perks["DIY"] == -1 and perks["Copy Cat"] == -2
    assert player(s, 0)["fort_level"] == 2


def test_a_follower_reaching_level_one_picks_from_what_is_left():
    s = build(2, hands={0: ["Sarge"], 1: ["Rusty"]}, stuff={0: (1, 1), 1: (1, 1)},
              rule_stack=["Loner", "Popularity", "Minimalism"])  # fmt: skip
    act(s, "play Sarge", "use public (fully)", "pay toys from Stuff", "pay pizza from Stuff",
        "take made-up rule Loner", "follow with Rusty")  # fmt: skip
    assert kind(s) == "PAY" and s.current_player() == 1
    act(s, "pay toys from Stuff", "pay pizza from Stuff")
    assert kind(s) == "PICK_RULE" and s.current_player() == 1
    assert legal(s) == ["take made-up rule Minimalism", "take made-up rule Popularity"]
    act(s, "take made-up rule Minimalism")
    rules = s.to_dict()["made_up_rules"]
    assert (rules["Loner"], rules["Minimalism"], rules["Popularity"]) == (0, 1, -1)
    assert player(s, 1)["fort_level"] == 1


def test_level_one_with_an_empty_stack_and_level_two_with_an_empty_row_skip_the_reward():
    # docs/rules.md R24
    s = build(2, hands={0: ["Sarge"], 1: ["Ant"]}, stuff={0: (1, 1)}, rule_stack=[])
    act(s, "play Sarge", "use public (fully)", "pay toys from Stuff", "pay pizza from Stuff")
    assert kind(s) == "FOLLOW" and player(s, 0)["fort_level"] == 1
    s = build(2, hands={0: ["Sarge"], 1: ["Ant"]}, stuff={0: (2, 2)}, level={0: 1}, perk_row=[])
    act(s, "play Sarge", "use public (fully)")
    while kind(s) == "PAY":
        act(s, sorted(legal(s))[0])
    assert kind(s) == "FOLLOW" and player(s, 0)["fort_level"] == 2
    assert all(v != 0 for v in s.to_dict()["perks"].values())


def test_levels_three_and_four_bring_no_card():
    s = build(2, hands={0: ["Sarge"], 1: ["Ant"]}, stuff={0: (4, 4)}, level={0: 2})
    act(s, "play Sarge", "use public (fully)")
    while kind(s) == "PAY":
        act(s, sorted(legal(s))[0])
    assert player(s, 0)["fort_level"] == 3
    assert kind(s) == "FOLLOW"


# ================================================================ errors


def test_illegal_action_leaves_the_state_exactly_as_it_was():
    s = build(2, hands={0: ["Bug", "The Moles"], 1: ["Rusty"]}, stuff={0: (2, 0)})
    checkpoints = []
    for step in ["play Bug", "use public (fully)", None]:
        before = s.to_dict()
        legal_set = set(s.legal_actions())
        for a in [-1, s.game.num_distinct_actions, *range(0, s.game.num_distinct_actions, 7)]:
            if a in legal_set:
                continue
            with pytest.raises(IllegalActionError) as err:
                s.apply_action(a)
            assert err.value.action == a
            assert err.value.decision == s.decision.kind.name
            assert s.to_dict() == before
        checkpoints.append(before["ctx"]["decision"])
        if step:
            act(s, step)
    # the refused add (The Moles would overflow the Stuff in a full action) is illegal too
    moles = card_id(s, "The Moles")
    before = s.to_dict()
    with pytest.raises(IllegalActionError):
        s.apply_action(s.game.layout.ADD_CARD + moles)
    assert s.to_dict() == before
    assert len(set(checkpoints)) == 3


def test_illegal_action_on_a_terminal_state():
    s = build(2, hands={0: ["Doodles"], 1: ["Ant"]}, end_triggered=True, leader=1, first_player=0)
    skip_turn(s)
    assert s.is_terminal()
    before = s.to_dict()
    with pytest.raises(IllegalActionError):
        s.apply_action(s.game.layout.SKIP_PLAY)
    assert s.to_dict() == before


@pytest.mark.parametrize("n", [0, 1, 5, -2, 2.0, "2", None])
def test_wrong_player_count_raises_config_error(n):
    with pytest.raises(ConfigError):
        FortGame(n)


def test_bad_setup_and_seed_raise_config_error():
    with pytest.raises(ConfigError):
        FortGame(2, setup="expert")
    with pytest.raises(ConfigError):
        game_for(2).new_initial_state(seed=-1)
    with pytest.raises(ConfigError):
        game_for(2).new_initial_state(seed=0, first_player=2)


def _set(path, value):
    def edit(d):
        target = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _delete(path):
    def edit(d):
        target = d
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return edit


CORRUPT = [
    ("version", _set(("version",), 99), "version"),
    ("players for 3", _set(("num_players",), 3), "num_players"),
    ("cards missing", _delete(("cards",)), "cards"),
    ("cards not a list", _set(("cards",), {}), "cards"),
    ("one card short", lambda d: d["cards"].pop(), "cards"),
    ("unknown zone", _set(("cards", 5, "zone"), "pocket"), "cards[5]"),
    ("owner out of range", _set(("cards", 7, "owner"), 2), "cards[7].owner"),
    ("pos missing", _delete(("cards", 3, "pos")), "cards[3].pos"),
    ("mark not 0/1", _set(("cards", 3, "mark"), 2), "cards[3].mark"),
    ("coin_as too big", _set(("cards", 3, "coin_as"), 7), "cards[3].coin_as"),
    ("hand card without owner", _set(("cards", 0, "owner"), -1), "cards[0].owner"),
    ("players short", lambda d: d["players"].pop(), "players"),
    ("negative stuff", _set(("players", 1, "stuff_toys"), -1), "players[1].stuff_toys"),
    ("stuff not an int", _set(("players", 0, "score"), "7"), "players[0].score"),
    ("bool is not an int", _set(("players", 0, "fort_level"), True), "players[0].fort_level"),
    ("resource over 99", _set(("players", 0, "pack_toys"), 100), "players[0]"),
    ("perk missing", _delete(("perks", "DIY")), "perks.DIY"),
    ("rule location", _set(("made_up_rules", "Loner"), 5), "made_up_rules.Loner"),
    ("rule used", _set(("made_up_rules", "Loner"), -3), "made_up_rules"),
    ("play_suits length", _set(("play_suits",), [0, 0]), "play_suits"),
    ("ctx field missing", _delete(("ctx", "leader")), "ctx.leader"),
    ("ctx not a dict", _set(("ctx",), []), "ctx"),
    ("program length", _set(("program",), [[0, 0, -1, -1, 0]]), "program"),
    ("four cards in the Park", None, "cards"),
    ("not a dict", None, "<root>"),
]


@pytest.mark.parametrize("edit, field", [c[1:] for c in CORRUPT], ids=[c[0] for c in CORRUPT])
def test_corrupt_dict_raises_state_error_naming_the_field(edit, field):
    game = game_for(2)
    d = build_dict(2, hands={0: ["Bones", "Bug"], 1: ["Ant"]}, park=["Chef", "Doc", "Tiny"])
    assert d["cards"][0]["zone"] == "hand"
    if field == "<root>":
        d = [d]
    elif edit is None:  # a fourth Park card
        d["cards"][1].update(zone="park", owner=-1, pos=3)
    else:
        edit(d)
    with pytest.raises(StateError) as err:
        FortState.from_dict(game, d)
    assert err.value.field == field
    assert repr(field) in str(err.value)


def _program_row(row):
    def edit(d):
        d["ctx"]["program_length"] = 1
        d["program"] = [row]

    return edit


CORRUPT_BUGS = [
    ("play_suits not ints", _set(("play_suits",), ["x"] * 7), "play_suits", "ValueError"),
    ("play_suits too big", _set(("play_suits",), [10**6] * 7), "play_suits", "OverflowError"),
    ("program row not ints", _program_row(["pack", 0, -1, -1, 0]), "program[0]", "ValueError"),
    ("ctx.leader not a seat", _set(("ctx", "leader"), 7), "ctx.leader", "no error"),
    ("ctx.decision not a kind", _set(("ctx", "decision"), 99), "ctx.decision", "no error"),
]


@pytest.mark.parametrize(
    "edit, field", [c[1:3] for c in CORRUPT_BUGS], ids=[c[0] for c in CORRUPT_BUGS]
)
def test_corrupt_dict_fields_are_refused_by_name(edit, field):
    d = build_dict(2, hands={0: ["Bones", "Bug"], 1: ["Ant"]})
    edit(d)
    with pytest.raises(StateError) as err:
        FortState.from_dict(game_for(2), d)
    assert err.value.field == field


def test_round_trip_of_a_built_state_is_exact():
    s = build(3, hands={0: ["Bug", "The Moles"], 1: ["Rusty"]}, lookout={0: ["Scout"]},
              level={0: 1}, stuff={2: (1, 3)}, perks={1: ["Copy Cat"]})  # fmt: skip
    act(s, "play Bug", "use public (fully)", "add The Moles")  # mid-play: marks, program
    d = s.to_dict()
    t = FortState.from_dict(s.game, copy.deepcopy(d))
    assert t.to_dict() == d
    assert t.legal_actions() == s.legal_actions()


# ---------------------------------------------------------------- CardDataError

DATA = Path(fort_env.__file__).parent / "data"


def _broken_copy(tmp_path, old, new, count=1):
    root = tmp_path / "cards"
    shutil.copytree(DATA, root)
    text = (root / "cards.toml").read_text()
    (root / "cards.toml").write_text(replaced(text, old, new, count))
    return root


BROKEN = [
    # (id, old text, new text, card, field, words in the message)
    ("unknown verb", 'public = "gather(pizza) x shovel"\nprivate = "score x fort_level"',
     'public = "gather(pizza) x shovel"\nprivate = "dance x fort_level"', "Bug", "private",
     "unknown verb"),
    ("unknown suit", 'name = "Doodles"\nsuits = ["glue"]', 'name = "Doodles"\nsuits = ["glitter"]',
     "Doodles", "suits", "glitter"),
    ("bad multiplier", 'public = "gather(toys) x glue"\nprivate = "score"\ncopies = 1',
     'public = "gather(toys) x pancakes"\nprivate = "score"\ncopies = 1', "Doodles", "public",
     "multiplier"),
    ("malformed expression", 'pack"\nprivate = "copy_pack"', 'pack"\nprivate = "copy_pack ->"',
     "Bones", "private", ""),
    ("bad verb argument", 'public = "advance(-1)"\nprivate = "gather(pizza) x glue"',
     'public = "advance(-2)"\nprivate = "gather(pizza) x glue"', "Dot", "public", "argument"),
    ("missing field", 'name = "Tink"\nsuits = ["glue"]\npublic = "convert x glue"\n',
     'name = "Tink"\nsuits = ["glue"]\n', "Tink", "public", "missing"),
    ("mistyped field", 'name = "Wart"\nsuits = ["shovel"]', 'name = "Wart"\nsuits = "shovel"',
     "Wart", "suits", "list"),
    ("Park deck not 60", 'name = "Dash"\nsuits = ["skateboard"]\npublic = "recruit -> gather(any)"'
     '\nprivate = "score"\ncopies = 2', 'name = "Dash"\nsuits = ["skateboard"]\npublic = '
     '"recruit -> gather(any)"\nprivate = "score"\ncopies = 3', None, "copies", "61"),
]  # fmt: skip


@pytest.mark.parametrize(
    "old, new, card, field, words", [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN]
)
def test_malformed_card_file_names_file_card_and_field(tmp_path, old, new, card, field, words):
    root = _broken_copy(tmp_path, old, new)
    with pytest.raises(CardDataError) as err:
        FortGame(2, cards=str(root))
    e = err.value
    assert Path(e.path) == root / "cards.toml"
    assert e.card == card
    assert e.field == field
    assert words in str(e)
    assert "cards.toml" in str(e)


def test_an_action_too_long_to_run_fails_at_load(tmp_path):
    root = _broken_copy(tmp_path, 'private = "score x 2"', 'private = "score x 200"')
    with pytest.raises(CardDataError) as err:
        FortGame(2, cards=str(root))
    assert err.value.card == "Prince" and err.value.field == "private"


def test_the_unbroken_copy_loads(tmp_path):
    root = tmp_path / "cards"
    shutil.copytree(DATA, root)
    game = FortGame(2, cards=str(root))
    assert game.num_cards == game_for(2).num_cards


def test_malformed_fort_track_names_the_file(tmp_path):
    root = tmp_path / "cards"
    shutil.copytree(DATA, root)
    text = (root / "fort.toml").read_text()
    (root / "fort.toml").write_text(replaced(text, "victory_points = [0, 0, 1, 3, 9, 23]",
                                             "victory_points = [0, 1]"))  # fmt: skip
    with pytest.raises(CardDataError) as err:
        FortGame(2, cards=str(root))
    assert Path(err.value.path) == root / "fort.toml"
    assert err.value.field == "victory_points"


def test_effect_tree_queries_read_the_card_language() -> None:
    """first_step, all_steps and single_step (used by the mask shortcuts, R32) on parsed text."""
    from fort_env.game.cards import (
        GATHER,
        MULT_CONST,
        MULT_SUIT,
        PACK,
        SCORE,
        all_steps,
        first_step,
        parse_action,
        single_step,
    )
    from fort_env.game.constants import SUITS

    chain = parse_action("(gather(pizza) x book) -> pack")
    assert first_step(chain) == first_step(parse_action("gather(pizza)"))
    assert [verb for verb, _ in all_steps(chain)] == [GATHER, PACK]
    assert single_step(chain) is None and first_step(None) is None and all_steps(None) == []
    verb, _, mult, arg = single_step(parse_action("score x book"))  # type: ignore[misc]
    assert (verb, mult, arg) == (SCORE, MULT_SUIT, SUITS.index("book"))
    assert single_step(parse_action("pack"))[2:] == (MULT_CONST, 1)  # type: ignore[index]
