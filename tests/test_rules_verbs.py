"""Each verb and multiplier of the action language, "then", and the capacities (pp.5, 12-14).

Cards used (``fort_env/data/cards.toml``), public | private:

- Bug: gather(pizza) x shovel | score x fort_level; The Moles (shovel x2): same public
- Doodles: gather(toys) x glue | score; Rusty: gather(any) x shovel | pack
- Ant: gather(pizza) x skateboard | pack; Patch: gather(toys) x book | pack x 2
- Doc: lookout | score x lookout_size; Kitty: gather(toys) x glue | trash
- Noodle Twins (book x2): gather(any) x book | score x book -> trash_this
- Prince: recruit | score x 2; Sarge: advance | gather(any) x fort_level
- Dot: advance(-1) | gather(pizza) x glue; Captain: lookout | advance(+1) -> score x 3
- Munch: gather(pizza) x 2 | spend(pizza) -> score x 3; Ghost: gather(any) x crown | trash_rival
- Bones: gather(pizza) -> pack | copy_pack; Golden Boy: score x crown | copy_rival_pack
- Chef: gather(pizza) x book | convert x 2; Giggles: gather(toys) x any_suit | lookout
- Einstein: pack x book | score x pack_size; Spike: gather(toys) -> pack | score x skateboard
  -> trash_this; The Scrappers (squirtgun x2): trash_rival -> gather(any) | gather(pizza) x
  squirtgun
"""

from __future__ import annotations

import pytest

from .scenario import act, build, can, card_id, legal, names, pass_all, player, zone_of

RIVAL_HAND = {1: ["Golden Boy"]}  # a crown card: follows nothing used below except crowns


def position(hand, **kw):
    hands = {0: hand, **kw.pop("hands", RIVAL_HAND)}
    return build(2, leader=0, hands=hands, **kw)


def resources(s, seat=0):
    r = player(s, seat)
    return {k: r[k] for k in ("stuff_pizza", "stuff_toys", "pack_pizza", "pack_toys")}


# ---------------------------------------------------------------- table: one play each
# (id, hand, build kwargs, actions, expected seat-0 row subset)
PLAYS = [
    (
        "gather pizza x shovel",
        ["Bug"],
        {},
        ["play Bug", "use public (fully)", "stop adding"],
        {"stuff_pizza": 1},
    ),
    (
        "gather toys x glue",
        ["Doodles"],
        {},
        ["play Doodles", "use public (fully)", "stop adding"],
        {"stuff_toys": 1},
    ),
    (
        "gather any: one choice for the whole action",
        ["Rusty", "Bug"],
        {},
        ["play Rusty", "use public (fully)", "add Bug", "stop adding", "choose toys"],
        {"stuff_toys": 2, "stuff_pizza": 0},
    ),
    (
        "double suit on the played card counts twice",
        ["The Moles"],
        {},
        ["play The Moles", "use public (fully)", "stop adding"],
        {"stuff_pizza": 2},
    ),
    (
        "double suit on an added card counts twice",
        ["Bug", "The Moles"],
        {},
        ["play Bug", "use public (fully)", "add The Moles", "stop adding"],
        {"stuff_pizza": 3},
    ),
    (
        "Lookout suit may be added",
        ["Bug"],
        {"lookout": {0: ["Scout"]}},
        ["play Bug", "use public (fully)", "add Scout", "stop adding"],
        {"stuff_pizza": 2},
    ),
    (
        "pack moves one resource from Stuff to Pack",
        ["Ant"],
        {"stuff": {0: (1, 1)}},
        ["play Ant", "use private (fully)", "pack toys from Stuff"],
        {"stuff_pizza": 1, "stuff_toys": 0, "pack_toys": 1},
    ),
    ("score", ["Doodles"], {}, ["play Doodles", "use private (fully)"], {"score": 1}),
    ("score x constant", ["Prince"], {}, ["play Prince", "use private (fully)"], {"score": 2}),
    (
        "score x fort_level",
        ["Bug"],
        {"level": {0: 3}},
        ["play Bug", "use private (fully)"],
        {"score": 3},
    ),
    (
        "gather x fort_level",
        ["Sarge"],
        {"level": {0: 2}},
        ["play Sarge", "use private (fully)", "choose pizza"],
        {"stuff_pizza": 2},
    ),
    (
        "score x pack_size counts resources, not types",
        ["Einstein"],
        {"pack": {0: (1, 1)}, "level": {0: 1}},
        ["play Einstein", "use private (fully)"],
        {"score": 2},
    ),
    (
        "score x lookout_size counts cards",
        ["Doc"],
        {"lookout": {0: ["The Moles", "Scout"]}, "level": {0: 1}},
        ["play Doc", "use private (fully)"],
        {"score": 2},
    ),
    ("gather x constant", ["Munch"], {}, ["play Munch", "use public (fully)"], {"stuff_pizza": 2}),
    (
        "spend(pizza) -> score x 3 from Stuff",
        ["Munch"],
        {"stuff": {0: (1, 0)}},
        ["play Munch", "use private (fully)", "spend pizza from Stuff"],
        {"stuff_pizza": 0, "score": 3},
    ),
    (
        "spend(pizza) from Pack",
        ["Munch"],
        {"pack": {0: (1, 0)}},
        ["play Munch", "use private (fully)", "spend pizza from Pack"],
        {"pack_pizza": 0, "score": 3},
    ),
    (
        "copy_pack gains the Pack's resources, Pack unchanged",
        ["Bones"],
        {"pack": {0: (1, 1)}, "stuff": {0: (1, 0)}, "level": {0: 1}},
        ["play Bones", "use private (fully)"],
        {"stuff_pizza": 2, "stuff_toys": 1, "pack_pizza": 1, "pack_toys": 1},
    ),
    (
        "copy_rival_pack gains, the rival keeps",
        ["Golden Boy"],
        {"hands": {1: ["Kitty"]}, "pack": {1: (2, 0)}, "level": {1: 1}},
        ["play Golden Boy", "use private (fully)", "copy the Pack of the rival 1"],
        {"stuff_pizza": 2},
    ),
    (
        "convert x 2: both the same direction",
        ["Chef"],
        {"stuff": {0: (2, 1)}},
        [
            "play Chef",
            "use private (fully)",
            "convert pizza->toys in Stuff",
            "convert pizza->toys in Stuff",
        ],
        {"stuff_pizza": 0, "stuff_toys": 3},
    ),
    (
        "convert in the Pack",
        ["Chef"],
        {"pack": {0: (0, 2)}, "level": {0: 1}},
        [
            "play Chef",
            "use private (fully)",
            "convert toys->pizza in Pack",
            "convert toys->pizza in Pack",
        ],
        {"pack_pizza": 2, "pack_toys": 0},
    ),
    (
        "advance: pay 1 toy + 1 either, reach Level 1",
        ["Sarge"],
        {"stuff": {0: (1, 1)}},
        [
            "play Sarge",
            "use public (fully)",
            "pay toys from Stuff",
            "pay pizza from Stuff",
            "take made-up rule Big Plans",
        ],
        {"fort_level": 1, "stuff_pizza": 0, "stuff_toys": 0},
    ),
    (
        "advance pays from the Pack too",
        ["Sarge"],
        {"pack": {0: (1, 0)}, "stuff": {0: (0, 1)}},
        [
            "play Sarge",
            "use public (fully)",
            "pay toys from Stuff",
            "pay pizza from Pack",
            "take made-up rule Big Plans",
        ],
        {"fort_level": 1, "pack_pizza": 0, "stuff_toys": 0},
    ),
    (
        "advance(-1): one resource less",
        ["Dot"],
        {"stuff": {0: (0, 1)}},
        ["play Dot", "use public (fully)", "pay toys from Stuff", "take made-up rule Big Plans"],
        {"fort_level": 1, "stuff_toys": 0},
    ),
    (
        "advance(+1) -> score x 3: one resource more",
        ["Captain"],
        {"stuff": {0: (1, 2)}},
        [
            "play Captain",
            "use private (fully)",
            "pay toys from Stuff",
            "pay toys from Stuff",
            "pay pizza from Stuff",
            "take made-up rule Big Plans",
        ],
        {"fort_level": 1, "stuff_toys": 0, "stuff_pizza": 0, "score": 3},
    ),
    (
        "score x book -> trash_this (double book)",
        ["Noodle Twins"],
        {},
        ["play Noodle Twins", "use private (fully)", "stop adding"],
        {"score": 2},
    ),
]


