"""The heuristics' economy model (``agents/bots/econ.py``), their decisions
(``agents/bots/heuristics.py``) and the search bots' evaluation (``agents/bots/evaluation.py``) on
hand-built positions, against values computed by hand from the documented weights.

The position ``POS`` (seat 0 to play, 2 players):

- seat 0: Fort Level 2, score 7, Stuff 1 pizza 2 toys, Pack 0 pizza 1 toy, hand Doc, Bones,
  Kitty, Lookout Prince, Tiny; its 2 Best Friends in its deck (7 cards owned);
- seat 1: Fort Level 1, score 3, Stuff empty, Pack 2 pizza 1 toy, no hand (its 2 Best Friends
  in its deck: 2 cards owned).

The Fort steps (``fort.toml``): Level 1 -> 2 costs 1 toy, 1 pizza, 1 either; 2 -> 3 costs 1
toy, 2 pizza, 1 either.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.arena.games import decision_info
from agents.bots import econ
from agents.bots.econ import Counts, Econ, econ_value, simulate, simulate_play
from agents.bots.evaluation import FITTED, evaluate, evaluate_all, seat_value
from agents.bots.heuristics import BUILDER, SCORER, BuilderAgent
from fort_env.game.constants import MADE_UP_RULES, NUM_SUITS, PIZZA, SUITS, TOYS
from fort_env.views.seat import SeatView
from tests.scenario import act, build, game_for, player

POS = {
    "hands": {0: ["Doc", "Bones", "Kitty"]},
    "lookout": {0: ["Prince", "Tiny"]},
    "level": {0: 2, 1: 1},
    "score": {0: 7, 1: 3},
    # seat 1's Pack holds Fort Level + 1 = 2 (p.5); its third resource waits in its Stuff
    "stuff": {0: (1, 2), 1: (1, 0)},
    "pack": {0: (0, 1), 1: (1, 1)},
}
RULE = {name: i for i, name in enumerate(MADE_UP_RULES)}


def effect(name: str, side: int):
    card = next(c for c in game_for(2).cards if c.name == name)
    return (card.public_effect, card.private_effect)[side]


def counts(**suits: int) -> Counts:
    c = np.zeros(NUM_SUITS, dtype=np.int64)
    for name, n in suits.items():
        c[SUITS.index(name)] = n
    return Counts(c, int(c.max()))


@pytest.fixture
def view() -> SeatView:
    return SeatView.from_state(build(2, leader=0, **POS), 0)


# ---------------------------------------------------------------------------- econ
def test_econ_of_a_view(view: SeatView) -> None:
    e = Econ.of(view)
    assert (e.stuff, e.pack, e.level, e.score, e.lookout) == ([1, 2], [0, 1], 2, 7, 2)
    assert e.pack_cap == 3  # Fort Level + 1
    assert e.spare_cards == 2  # hand cards besides the one played
    assert e.rival_packs == ((1, 1),)
    rival = Econ.of(view, 1)
    assert (rival.stuff, rival.pack, rival.level, rival.score) == ([1, 0], [1, 1], 1, 3)


def test_need_and_wanted(view: SeatView) -> None:
    e = Econ.of(view)
    # Level 2 -> 3: 1 toy, 2 pizza, 1 either; I have 3 toys and 1 pizza: 1 pizza short, the
    # 2 spare toys cover the either
    assert e.need() == (0, 1, 0)
    assert e.wanted() == PIZZA
    e.stuff, e.pack = [3, 0], [0, 0]  # 3 pizza, no toy: 1 toy short, 1 spare pizza
    assert e.need() == (1, 0, 0) and e.wanted() == TOYS
    e.level = 5
    assert e.need() == (0, 0, 0)


def test_econ_value_by_hand(view: SeatView) -> None:
    e = Econ.of(view)
    # score 7 + Level 2 (10.5) + 3 useful (1 toy, 1 pizza, 1 toy as either) x 1.0
    # + 1 surplus toy x 0.5 + Pack 1 x 0.2 + Lookout 2 x 0.6
    base = 7 + 10.5 + 3 * 1.0 + 1 * 0.5 + 1 * 0.2 + 2 * 0.6
    assert econ_value(e, BUILDER) == pytest.approx(base)
    assert econ_value(e, BUILDER, RULE["Pizza Party"]) == pytest.approx(base + 1)  # 1 pizza
    assert econ_value(e, BUILDER, RULE["Piggy Bank"]) == pytest.approx(base + 3)  # 3 toys
    assert econ_value(e, BUILDER, RULE["Popularity"]) == pytest.approx(base + 2)  # Lookout 2
    assert econ_value(e, BUILDER, RULE["Minimalism"]) == pytest.approx(base + 8)  # Level 2
    # the scorer: score 7 x 1.4 + 8.5 + 3 x 0.8 + 0.4 + Pack 0.4 + Lookout 2 x 0.8
    scorer = 7 * 1.4 + 8.5 + 3 * 0.8 + 1 * 0.4 + 1 * 0.4 + 2 * 0.8
    assert econ_value(e, SCORER) == pytest.approx(scorer)
    e.level = 5  # past the last step every resource is worth 0.2
    assert econ_value(e, BUILDER) == pytest.approx(7 + 32.0 + 4 * 0.2 + 0.2 + 1.2)


def test_simulate_scores_by_lookout_size(view: SeatView) -> None:
    e = Econ.of(view)
    assert simulate(effect("Doc", 1), e, counts()) is True  # score x lookout_size
    assert e.score == 7 + 2


def test_simulate_repeats_a_spend_then_score_per_suit(view: SeatView) -> None:
    e = Econ.of(view)
    # Moose private: (spend(any) -> score) x shovel, 2 shovels: spend the resource the Fort
    # needs less (toys) twice, scoring 1 each time
    assert simulate(effect("Moose", 1), e, counts(shovel=2)) is True
    assert (e.score, e.stuff, e.pack) == (9, [1, 0], [0, 1])
    # 3 shovels but one toy left (in the Pack) and the choice stays toys: 1 more point
    assert simulate(effect("Moose", 1), e, counts(shovel=3)) is True
    assert (e.score, e.stuff, e.pack) == (10, [1, 0], [0, 0])


def test_simulate_then_needs_its_first_step(view: SeatView) -> None:
    e = Econ.of(view)
    # Lefty private: advance -> score x 2; Level 2 -> 3 needs 2 pizza, I have 1: nothing
    assert simulate(effect("Lefty", 1), e, counts()) is False
    assert (e.level, e.score, e.stuff, e.pack) == (2, 7, [1, 2], [0, 1])
    e.stuff = [2, 2]  # now 2 pizza, 3 toys: pay 1 toy, 2 pizza, either from the larger (toys)
    assert simulate(effect("Lefty", 1), e, counts()) is True
    assert (e.level, e.score, e.stuff, e.pack, e.pack_cap) == (3, 9, [0, 0], [0, 1], 4)


def test_simulate_gather_and_pack(view: SeatView) -> None:
    e = Econ.of(view)
    # Rusty public: gather(any) x shovel with 3 shovels: the Fort wants pizza: 3 pizza gathered
    # but the Stuff holds 4, so 1 + 3 = 4 fits exactly
    simulate(effect("Rusty", 0), e, counts(shovel=3))
    assert e.stuff == [4, 2]
    # Patch private: pack x 2: the Pack holds Level + 1 = 3 and has 1: 2 packed, pizza first
    # (the larger Stuff pile)
    simulate(effect("Patch", 1), e, counts())
    assert (e.stuff, e.pack) == ([2, 2], [2, 1])
    assert simulate(effect("Patch", 1), e, counts()) is False  # the Pack is full


def test_simulate_play_keeps_the_input(view: SeatView) -> None:
    e = Econ.of(view)
    doc = (effect("Doc", 0), effect("Doc", 1))
    after = simulate_play(doc, (1, 0), e, counts())
    # private first: score x 2 (Lookout 2); then public lookout: a spare card tucked (3 <= 3)
    assert (after.score, after.lookout, after.spare_cards) == (9, 3, 1)
    assert (e.score, e.lookout) == (7, 2)
    after = simulate_play(doc, (0, 1), e, counts())  # Lookout first: 3 cards, then 3 points
    assert (after.score, after.lookout) == (10, 3)


def test_advance_cost_modifiers(view: SeatView) -> None:
    e = Econ.of(view)
    assert econ.advance_cost(e, 0) == (1, 2, 1)
    assert econ.advance_cost(e, 1) == (1, 2, 2)
    # -1 drops a printed toy or pizza, the payer's choice (R25): 1 toy + 1 pizza -> 1 either
    assert econ.advance_cost(e, -1) == (0, 1, 2)
    e.level = 0  # 1 toy, 1 either
    assert econ.advance_cost(e, -1) == (0, 0, 1)  # the toy dropped (Dot's case in R25)
    e.level = 5
    assert econ.advance_cost(e, 0) is None and econ.advance(e, 0) is False


# ---------------------------------------------------------------------------- heuristics
def test_builder_play_value_of_doc_is_its_points() -> None:
    """Doc (private: score x lookout_size) with a full Lookout of 5 at Level 4: +5 points, and
    its public Lookout cannot tuck more (5 = Level + 1): the best order gains exactly 5."""
    s = build(2, leader=0, hands={0: ["Doc", "Wart"]}, level={0: 4},
              lookout={0: ["Prince", "Tiny", "Ghost", "Chef", "Dot"]})  # fmt: skip
    bot = BuilderAgent(seed=0)
    v = SeatView.from_state(s, 0)
    acts: dict[str, list[tuple[int, int]]] = {}
    for a in s.legal_actions():
        name, i = s.game.layout.decode(a)
        acts.setdefault(name, []).append((a, i))
    scores = bot._play(v, acts)
    by_text = {s.action_to_string(a).split(" [")[0]: x for a, x in scores.items()}
    assert by_text["play Doc"] == pytest.approx(5.0)
    # Wart: convert x shovel has nothing to convert; trash: one card trashed (w_trash 0.3)
    assert by_text["play Wart"] == pytest.approx(0.3)
    assert by_text["skip the Play phase"] == -0.5


@pytest.mark.parametrize(("stuff", "want"), [((0, 3), "choose pizza"), ((3, 0), "choose toys")])
def test_builder_gathers_what_the_fort_needs(stuff: tuple[int, int], want: str) -> None:
    """Penny's public gather(any): at Level 2 (1 toy, 2 pizza, 1 either) with only toys the
    Fort needs pizza; with only pizza (3, one more than the 2 needed) it needs toys."""
    s = build(2, leader=0, hands={0: ["Penny"]}, level={0: 2}, stuff={0: stuff})
    act(s, "play Penny", "use public (fully)")
    info = decision_info(s, 0)
    choice = BuilderAgent(seed=0).choose(info["view"], info["legal_actions"])
    assert s.action_to_string(choice) == want


def test_builder_pays_from_stuff_before_pack() -> None:
    """Tink's private advance at Level 0 (1 toy, 1 either) with toys in both Stuff and Pack."""
    s = build(2, leader=0, hands={0: ["Tink"]}, stuff={0: (0, 1)}, pack={0: (0, 1)})
    act(s, "play Tink", "use private (fully)")
    paid: list[str] = []
    while s.decision.kind.name == "PAY":
        info = decision_info(s, 0)
        choice = BuilderAgent(seed=0).choose(info["view"], info["legal_actions"])
        stuff = player(s, 0)["stuff_pizza"] + player(s, 0)["stuff_toys"]
        paid.append(s.action_to_string(choice))
        assert paid[-1].endswith("from Stuff") or stuff == 0, paid
        s.apply_action(choice)
    assert paid == ["pay toys from Stuff", "pay toys from Pack"]
    assert player(s, 0)["fort_level"] == 1


