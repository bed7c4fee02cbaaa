"""The 11 made-up rules, scored at the end as the glossary says (p.15; docs/rules.md R26-R27).

"If a made-up rule scores points based on cards or suits you have, count all your cards in your
deck, discard, hand, Yard, and Lookout" (not the trash). Coins are never counted as suits.
Seat 0 plays the red board: its Best Friends are Blades (coin) and Zip (skateboard), which
``build`` puts in seat 0's deck unless told otherwise.
"""

from __future__ import annotations

import pytest

from .scenario import act, build, pass_all

POINTS = ("track", "fort_level", "made_up_rule", "macaroni", "total")


def rule_points(rule, seat=0, num_players=2, **kw):
    s = build(num_players, rules={seat: rule}, **kw)
    return s.score_breakdown()[seat]["made_up_rule"]


CASES = [
    # Big Plans: every printed Advance Fort on a card you have (public and private)
    ("Big Plans", "none", {}, 0),
    (
        "Big Plans",
        "one per card, in every owned zone",
        {
            "hands": {0: ["Lefty"]},
            "deck": {0: ["Dot"]},
            "discard": {0: ["Sarge"]},
            "yard": {0: ["Captain"]},
            "lookout": {0: ["Tink"]},
            "level": {0: 1},
        },
        5,
    ),
    (
        "Big Plans",
        "trash and rivals do not count",
        {"hands": {0: ["Lefty"], 1: ["Dot"]}, "trash": ["Sarge"]},
        1,
    ),
    (
        "Big Plans",
        "the DIY perk does not count",
        {"hands": {0: ["Lefty"]}, "perks": {0: ["DIY"]}},
        1,
    ),
    # Friendship Bracelet: distinct non-coin suits, +1 for all six
    ("Friendship Bracelet", "Best Friends only: skateboard (Blades is a coin)", {}, 1),
    ("Friendship Bracelet", "three suits", {"hands": {0: ["Bug", "Kitty"]}}, 3),
    ("Friendship Bracelet", "a double suit is one suit", {"hands": {0: ["The Moles"]}}, 2),
    ("Friendship Bracelet", "coins never count", {"hands": {0: ["Bud", "Bud", "Bud"]}}, 1),
    ("Friendship Bracelet", "Puddin counts as a crown only", {"hands": {0: ["Puddin"]}}, 2),
    (
        "Friendship Bracelet",
        "all six: 6 + 1",
        {"hands": {0: ["Bug", "Kitty", "Chef"]}, "yard": {0: ["Tiny"]}, "discard": {0: ["Crash"]}},
        7,
    ),
    ("Friendship Bracelet", "no cards at all", {"trash": ["Blades", "Zip"]}, 0),
    # Piggy Bank / Pizza Party: tokens on the board (Stuff + Pack)
    (
        "Piggy Bank",
        "toys in Stuff and Pack",
        {"stuff": {0: (4, 3)}, "pack": {0: (1, 1)}, "level": {0: 1}},
        4,
    ),
    (
        "Pizza Party",
        "pizza in Stuff and Pack",
        {"stuff": {0: (2, 3)}, "pack": {0: (1, 1)}, "level": {0: 1}},
        3,
    ),
    ("Piggy Bank", "nothing", {"stuff": {0: (4, 0)}}, 0),
    # Loner: 5 with no Best Friends
    ("Loner", "Best Friends in the deck", {}, 0),
    (
        "Loner",
        "a Best Friend in the Lookout still counts",
        {"lookout": {0: ["Zip"]}, "trash": ["Blades"]},
        0,
    ),
    ("Loner", "both trashed", {"trash": ["Blades", "Zip"]}, 5),
    # Minimalism: Fort Level exactly 2
    ("Minimalism", "level 2", {"level": {0: 2}}, 8),
    ("Minimalism", "level 1", {"level": {0: 1}}, 0),
    ("Minimalism", "level 3", {"level": {0: 3}}, 0),
    # Popularity: cards in the Lookout
    ("Popularity", "three", {"lookout": {0: ["Bug", "Kitty", "Doc"]}, "level": {0: 2}}, 3),
    ("Popularity", "none", {}, 0),
    # Play Palace / Slime Lab: crown / book suits, double suits twice, coins never
    (
        "Play Palace",
        "crowns in any owned zone, Puddin's crown too",
        {
            "hands": {0: ["Tiny"]},
            "deck": {0: ["Ghost"]},
            "lookout": {0: ["Puddin"]},
            "yard": {0: ["Bud"]},
        },
        3,
    ),
    ("Play Palace", "rivals' crowns do not count", {"hands": {1: ["Tiny"]}}, 0),
    ("Slime Lab", "Noodle Twins counts twice", {"hands": {0: ["Noodle Twins", "Chef"]}}, 3),
    ("Slime Lab", "coin cards are not books", {"hands": {0: ["Bud", "Puddin"]}}, 0),
    # Secret Stash: resources in the Pack
    (
        "Secret Stash",
        "pack of three",
        {"pack": {0: (1, 2)}, "stuff": {0: (4, 4)}, "level": {0: 2}},
        3,
    ),
    # Sleepover: strictly more cards than each rival 8, tied for most 4
    ("Sleepover", "more than the rival", {"hands": {0: ["Bug"]}}, 8),
    ("Sleepover", "tied", {"hands": {0: ["Bug"], 1: ["Kitty"]}}, 4),
    ("Sleepover", "fewer", {"hands": {1: ["Kitty"]}}, 0),
    (
        "Sleepover",
        "Lookout and Yard count, trash does not",
        {"lookout": {0: ["Bug"]}, "yard": {1: ["Kitty"]}, "trash": ["Zip", "Ace"]},
        4,
    ),
]