@pytest.mark.parametrize(
    "hand, kw, steps, expected", [c[1:] for c in PLAYS], ids=[c[0] for c in PLAYS]
)
def test_one_play(hand, kw, steps, expected):
    s = position(hand, **kw)
    before = player(s, 0)
    act(s, *steps)
    pass_all(s)
    after = player(s, 0)
    assert {k: after[k] for k in expected} == expected
    # nothing else on the board moved
    for k in before:
        if k not in expected:
            assert after[k] == before[k], k


# ---------------------------------------------------------------- legal sets per verb


def test_gather_any_cannot_mix_and_must_fit_fully():
    # Rusty + Bug = 2 gathers; toys has room for 1 only, pizza for 4.
    s = position(["Rusty", "Bug"], stuff={0: (0, 3)})
    act(s, "play Rusty", "use public (fully)", "add Bug", "stop adding")
    assert legal(s) == ["choose pizza"]


def test_stuff_holds_four_of_each_and_adds_that_overflow_are_refused():
    s = position(["Bug", "The Moles"], stuff={0: (2, 4)})
    act(s, "play Bug", "use public (fully)")
    # Bug alone gathers 1 of the 2 free pizza; The Moles would make 3: not fully usable.
    assert legal(s) == ["stop adding"]
    act(s, "stop adding")
    assert resources(s)["stuff_pizza"] == 3


def test_gather_partially_stops_at_four_and_useless_adds_are_refused():
    # private used fully, public as far as it goes: Bug's 1 shovel fills the last room, so
    # The Moles would change nothing and cannot be added (p.7).
    s = position(["Bug", "The Moles"], stuff={0: (3, 0)}, level={0: 1})
    act(s, "play Bug", "use private (fully), then public")
    assert legal(s) == ["stop adding"]
    act(s, "stop adding")
    assert resources(s)["stuff_pizza"] == 4
    assert player(s, 0)["score"] == 1


def test_stuff_capacities_are_per_resource():
    # 4 pizza: Bug (pizza) has no use, Doodles (toys) still gathers
    s = position(["Bug", "Doodles"], stuff={0: (4, 0)})
    assert legal(s) == ["play Doodles [glue]", "skip the Play phase"]
    act(s, "play Doodles", "use public (fully)", "stop adding")
    assert resources(s)["stuff_toys"] == 1