# ---------------------------------------------------------------------------- evaluation
def test_seat_value_by_hand() -> None:
    s = build(2, leader=0, **POS)
    w = FITTED
    # seat 0: score 7 + Level 2 (13.5) + 3 useful x 2.0 + 1 surplus x 0.35
    #         + (7 cards owned - 10) x -0.8
    mine = 7 + 13.5 + 3 * 2.0 + 1 * 0.35 + (7 - 10) * -0.8
    # seat 1: score 3 + Level 1 (8) + 2 pizza 1 toy (Stuff and Pack), all useful for 1 -> 2
    #         + (2 - 10) x -0.8
    theirs = 3 + 8.0 + 3 * 2.0 + (2 - 10) * -0.8
    assert seat_value(s, 0, w) == pytest.approx(mine)
    assert seat_value(s, 1, w) == pytest.approx(theirs)
    sig = 1 / (1 + math.exp(-(mine - theirs) / 9.0))
    assert evaluate(s, 0) == pytest.approx(sig)
    assert evaluate_all(s) == pytest.approx([sig, 1 - sig])


def test_seat_value_counts_perks_rule_and_sculpture() -> None:
    base = seat_value(build(2, leader=0, **POS), 0)
    s = build(2, leader=0, perks={0: ["DIY", "Bribe"]}, rules={0: "Pizza Party"},
              sculpture=0, **POS)  # fmt: skip
    # 2 perks x 0.7, Pizza Party: 1 point per pizza (1) x 0.5, the sculpture 4
    assert seat_value(s, 0) == pytest.approx(base + 2 * 0.7 + 1 * 0.5 + 4)


