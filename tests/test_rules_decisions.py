"""Pins the decisions of docs/rules.md that are the engine's own (R1-R13)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fort_env import DecisionKind as K
from fort_env import FortGame
from fort_env.cards import DATA_DIR

from . import scenario
from .scenario import act, build, can, ids, legal, pass_all, player


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
    monkeypatch.setitem(scenario._GAMES, (2, "basic"), FortGame(2, cards=str(data)))
    s = build(2, hands={0: ["Bones"], 1: ["Doc"]})
    act(s, "play Bones", "use public (fully)", "follow with Doc")
    assert player(s, 1)["score"] == 1
    trashed = {s.game.cards[i].name for i in ids(s, "trash")}
    assert trashed == {"Bones", "Doc"}
    pass_all(s)
    assert not can(s, "follow")