def test_spend_any_is_one_choice_for_the_whole_action():
    # Moose private "(spend(any) -> score) x shovel"; with Bug added it spends twice, the
    # same resource both times: (1, 1) cannot pay twice, (2, 1) can only in pizza.
    s = position(["Moose", "Bug"], stuff={0: (1, 1)})
    act(s, "play Moose", "use private (fully)")
    assert legal(s) == ["stop adding"]
    s = position(["Moose", "Bug"], stuff={0: (2, 1)})
    act(s, "play Moose", "use private (fully)", "add Bug", "stop adding")
    assert legal(s) == ["choose pizza"]
    act(s, "choose pizza", "spend pizza from Stuff", "spend pizza from Stuff")
    assert resources(s)["stuff_pizza"] == 0 and player(s, 0)["score"] == 2


def test_pack_offers_each_resource_in_stuff():
    s = position(["Ant"], stuff={0: (1, 1)})
    act(s, "play Ant", "use private (fully)")
    assert legal(s) == ["pack pizza from Stuff", "pack toys from Stuff"]


@pytest.mark.parametrize(
    "level, pack, xxl, fully",
    [
        (0, (0, 0), False, True),
        (0, (1, 0), False, False),  # Level 0 Pack holds 1
        (1, (1, 0), False, True),  # Level 1 holds 2
        (2, (2, 1), False, False),  # Level 2 holds 3
        (0, (1, 0), True, True),  # XXL Backpack: 1 + 2
        (0, (2, 1), True, False),
    ],
)
def test_pack_capacity_is_fort_level_plus_one(level, pack, xxl, fully):
    perks = {0: ["XXL Backpack"]} if xxl else {}
    s = position(["Ant"], stuff={0: (2, 2)}, pack={0: pack}, level={0: level}, perks=perks)
    act(s, "play Ant")
    assert can(s, "use private (fully)") is fully


@pytest.mark.parametrize(
    "level, xxl, fully", [(0, False, False), (1, False, True), (0, True, True)]
)
def test_pack_x_2_needs_room_for_two(level, xxl, fully):
    perks = {0: ["XXL Backpack"]} if xxl else {}
    s = position(["Patch"], stuff={0: (2, 2)}, level={0: level}, perks=perks)
    act(s, "play Patch")
    assert can(s, "use private (fully)") is fully


def test_xxl_backpack_pack_fills_to_three_at_level_zero():
    s = position(["Patch"], stuff={0: (2, 2)}, pack={0: (1, 0)}, perks={0: ["XXL Backpack"]})
    act(s, "play Patch", "use private (fully)", "pack pizza from Stuff", "pack toys from Stuff")
    assert resources(s) == {"stuff_pizza": 1, "stuff_toys": 1, "pack_pizza": 2, "pack_toys": 1}


def test_lookout_tucks_a_hand_card_not_the_played_one():
    s = position(["Doc", "Kitty", "Bug"])
    act(s, "play Doc", "use public (fully)")
    assert legal(s) == ["lookout Bug [shovel]", "lookout Kitty [glue]"]
    act(s, "lookout Kitty")
    assert names(s, "lookout", 0) == ["Kitty"]
    assert names(s, "hand", 0) == ["Bug"]


@pytest.mark.parametrize(
    "level, tucked, fully", [(0, 0, True), (0, 1, False), (1, 1, True), (1, 2, False)]
)
def test_lookout_capacity_is_fort_level_plus_one(level, tucked, fully):
    s = position(["Doc", "Kitty"], lookout={0: ["Scout", "Wart"][:tucked]}, level={0: level})
    act(s, "play Doc")
    assert can(s, "use public (fully)") is fully


def test_trash_from_hand_or_discard_not_deck_played_or_added_and_best_friends_allowed():
    s = position(["Kitty", "Doodles", "Zip"], discard={0: ["Ant"]}, deck={0: ["Rusty"]})
    act(s, "play Kitty", "use public (fully), then private", "add Doodles", "stop adding")
    assert s.decision.kind.name == "TRASH"
    assert legal(s) == ["trash Ant [skateboard]", "trash Zip [skateboard]"]
    act(s, "trash Zip")
    assert zone_of(s, card_id(s, "Zip")) == ("trash", 0)
    assert resources(s)["stuff_toys"] == 2


def test_trash_this_happens_after_the_followers():
    s = position(["Noodle Twins"], hands={1: ["Chef"]})
    act(s, "play Noodle Twins", "use private (fully)", "stop adding")
    nt = card_id(s, "Noodle Twins")
    assert s.decision.kind.name == "FOLLOW"
    assert zone_of(s, nt)[0] == "in_play"  # still on the table while rivals follow
    act(s, "follow with Chef", "choose toys")
    assert resources(s, 1)["stuff_toys"] == 1
    assert zone_of(s, nt)[0] == "trash"
    assert player(s, 0)["score"] == 2


