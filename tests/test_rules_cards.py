"""A rules scenario for each card no other rules test names (``fort_env/data/cards.toml``).

Each expected outcome is worked out by hand from the card's text and the rulebook (pp.5-8,
12-14; docs/rules.md), written in the comment above it. Best Friends are played by their own
board's seat: Punky (blue) seat 1, Flipper and Worm (green) seat 2, Smoke and Sweet Pea
(yellow) seat 3.

Fort costs (``fort.toml``): Level 0 -> 1 is 1 toy + 1 either. A Pack holds Fort Level + 1.
"""

from __future__ import annotations

from .scenario import act, build, can, legal, names, pass_all, player

PARK = ["Bones", "Chef", "Doc"]


def stuff(s, seat):
    r = player(s, seat)
    return (r["stuff_pizza"], r["stuff_toys"])


def pack(s, seat):
    r = player(s, seat)
    return (r["pack_pizza"], r["pack_toys"])


# ------------------------------------------------------------------------------- Bitsy
def test_bitsy_spends_a_toy_then_gathers_two_pizza() -> None:
    # Bitsy [glue], public "spend(toys) -> gather(pizza) x 2": the toy is spent, then the
    # "x 2" right side gathers 2 pizza. Stuff (0 pizza, 1 toy) -> (2, 0).
    s = build(2, leader=0, hands={0: ["Bitsy"]}, stuff={0: (0, 1)})
    act(s, "play Bitsy", "use public (fully)", "spend toys from Stuff")
    pass_all(s)
    assert stuff(s, 0) == (2, 0)


def test_bitsy_without_a_toy_cannot_use_its_public_action() -> None:
    # "then" (p.14): without a toy the spend is not done, so nothing is; a use that does
    # nothing is not a full use (R4). Only the private recruit is left.
    s = build(2, leader=0, hands={0: ["Bitsy"]}, stuff={0: (3, 0)}, park=PARK)
    act(s, "play Bitsy")
    assert not can(s, "use public (fully)")
    act(s, "use private (fully)", "recruit Chef")  # private "recruit": a Park card
    assert "Chef" in names(s, "discard", 0)
    assert stuff(s, 0) == (3, 0)


# ------------------------------------------------------------------------------- Blitz
def test_blitz_recruits_and_gathers_a_toy_per_squirtgun() -> None:
    # Blitz [squirtgun], public "(recruit -> gather(toys)) x squirtgun": Blitz and the added
    # Sparky [squirtgun] count 2, so twice: recruit a card, then gather a toy.
    s = build(2, leader=0, hands={0: ["Blitz", "Sparky"]}, park=PARK,
              park_deck=["Skids", "Dash"])  # fmt: skip
    act(s, "play Blitz", "use public (fully)", "add Sparky", "stop adding")
    act(s, "recruit Bones", "recruit Chef")
    pass_all(s)
    assert stuff(s, 0) == (0, 2)
    assert {"Bones", "Chef"} <= set(names(s, "discard", 0))


def test_blitz_private_trashes_a_hand_card() -> None:
    # private "trash": one card of my hand returns to the box
    s = build(2, leader=0, hands={0: ["Blitz", "Kitty"]})
    act(s, "play Blitz", "use private (fully)", "trash Kitty")
    assert names(s, "trash") == ["Kitty"]


# ------------------------------------------------------------------------------- Flipper
def test_flipper_gathers_per_coin_declared_coin() -> None:
    # Flipper [coin] (green Best Friend), public "gather(any) x coin": Flipper declared as a
    # coin (R9) and Bud [coin] added and declared coin count 2 coins: 2 toys.
    s = build(3, leader=2, hands={2: ["Flipper", "Bud"]})
    act(s, "play Flipper", "suit coin", "use public (fully)", "add Bud", "suit coin")
    act(s, "stop adding", "choose toys")
    pass_all(s)
    assert stuff(s, 2) == (0, 2)