@pytest.mark.parametrize(
    "rule, kw, points", [(c[0], c[2], c[3]) for c in CASES], ids=[f"{c[0]}: {c[1]}" for c in CASES]
)
def test_made_up_rule_points(rule, kw, points):
    assert rule_points(rule, **kw) == points


def test_sleepover_with_three_players_needs_more_than_each_rival():
    # seat 0: 2 BF + 2; seat 1: 2 BF + 2; seat 2: 2 BF + 1 -> tied for most with seat 1
    kw = {"hands": {0: ["Bug", "Kitty"], 1: ["Doc", "Chef"], 2: ["Ant"]}}
    assert rule_points("Sleepover", num_players=3, **kw) == 4
    kw = {"hands": {0: ["Bug", "Kitty", "Rusty"], 1: ["Doc", "Chef"], 2: ["Ant"]}}
    assert rule_points("Sleepover", num_players=3, **kw) == 8


def test_no_made_up_rule_scores_nothing():
    s = build(2, hands={0: ["Bug"]}, lookout={0: ["Kitty"]})
    assert s.score_breakdown()[0]["made_up_rule"] == 0


def test_only_the_holder_scores_the_rule():
    s = build(2, rules={1: "Popularity"}, lookout={0: ["Bug"], 1: ["Kitty"]})
    rows = s.score_breakdown()
    assert rows[0]["made_up_rule"] == 0 and rows[1]["made_up_rule"] == 1


def test_made_up_rule_decides_the_game_at_the_end():
    # Seat 0 leads the track by 3 points, seat 1 holds Minimalism at Level 2 (8 points) and
    # takes the last turn of the round.
    s = build(
        2,
        leader=1,
        first_player=0,
        hands={0: ["Bug"], 1: ["Kitty"]},
        score={0: 13, 1: 10},
        level={0: 2, 1: 2},
        rules={1: "Minimalism", 0: "Loner"},  # seat 0 keeps its Best Friends: 0 points
        end_triggered=True,
    )
    act(s, "play Kitty", "use public (fully)", "stop adding")
    pass_all(s)
    act(s, "recruit the top of the Park deck")
    assert s.is_terminal()
    rows = [{k: r[k] for k in POINTS} for r in s.score_breakdown()]
    assert rows[0] == {"track": 13, "fort_level": 1, "made_up_rule": 0, "macaroni": 0, "total": 14}
    assert rows[1] == {"track": 10, "fort_level": 1, "made_up_rule": 8, "macaroni": 0, "total": 19}
    assert s.winners() == [1]
    assert list(s.returns()) == [-1.0, 1.0]