def test_recruit_action_offers_park_rival_yard_and_park_deck_not_own_yard():
    s = position(
        ["Prince", "Kitty"],
        yard={0: ["Bug"], 1: ["Ant", "Rusty"]},
        park=["Bones", "Chef", "Doc"],
        park_deck=["Skids", "Dash"],
    )
    act(s, "play Prince", "use public (fully)")
    assert legal(s) == [
        "recruit Ant [skateboard]", "recruit Bones [book]", "recruit Chef [book]",
        "recruit Doc [book]", "recruit Rusty [shovel]", "recruit the top of the Park deck",
    ]  # fmt: skip
    act(s, "recruit Chef")
    assert names(s, "discard", 0) == ["Chef"]
    skids = card_id(s, "Skids")
    assert zone_of(s, skids) == ("park", -1)
    assert s.to_dict()["cards"][skids]["pos"] == 1  # Chef's slot, refilled from the deck top
    assert names(s, "park_deck") == ["Dash"]


def test_spend_needs_the_resource():
    s = position(["Munch"], stuff={0: (0, 3)})
    act(s, "play Munch")
    assert not can(s, "use private (fully)")


def test_trash_rival_trashes_a_card_of_a_rival_yard():
    s = position(["Ghost"], yard={1: ["Bug", "Ant"]})
    act(s, "play Ghost", "use private (fully)")
    assert legal(s) == ["trash rival's Ant [skateboard]", "trash rival's Bug [shovel]"]
    act(s, "trash rival's Bug")
    assert names(s, "yard", 1) == ["Ant"]
    assert names(s, "trash") == ["Bug"]


def test_trash_rival_without_rival_yard_cards_cannot_be_used():
    s = position(["Ghost"], yard={0: ["Bug"]})
    act(s, "play Ghost")
    assert not can(s, "use private (fully)")


@pytest.mark.parametrize(
    "stuff, pack, fully, partially",
    [
        ((0, 0), (1, 2), True, True),
        ((0, 3), (1, 2), False, True),  # room for 1 of the 2 toys: copied as far as it goes
        ((0, 4), (0, 2), False, False),  # nothing fits: not a use
        ((0, 0), (0, 0), False, False),  # an empty Pack copies nothing: not a use
    ],
)
def test_copy_pack_full_partial_and_empty(stuff, pack, fully, partially):
    # The Moles: public "gather(pizza) x shovel" (2), private "copy_pack"; Level 2 Pack holds 3
    s = position(["The Moles"], stuff={0: stuff}, pack={0: pack}, level={0: 2})
    act(s, "play The Moles")
    assert can(s, "use private (fully)") is fully
    assert can(s, "use public (fully), then private")
    act(s, "use public (fully), then private", "stop adding")
    r = resources(s)
    if partially:
        expected = (min(4, stuff[0] + 2 + pack[0]), min(4, stuff[1] + pack[1]))
    else:
        expected = (stuff[0] + 2, stuff[1])
    assert (r["stuff_pizza"], r["stuff_toys"]) == expected
    assert (r["pack_pizza"], r["pack_toys"]) == pack  # copying leaves the Pack as it was


def test_copy_rival_pack_offers_only_rivals_with_something_to_copy():
    s = build(3, leader=0, hands={0: ["Golden Boy"], 1: ["Kitty"], 2: ["Kitty"]},
              pack={2: (0, 1)})  # fmt: skip
    act(s, "play Golden Boy", "use private (fully)")
    assert legal(s) == ["copy the Pack of the rival 2 to the left"]
    act(s, "copy the Pack of the rival 2")
    assert resources(s)["stuff_toys"] == 1
    assert resources(s, 2)["pack_toys"] == 1


def test_convert_is_one_direction_per_action():
    # Stuff (1, 1): pizza->toys then toys->pizza would be two directions; "x 2" must go
    # one way, and neither way works twice.
    s = position(["Chef"], stuff={0: (1, 1)})
    act(s, "play Chef")
    assert not can(s, "use private (fully)")
    s = position(["Chef"], stuff={0: (2, 1)})
    act(s, "play Chef", "use private (fully)")
    assert legal(s) == ["convert pizza->toys in Stuff"]  # toys->pizza could not be done twice
    s = position(["Chef"], stuff={0: (2, 2)})
    act(s, "play Chef", "use private (fully)")
    assert legal(s) == ["convert pizza->toys in Stuff", "convert toys->pizza in Stuff"]
    act(s, "convert pizza->toys in Stuff")
    # (1, 3): toys->pizza would be possible, but the direction is fixed for the action
    assert legal(s) == ["convert pizza->toys in Stuff"]


def test_convert_needs_room_in_stuff():
    # 4 toys: pizza -> toys is impossible in Stuff, toys -> pizza possible
    s = position(["Chef"], stuff={0: (2, 4)})
    act(s, "play Chef", "use private (fully)")
    assert legal(s) == ["convert toys->pizza in Stuff"]


def test_advance_cost_levels_and_modifiers():
    # Level 0 -> 1 costs 1 toy + 1 either (fort.toml). Without a toy it cannot be paid.
    # Sarge's private (x Fort Level 0) is no full use either, so Sarge cannot be played.
    s = position(["Sarge", "Kitty"], stuff={0: (2, 0)})
    assert legal(s) == ["play Kitty [glue]", "skip the Play phase"]
    s = position(["Sarge", "Kitty"], stuff={0: (1, 1)})
    assert "play Sarge [shovel]" in legal(s)
    # advance(+1) on Captain: 1 toy + 2 either; 2 resources are not enough, 3 are
    s = position(["Captain", "Kitty"], stuff={0: (1, 1)})
    act(s, "play Captain")
    assert not can(s, "use private (fully)")
    s = position(["Captain", "Kitty"], stuff={0: (2, 1)})
    act(s, "play Captain")
    assert can(s, "use private (fully)")
    # advance(-1) on Dot at Level 0 (1 toy + 1 either): "one less ... resource, of either
    # type" (R25) may drop the printed toy, so a single pizza is enough, as is a single toy
    for stuff in ((1, 0), (0, 1)):
        s = position(["Dot"], stuff={0: stuff})
        act(s, "play Dot")
        assert can(s, "use public (fully)")
        act(s, "use public (fully)")
        assert s.decision.context["cost"] == (0, 0, 1)
    s = position(["Dot"], stuff={0: (0, 0)})
    act(s, "play Dot")
    assert not can(s, "use public (fully)")


