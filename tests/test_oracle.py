"""The independent mask oracle (``tests/oracle``) against the engine's legal actions.

The oracle enumerates every complete play of the leader from the rulebook; at every decision of
the play, along every path (hand-built positions) or random paths (positions from random games),
the engine must allow exactly the actions after which some complete play exists. No
disagreement is tolerated; the one reading the two do not share (R7 judged over the whole
play rather than when a card is added) is pinned below as a strict xfail.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from fort_env import FortGame
from fort_env.core import default_backend
from tests import scenario
from tests.oracle.compare import describe, disagreements
from tests.oracle.play import PlayOracle, TooBig
from tests.scenario import RECYCLE_CARDS, build, custom_cards

ORACLE_DIR = Path(__file__).parent / "oracle"
FORBIDDEN = ("fort_env.game.rules", "tests.reference", "fort_env.core", "fort_env.core")


def forbidden_imports(path: Path) -> list[str]:
    """The modules ``path`` imports that the oracle must not use (engine rules)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        out += [n for n in names if n.startswith(FORBIDDEN)]
    return out


def test_the_oracle_imports_no_engine_rules() -> None:
    """Independence: only card data, constants and the action layout are imported."""
    files = list(ORACLE_DIR.glob("*.py"))
    assert len(files) >= 3
    for path in files:
        assert not forbidden_imports(path), path.name


def test_the_import_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy\nfrom fort_env.game.rules import legality\nimport fort_env.core\n")
    assert forbidden_imports(bad) == [
        "fort_env.game.rules", "fort_env.game.rules.legality", "fort_env.core"
    ]  # fmt: skip