def test_flipper_private_packs() -> None:
    # private "pack": one resource from Stuff to the Pack (Level 0 Pack holds 1)
    s = build(3, leader=2, hands={2: ["Flipper"]}, stuff={2: (1, 0)})
    act(s, "play Flipper", "suit glue", "use private (fully)", "pack pizza from Stuff")
    assert pack(s, 2) == (1, 0) and stuff(s, 2) == (0, 0)


# ------------------------------------------------------------------------------- Lil Boss
def test_lil_boss_recruits() -> None:
    # Lil Boss [squirtgun], public "recruit": one card from the Park to my discard pile
    s = build(2, leader=0, hands={0: ["Lil Boss"]}, park=PARK)
    act(s, "play Lil Boss", "use public (fully)", "recruit Doc")
    assert names(s, "discard", 0) == ["Doc"]


def test_lil_boss_copies_a_rivals_pack() -> None:
    # private "copy_rival_pack": gain what the rival's Pack holds (1 pizza, 2 toys at Level 2)
    # into my Stuff; the rival keeps it.
    s = build(2, leader=0, hands={0: ["Lil Boss"]}, pack={1: (1, 2)}, level={1: 2})
    act(s, "play Lil Boss", "use private (fully)", "copy the Pack of the rival 1")
    assert stuff(s, 0) == (1, 2) and pack(s, 1) == (1, 2)


# ------------------------------------------------------------------------------- Penny
def test_penny_gathers_then_packs() -> None:
    # Penny [glue], public "gather(any) -> pack": 1 pizza gathered, then 1 packed (the Pack of
    # Level 0 holds 1).
    s = build(2, leader=0, hands={0: ["Penny"]})
    act(s, "play Penny", "use public (fully)", "choose pizza", "pack pizza from Stuff")
    pass_all(s)
    assert stuff(s, 0) == (0, 0) and pack(s, 0) == (1, 0)


def test_penny_private_converts() -> None:
    # private "convert": one resource of one kind becomes the other
    s = build(2, leader=0, hands={0: ["Penny"]}, stuff={0: (2, 0)})
    act(s, "play Penny", "use private (fully)", "convert pizza->toys in Stuff")
    assert stuff(s, 0) == (1, 1)


# ------------------------------------------------------------------------------- Punky
def test_punky_gathers_toys_per_squirtgun_and_scores() -> None:
    # Punky [squirtgun] (blue Best Friend), public "gather(toys) x squirtgun", private "score":
    # private first (1 point), then the public with Sparky [squirtgun] added: 2 toys.
    s = build(2, leader=1, hands={1: ["Punky", "Sparky"]})
    act(s, "play Punky", "use private (fully), then public", "add Sparky", "stop adding")
    pass_all(s)
    assert stuff(s, 1) == (0, 2) and player(s, 1)["score"] == 1


# ------------------------------------------------------------------------------- Rocket Bros
def test_rocket_bros_gathers_one_and_its_double_skateboard_counts_two_when_added() -> None:
    # Rocket Bros [skateboard x2], public "gather(any)" (docs/cards.md, card balance): one
    # resource of the chosen kind, whatever its suits
    s = build(2, leader=0, hands={0: ["Rocket Bros"]})
    act(s, "play Rocket Bros", "use public (fully)", "choose pizza")
    pass_all(s)
    assert stuff(s, 0) == (1, 0)
    # added to Ant [skateboard] "gather(pizza) x skateboard", its two skateboards count 2:
    # 1 + 2 = 3 pizza
    s = build(2, leader=0, hands={0: ["Ant", "Rocket Bros"]})
    act(s, "play Ant", "use public (fully)", "add Rocket Bros", "stop adding")
    pass_all(s)
    assert stuff(s, 0) == (3, 0)


def test_rocket_bros_advance_minus_one() -> None:
    # private "advance(-1)": Level 0 -> 1 costs 1 toy + 1 either; one "either" less: 1 toy
    s = build(2, leader=0, hands={0: ["Rocket Bros"]}, stuff={0: (0, 1)})
    act(s, "play Rocket Bros", "use private (fully)", "pay toys from Stuff")
    assert player(s, 0)["fort_level"] == 1 and stuff(s, 0) == (0, 0)