def test_advance_discount_chooses_which_printed_resource_to_drop():
    """R25: at Level 1 (1 toy + 1 pizza + 1 either), Dot's -1 may drop the toy or the pizza:
    the cost becomes 2 "either" units, i.e. any 2 resources (2 pizza works, which dropping the
    "either" unit would not allow), and the PAY decisions make the choice."""
    s = position(["Dot"], stuff={0: (2, 0)}, level={0: 1})
    act(s, "play Dot", "use public (fully)")
    assert s.decision.context["cost"] == (0, 0, 2)
    act(s, "pay pizza from Stuff", "pay pizza from Stuff")
    assert player(s, 0)["fort_level"] == 2
    # 2 toys: likewise (the pizza is dropped)
    s = position(["Dot"], stuff={0: (0, 2)}, level={0: 1})
    act(s, "play Dot", "use public (fully)")
    assert legal(s) == ["pay toys from Stuff"]
    # one resource is not enough for a cost of two
    s = position(["Dot"], stuff={0: (0, 1)}, level={0: 1})
    act(s, "play Dot")
    assert not can(s, "use public (fully)")  # 1 resource for a cost of 2


def test_advance_pay_choices_keep_the_rest_payable():
    # cost 1 toy + 1 either with Stuff (1 pizza, 1 toy): paying the pizza first is fine
    # (it covers "either"); the toy must then pay the toy unit.
    s = position(["Sarge"], stuff={0: (1, 1)})
    act(s, "play Sarge", "use public (fully)")
    assert s.decision.context["cost"] == (1, 0, 1)
    assert legal(s) == ["pay pizza from Stuff", "pay toys from Stuff"]
    act(s, "pay pizza from Stuff")
    assert legal(s) == ["pay toys from Stuff"]


def test_advance_at_level_five_is_impossible():
    s = position(["Dot"], stuff={0: (0, 4)}, level={0: 5}, sculpture=1)
    act(s, "play Dot")
    assert not can(s, "use public (fully)")
    act(s, "use private (fully), then public", "stop adding")
    assert player(s, 0)["fort_level"] == 5
    assert resources(s)["stuff_toys"] == 4


# ---------------------------------------------------------------- multipliers


def test_constant_multiplier_cannot_be_improved():
    s = position(["Munch", "Ant", "Zip"])
    act(s, "play Munch", "use public (fully)")
    # no ADD decision: the next decision is already the rival's follow
    assert s.decision.kind.name == "FOLLOW"
    assert resources(s)["stuff_pizza"] == 2


def test_any_suit_counts_the_played_card_only_when_its_suit_is_chosen():
    s = position(["Giggles", "Chef", "Bug"])
    act(s, "play Giggles", "use public (fully)")
    assert s.decision.kind.name == "ANY_SUIT"
    # glue (Giggles itself), book (Chef), shovel (Bug): the suits that can make a full action
    assert legal(s) == ["suit book", "suit glue", "suit shovel"]
    t = s.clone()
    act(s, "suit glue", "stop adding")
    assert resources(s)["stuff_toys"] == 1  # Giggles' own glue counts
    act(t, "suit book")
    assert legal(t) == ["add Chef [book]"]  # stopping at 0 books would be no full use
    act(t, "add Chef", "stop adding")
    assert resources(t)["stuff_toys"] == 1  # only Chef: Giggles is glue, not book


def test_any_suit_choice_with_nothing_to_count_cannot_be_used_fully():
    s = position(["Giggles", "Chef"])
    act(s, "play Giggles", "use public (fully)")
    assert not can(s, "suit squirtgun")


def test_add_to_the_partial_action_when_it_raises_the_count():
    # private used fully, public (Bug) as far as it goes with room for 2: The Moles takes it
    # from 1 pizza to 2, so it may be added even though 3 shovels exceed the room.
    s = position(["Bug", "The Moles"], stuff={0: (2, 0)}, level={0: 1})
    act(s, "play Bug", "use private (fully), then public")
    assert legal(s) == ["add The Moles [shovel/shovel]", "stop adding"]
    act(s, "add The Moles", "stop adding")
    assert resources(s)["stuff_pizza"] == 4


def test_add_that_helps_the_partial_action_after_the_first_action_made_room():
    # Chef: public "gather(pizza) x book", private "convert x 2". Stuff 4 pizza. Private first
    # (pizza -> toys twice: 2 pizza), then public as far as it goes: Chef alone gathers 1;
    # with Noodle Twins (2 books) it gathers 2. The add changes the outcome (p.7).
    s = position(["Chef", "Noodle Twins"], stuff={0: (4, 0)})
    act(s, "play Chef", "use private (fully), then public")
    assert legal(s) == ["add Noodle Twins [book/book]", "stop adding"]
    act(s, "add Noodle Twins", "stop adding", "convert pizza->toys in Stuff",
        "convert pizza->toys in Stuff")  # fmt: skip
    assert resources(s)["stuff_pizza"] == 4


