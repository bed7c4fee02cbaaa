"""Pins the decisions of docs/rules.md that are the engine's own (R1-R13)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fort_env import DecisionKind as K
from fort_env import FortGame
from fort_env.core import default_backend
from fort_env.game.cards import DATA_DIR
from tests import scenario
from tests.scenario import act, build, can, ids, legal, pass_all, player


def kinds_after(state, *texts):  # type: ignore[no-untyped-def]
    out = []
    for text in texts:
        act(state, text)
        out.append(state.decision.kind)
    return out


def test_play_sequence_of_decisions() -> None:
    """R1: play -> mode -> add -> actions -> followers; a coin card declares first."""
    s = build(2, hands={0: ["Bug", "The Moles"]}, lookout={0: ["Rusty"]}, level={0: 1})
    assert s.decision.kind == K.PLAY
    seq = kinds_after(s, "play Bug", "use public (fully), then private", "add The Moles")
    assert seq == [K.MODE, K.ADD, K.ADD]
    act(s, "stop adding")
    assert s.decision.kind == K.FOLLOW and s.current_player() == 1
    assert player(s, 0)["stuff_pizza"] == 3  # Bug + The Moles (no Lookout shovel added)
    assert player(s, 0)["score"] == 1  # private: x Fort Level 1
    c = build(2, hands={0: ["Bud", "Doc"]})
    assert kinds_after(c, "play Bud") == [K.DECLARE_COIN]
    suits = ("book", "crown", "glue", "shovel", "skateboard", "squirtgun", "coin")
    assert legal(c) == sorted(f"suit {n}" for n in suits)


def test_partial_action_goes_as_far_as_it_can() -> None:
    """R3, p.6 (Bud): room for one pizza, none for toys: public only partially, after or
    before trashing fully."""
    s = build(2, hands={0: ["Bud", "Doc"]}, stuff={0: (3, 4)})
    act(s, "play Bud", "suit book")
    modes = legal(s)
    assert "use public (fully)" not in modes
    assert "use private (fully), then public" in modes
    assert "use public, then private (fully)" in modes
    assert "use private, then public (fully)" not in modes
    act(s, "use private (fully), then public", "trash Doc")
    assert s.decision.kind == K.RESOURCE and legal(s) == ["choose pizza"]
    act(s, "choose pizza")
    assert player(s, 0)["stuff_pizza"] == 4 and player(s, 0)["stuff_toys"] == 4
    assert ids(s, "trash") == [scenario.card_id(s, "Doc")]


# ---------------------------------------------------------------- R3: stopping part-way
STOP, GO_ON = "stop this action here", "go on with this action"


def test_the_other_action_may_stop_after_any_step() -> None:
    """R3, p.6 ("you can use the other action partially or fully"): Chef's private
    "convert x 2", used partially after the public gather, with 3 pizza: after the first
    conversion the player may stop (1 toy) or go on (2 toys)."""
    for choice, toys in ((STOP, 1), (GO_ON, 2)):
        s = build(2, hands={0: ["Chef"], 1: ["Bug"]}, stuff={0: (2, 0)})
        act(s, "play Chef", "use public (fully), then private", "stop adding")
        act(s, "convert pizza->toys in Stuff")
        assert s.decision.kind == K.STOP_OR_CONTINUE and s.current_player() == 0
        assert legal(s) == [GO_ON, STOP]
        act(s, choice)
        if choice == GO_ON:
            act(s, "convert pizza->toys in Stuff")
        assert s.decision.kind == K.FOLLOW  # the play is over: rivals may follow
        assert player(s, 0)["stuff_toys"] == toys and player(s, 0)["stuff_pizza"] == 3 - toys


def test_no_stop_before_the_first_step_or_in_the_action_used_fully() -> None:
    """R3: stopping before the other action's first step is the mode without it, so it is
    not asked; the action used fully never stops. Chef's private used first, partially: the
    stop comes after the first conversion, and the public action (fully) still follows."""
    s = build(2, hands={0: ["Chef"], 1: ["Bug"]}, stuff={0: (3, 0)})
    act(s, "play Chef", "use private, then public (fully)", "stop adding")
    assert s.decision.kind == K.CONVERT
    act(s, "convert pizza->toys in Stuff", STOP)
    assert s.decision.kind == K.FOLLOW
    assert player(s, 0)["stuff_pizza"] == 3 and player(s, 0)["stuff_toys"] == 1  # +1 gathered
    t = build(2, hands={0: ["Chef"], 1: ["Bug"]}, stuff={0: (3, 0)})
    act(t, "play Chef", "use private (fully)", "convert pizza->toys in Stuff")
    assert t.decision.kind == K.CONVERT  # used fully: both conversions, no stop


def test_the_right_side_of_a_then_is_not_skipped_by_stopping() -> None:
    """R3 with R6 (p.14): Munch's private "spend(pizza) -> score x 3" used partially: once the
    pizza is spent every point must be scored, so no stop is offered inside the chain."""
    s = build(2, hands={0: ["Munch"], 1: ["Bug"]}, stuff={0: (1, 0)})
    act(s, "play Munch", "use public (fully), then private", "spend pizza from Stuff")
    assert s.decision.kind == K.FOLLOW
    assert player(s, 0)["score"] == 3


def test_a_repeated_then_chain_may_stop_between_repetitions() -> None:
    """R3: Icky & Sticky's public "(gather(toys) -> pack) x glue" (two glues) used partially:
    no stop between a gather and its pack, one between the two repetitions."""
    s = build(2, hands={0: ["Icky & Sticky"], 1: ["Bug"]}, pack={0: (1, 0)}, level={0: 1})
    act(s, "play Icky & Sticky", "use private (fully), then public", "stop adding")
    kinds = []
    while s.decision.kind != K.FOLLOW:
        kinds.append(s.decision.kind)
        act(s, STOP if s.decision.kind == K.STOP_OR_CONTINUE else legal(s)[0])
    assert kinds == [K.PACK, K.STOP_OR_CONTINUE]  # gather, pack (no stop between), stop
    assert player(s, 0)["pack_toys"] == 1 and player(s, 0)["stuff_toys"] == 0


def test_a_card_added_for_the_other_action_commits_it() -> None:
    """R3 with R7 (p.7: an added card "must change the effect of at least one action that
    you use"): a card added only for the action used partially may not be made pointless by
    stopping, so no stop is offered; a card that counts for the action used fully leaves the
    stop open (Chef: a book counts for the public gather)."""
    s = build(2, hands={0: ["Chef", "Doc"], 1: ["Bug"]}, stuff={0: (1, 0)})
    act(s, "play Chef", "use public (fully), then private", "add Doc", "stop adding")
    act(s, "convert pizza->toys in Stuff")
    assert s.decision.kind == K.STOP_OR_CONTINUE  # Doc's book counts for the full action
    t = build(2, hands={0: ["Icky & Sticky", "Kitty"], 1: ["Bug"]}, pack={0: (1, 0)},
              level={0: 2})  # fmt: skip
    act(t, "play Icky & Sticky", "use private (fully), then public", "add Kitty", "stop adding")
    while t.decision.kind != K.FOLLOW:
        assert t.decision.kind != K.STOP_OR_CONTINUE  # Kitty's glue is for the public only
        act(t, legal(t)[0])
    assert player(t, 0)["pack_toys"] == 2  # three gathers, the Pack (capacity 3) then full


def test_zero_repetitions_is_not_a_full_use() -> None:
    """R4: "score x fort_level" at level 0 and copying an empty Pack are not full uses."""
    s = build(2, hands={0: ["Bug", "The Moles"]})
    act(s, "play Bug")
    assert all("private (fully)" not in m for m in legal(s))
    assert "use public (fully)" in legal(s)
    t = build(2, hands={0: ["The Moles"]})
    act(t, "play The Moles")
    assert all("private (fully)" not in m for m in legal(t))
    u = build(2, hands={0: ["The Moles"]}, pack={0: (1, 0)})
    act(u, "play The Moles")
    assert "use private (fully)" in legal(u)


def test_multiplier_counted_when_action_starts() -> None:
    """R5: Icky & Sticky packs two toys, then its private action counts the Pack then."""
    s = build(2, hands={0: ["Icky & Sticky"]}, level={0: 1})
    act(s, "play Icky & Sticky", "use public (fully), then private", "stop adding")
    while s.decision.kind == K.PACK:
        act(s, "pack toys from Stuff")
    assert player(s, 0)["pack_toys"] == 2
    act(s, "go on with this action")  # R3: the private action may stop after its first point
    assert player(s, 0)["score"] == 2
    t = build(2, hands={0: ["Icky & Sticky"]}, level={0: 1})
    act(t, "play Icky & Sticky")
    assert "use private (fully), then public" not in legal(t)  # Pack empty when it starts


def test_coin_declared_after_play_sets_the_follow_suit() -> None:
    """R9: the leader declares the played coin's suit; followers must match it (a coin card
    also matches)."""
    s = build(2, hands={0: ["Bud"], 1: ["Kitty", "Bug", "Ace"]})
    act(s, "play Bud", "suit glue", "use public (fully)", "choose toys")
    assert player(s, 0)["stuff_toys"] == 2
    assert s.decision.kind == K.FOLLOW and s.current_player() == 1
    options = legal(s)
    assert "follow with Kitty [glue]" in options and "follow with Ace [coin]" in options
    assert not any("Bug" in o for o in options)


def test_every_rival_is_asked_to_follow() -> None:
    """R10: rivals who cannot follow still get a FOLLOW decision with only PASS."""
    s = build(3, hands={0: ["Bug"], 1: ["Kitty"], 2: ["Doc"]})
    act(s, "play Bug", "use public (fully)", "stop adding")
    for seat in (1, 2):
        assert s.decision.kind == K.FOLLOW and s.current_player() == seat
        assert legal(s) == ["pass"]
        act(s, "pass")
    assert s.decision.kind == K.RECRUIT and s.current_player() == 0


def test_follower_counts() -> None:
    """R11: double suits count twice, a coin counts once, the Lookout never counts."""
    s = build(3, hands={0: ["Bug"], 1: ["The Moles"], 2: ["Bud"]}, lookout={1: ["Rusty"]})
    act(s, "play Bug", "use public (fully)", "stop adding")
    act(s, "follow with The Moles")
    assert player(s, 1)["stuff_pizza"] == 2
    act(s, "follow with Bud")
    assert player(s, 2)["stuff_pizza"] == 1
    assert player(s, 0)["stuff_pizza"] == 1
    assert ids(s, "hand", 1) == [] and len(ids(s, "deck", 1)) == 2  # followers never draw


def test_follower_must_use_the_action_fully() -> None:
    s = build(2, hands={0: ["Bug"], 1: ["The Moles"]}, stuff={1: (3, 0)})
    act(s, "play Bug", "use public (fully)", "stop adding")
    assert legal(s) == ["pass"]  # two pizza do not fit in a Stuff holding 3


def test_follower_takes_leaders_resource() -> None:
    """R12: the leader chose toys, so the follower gathers toys; without a choice, they pick."""
    s = build(2, hands={0: ["Bud"], 1: ["Ace"]})
    act(s, "play Bud", "suit glue", "use public (fully)", "choose toys", "follow with Ace")
    assert player(s, 1)["stuff_toys"] == 2 and player(s, 1)["stuff_pizza"] == 0
    t = build(2, hands={0: ["Bud", "Doc"], 1: ["Ace"]})
    act(t, "play Bud", "suit glue", "use private (fully)", "trash Doc", "follow with Ace")
    assert t.decision.kind == K.RESOURCE and t.current_player() == 1
    assert legal(t) == ["choose pizza", "choose toys"]


def test_trash_this_for_a_follower(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """R13: a follower's "trash this card" trashes the card they followed with."""
    data = tmp_path / "cards"
    shutil.copytree(DATA_DIR, data)
    text = (data / "cards.toml").read_text()
    text = scenario.replaced(
        text, 'public = "gather(pizza) -> pack"', 'public = "score -> trash_this"'
    )
    (data / "cards.toml").write_text(text)
    monkeypatch.setitem(
        scenario._GAMES, (2, "basic", default_backend()), FortGame(2, cards=str(data))
    )
    s = build(2, hands={0: ["Bones"], 1: ["Doc"]})
    act(s, "play Bones", "use public (fully)", "follow with Doc")
    assert player(s, 1)["score"] == 1
    trashed = {s.game.cards[i].name for i in ids(s, "trash")}
    assert trashed == {"Bones", "Doc"}
    pass_all(s)
    assert not can(s, "follow")