# One position per card effect shape (hand-built, leader 0 of 2 at a PLAY decision).
SHAPES = {
    "Bud: full trash, partial gather (p.6)": dict(
        hands={0: ["Bud", "Kitty"]}, stuff={0: (3, 0)}, level={0: 1}
    ),
    "Muhammad: Doodles and added glue (p.7)": dict(
        hands={0: ["Doodles", "Kitty", "Bud"]}, stuff={0: (0, 2)}
    ),
    "Eleanor: Bug, The Moles, Lookout shovel (p.6)": dict(
        hands={0: ["Bug", "The Moles"]}, lookout={0: ["Rusty"]}, level={0: 1}
    ),
    "Blitz: (recruit -> gather) x squirtgun, full Stuff": dict(
        hands={0: ["Blitz", "Crash"]}, stuff={0: (0, 4)}
    ),
    "Icky & Sticky: (gather -> pack) x glue": dict(
        hands={0: ["Icky & Sticky", "Kitty"]}, pack={0: (1, 0)}
    ),
    "Bones: gather -> pack; copy_pack": dict(
        hands={0: ["Bones", "Kitty"]}, stuff={0: (0, 4)}, pack={0: (0, 1)}, level={0: 1}
    ),
    "Moose: (spend(any) -> score) x shovel": dict(
        hands={0: ["Moose", "Rusty"]}, stuff={0: (1, 1)}, pack={0: (1, 0)}
    ),
    "Lefty and Captain: advance -> score": dict(
        hands={0: ["Lefty", "Captain"]}, stuff={0: (2, 3)}, pack={0: (1, 0)}, level={0: 1}
    ),
    "Dot and Rocket Bros: advance(-1)": dict(hands={0: ["Dot", "Rocket Bros"]}, stuff={0: (1, 0)}),
    "Thunder: advance(+1), rule pick": dict(hands={0: ["Thunder"]}, stuff={0: (1, 2)}),
    "Tink: advance to Level 2, perk pick; convert x glue": dict(
        hands={0: ["Tink", "Penny"]}, stuff={0: (3, 3)}, level={0: 1}, rules={0: "Loner"}
    ),
    "Einstein: pack x book; score x pack_size": dict(
        hands={0: ["Einstein", "Chef"]}, stuff={0: (1, 1)}, level={0: 1}
    ),
    "Golden Boy and Lil Boss: copy a rival's Pack": dict(
        hands={0: ["Golden Boy", "Lil Boss"]}, stuff={0: (3, 3)}, pack={1: (1, 1)}, level={1: 1}
    ),
    "The Scrappers: trash_rival -> gather(any)": dict(
        hands={0: ["The Scrappers", "Sparky"]}, yard={1: ["Bug", "Kitty"]}, stuff={0: (4, 3)}
    ),
    "Prince and Dash: recruit": dict(
        hands={0: ["Prince", "Dash"]}, yard={1: ["Bug"]}, park=["Ant", "Skids"], park_deck=["Ghost"]
    ),
    "Doc and Scout: lookout; x lookout_size": dict(
        hands={0: ["Doc", "Scout", "Kitty"]}, lookout={0: ["Tiny"]}, level={0: 1}
    ),
    "Noodle Twins and Spike: x suit -> trash_this": dict(
        hands={0: ["Noodle Twins", "Spike", "Patch"]}
    ),
    "Sarge: gather(any) x fort_level; advance": dict(
        hands={0: ["Sarge"]}, stuff={0: (3, 2)}, level={0: 2}, perks={0: ["DIY"]}
    ),
    "Chef: convert x 2": dict(hands={0: ["Chef", "Bones"]}, stuff={0: (3, 1)}, pack={0: (1, 0)}),
    "Giggles: x any_suit": dict(hands={0: ["Giggles", "Kitty"]}, stuff={0: (0, 2)}),
    "Puddin: a coin played card, x any_suit, x coin": dict(
        hands={0: ["Puddin", "Bud"]}, stuff={0: (2, 3)}
    ),
    "Bitsy and Munch: spend -> gather; spend -> score": dict(
        hands={0: ["Bitsy", "Munch"]}, stuff={0: (1, 1)}
    ),
    "Sticky Fingers and XXL Backpack: pack": dict(
        hands={0: ["Patch", "Ant"]}, perks={0: ["Sticky Fingers", "XXL Backpack"]}, level={0: 1}
    ),
    "Bribe: lookout from the Park, a Yard, the Park deck": dict(
        hands={0: ["Tiny"]},
        perks={0: ["Bribe"]},
        yard={1: ["Bug"]},
        park=["Ant"],
        park_deck=["Skids"],
    ),
    "Recycling: Doc's tuck, Kitty's trash, at any decision of the actions (R15)": dict(
        hands={0: ["Doc", "Kitty"]}, discard={0: ["Bug", "Rusty"]}, perks={0: ["Recycling"]}
    ),
    "Recycling: Blitz's recruits, the recruited card recycled": dict(
        hands={0: ["Blitz", "Crash"]},
        discard={0: ["Bug"]},
        stuff={0: (0, 3)},
        perks={0: ["Recycling"]},
        park=["Ant", "Skids"],
        park_deck=["Ghost"],
    ),
    "Recycling picked at Level 2 by Tink's advance, then used": dict(
        hands={0: ["Tink", "Penny"]},
        stuff={0: (3, 3)},
        level={0: 1},
        rules={0: "Loner"},
        discard={0: ["Bug"]},
        perk_row=["Recycling", "Bribe"],
    ),
    "Recycling and Bribe: Giggles' tuck with an empty hand": dict(
        hands={0: ["Giggles"]},
        discard={0: ["Bug"]},
        perks={0: ["Recycling", "Bribe"]},
        park=["Ant"],
        park_deck=["Skids"],
    ),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_decision_of_every_play_agrees(name: str) -> None:
    s = build(2, leader=0, **SHAPES[name])
    oracle = PlayOracle(s, r7="at add")
    assert len(oracle.plays) > 1
    found = disagreements(s, oracle)
    assert not found, describe(s, found)


def test_a_disagreement_is_reported() -> None:
    """The comparison can fail: an oracle that forgets a rule disagrees with the engine."""
    s = build(2, leader=0, **SHAPES["Muhammad: Doodles and added glue (p.7)"])
    oracle = PlayOracle(s, r7="at add")
    oracle.plays = {p for p in oracle.plays if oracle.L.SKIP_PLAY not in p}
    assert disagreements(s, oracle)


def test_recycling_between_a_plays_actions_agrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R15 on the custom cards of ``scenario.RECYCLE_CARDS`` (no shipped card recruits in one
    action and tucks in the other): every decision of every play, with the discard pile empty
    (only a recruited card can be recycled) and holding a card."""
    game = FortGame(2, cards=str(custom_cards(tmp_path, RECYCLE_CARDS)))
    monkeypatch.setitem(scenario._GAMES, (2, "basic", default_backend()), game)
    for hand, discard in (("Bones", []), ("Captain", []), ("Captain", ["Wart"])):
        s = build(2, leader=0, hands={0: [hand, "Kitty"]}, discard={0: discard}, level={0: 1},
                  perks={0: ["Recycling"]}, park=["Rusty", "Chef"])  # fmt: skip
        oracle = PlayOracle(s, r7="at add")
        found = disagreements(s, oracle)
        assert not found, describe(s, found)
        # the example of R15: recruited, recycled, then tucked by the other action
        assert any(_recruit_recycle_tuck(oracle, p) for p in oracle.plays), hand


def _recruit_recycle_tuck(oracle: PlayOracle, play: tuple[int, ...]) -> bool:
    L = oracle.L
    names = [L.decode(a)[0] for a in play]
    return any(
        names[i : i + 3] == ["RECRUIT_CARD", "RECYCLE", "LOOKOUT_CARD"]
        and play[i] - L.RECRUIT_CARD == play[i + 1] - L.RECYCLE == play[i + 2] - L.LOOKOUT_CARD
        for i in range(len(play) - 2)
    )


# ------------------------------------------------------------------ R7 (p.7), decided
# Positions where the engine disagreed with the oracle before R7 was decided (docs/rules.md R7);
# the scenario tests of tests/test_rules_verbs.py pin the same rulings action by action.
def test_partial_extra_repetition_is_judged_after_the_earlier_ones() -> None:
    """Ghost's gather(any) x crown used partially after the private trash_rival, Stuff 4 pizza
    3 toys: it gathers 1 toy, and a second crown (Blades) changes nothing (p.7)."""
    s = build(2, leader=0, hands={0: ["Ghost", "Blades", "Kitty"]}, stuff={0: (4, 3)},
              yard={1: ["Bug"]})  # fmt: skip
    found = disagreements(s, PlayOracle(s, r7="at add"))
    assert not found, describe(s, found)


def test_partial_convert_extra_repetition() -> None:
    """Wart's convert x shovel used partially converts once (one direction, README fact 2),
    and an added Bud (coin as shovel) converts nothing more."""
    s = build(2, leader=0, hands={0: ["Wart", "Bud", "Kitty"]}, stuff={0: (4, 4)},
              pack={0: (0, 1)})  # fmt: skip
    found = disagreements(s, PlayOracle(s, r7="at add"))
    assert not found, describe(s, found)


def test_an_added_coin_and_crown_card_may_declare_any_suit() -> None:
    """README fact 1 ("treat each coin as one suit of your choice"): an added Puddin (coin +
    crown) to Tiny's gather(toys) x crown changes the outcome by its crown, so its coin may be
    any suit; with room for one toy less, any suit but a crown."""
    for stuff in ((0, 1), (0, 2)):
        s = build(2, leader=0, hands={0: ["Tiny", "Puddin"]}, stuff={0: stuff})
        found = disagreements(s, PlayOracle(s, r7="at add"))
        assert not found, describe(s, found)


def test_an_add_may_rely_on_a_later_add() -> None:
    """Puddin played (public gather(any) x any_suit, private score x coin): an add for one action
    may need a card added after it for the other, in either order of adding (p.7 judges the
    play, not the order in which its cards are added)."""
    s = build(2, leader=0, hands={0: ["Puddin", "Ant", "Bud"]}, stuff={0: (3, 0)})
    found = disagreements(s, PlayOracle(s, r7="at add"))
    assert not found, describe(s, found)
    # Dot: two glues for its partial gather, both needed to pay its advance(-1) at Level 2
    s = build(2, leader=0, hands={0: ["Dot", "Kitty", "Tink"]}, level={0: 2})
    found = disagreements(s, PlayOracle(s, r7="at add"))
    assert not found, describe(s, found)


@pytest.mark.xfail(
    strict=True,
    reason=(
        "a reading, not a bug: the engine judges an add when it is made (docs/rules.md R7 'The "
        "add is judged when it is made'), so a later choice may waste it; read over the whole "
        "play, Crash's gather(any) x squirtgun after packing a toy must choose pizza to keep the "
        "added Blitz meaningful"
    ),
)
def test_whole_play_reading_of_r7() -> None:
    s = build(2, leader=0, **SHAPES["Blitz: (recruit -> gather) x squirtgun, full Stuff"])
    found = disagreements(s, PlayOracle(s, r7="whole play"))
    assert not found, describe(s, found)


# ------------------------------------------------------------------ random games
@pytest.mark.parametrize(
    ("num_players", "setup", "seeds"),
    [
        (2, "basic", 1),
        pytest.param(3, "basic", 2, marks=pytest.mark.slow),
        pytest.param(4, "advanced", 2, marks=pytest.mark.slow),
    ],
)
def test_random_game_plays_agree(num_players: int, setup: str, seeds: int) -> None:
    game = FortGame(num_players, setup)
    compared = too_big = 0
    tally: Counter[str] = Counter()
    found_all = []
    for seed in range(seeds):
        s = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            if s.decision.kind.name == "PLAY" and s.actor == s.leader:
                try:
                    oracle = PlayOracle(s, budget=20_000, r7="at add")
                except TooBig:
                    too_big += 1
                else:
                    compared += 1
                    for _ in range(2):
                        for found in disagreements(s, oracle, rng=rng, tally=tally):
                            found_all.append(describe(s, [found]))
            s.apply_action(int(rng.choice(s.legal_actions())))
    print(f"{compared} plays, {tally['decisions']} decisions compared, {too_big} too big")
    assert not found_all, "\n".join(found_all)  # no disagreement is tolerated (R7 decided)
    assert compared > 20 and too_big < compared
    assert tally["decisions"] > 2 * compared  # two random paths through each play


@pytest.mark.slow
def test_random_game_plays_agree_on_every_path() -> None:
    """Every path through each play (up to 3,000 decisions a play) of two 2-player games: the
    random paths above rarely reach an add that needs a later add (Puddin's any-suit public
    and coin-counting private), which these do."""
    game = FortGame(2, "basic")
    compared = 0
    tally: Counter[str] = Counter()
    found_all = []
    for seed in (1, 2):
        s = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            if s.decision.kind.name == "PLAY" and s.actor == s.leader:
                try:
                    oracle = PlayOracle(s, budget=20_000, r7="at add")
                except TooBig:
                    pass
                else:
                    compared += 1
                    found = disagreements(s, oracle, limit=3_000, tally=tally)
                    if found:
                        found_all.append(describe(s, found))
            s.apply_action(int(rng.choice(s.legal_actions())))
    print(f"{compared} plays, {tally['decisions']} decisions compared")
    assert not found_all, "\n".join(found_all)
    assert compared > 40 and tally["decisions"] > 100 * compared