def test_lookout_suits_count_for_the_leader():
    s = position(["Patch"], lookout={0: ["Noodle Twins", "Chef"]}, level={0: 1})
    act(s, "play Patch", "use public (fully)", "add Noodle Twins", "add Chef", "stop adding")
    assert resources(s)["stuff_toys"] == 4  # 1 + 2 + 1
    assert names(s, "lookout", 0) == ["Chef", "Noodle Twins"]


def test_multipliers_are_evaluated_when_each_action_starts():
    # Doc: public "lookout", private "score x lookout_size" (1 card already tucked).
    s = position(["Doc", "Kitty"], lookout={0: ["Scout"]}, level={0: 1})
    act(s, "play Doc", "use public (fully), then private", "lookout Kitty")
    act(s, "go on with this action")  # R3: the private action may stop after its first point
    assert player(s, 0)["score"] == 2  # counted after the tuck
    s = position(["Doc", "Kitty"], lookout={0: ["Scout"]}, level={0: 1})
    act(s, "play Doc", "use private (fully), then public", "lookout Kitty")
    assert player(s, 0)["score"] == 1  # counted before it


def test_fort_level_multiplier_after_an_advance_in_the_other_action():
    # Sarge: public "advance", private "gather(any) x fort_level", Level 0.
    s = position(["Sarge"], stuff={0: (1, 1)})
    act(s, "play Sarge")
    assert can(s, "use public, then private (fully)")  # Level 1 by the time it starts
    assert not can(s, "use private (fully)")  # x 0
    act(s, "use public, then private (fully)", "pay toys from Stuff", "pay pizza from Stuff",
        "take made-up rule Big Plans", "choose toys")  # fmt: skip
    assert resources(s)["stuff_toys"] == 1
    assert player(s, 0)["fort_level"] == 1


# ---------------------------------------------------------------- "then" (p.14)


def test_then_right_side_is_skipped_when_left_is_not_done():
    # Spike public "gather(toys) -> pack": toys full, so the pack is not done even though
    # the Stuff holds a pizza that could be packed.
    s = position(["Spike"], stuff={0: (1, 4)})
    act(s, "play Spike")
    assert not can(s, "use public (fully)")
    act(s, "use private (fully), then public", "stop adding")
    assert resources(s) == {"stuff_pizza": 1, "stuff_toys": 4, "pack_pizza": 0, "pack_toys": 0}
    assert player(s, 0)["score"] == 1


def test_then_right_side_must_be_done_when_able():
    s = position(["Spike"], stuff={0: (1, 0)})
    act(s, "play Spike", "use public (fully)")
    assert s.decision.kind.name == "PACK"  # no way to stop before packing
    assert legal(s) == ["pack pizza from Stuff", "pack toys from Stuff"]
    act(s, "pack toys from Stuff")
    assert resources(s) == {"stuff_pizza": 1, "stuff_toys": 0, "pack_pizza": 0, "pack_toys": 1}


def test_then_left_side_impossible_leaves_the_right_undone_scrappers():
    # The Scrappers public "trash_rival -> gather(any)": no rival Yard card, no gather.
    s = position(["The Scrappers"])
    act(s, "play The Scrappers")
    assert not can(s, "use public (fully)")
    act(s, "use private (fully), then public", "stop adding")
    assert resources(s)["stuff_pizza"] == 2  # private x 2 squirtguns
    assert resources(s)["stuff_toys"] == 0


def test_then_inside_a_repeat_each_time():
    # Icky & Sticky public "(gather(toys) -> pack) x glue" (glue x2): two gather-then-pack,
    # but the Pack holds 1 at Level 0: the second pack cannot happen, so not fully.
    s = position(["Icky & Sticky"])
    act(s, "play Icky & Sticky")
    assert not can(s, "use public (fully)")
    s = position(["Icky & Sticky"], level={0: 1})
    act(s, "play Icky & Sticky", "use public (fully)", "stop adding", "pack toys from Stuff",
        "pack toys from Stuff")  # fmt: skip
    assert resources(s) == {"stuff_pizza": 0, "stuff_toys": 0, "pack_pizza": 0, "pack_toys": 2}


def test_blank_or_zero_action_is_not_a_full_use():
    # Bug's private at Level 0 scores 0 times: cannot be the action used fully
    s = position(["Bug"])
    act(s, "play Bug")
    assert legal(s) == [
        "use private, then public (fully)",
        "use public (fully)",
        "use public (fully), then private",
    ]


# ---------------------------------------------------------------- R7: adding to the partial action


