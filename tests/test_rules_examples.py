"""The rulebook's worked examples, rebuilt by hand (rulebook pp.6-7 and p.11).

Each position is built through the state dict (``tests/scenario.py``, ``docs/state.md``).
"""

from __future__ import annotations

import pytest

from .scenario import act, build, can, find, legal, names, pass_all, player

# ---------------------------------------------------------------- Eleanor and Bug (p.6)
# Bug: public "gather pizza x shovel", private "score x Fort Level". The Moles show two
# shovels. Her Lookout holds two shovel cards: the rulebook says she adds "one s from her
# Lookout", and that she could instead have "added the second s from her Lookout to get three
# pizza", so with Bug, The Moles and one Lookout shovel her Stuff (4 pizza at most) is full.


def eleanor():
    return build(
        2,
        leader=0,
        hands={0: ["Bug", "The Moles", "Kitty"], 1: ["Doodles", "Baby Face"]},
        deck={0: ["Ant", "Skids", "Dash"]},  # + 2 Best Friends: the Draw needs no reshuffle
        lookout={0: ["Scout", "Wart"]},
        level={0: 1},
    )


def test_eleanor_bug_moles_and_one_lookout_shovel_gather_four_pizza_then_score_one():
    s = eleanor()
    act(s, "play Bug", "use public (fully), then private")
    assert s.decision.kind.name == "ADD"
    assert legal(s) == [
        "add Scout [shovel]", "add The Moles [shovel/shovel]", "add Wart [shovel]", "stop adding",
    ]  # fmt: skip
    act(s, "add The Moles", "add Scout")
    # Bug 1 + The Moles 2 + Scout 1 = 4 = a full Stuff: the second Lookout shovel would
    # change nothing, so it cannot be added (p.7).
    assert legal(s) == ["stop adding"]
    act(s, "stop adding")
    row = player(s, 0)
    assert row["stuff_pizza"] == 4
    assert row["score"] == 1  # private: score x Fort Level 1
    assert names(s, "in_play", 0) == ["Bug", "The Moles"]  # Scout stays in the Lookout
    # Lookout cards stay in the Lookout; the played and added cards go to the discard pile.
    pass_all(s)
    act(s, "recruit Bones")
    assert names(s, "lookout", 0) == ["Scout", "Wart"]
    assert names(s, "discard", 0) == ["Bones", "Bug", "The Moles"]
    assert names(s, "yard", 0) == ["Kitty"]


def test_eleanor_two_lookout_shovels_only_gather_three_and_moles_go_to_the_yard():
    s = eleanor()
    act(s, "play Bug", "use public (fully), then private", "add Scout", "add Wart")
    # Bug 1 + 2 Lookout shovels = 3; The Moles would make 5, more than the Stuff holds, and
    # the public action is the one used fully (p.7: "this includes any suits you add").
    assert not can(s, "add The Moles")
    act(s, "stop adding")
    assert player(s, 0)["stuff_pizza"] == 3
    assert player(s, 0)["score"] == 1
    pass_all(s)
    act(s, "recruit Bones")
    # "if she hadn't played The Moles, then they would have been kicked out to her Yard"
    assert "The Moles" in names(s, "yard", 0)


def test_eleanor_lookout_shovel_alone_with_bug_gives_two():
    s = eleanor()
    act(s, "play Bug", "use public (fully)", "add Scout", "stop adding")
    assert player(s, 0)["stuff_pizza"] == 2
    assert player(s, 0)["score"] == 0  # private not used


def test_eleanor_fort_level_zero_scores_nothing_with_bug_private():
    s = build(2, leader=0, hands={0: ["Bug"], 1: ["Kitty"]}, level={0: 0})
    act(s, "play Bug")
    # "score x Fort Level" at Level 0 scores nothing: it cannot be the action used fully.
    assert "use private (fully)" not in legal(s)
    assert "use public, then private (fully)" not in legal(s)


# ---------------------------------------------------------------- Bud used partially (p.7)
# Bud: public "gather 2 pizza or 2 toys", private "trash one of your cards". Her Stuff can
# only hold one more pizza (3 pizza; toys full so "two toys" is no way out either).


def bud(pizza: int = 3):
    return build(
        2,
        leader=0,
        hands={0: ["Bud", "Kitty", "Bug"], 1: ["Doodles"]},
        stuff={0: (pizza, 4)},
    )


def test_bud_public_alone_is_not_allowed_when_it_cannot_be_used_fully():
    s = bud()
    act(s, "play Bud", "suit glue")
    modes = legal(s)
    assert "use public (fully)" not in modes
    assert "use public (fully), then private" not in modes
    assert "use private (fully), then public" in modes
    assert "use public, then private (fully)" in modes
    assert "use private (fully)" in modes


@pytest.mark.parametrize(
    "mode, steps",
    [
        ("use private (fully), then public", ["trash Kitty", "choose pizza"]),
        ("use public, then private (fully)", ["choose pizza", "trash Kitty"]),
    ],
)
def test_bud_private_fully_and_public_partially_gives_one_pizza_either_order(mode, steps):
    s = bud()
    act(s, "play Bud", "suit glue", mode)
    # Only pizza can be chosen: toys are full, and the public action is used partially.
    if s.decision.kind.name == "RESOURCE":
        assert legal(s) == ["choose pizza"]
    act(s, *steps)
    row = player(s, 0)
    assert (row["stuff_pizza"], row["stuff_toys"]) == (4, 4)  # one pizza, not two
    assert names(s, "trash") == ["Kitty"]