def test_value_after_the_end_trigger_is_the_real_total() -> None:
    s = build(2, leader=0, end_triggered=True, **POS)
    # totals: seat 0 score 7 + Level 2 points (1); seat 1 score 3 + Level 1 points (0)
    assert [r["total"] for r in s.score_breakdown()] == [8, 3]
    est0 = 7 + 13.5 + 3 * 2.0 + 0.35 + 2.4
    est1 = 3 + 8.0 + 6.0 + 6.4
    assert seat_value(s, 0) == pytest.approx(8 + 0.1 * est0)
    assert seat_value(s, 1) == pytest.approx(3 + 0.1 * est1)
    # the lead in real totals is read at end_scale (3 points per logit), not scale (9)
    lead = (8 + 0.1 * est0) - (3 + 0.1 * est1)
    assert FITTED.end_scale == 3.0
    assert evaluate(s, 0) == pytest.approx(1 / (1 + math.exp(-lead / 3.0)))
    assert evaluate(s, 1) == pytest.approx(1 / (1 + math.exp(lead / 3.0)))


def test_a_game_ending_win_rates_above_a_quiet_big_lead() -> None:
    """Seat 0 at Level 4 and 25 points, end triggered, against Level 2 and 20 (totals 34 - 21)
    is better than the same position one step earlier without the trigger (20 points each):
    the first is all but won, the second still has whole rounds to play."""
    pos = {**POS, "level": {0: 4, 1: 2}}
    ended = build(2, leader=0, end_triggered=True, **{**pos, "score": {0: 25, 1: 20}})
    quiet = build(2, leader=0, **{**pos, "score": {0: 20, 1: 20}})
    assert [r["total"] for r in ended.score_breakdown()] == [34, 21]
    assert evaluate(ended, 0) > evaluate(quiet, 0) > 0.9
    # ... and an end triggered while behind in the real totals is close to a sure loss
    behind = build(2, leader=0, end_triggered=True, **{**pos, "score": {0: 10, 1: 40}})
    assert evaluate(behind, 0) < 0.01


def test_card_values_do_not_depend_on_the_first_position_seen() -> None:
    """The card values are cached per game and made-up rule, so they must be a function of
    those alone: two bots that first see positions with different rival Packs (Copy Cat's
    "copy" reads them) value every card alike."""
    views = [
        SeatView.from_state(build(2, leader=0, **{**POS, "pack": {0: (0, 1), 1: pack}}), 0)
        for pack in ((0, 0), (1, 1))
    ]
    assert views[0].resources[1, 2:].tolist() != views[1].resources[1, 2:].tolist()
    first, second = (BuilderAgent(game_for(2), seed=0).card_values(v) for v in views)
    np.testing.assert_array_equal(first, second)