def test_add_counts_for_the_partial_action_as_far_as_it_goes():
    """R7 (p.7, "at least one of its suits must change the effect of at least one action that
    you use"): Blitz's public "(recruit -> gather(toys)) x squirtgun", used partially after the
    private trash, with a Stuff full of toys: one more squirtgun still recruits once more, so
    it may be added although the repetition cannot be done in full."""
    s = position(["Blitz", "Crash", "Bug"], stuff={0: (0, 4)})
    act(s, "play Blitz", "use private (fully), then public")
    assert legal(s) == ["add Crash [squirtgun]", "stop adding"]
    act(s, "add Crash", "stop adding", "trash Bug")
    # one recruit per squirtgun (the Park refills from the Park deck); no toys gathered
    for _ in range(2):
        assert s.decision.kind.name == "RECRUIT" and s.current_player() == 0
        act(s, "recruit the top of the Park deck")
    assert s.decision.kind.name == "FOLLOW"  # Blitz is resolved: the rival may follow
    assert len(names(s, "discard", 0)) == 2  # the two recruits
    assert resources(s)["stuff_toys"] == 4


def test_add_that_changes_nothing_in_the_partial_action_is_refused():
    """The same play with nothing left to recruit (empty Park and Park deck, no rival Yard):
    the extra repetition could do no step, so the squirtgun changes nothing (Muhammad, p.7)."""
    s = position(["Blitz", "Crash", "Bug"], stuff={0: (0, 4)}, park=[], park_deck=[])
    act(s, "play Blitz", "use private (fully), then public")
    assert legal(s) == ["stop adding"]


def test_add_for_a_then_chain_whose_second_step_cannot_be_done():
    """Icky & Sticky's public "(gather(toys) -> pack) x glue" used partially with a full Pack:
    each glue still gathers a toy, so one more glue (Kitty) changes the outcome."""
    s = position(["Icky & Sticky", "Kitty"], stuff={0: (0, 0)}, pack={0: (1, 0)})
    act(s, "play Icky & Sticky", "use private (fully), then public")
    assert legal(s) == ["add Kitty [glue]", "stop adding"]
    act(s, "add Kitty", "stop adding")
    assert resources(s)["stuff_toys"] == 3  # 2 (the card's own glues) + 1 (Kitty)
    assert resources(s)["pack_pizza"] == 1  # the Pack (capacity 1 at Level 0) stays full


# R7 decided (docs/rules.md R7): the repetition an added card brings to the action used partially
# is judged after the earlier ones have run, in the play's order, with the first action's
# choices searched; a coin on an added card is "one suit of your choice" (README fact 1); and an
# add may rely on cards added after it. Each test below failed under the engine before this
# ruling (the Einstein test at Level 2 guards the "first repetition the card brings" instead).


def test_partial_extra_repetition_is_judged_after_the_earlier_ones():
    """Ghost: public "gather(any) x crown" used partially after the private "trash_rival", a
    Stuff of 4 pizza and 3 toys: Ghost's own crown gathers the one toy there is room for, so a
    second crown (Blades, its coin as crown) changes nothing (p.7) and may not be added. With
    room for two toys it may, and its coin must then be a crown."""
    s = position(["Ghost", "Blades", "Kitty"], stuff={0: (4, 3)}, yard={1: ["Bug"]})
    act(s, "play Ghost", "use private (fully), then public")
    assert legal(s) == ["stop adding"]
    s = position(["Ghost", "Blades", "Kitty"], stuff={0: (4, 2)}, yard={1: ["Bug"]})
    act(s, "play Ghost", "use private (fully), then public")
    assert legal(s) == ["add Blades [coin]", "stop adding"]
    act(s, "add Blades")
    assert legal(s) == ["suit crown"]
    act(s, "suit crown", "stop adding", "trash rival's Bug", "choose toys")
    assert resources(s)["stuff_toys"] == 4


def test_partial_extra_repetition_is_judged_with_the_first_actions_choices():
    """Rusty: private "pack" used fully first, then public "gather(any) x shovel" partially.
    Stuff 4 pizza, 4 toys: whatever is packed leaves room for one resource, which Rusty's own
    shovel gathers, so Bug's shovel changes nothing. Stuff 4 pizza, 3 toys: packing a toy
    leaves room for two toys, so Bug may be added (that choice is the player's, p.7)."""
    s = position(["Rusty", "Bug"], stuff={0: (4, 4)})
    act(s, "play Rusty", "use private (fully), then public")
    assert legal(s) == ["stop adding"]
    s = position(["Rusty", "Bug"], stuff={0: (4, 3)})
    act(s, "play Rusty", "use private (fully), then public")
    assert legal(s) == ["add Bug [shovel]", "stop adding"]


def test_partial_convert_extra_repetition():
    """Wart: public "convert x shovel" used partially after the private "trash". Stuff 4 pizza,
    4 toys, one toy in the Pack: Wart converts it once; an added Bud (coin as shovel) would
    convert nothing more (p.7), so it may not be added. With two toys in the Pack it may."""
    s = position(["Wart", "Bud", "Kitty"], stuff={0: (4, 4)}, pack={0: (0, 1)})
    act(s, "play Wart", "use private (fully), then public")
    assert legal(s) == ["stop adding"]
    s = position(["Wart", "Bud", "Kitty"], stuff={0: (4, 4)}, pack={0: (0, 2)}, level={0: 1})
    act(s, "play Wart", "use private (fully), then public")
    assert legal(s) == ["add Bud [coin]", "stop adding"]
    act(s, "add Bud")
    assert legal(s) == ["suit shovel"]


def test_partial_convert_extra_repetition_goes_one_way():
    """Wart with a Stuff of 3 pizza and 3 toys: one conversion either way fills a side, and
    every conversion of one action goes the same way (README fact 2), so a second shovel
    (Bud) converts nothing more and may not be added."""
    s = position(["Wart", "Bud", "Kitty"], stuff={0: (3, 3)})
    act(s, "play Wart", "use private (fully), then public")
    assert legal(s) == ["stop adding"]


