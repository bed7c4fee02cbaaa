"""The 9 perks (glossary p.16; timing decisions in docs/rules.md R14-R19).

A held perk is ``perks[name] == seat`` in the state dict; -1 is the face-up row, -2 the box,
-3 a once-per-game perk already trashed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fort_env import FortGame
from fort_env.core import default_backend
from fort_env.native import backend as native

from . import scenario
from .scenario import act, build, can, card_id, legal, names, pass_all, player, zone_of


def kind(s):
    return s.decision.kind.name


def perk_loc(s, name):
    return s.to_dict()["perks"][name]


# ================================================================ Birthday Party


def birthday(**kw):
    base = dict(
        hands={0: ["Doodles"], 1: ["Ant"]},
        yard={1: ["Rusty", "Kitty"]},
        park=["Bones", "Chef", "Doc"],
        park_deck=["Skids", "Dash", "Tiny"],
        deck={0: ["Patch", "Patch", "Ghost"]},  # + 2 Best Friends: the Draw takes these 5
        perks={0: ["Birthday Party"]},
    )
    base.update(kw)
    s = build(2, **base)
    act(s, "skip the Play phase")
    return s


def test_birthday_party_second_recruit_from_park_or_park_deck_not_a_yard():
    s = birthday()
    act(s, "recruit Rusty")
    assert kind(s) == "BIRTHDAY" and s.current_player() == 0
    assert legal(s) == [
        "pass", "recruit Bones [book]", "recruit Chef [book]", "recruit Doc [book]",
        "recruit the top of the Park deck",
    ]  # fmt: skip
    act(s, "recruit Chef")
    assert names(s, "discard", 0) == ["Chef", "Rusty"]
    assert zone_of(s, card_id(s, "Skids")) == ("park", -1)  # Chef's slot refilled
    assert kind(s) == "PLAY" and s.current_player() == 1
    assert perk_loc(s, "Birthday Party") == 0  # persistent: kept


def test_birthday_party_may_pass():
    s = birthday()
    act(s, "recruit Doc", "pass")
    assert names(s, "discard", 0) == ["Doc"]
    assert kind(s) == "PLAY" and s.current_player() == 1


def test_no_birthday_party_no_second_recruit():
    s = birthday(perks={})
    act(s, "recruit Doc")
    assert kind(s) == "PLAY" and s.current_player() == 1


def test_birthday_party_skipped_when_only_yards_are_left():
    s = birthday(park=[], park_deck=[])
    act(s, "recruit Kitty")
    assert kind(s) == "PLAY" and s.current_player() == 1


# ================================================================ Bribe


def bribe(**kw):
    base = dict(
        hands={0: ["Doc", "Kitty"], 1: ["Ant"]},
        yard={1: ["Rusty"]},
        park=["Bones", "Chef", "Tiny"],
        park_deck=["Skids", "Dash"],
        perks={0: ["Bribe"]},
    )
    base.update(kw)
    s = build(2, **base)
    act(s, "play Doc", "use public (fully)")
    assert kind(s) == "LOOKOUT"
    return s


def test_bribe_lookout_from_hand_park_park_deck_or_yard():
    s = bribe()
    assert legal(s) == [
        "lookout Bones [book]", "lookout Chef [book]", "lookout Kitty [glue]",
        "lookout Rusty [shovel]", "lookout Tiny [crown]", "lookout: top of the Park deck",
    ]  # fmt: skip


def test_bribe_from_the_park_refills_the_slot():
    s = bribe()
    act(s, "lookout Chef")
    assert zone_of(s, card_id(s, "Chef")) == ("lookout", 0)
    skids = card_id(s, "Skids")
    assert zone_of(s, skids) == ("park", -1) and s.to_dict()["cards"][skids]["pos"] == 1


def test_bribe_from_the_park_deck_top():
    s = bribe()
    act(s, "lookout: top of the Park deck")
    assert zone_of(s, card_id(s, "Skids")) == ("lookout", 0)
    assert names(s, "park_deck") == ["Dash"]


def test_bribe_from_a_rival_yard():
    s = bribe()
    act(s, "lookout Rusty")
    assert zone_of(s, card_id(s, "Rusty")) == ("lookout", 0)
    assert names(s, "yard", 1) == []


def test_without_bribe_only_the_hand():
    s = bribe(perks={})
    assert legal(s) == ["lookout Kitty [glue]"]


def test_bribe_does_not_apply_while_following():
    # "On your turn": the follower (seat 1) holds Bribe and follows Doc's public "lookout"
    s = build(2, hands={0: ["Doc", "Bug"], 1: ["Chef", "Kitty"]}, yard={0: ["Ant"]},
              park=["Bones", "Tiny", "Ghost"], perks={1: ["Bribe"]})  # fmt: skip
    act(s, "play Doc", "use public (fully)", "lookout Bug", "follow with Chef")
    assert kind(s) == "LOOKOUT" and s.current_player() == 1
    assert legal(s) == ["lookout Kitty [glue]"]


# ================================================================ Copy Cat


def test_copy_cat_follows_with_two_cards_counting_both():
    s = build(2, hands={0: ["Bug"], 1: ["Rusty", "Scout", "Kitty"]}, perks={1: ["Copy Cat"]})
    act(s, "play Bug", "use public (fully)", "stop adding", "follow with Rusty")
    assert kind(s) == "FOLLOW_SECOND"
    assert legal(s) == ["follow with Scout [shovel]", "pass"]
    act(s, "follow with Scout")
    assert player(s, 1)["stuff_pizza"] == 2
    assert names(s, "discard", 1) == ["Rusty", "Scout"]
    assert names(s, "hand", 1) == ["Kitty"]


def test_copy_cat_second_card_optional():
    s = build(2, hands={0: ["Bug"], 1: ["Rusty", "Scout"]}, perks={1: ["Copy Cat"]})
    act(s, "play Bug", "use public (fully)", "stop adding", "follow with Rusty", "pass")
    assert player(s, 1)["stuff_pizza"] == 1
    assert names(s, "hand", 1) == ["Scout"]


def test_copy_cat_second_card_must_keep_the_action_fully_usable():
    s = build(2, hands={0: ["Bug"], 1: ["Rusty", "Scout"]}, stuff={1: (3, 0)},
              perks={1: ["Copy Cat"]})  # fmt: skip
    act(s, "play Bug", "use public (fully)", "stop adding", "follow with Rusty")
    assert legal(s) == ["pass"]  # two pizza would not fit


def test_without_copy_cat_one_card_only():
    s = build(2, hands={0: ["Bug"], 1: ["Rusty", "Scout"]})
    act(s, "play Bug", "use public (fully)", "stop adding", "follow with Rusty")
    assert kind(s) == "RECRUIT"
    assert player(s, 1)["stuff_pizza"] == 1


# ================================================================ DIY


def test_diy_advances_for_one_more_resource_and_cannot_be_followed():
    # Level 0 -> 1 costs 1 toy + 1 either; DIY adds one "either": 3 resources.
    s = build(2, hands={0: ["Bug"], 1: ["Rusty"]}, stuff={0: (2, 1)}, perks={0: ["DIY"]},
              rule_stack=["Loner", "Popularity", "Minimalism"])  # fmt: skip
    assert "use DIY (Advance Fort, +1 cost)" in legal(s)
    act(s, "use DIY")
    assert kind(s) == "PAY" and s.decision.context["cost"] == (1, 0, 2)
    act(s, "pay toys from Stuff", "pay pizza from Stuff", "pay pizza from Stuff")
    assert kind(s) == "PICK_RULE"
    act(s, "take made-up rule Loner")
    assert player(s, 0)["fort_level"] == 1
    assert (player(s, 0)["stuff_pizza"], player(s, 0)["stuff_toys"]) == (0, 0)
    assert perk_loc(s, "DIY") == -3  # trashed
    assert kind(s) == "RECRUIT"  # no rival was asked to follow
    assert names(s, "hand", 0) == ["Bug"]  # no card was played


def test_diy_not_offered_when_the_extra_resource_is_missing():
    s = build(2, hands={0: ["Bug"], 1: ["Rusty"]}, stuff={0: (1, 1)}, perks={0: ["DIY"]})
    assert not can(s, "use DIY")


def test_diy_not_offered_for_the_do_over_second_play():
    s = build(2, hands={0: ["Doodles", "Kitty"], 1: ["Ant"]}, stuff={0: (2, 2)},
              perks={0: ["DIY", "Do-Over"]})  # fmt: skip
    act(s, "play Doodles", "use private (fully)")
    pass_all(s)
    act(s, "use Do-Over")
    assert kind(s) == "PLAY"
    assert not can(s, "use DIY")
    assert can(s, "play Kitty")


def test_diy_is_not_followed_by_do_over():
    # docs/rules.md R14: Do-Over follows a played card only
    s = build(2, hands={0: ["Bug", "Doodles"], 1: ["Rusty"]}, stuff={0: (2, 1)},
              perks={0: ["DIY", "Do-Over"]})  # fmt: skip
    act(s, "use DIY", "pay toys from Stuff", "pay pizza from Stuff", "pay pizza from Stuff",
        "take made-up rule Big Plans")  # fmt: skip
    assert kind(s) == "RECRUIT"
    assert perk_loc(s, "Do-Over") == 0


# ================================================================ Do-Over


def test_do_over_plays_a_second_card_which_may_be_followed():
    s = build(2, hands={0: ["Doodles", "Bug"], 1: ["Rusty", "Kitty"]}, perks={0: ["Do-Over"]},
              deck={0: ["Patch", "Patch", "Ghost"]})  # fmt: skip
    act(s, "play Doodles", "use private (fully)")
    assert kind(s) == "FOLLOW"
    act(s, "pass")
    assert kind(s) == "DO_OVER" and legal(s) == ["pass", "use Do-Over"]
    act(s, "use Do-Over")
    assert perk_loc(s, "Do-Over") == -3
    assert legal(s) == ["play Bug [shovel]", "skip the Play phase"]
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert kind(s) == "FOLLOW"
    act(s, "follow with Rusty")
    assert player(s, 1)["stuff_pizza"] == 1
    assert kind(s) == "RECRUIT"  # no third play
    row = player(s, 0)
    assert (row["score"], row["stuff_pizza"]) == (1, 1)
    act(s, "recruit Bones")
    assert names(s, "discard", 0) == ["Bones", "Bug", "Doodles"]
    assert names(s, "yard", 0) == []


def test_do_over_declined():
    s = build(2, hands={0: ["Doodles", "Bug"], 1: ["Ant"]}, perks={0: ["Do-Over"]})
    act(s, "play Doodles", "use private (fully)", "pass", "pass")
    assert kind(s) == "RECRUIT"
    assert perk_loc(s, "Do-Over") == 0


def test_do_over_needs_a_played_card_and_a_card_in_hand():
    s = build(2, hands={0: ["Doodles"], 1: ["Ant"]}, perks={0: ["Do-Over"]})
    act(s, "skip the Play phase")
    assert kind(s) == "RECRUIT"
    s = build(2, hands={0: ["Doodles"], 1: ["Ant"]}, perks={0: ["Do-Over"]})
    act(s, "play Doodles", "use private (fully)", "pass")
    assert kind(s) == "RECRUIT"  # hand empty: nothing to play a second time


# ================================================================ Recycling


def test_recycling_takes_a_discard_card_to_hand_once():
    s = build(2, hands={0: ["Doodles"], 1: ["Rusty"]}, discard={0: ["Bug", "Chef"]},
              perks={0: ["Recycling"]})  # fmt: skip
    assert legal(s) == [
        "play Doodles [glue]", "recycle Bug [shovel]", "recycle Chef [book]", "skip the Play phase",
    ]  # fmt: skip
    act(s, "recycle Bug")
    assert kind(s) == "PLAY"
    assert names(s, "hand", 0) == ["Bug", "Doodles"]
    assert names(s, "discard", 0) == ["Chef"]
    assert perk_loc(s, "Recycling") == -3
    assert not can(s, "recycle")
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert player(s, 0)["stuff_pizza"] == 1


def test_recycling_is_not_offered_while_the_played_card_is_set_up():
    # docs/rules.md R15: between the Play decision and the first action nothing enters the
    # discard pile, so recycling while adding would be recycling at the Play decision
    s = build(2, hands={0: ["Bug"], 1: ["Kitty"]}, discard={0: ["The Moles"]},
              perks={0: ["Recycling"]})  # fmt: skip
    act(s, "play Bug", "use public (fully)")
    assert kind(s) == "ADD"
    assert legal(s) == ["stop adding"]  # not "recycle The Moles"


def test_recycled_card_can_be_added():
    s = build(2, hands={0: ["Bug"], 1: ["Kitty"]}, discard={0: ["The Moles"]},
              perks={0: ["Recycling"]})  # fmt: skip
    act(s, "recycle The Moles", "play Bug", "use public (fully)", "add The Moles", "stop adding")
    assert player(s, 0)["stuff_pizza"] == 3


# Recycling "Anytime on your turn" (p.16; R15) between a play's actions: custom cards, as no
# shipped card recruits in one action and tucks in the other (scenario.RECYCLE_CARDS).
CPP = pytest.param("cpp", marks=pytest.mark.skipif(
    not native.available(), reason="needs the compiled core"))  # fmt: skip


@pytest.fixture(params=["python", CPP])
def recycle_cards(request: pytest.FixtureRequest, tmp_path: Path,
                  monkeypatch: pytest.MonkeyPatch) -> str:  # fmt: skip
    """``build`` plays the custom card set on the backend of the parameter."""
    data = scenario.custom_cards(tmp_path, scenario.RECYCLE_CARDS)
    game = FortGame(2, cards=str(data), backend=request.param)
    monkeypatch.setitem(scenario._GAMES, (2, "basic", default_backend()), game)
    return str(request.param)


def recycler(**kw):
    """Seat 0 holds Recycling and only the custom Bones, with an empty discard pile."""
    base = dict(hands={0: ["Bones"], 1: ["Kitty"]}, park=["Rusty", "Chef", "Wart"],
                perks={0: ["Recycling"]})  # fmt: skip
    base.update(kw)
    return build(2, **base)


def test_recycling_between_a_plays_actions_recruit_recycle_tuck(recycle_cards):
    s = recycler()
    act(s, "play Bones")
    # the tuck used fully needs a card only the recruit, then Recycling, can bring to hand
    assert legal(s) == [
        "use private, then public (fully)", "use public (fully)",
        "use public (fully), then private", "use public, then private (fully)",
    ]  # fmt: skip
    act(s, "use public, then private (fully)")
    assert kind(s) == "RECRUIT" and not can(s, "recycle")  # nothing in the discard pile yet
    act(s, "recruit Rusty")
    assert kind(s) == "LOOKOUT"
    assert legal(s) == ["recycle Rusty [shovel]"]  # the action used fully: no pass
    act(s, "recycle Rusty")
    assert perk_loc(s, "Recycling") == -3
    assert legal(s) == ["lookout Rusty [shovel]"]  # the same decision, asked again
    act(s, "lookout Rusty")
    assert names(s, "lookout", 0) == ["Rusty"]
    assert names(s, "discard", 0) == [] and names(s, "hand", 0) == []
    assert kind(s) == "FOLLOW" and s.current_player() == 1
    assert not can(s, "recycle")  # Kitty's seat: a follower has no Recycling to use anyway


def test_recycling_for_a_tuck_in_the_action_used_partially_may_be_declined(recycle_cards):
    s = recycler()
    act(s, "play Bones", "use public (fully), then private", "recruit Rusty")
    assert legal(s) == ["pass", "recycle Rusty [shovel]"]
    act(s, "pass")  # the tuck is skipped as a step that cannot be done (R3)
    assert perk_loc(s, "Recycling") == 0 and names(s, "discard", 0) == ["Rusty"]
    pass_all(s)
    assert kind(s) == "RECRUIT"  # the Recruit phase: Recycling is offered here too
    assert can(s, "recycle Rusty")


def test_recycling_inside_a_play_is_searched_a_use_that_strands_the_play_is_refused(
    recycle_cards,
):
    # Captain: "recruit -> lookout" used partially, then "lookout" fully, with an empty hand
    # and Wart in the discard pile. Recycled early, a card must be tucked by the "then"
    # (p.14), and the tuck used fully has nothing left: so Recycling waits for the last tuck.
    s = recycler(hands={0: ["Captain"], 1: ["Kitty"]}, discard={0: ["Wart"]}, level={0: 1},
                 park=["Rusty", "Chef", "Bug"])  # fmt: skip
    act(s, "play Captain", "use public, then private (fully)")
    assert kind(s) == "RECRUIT" and not can(s, "recycle")
    act(s, "recruit Rusty")
    assert kind(s) == "LOOKOUT"
    assert legal(s) == ["pass"]  # either recycled card would be tucked here, too early
    act(s, "pass")
    assert legal(s) == ["recycle Rusty [shovel]", "recycle Wart [shovel]"]
    act(s, "recycle Wart", "lookout Wart")
    assert names(s, "lookout", 0) == ["Wart"] and names(s, "discard", 0) == ["Rusty"]


def test_do_over_with_an_empty_hand_when_recycling_can_bring_a_card(recycle_cards):
    s = recycler(perks={0: ["Recycling", "Do-Over"]})
    act(s, "play Bones", "use public (fully)", "recruit Rusty")
    pass_all(s)
    assert kind(s) == "DO_OVER"  # the hand is empty, but Rusty can be recycled (R14)
    assert legal(s) == ["pass", "recycle Rusty [shovel]", "use Do-Over"]
    act(s, "use Do-Over")
    assert legal(s) == ["recycle Rusty [shovel]", "skip the Play phase"]
    act(s, "recycle Rusty", "play Rusty")
    assert kind(s) == "MODE"


def test_a_follower_cannot_recycle_it_is_not_their_turn():
    # Doc's public tuck: Chef is the follower's only card, so after following with it their
    # hand is empty; their Recycling (discard: Bug) is not usable on the leader's turn
    s = build(2, hands={0: ["Doc", "Patch"], 1: ["Chef"]}, discard={1: ["Bug"]},
              perks={1: ["Recycling"]})  # fmt: skip
    act(s, "play Doc", "use public (fully)", "lookout Patch")
    assert kind(s) == "FOLLOW"
    assert legal(s) == ["pass"]


# ================================================================ Rough Housing


def test_rough_housing_is_decided_after_every_other_rival_has_followed():
    """R16 (p.16): "after each other rival player has followed or chosen not to": the holder
    (seat 1) is asked to follow in turn order as usual, and decides on Rough Housing only once
    seat 2 has followed, seeing it."""
    s = build(3, hands={0: ["Bug"], 1: ["Rusty"], 2: ["Kitty", "Scout"]},
              perks={1: ["Rough Housing"]})  # fmt: skip
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert s.current_player() == 1 and kind(s) == "FOLLOW"
    assert legal(s) == ["follow with Rusty [shovel]", "pass"]  # no Rough Housing here yet
    act(s, "pass")
    assert s.current_player() == 2 and kind(s) == "FOLLOW"
    act(s, "follow with Scout")
    assert player(s, 2)["stuff_pizza"] == 1
    bug = card_id(s, "Bug")
    assert zone_of(s, bug) == ("in_play", 0)
    assert s.current_player() == 1 and kind(s) == "ROUGH_HOUSING"
    assert legal(s) == ["pass", "use Rough Housing"]
    act(s, "use Rough Housing")
    assert perk_loc(s, "Rough Housing") == -3
    assert zone_of(s, bug)[0] == "trash"
    assert player(s, 0)["stuff_pizza"] == 1  # the leader's resolved action stands
    assert player(s, 1)["stuff_pizza"] == 0  # Rough Housing is instead of following
    assert names(s, "hand", 1) == ["Rusty"]


def test_rough_housing_holder_who_passes_keeps_the_perk():
    s = build(3, hands={0: ["Bug"], 1: ["Rusty"], 2: ["Kitty"]}, perks={1: ["Rough Housing"]})
    act(s, "play Bug", "use public (fully)", "stop adding", "pass", "pass")
    assert kind(s) == "ROUGH_HOUSING" and s.current_player() == 1
    act(s, "pass")
    assert perk_loc(s, "Rough Housing") == 1
    assert zone_of(s, card_id(s, "Bug"))[0] != "trash"
    assert s.current_player() == 0  # the turn goes on to the leader's Recruit phase


def test_rough_housing_is_not_offered_to_a_holder_who_followed():
    """ "Instead of following": following the card gives up Rough Housing for it."""
    s = build(3, hands={0: ["Bug"], 1: ["Rusty", "Kitty"], 2: ["Kitty"]},
              perks={1: ["Rough Housing"]})  # fmt: skip
    act(s, "play Bug", "use public (fully)", "stop adding", "follow with Rusty [shovel]")
    assert s.current_player() == 2 and kind(s) == "FOLLOW"
    act(s, "pass")
    assert kind(s) != "ROUGH_HOUSING" and s.current_player() == 0
    assert perk_loc(s, "Rough Housing") == 1


def test_rough_housing_holder_last_in_turn_order():
    """In two players the holder is the only rival: asked to follow, then Rough Housing."""
    s = build(2, hands={0: ["Bug"], 1: ["Rusty"]}, perks={1: ["Rough Housing"]})
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert legal(s) == ["follow with Rusty [shovel]", "pass"]
    act(s, "pass")
    assert kind(s) == "ROUGH_HOUSING"
    act(s, "use Rough Housing")
    assert names(s, "trash") == ["Bug"]


def test_rough_housing_not_offered_without_the_perk():
    s = build(2, hands={0: ["Bug"], 1: ["Rusty"]})
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert legal(s) == ["follow with Rusty [shovel]", "pass"]
    act(s, "pass")
    assert kind(s) != "ROUGH_HOUSING"


def test_rough_housing_with_nothing_to_follow():
    s = build(2, hands={0: ["Bug"], 1: ["Kitty"]}, perks={1: ["Rough Housing"]})
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert legal(s) == ["pass"]
    act(s, "pass")
    assert legal(s) == ["pass", "use Rough Housing"]
    act(s, "use Rough Housing")
    assert names(s, "trash") == ["Bug"]


def test_rough_housing_not_offered_to_its_holder_as_leader():
    s = build(2, hands={0: ["Bug"], 1: ["Kitty"]}, perks={0: ["Rough Housing"]})
    act(s, "play Bug", "use public (fully)", "stop adding", "pass")
    assert kind(s) != "ROUGH_HOUSING" and s.current_player() == 0


# ================================================================ Sticky Fingers


def test_sticky_fingers_packs_from_the_supply_in_any_combination():
    s = build(2, hands={0: ["Patch"], 1: ["Kitty"]}, stuff={0: (1, 0)}, level={0: 1},
              perks={0: ["Sticky Fingers"]})  # fmt: skip
    act(s, "play Patch", "use private (fully)")
    assert legal(s) == ["pack pizza from Stuff", "pack pizza from supply", "pack toys from supply"]
    act(s, "pack toys from supply", "pack pizza from Stuff")
    row = player(s, 0)
    assert (row["stuff_pizza"], row["stuff_toys"]) == (0, 0)
    assert (row["pack_pizza"], row["pack_toys"]) == (1, 1)


def test_sticky_fingers_makes_pack_possible_with_an_empty_stuff():
    s = build(2, hands={0: ["Ant"], 1: ["Kitty"]}, perks={0: ["Sticky Fingers"]})
    act(s, "play Ant")
    assert can(s, "use private (fully)")
    s = build(2, hands={0: ["Ant"], 1: ["Kitty"]})
    act(s, "play Ant")
    assert not can(s, "use private (fully)")


def test_sticky_fingers_does_not_apply_while_following():
    # Einstein public "pack x book": the follower's Stuff is empty, Sticky Fingers does not help
    s = build(2, hands={0: ["Einstein"], 1: ["Chef"]}, stuff={0: (1, 0)},
              perks={1: ["Sticky Fingers"]})  # fmt: skip
    act(s, "play Einstein", "use public (fully)", "stop adding", "pack pizza from Stuff")
    assert kind(s) == "FOLLOW" and legal(s) == ["pass"]


# ================================================================ XXL Backpack


@pytest.mark.parametrize("held, capacity", [(False, 1), (True, 3)])
def test_xxl_backpack_adds_two_to_the_pack(held, capacity):
    # Rusty private "pack": usable while the Pack has room
    perks = {0: ["XXL Backpack"]} if held else {}
    for packed in range(capacity + 1):  # a Pack fuller than its capacity does not load
        s = build(2, hands={0: ["Rusty"], 1: ["Kitty"]}, stuff={0: (2, 2)},
                  pack={0: (packed, 0)}, perks=perks)  # fmt: skip
        act(s, "play Rusty")
        assert can(s, "use private (fully)") is (packed < capacity), packed


def test_xxl_backpack_only_for_its_holder():
    s = build(2, hands={0: ["Rusty"], 1: ["Kitty"]}, stuff={0: (2, 2)}, pack={0: (1, 0)},
              perks={1: ["XXL Backpack"]})  # fmt: skip
    act(s, "play Rusty")
    assert not can(s, "use private (fully)")