def test_bud_with_room_for_two_uses_public_fully():
    s = bud(pizza=2)
    act(s, "play Bud", "suit glue")
    assert "use public (fully)" in legal(s)
    act(s, "use public (fully)", "choose pizza")
    assert player(s, 0)["stuff_pizza"] == 4


# ---------------------------------------------------------------- Muhammad and Doodles (p.7)
# Doodles: public "gather toys x glue", private "score". Room for 2 more toys. He holds a
# glue card (Kitty) and a coin+crown card (Puddin, its coin used as glue).


def doodles():
    return build(
        2,
        leader=0,
        hands={0: ["Doodles", "Kitty", "Puddin", "Bug"], 1: ["Bug"]},
        stuff={0: (0, 2)},
    )


@pytest.mark.parametrize(
    "mode", ["use private (fully), then public", "use public, then private (fully)"]
)
def test_doodles_can_add_kitty_but_then_not_puddin(mode):
    s = doodles()
    act(s, "play Doodles", mode)
    assert legal(s) == ["add Kitty [glue]", "add Puddin [coin/crown]", "stop adding"]
    act(s, "add Kitty")
    assert legal(s) == ["stop adding"]  # Puddin would add a third toy: no room
    act(s, "stop adding")
    row = player(s, 0)
    assert row["stuff_toys"] == 4 and row["score"] == 1


@pytest.mark.parametrize(
    "mode", ["use private (fully), then public", "use public, then private (fully)"]
)
def test_doodles_can_add_puddin_as_glue_but_then_not_kitty(mode):
    s = doodles()
    act(s, "play Doodles", mode, "add Puddin")
    assert s.decision.kind.name == "ADD_COIN"
    assert legal(s) == ["suit glue"]  # the only suit that changes the outcome
    act(s, "suit glue")
    assert legal(s) == ["stop adding"]
    act(s, "stop adding")
    row = player(s, 0)
    assert row["stuff_toys"] == 4 and row["score"] == 1
    pass_all(s)
    # the added card is discarded with the played card, not left in hand for the Yard
    assert "Puddin" not in names(s, "hand", 0)


def test_doodles_used_fully_cannot_take_both_either():
    s = doodles()
    act(s, "play Doodles", "use public (fully), then private", "add Kitty")
    assert legal(s) == ["stop adding"]


# ---------------------------------------------------------------- Shawna's 48 points (p.11)


def end_of_game(muhammad_track: int, muhammad_level: int):
    """Shawna (seat 0, first player) reached Level 5 and took the sculpture; Muhammad (seat 1)
    takes the last turn of the round."""
    return build(
        2,
        leader=1,
        first_player=0,
        hands={0: ["Bug"], 1: ["Kitty"]},
        lookout={0: ["Scout", "Wart", "Doc", "Captain"]},
        level={0: 5, 1: muhammad_level},
        score={0: 17, 1: muhammad_track},
        rules={0: "Popularity"},
        sculpture=0,
        end_triggered=True,
    )


def finish_turn(s):
    act(s, "skip the Play phase", "recruit the top of the Park deck")


def test_shawna_scores_48():
    s = end_of_game(39, 4)
    row = s.score_breakdown()[0]
    points = {k: row[k] for k in ("track", "fort_level", "made_up_rule", "macaroni", "total")}
    assert points == {"track": 17, "fort_level": 23, "made_up_rule": 4, "macaroni": 4, "total": 48}


def test_shawna_wins_the_tie_at_48_with_the_higher_fort_level():
    s = end_of_game(39, 4)  # 39 + 9 (Level 4) = 48
    finish_turn(s)
    assert s.is_terminal()
    assert [r["total"] for r in s.score_breakdown()] == [48, 48]
    assert s.winners() == [0]
    assert list(s.returns()) == [1.0, -1.0]
    assert player(s, 0)["turns"] == player(s, 1)["turns"]


def test_equal_score_and_fort_level_share_the_victory():
    s = end_of_game(25, 5)  # 25 + 23 (Level 5, no sculpture) = 48
    finish_turn(s)
    assert s.is_terminal()
    assert [r["total"] for r in s.score_breakdown()] == [48, 48]
    assert s.winners() == [0, 1]
    assert list(s.returns()) == [1.0, 1.0]


def test_the_game_does_not_end_before_the_round_is_finished():
    s = end_of_game(39, 4)
    assert not s.is_terminal()
    assert list(s.returns()) == [0.0, 0.0]
    assert s.current_player() == 1 and s.decision.kind.name == "PLAY"
    s.apply_action(find(s, "skip the Play phase"))
    assert not s.is_terminal()  # the Recruit phase of the last turn is still to come
    assert s.decision.kind.name == "RECRUIT"


# ---------------------------------------------------------------- docs/state.md


def test_docs_state_md_example_runs():
    """The Eleanor-and-Bug dict edit in docs/state.md builds the position it describes."""
    import re
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "state.md").read_text()
    section = text.split("### Worked example", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    scope: dict = {}
    exec(compile(code, "docs/state.md", "exec"), scope)
    state = scope["state"]
    assert state.to_dict()["players"][0]["stuff_pizza"] == 4
    assert state.current_player() == 1 and state.decision.kind.name == "FOLLOW"
    assert legal(state) == ["pass"]