# ------------------------------------------------------------------------------- Smoke
def test_smoke_gathers_one_then_packs_it() -> None:
    # Smoke [coin] (yellow Best Friend), public "gather(any)", private "pack": public first
    # (1 toy), then the private packs it (Level 0 Pack holds 1)
    s = build(4, leader=3, hands={3: ["Smoke"]})
    act(s, "play Smoke", "suit glue", "use public (fully), then private", "choose toys")
    while legal(s) and legal(s)[0].startswith("pack"):
        act(s, "pack toys from Stuff")
    pass_all(s)
    assert stuff(s, 3) == (0, 0) and pack(s, 3) == (0, 1)


# ------------------------------------------------------------------------------- Sparky
def test_sparky_gathers_pizza_per_squirtgun_and_converts() -> None:
    # Sparky [squirtgun], public "gather(pizza) x squirtgun" with Blitz [squirtgun] added: 2
    # pizza; then private "convert": one pizza becomes a toy.
    s = build(2, leader=0, hands={0: ["Sparky", "Blitz"]})
    act(s, "play Sparky", "use public (fully), then private", "add Blitz", "stop adding")
    act(s, "convert pizza->toys in Stuff")
    pass_all(s)
    assert stuff(s, 0) == (1, 1)


# ------------------------------------------------------------------------------- Sweet Pea
def test_sweet_pea_gathers_toys_per_glue_and_scores() -> None:
    # Sweet Pea [glue] (yellow Best Friend), public "gather(toys) x glue" with Kitty [glue]
    # added: 2 toys; private "score": 1 point.
    s = build(4, leader=3, hands={3: ["Sweet Pea", "Kitty"]})
    act(s, "play Sweet Pea", "use public (fully), then private", "add Kitty", "stop adding")
    pass_all(s)
    assert stuff(s, 3) == (0, 2) and player(s, 3)["score"] == 1


# ------------------------------------------------------------------------------- Thunder
def test_thunder_gathers_two_toys() -> None:
    # Thunder [skateboard], public "gather(toys) x 2"
    s = build(2, leader=0, hands={0: ["Thunder"]})
    act(s, "play Thunder", "use public (fully)")
    pass_all(s)
    assert stuff(s, 0) == (0, 2)


def test_thunder_advance_plus_one_then_scores_three() -> None:
    # private "advance(+1) -> score x 3": Level 0 -> 1 costs 1 toy + 1 either, one more either:
    # 3 resources (1 pizza, 2 toys pay it), then 3 points.
    s = build(2, leader=0, hands={0: ["Thunder"]}, stuff={0: (1, 2)})
    act(s, "play Thunder", "use private (fully)")
    while s.decision.kind.name == "PAY":
        s.apply_action(s.legal_actions()[0])
    act(s, "take made-up rule Big Plans")  # reaching Level 1 (p.10); then the 3 points
    assert player(s, 0)["fort_level"] == 1 and player(s, 0)["score"] == 3
    assert stuff(s, 0) == (0, 0)
    # with 2 resources the advance cannot be paid: no full private use, and "then" scores nothing
    t = build(2, leader=0, hands={0: ["Thunder"]}, stuff={0: (0, 2)})
    act(t, "play Thunder")
    assert not can(t, "use private (fully)")
    act(t, "use public (fully), then private")
    pass_all(t)
    assert player(t, 0)["fort_level"] == 0 and player(t, 0)["score"] == 0
    assert stuff(t, 0) == (0, 4)  # 2 + 2 toys; the advance was not paid


# ------------------------------------------------------------------------------- Worm
def test_worm_gathers_pizza_per_shovel_and_scores() -> None:
    # Worm [shovel] (green Best Friend), public "gather(pizza) x shovel" with Bug [shovel]
    # added: 2 pizza; private "score": 1 point.
    s = build(3, leader=2, hands={2: ["Worm", "Bug"]})
    act(s, "play Worm", "use public (fully), then private", "add Bug", "stop adding")
    pass_all(s)
    assert stuff(s, 2) == (2, 0) and player(s, 2)["score"] == 1