ALL_SUITS = ["book", "coin", "crown", "glue", "shovel", "skateboard", "squirtgun"]


def test_an_added_coin_and_crown_card_may_declare_any_suit():
    """Tiny: public "gather(toys) x crown" used fully, room for 3 toys. An added Puddin (coin
    and crown) changes the outcome by its crown, so its coin is "one suit of your choice"
    (README fact 1), any of the seven: as a crown it gathers a third toy, as a book nothing
    more."""
    s = position(["Tiny", "Puddin"], stuff={0: (0, 1)})
    act(s, "play Tiny", "use public (fully)", "add Puddin")
    assert legal(s) == [f"suit {x}" for x in ALL_SUITS]
    act(s, "suit book", "stop adding")
    assert resources(s)["stuff_toys"] == 3


def test_an_added_coin_and_crown_card_declares_a_suit_that_fits():
    """Tiny with room for 2 toys: Puddin's crown makes two gathers, which fit; its coin as a
    crown would make three, which do not, so it may be any other suit, and Puddin may be
    added (before, only a crown was offered, so Puddin could not be added at all)."""
    s = position(["Tiny", "Puddin"], stuff={0: (0, 2)})
    act(s, "play Tiny", "use public (fully)")
    assert legal(s) == ["add Puddin [coin/crown]", "stop adding"]
    act(s, "add Puddin")
    assert legal(s) == [f"suit {x}" for x in ALL_SUITS if x != "crown"]
    act(s, "suit glue", "stop adding")
    assert resources(s)["stuff_toys"] == 4


def test_an_add_for_the_partial_action_may_rely_on_a_later_add():
    """Puddin played, its coin a book: public "gather(any) x any_suit" (skateboard) used
    partially, private "score x coin" used fully, which counts no coin yet. Ant's skateboard
    changes the public action in the play where Bud is added too, its coin a coin, so Ant may
    be added first (the order of adding is free); then only Bud, as a coin, completes it."""
    s = position(["Puddin", "Ant", "Bud"])
    act(s, "play Puddin", "suit book", "use public, then private (fully)", "suit skateboard")
    assert legal(s) == ["add Ant [skateboard]", "add Bud [coin]"]
    act(s, "add Ant")
    assert legal(s) == ["add Bud [coin]"]
    act(s, "add Bud")
    assert legal(s) == ["suit coin"]
    act(s, "suit coin", "stop adding", "choose pizza")
    assert resources(s)["stuff_pizza"] == 1
    assert player(s, 0)["score"] == 1


def test_an_added_coin_for_the_partial_action_may_rely_on_a_later_add():
    """The same hand, public "gather(any) x skateboard" used fully (it needs Ant), private
    "score x coin" partially: Bud's coin may be a coin, for the private action, in the play
    where Ant is added after it; then Ant must be added."""
    s = position(["Puddin", "Ant", "Bud"])
    act(s, "play Puddin", "suit book", "use public (fully), then private", "suit skateboard")
    act(s, "add Bud")
    assert legal(s) == ["suit coin", "suit skateboard"]
    act(s, "suit coin")
    assert legal(s) == ["add Ant [skateboard]"]


def test_a_card_showing_a_suit_twice_changes_the_outcome_by_its_first_repetition():
    """Einstein: public "pack x book" used partially after the private "score x pack_size".
    Noodle Twins (two books) brings two repetitions; at Level 2 (Pack of 3, 1 in it) the first
    of them still packs, so it may be added; at Level 1 Einstein's own book fills the Pack,
    and neither does anything."""
    s = position(["Einstein", "Noodle Twins"], stuff={0: (2, 0)}, pack={0: (1, 0)}, level={0: 2})
    act(s, "play Einstein", "use private (fully), then public")
    assert legal(s) == ["add Noodle Twins [book/book]", "stop adding"]
    s = position(["Einstein", "Noodle Twins"], stuff={0: (2, 0)}, pack={0: (1, 0)}, level={0: 1})
    act(s, "play Einstein", "use private (fully), then public")
    assert legal(s) == ["stop adding"]


def test_adds_for_the_partial_action_may_rely_on_each_other():
    """Dot at Level 2 with an empty Stuff: private "gather(pizza) x glue" used partially first,
    then public "advance(-1)" used fully, which costs 3 resources here (R25). Dot's glue
    gathers 1 pizza; Kitty's glue changes the outcome (a second pizza) in the play where Tink's
    glue is added too and the advance can be paid, and so does Tink's: either may be added
    first, and the mode is allowed (before, neither add was, so neither was the mode)."""
    s = position(["Dot", "Kitty", "Tink"], level={0: 2})
    act(s, "play Dot")
    assert can(s, "use private, then public (fully)")
    act(s, "use private, then public (fully)")
    assert legal(s) == ["add Kitty [glue]", "add Tink [glue]"]
    act(s, "add Kitty")
    assert legal(s) == ["add Tink [glue]"]
    act(s, "add Tink", "stop adding")
    assert resources(s)["stuff_pizza"] == 3
    act(s, "pay pizza from Stuff", "pay pizza from Stuff", "pay pizza from Stuff")
    assert player(s, 0)["fort_level"] == 3
