"""Rule-of-thumb bots that play Fort the way people describe it.

Each bot decodes the legal actions (``game.layout.decode``), gives every one a score from a
few rules of thumb, and takes the best (ties broken by its own seeded generator). The scores
come from :mod:`agents.bots.econ`: what the action would do to the bot's economy, weighted by its
:class:`~agents.bots.econ.Style`. They read only the seat's
:class:`~fort_env.views.seat.SeatView` (from ``info["view"]`` or decoded from the observation),
never hidden information.

- :class:`BuilderAgent` (``builder``): packs and advances, racing to Fort Level 5 and the
  macaroni sculpture; pays from Stuff before Pack; follows when it gathers what the Fort needs.
- :class:`ScorerAgent` (``scorer``): prefers victory-point actions and whatever its made-up rule
  scores (resources, Pack, Lookout, crowns, books, ...).
- :class:`OpportunistAgent` (``opportunist``): follows whenever it gains, recruits the best card
  from rivals' Yards, trashes rivals' best Yard cards, uses Rough Housing.

``heuristic`` in the registry is the strongest of the three (measured by the tournament
command; see ``agents/__init__.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

from agents.base import BaseAgent, legal_from
from agents.bots.econ import Counts, Econ, Style, advance, econ_value, simulate_play
from fort_env import FortGame
from fort_env.game.actions import (
    CONVERT_OPTIONS,
    MODE_PLAN,
    PACK_OPTIONS,
    PAY_OPTIONS,
    PRIVATE,
    PUBLIC,
)
from fort_env.game.cards import (
    ADVANCE,
    ANY_RESOURCE,
    ATOM,
    GATHER,
    MULT_ANY_SUIT,
    MULT_SUIT,
    SPEND,
    THEN,
    Effect,
    count_verb,
    multipliers,
)  # fmt: skip
from fort_env.game.constants import (
    COIN,
    MADE_UP_RULES,
    MAX_FORT_LEVEL,
    NUM_SUITS,
    PERKS,
    PIZZA,
    PLAIN_SUITS,
    RULE_INDEX,
    STUFF_CAPACITY,
    TOYS,
)  # fmt: skip
from fort_env.game.decisions import DecisionKind as K
from fort_env.game.facts import GameFacts
from fort_env.views.seat import SeatView

__all__ = ["BuilderAgent", "HeuristicAgent", "OpportunistAgent", "ScorerAgent"]

ORDERS: tuple[tuple[int, ...], ...] = ((PUBLIC,), (PRIVATE,), (PUBLIC, PRIVATE), (PRIVATE, PUBLIC))
Acts = dict[str, list[tuple[int, int]]]  # range name -> [(action, index in the range)]
Handler = Callable[[SeatView, Acts], dict[int, float]]
NEVER = -1e9  # score of an action a bot does not want (still taken if it is the only one)

BUILDER = Style(name="builder")
SCORER = Style(
    name="scorer",
    w_score=1.4,
    level_value=(0.0, 4.0, 8.5, 12.0, 17.0, 29.0),
    w_useful=0.8,
    w_surplus=0.4,
    w_pack=0.4,
    w_lookout=0.8,
    w_rule=1.5,
    perk_order=(
        "Do-Over",
        "XXL Backpack",
        "Sticky Fingers",
        "DIY",
        "Birthday Party",
        "Copy Cat",
        "Bribe",
        "Recycling",
        "Rough Housing",
    ),
)
OPPORTUNIST = Style(
    name="opportunist",
    w_recruit=1.0,
    w_rival_trash=0.8,
    follow_threshold=0.3,
    keep_cards=1,
    yard_bonus=0.6,
    rough_housing=2.5,
    perk_order=(
        "Do-Over",
        "Copy Cat",
        "Birthday Party",
        "DIY",
        "XXL Backpack",
        "Rough Housing",
        "Sticky Fingers",
        "Bribe",
        "Recycling",
    ),
)

# Canonical positions for a card's value away from the current one: Fort Levels 0-4 with a
# little of everything (a card is recruited now and played over the coming turns).
_CANONICAL = [(level, (2, 2), (min(level, 1), min(level, 1)), min(level, 2)) for level in range(5)]


def count_verb_arg(node: Effect | None, verb: int, arg: int) -> int:
    """How many times ``verb(arg)`` is printed in an effect tree."""
    if node is None:
        return 0
    if node[0] == ATOM:
        return int(node[1] == verb and node[2] == arg)
    if node[0] == THEN:
        return count_verb_arg(node[1], verb, arg) + count_verb_arg(node[2], verb, arg)
    return count_verb_arg(node[1], verb, arg)


class HeuristicAgent(BaseAgent):
    """A rule-of-thumb bot; the :class:`~agents.bots.econ.Style` sets its habits."""

    name = "heuristic"
    style: ClassVar[Style] = BUILDER

    def __init__(self, game: FortGame | None = None, seed: int | None = None) -> None:
        super().__init__(game, seed)
        # card values by everything they depend on, for the game object they were computed
        # from (another game, even one at the same address after the first was freed, starts
        # afresh): my rule, and for Friendship Bracelet the plain suits my cards have
        self._values_game: GameFacts | None = None
        self._base_values: dict[int, np.ndarray] = {}  # rule -> values
        self._bracelet_values: dict[int, np.ndarray] = {}  # my plain suits (bits) -> values
        self._plain_bits = np.zeros(0, dtype=np.int64)  # per card: bit s = has plain suit s
        self._handlers: dict[int, Handler] = {
            K.PLAY: self._play, K.DECLARE_COIN: self._declare_coin, K.MODE: self._mode,
            K.ANY_SUIT: self._any_suit, K.ADD: self._add, K.ADD_COIN: self._add_coin,
            K.RESOURCE: self._resource, K.PACK: self._pack, K.LOOKOUT: self._lookout,
            K.TRASH: self._trash, K.RECRUIT: self._recruit, K.BIRTHDAY: self._recruit,
            K.PAY: self._pay, K.SPEND: self._spend, K.TRASH_RIVAL: self._trash_rival,
            K.COPY_RIVAL: self._copy_rival, K.CONVERT: self._convert,
            K.PICK_RULE: self._pick_rule, K.PICK_PERK: self._pick_perk, K.FOLLOW: self._follow,
            K.FOLLOW_SECOND: self._follow, K.DO_OVER: self._do_over, K.DRAFT: self._draft,
            K.ROUGH_HOUSING: self._follow, K.STOP_OR_CONTINUE: self._stop_or_continue,
        }  # fmt: skip

    # ------------------------------------------------------------------ protocol
    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        legal = legal_from(observation, info)
        if len(legal) == 1:
            return legal[0]
        view = self.view_of(observation, info)
        return self.choose(view, legal)

    def choose(self, view: SeatView, legal: list[int]) -> int:
        """The best of ``legal`` for the decision in ``view`` (the seat's own view)."""
        layout = view.game.layout
        by_range: Acts = {}
        for a in legal:
            name, i = layout.decode(a)
            by_range.setdefault(name, []).append((a, i))
        handler = self._handlers.get(view.kind)
        scores = handler(view, by_range) if handler else {}
        noise = self.rng.random(len(legal)) * 1e-6
        best = max(range(len(legal)), key=lambda k: scores.get(legal[k], NEVER) + noise[k])
        return legal[best]

    # ------------------------------------------------------------------ building blocks
    def card_values(self, view: SeatView) -> np.ndarray:
        """Static worth of every card to this bot (float, shape ``(num_cards,)``): the mean
        gain of its best way to be played over canonical positions, plus its suits' worth for
        my made-up rule. Used to recruit, trash, tuck, draft and choose what to discard.

        A function of the position alone, whatever was asked before: the values are cached
        per game object and made-up rule, and for Friendship Bracelet (whose worth reads my
        cards now, as the C++ port does) per set of plain suits my cards have.
        """
        g = view.game
        if g is not self._values_game:
            self._values_game, self._base_values, self._bracelet_values = g, {}, {}
            has = g.suit_counts[:, list(PLAIN_SUITS)] > 0
            self._plain_bits = (has << np.arange(len(PLAIN_SUITS))).sum(axis=1)
        rule = view.my_rule
        base = self._base_values.get(rule)
        if base is None:
            base = self._base_values[rule] = self._compute_base_values(view)
        if rule != RULE_INDEX["Friendship Bracelet"]:
            return base
        mine = int(np.bitwise_or.reduce(self._plain_bits[view.all_my_cards()]))
        values = self._bracelet_values.get(mine)
        if values is None:
            values = self._bracelet_values[mine] = base + self._bracelet_worth(mine)
        return values

    def _compute_base_values(self, view: SeatView) -> np.ndarray:
        """:meth:`card_values` less Friendship Bracelet's worth: a function of the game's
        cards, the style and my made-up rule only."""
        g = view.game
        values = np.zeros(g.num_cards)
        base_econs = []
        for level, stuff, pack, look in _CANONICAL:
            e = Econ.of(view)
            e.level, e.stuff, e.pack, e.lookout = level, list(stuff), list(pack), look
            e.pack_cap, e.score, e.spare_cards, e.rival_yard_cards = level + 1, 0, 2, 2
            # every field canonical, none left from the first view asked (the values are
            # cached per game and rule, so they must not depend on which position came first)
            e.rival_packs = ((1, 1),) * (g.num_players - 1)
            base_econs.append(e)
        for c in range(g.num_cards):
            suits = g.suit_counts[c].astype(np.int64) + 1  # its own suits and one added card
            counts = Counts(suits, int(suits.max()))
            gains = []
            for e in base_econs:
                before = econ_value(e, self.style, view.my_rule)
                best = max(
                    econ_value(
                        simulate_play(g.effects[c], order, e, counts), self.style, view.my_rule
                    )
                    for order in ORDERS
                )
                gains.append(best - before)
            values[c] = float(np.mean(gains)) + self._static_suit_worth(g, view.my_rule, c)
        return values

    def _static_suit_worth(self, g: GameFacts, rule: int, c: int) -> float:
        """What card ``c``'s suits (or printed Advance Forts) add to made-up rule ``rule``,
        for every rule but Friendship Bracelet (:meth:`_bracelet_worth`)."""
        counts = g.suit_counts[c]
        w = self.style.w_rule
        if rule == RULE_INDEX["Play Palace"]:
            return w * counts[1]
        if rule == RULE_INDEX["Slime Lab"]:
            return w * counts[0]
        if rule == RULE_INDEX["Big Plans"]:
            return w * sum(count_verb(e, ADVANCE) for e in g.effects[c])
        if rule == RULE_INDEX["Loner"] and g.is_best_friend[c]:
            return -2.0 * w
        return 0.0

    def _bracelet_worth(self, mine: int) -> np.ndarray:
        """Friendship Bracelet's worth of every card (float, ``(num_cards,)``): the style's
        rule weight per plain suit the card has and none of my cards has (``mine``: bit ``s``
        set when one of my cards has plain suit ``s``)."""
        new_suits = [(self._plain_bits >> s) & 1 & ~(mine >> s) for s in PLAIN_SUITS]
        return self.style.w_rule * np.sum(new_suits, axis=0)

    def _available_counts(self, view: SeatView, played: int, base: np.ndarray) -> Counts:
        """Suit counts the played card could reach: ``base`` (its own suits, or the play so far)
        plus my other hand cards (each coin as a wild) and my Lookout (rulebook p.6)."""
        g = view.game
        suits = base.astype(np.int64).copy()
        wild = 0
        for c in view.hand:
            if c == played:
                continue
            for s in g.suit_lists[c]:
                if s == COIN:
                    wild += 1
                else:
                    suits[s] += 1
        for c in view.lookout:
            for s in g.suit_lists[c]:
                if s != COIN:
                    suits[s] += 1
        counts = suits + wild
        return Counts(counts, int(counts[:COIN].max()))

    def _play_gain(
        self,
        view: SeatView,
        card: int,
        counts: Counts,
        orders: tuple[tuple[int, ...], ...] = ORDERS,
    ) -> float:
        """Best gain in :func:`econ_value` of playing ``card`` with ``counts``, over ``orders``."""
        e = Econ.of(view)
        before = econ_value(e, self.style, view.my_rule)
        return (
            max(
                econ_value(
                    simulate_play(view.game.effects[card], o, e, counts), self.style, view.my_rule
                )
                for o in orders
            )
            - before
        )

    # ------------------------------------------------------------------ decisions
    def _play(self, view: SeatView, acts: Acts) -> dict[int, float]:
        g = view.game
        scores: dict[int, float] = {}
        for a, c in acts.get("PLAY_CARD", []):
            own = g.suit_counts[c].astype(np.int64).copy()
            if g.has_coin[c]:
                own[COIN] -= 1  # the coin is declared as the most useful suit: a wild below
            counts = self._available_counts(view, c, own)
            if g.has_coin[c]:
                counts = Counts(counts.suits + 1, counts.any_suit + 1)
            scores[a] = self._play_gain(view, c, counts)
        for a, _ in acts.get("SKIP_PLAY", []):
            scores[a] = -0.5
        for a, _ in acts.get("USE_DIY", []):
            e = Econ.of(view)
            after = e.copy()
            advance(after, 1)
            scores[a] = econ_value(after, self.style, view.my_rule) - econ_value(
                e, self.style, view.my_rule
            )
        return scores

    def _counted_suits(self, view: SeatView, card: int) -> set[int]:
        out: set[int] = set()
        for effect in view.game.effects[card]:
            for m, arg in multipliers(effect):
                if m == MULT_SUIT:
                    out.add(arg)
                elif m == MULT_ANY_SUIT:
                    out.update(range(NUM_SUITS))
        return out

    def _declare_coin(self, view: SeatView, acts: Acts) -> dict[int, float]:
        counted = self._counted_suits(view, view.played_card)
        avail = self._available_counts(view, view.played_card, view.play_suits).suits
        scores = {}
        for a, s in acts.get("SUIT", []):
            if counted:
                scores[a] = float(avail[s]) if s in counted else -1.0
            else:  # nothing counts it: declare coin, which the fewest rivals can follow
                scores[a] = 1.0 if s == COIN else 0.0
        return scores

    def _any_suit(self, view: SeatView, acts: Acts) -> dict[int, float]:
        avail = self._available_counts(view, view.played_card, view.play_suits).suits
        return {a: float(avail[s]) for a, s in acts.get("SUIT", [])}

    def _mode(self, view: SeatView, acts: Acts) -> dict[int, float]:
        counts = self._available_counts(view, view.played_card, view.play_suits)
        scores = {}
        for a, m in acts.get("MODE", []):
            first, second, full = MODE_PLAN[m]
            order = (first,) if second < 0 else (first, second)
            # among equal outcomes, prefer committing to the first action (fewer surprises)
            scores[a] = self._play_gain(view, view.played_card, counts, (order,)) + (
                0.01 if full == first else 0
            )
        return scores

    def _add(self, view: SeatView, acts: Acts) -> dict[int, float]:
        values = self.card_values(view)
        lookout = set(view.lookout.tolist())
        scores = {}
        for a, c in acts.get("ADD_CARD", []):
            # Lookout suits are free; hand cards would go to my Yard anyway: add the least
            # valuable first (the engine only offers cards that change the outcome).
            scores[a] = 10.0 if c in lookout else 5.0 - 0.1 * values[c]
        for a, _ in acts.get("STOP_ADDING", []):
            scores[a] = 0.0
        return scores

    def _add_coin(self, view: SeatView, acts: Acts) -> dict[int, float]:
        counted = self._counted_suits(view, view.played_card)
        return {a: (1.0 if s in counted else 0.0) for a, s in acts.get("SUIT", [])}

    def _wanted(self, view: SeatView) -> int:
        e = Econ.of(view)
        rule = view.my_rule
        if rule == RULE_INDEX["Piggy Bank"] and self.style.w_rule > 1:
            return TOYS
        if rule == RULE_INDEX["Pizza Party"] and self.style.w_rule > 1:
            return PIZZA
        return e.wanted()

    def _is_spend_choice(self, view: SeatView) -> bool:
        """Whether the pending pizza-or-toys choice is for a spend (else a gather)."""
        if view.played_card < 0 or view.running_side < 0:
            return False
        effect = view.game.effects[view.played_card][view.running_side]
        return (
            count_verb_arg(effect, SPEND, ANY_RESOURCE) > 0
            and count_verb_arg(effect, GATHER, ANY_RESOURCE) == 0
        )

    def _resource(self, view: SeatView, acts: Acts) -> dict[int, float]:
        want = self._wanted(view)
        gathering = not self._is_spend_choice(view)
        scores = {}
        for a, r in acts.get("RESOURCE", []):
            # gather what the Fort needs; spend (when the choice is a spend) what it needs less
            room = STUFF_CAPACITY - int(view.resources[0, r])
            scores[a] = (1.0 if r == want else 0.0) + 0.1 * room
        if not gathering:
            scores = {a: -s for a, s in scores.items()}
        return scores

    def _pack(self, view: SeatView, acts: Acts) -> dict[int, float]:
        scores = {}
        for a, i in acts.get("PACK_FROM", []):
            r, supply = PACK_OPTIONS[i]
            # the supply is free (Sticky Fingers); else pack what fills the Stuff most
            scores[a] = (5.0 if supply else 0.0) + (
                1.0 if r == self._wanted(view) and supply else 0.0
            )
            scores[a] += 0.1 * int(view.resources[0, r])
        return scores

    def _lookout(self, view: SeatView, acts: Acts) -> dict[int, float]:
        values = self.card_values(view)
        hand = set(view.hand.tolist())
        scores = {}
        for a, c in acts.get("LOOKOUT_CARD", []):
            double = len(view.game.suit_lists[c]) > 1
            # from hand: the least valuable card (double suits count twice later); with Bribe a
            # card from the Park or a Yard costs me nothing
            scores[a] = (-values[c] if c in hand else 2.0) + (0.5 if double else 0.0)
        for a, _ in acts.get("LOOKOUT_PARK_DECK", []):
            scores[a] = 1.0
        for a, _ in acts.get("PASS", []):
            scores[a] = 0.0  # a tuck only Recycling could make: keep the perk (R15)
        return scores

    def _trash(self, view: SeatView, acts: Acts) -> dict[int, float]:
        values = self.card_values(view)
        return {a: -values[c] for a, c in acts.get("TRASH_CARD", [])}

    def _park_deck_value(self, view: SeatView) -> float:
        values = self.card_values(view)
        park_cards = ~view.game.is_best_friend
        return float(values[park_cards].mean())

    def _recruit(self, view: SeatView, acts: Acts) -> dict[int, float]:
        values = self.card_values(view)
        park = set(view.park.tolist())
        scores = {}
        for a, c in acts.get("RECRUIT_CARD", []):
            scores[a] = values[c] + (0.0 if c in park else self.style.yard_bonus)
        for a, _ in acts.get("RECRUIT_PARK_DECK", []):
            scores[a] = self._park_deck_value(view)
        for a, _ in acts.get("PASS", []):
            scores[a] = -0.5
        return scores

    def _pay(self, view: SeatView, acts: Acts) -> dict[int, float]:
        res = view.resources[0]
        pack_weight = self.style.w_pack + (
            self.style.w_rule if view.my_rule == RULE_INDEX["Secret Stash"] else 0
        )
        scores = {}
        for a, i in acts.get("PAY", []):
            r, from_pack = PAY_OPTIONS[i]
            total = int(res[r] + res[2 + r])
            # Stuff before Pack; the resource there is more of
            scores[a] = 0.1 * total - (pack_weight + 0.1 if from_pack else 0.0)
        return scores

    def _spend(self, view: SeatView, acts: Acts) -> dict[int, float]:
        return {a: (-1.0 if PAY_OPTIONS[i][1] else 0.0) for a, i in acts.get("SPEND_FROM", [])}

    def _rival_yard_owner(self, view: SeatView, c: int) -> int:
        for r, yard in enumerate(view.rival_yards, start=1):
            if c in yard:
                return r
        return 0

    def _rival_strength(self, view: SeatView, r: int) -> float:
        return float(view.scores[r] + view.game.level_points[int(view.levels[r])])

    def _trash_rival(self, view: SeatView, acts: Acts) -> dict[int, float]:
        values = self.card_values(view)
        scores = {}
        for a, c in acts.get("TRASH_RIVAL_CARD", []):
            owner = self._rival_yard_owner(view, c)
            scores[a] = values[c] + 0.05 * self._rival_strength(view, owner)
        return scores

    def _copy_rival(self, view: SeatView, acts: Acts) -> dict[int, float]:
        scores: dict[int, float] = {}
        for a, k in acts.get("COPY_RIVAL", []):
            pack = view.resources[k + 1, 2:]
            scores[a] = sum(min(int(pack[r]), view.stuff_room(r)) for r in (PIZZA, TOYS))
        return scores

    def _convert(self, view: SeatView, acts: Acts) -> dict[int, float]:
        e = Econ.of(view)
        before = econ_value(e, self.style, view.my_rule)
        scores = {}
        for a, i in acts.get("CONVERT", []):
            src, in_pack = CONVERT_OPTIONS[i]
            after = e.copy()
            where = after.pack if in_pack else after.stuff
            where[src] -= 1
            where[1 - src] += 1
            scores[a] = econ_value(after, self.style, view.my_rule) - before
        return scores

    def rule_estimate(self, view: SeatView, rule: int) -> float:
        """Points I expect from made-up rule ``rule`` by the end, from what I have now."""
        g = view.game
        cards = view.all_my_cards()
        suits = g.suit_counts[cards].sum(axis=0) if len(cards) else np.zeros(NUM_SUITS)
        res = view.resources[0]
        name = MADE_UP_RULES[rule]
        if name == "Big Plans":
            return 1.0 + sum(count_verb(e, ADVANCE) for c in cards for e in g.effects[c])
        if name == "Friendship Bracelet":
            distinct = int(np.count_nonzero(suits[list(PLAIN_SUITS)]))
            return distinct + (1.0 if distinct == len(PLAIN_SUITS) else 0.5)
        if name == "Piggy Bank":
            return 2.0 + int(res[1] + res[3])
        if name == "Pizza Party":
            return 2.0 + int(res[0] + res[2])
        if name == "Loner":
            friends = int(g.is_best_friend[cards].sum()) if len(cards) else 0
            return 5.0 - 2.0 * friends
        if name == "Minimalism":
            return 6.0 if self.style.name == "scorer" else 0.0
        if name == "Popularity":
            return 2.0 + len(view.lookout)
        if name == "Play Palace":
            return float(suits[1]) + 1.0
        if name == "Secret Stash":
            return 1.0 + view.pack_capacity()
        if name == "Sleepover":
            return 3.0
        if name == "Slime Lab":
            return float(suits[0]) + 1.0
        return 0.0

    def _pick_rule(self, view: SeatView, acts: Acts) -> dict[int, float]:
        return {a: self.rule_estimate(view, i) for a, i in acts.get("PICK_RULE", [])}

    def _pick_perk(self, view: SeatView, acts: Acts) -> dict[int, float]:
        order = self.style.perk_order
        return {a: -float(order.index(PERKS[i])) for a, i in acts.get("PICK_PERK", [])}

    def follow_gain(self, view: SeatView, card: int) -> float:
        """What following the leader's public action with ``card`` would gain me (p.8)."""
        g = view.game
        played = view.played_card
        leader_suits = {
            s for s in range(NUM_SUITS) if view.play_suits[s] > 0 and s in g.suit_lists[played]
        }
        if g.has_coin[played]:
            leader_suits |= {s for s in range(NUM_SUITS) if view.play_suits[s] > 0}
        suits = np.zeros(NUM_SUITS, dtype=np.int64)
        for s in g.suit_lists[card]:
            if s == COIN:
                for t in leader_suits or {COIN}:
                    suits[t] += 1
            elif s in leader_suits:
                suits[s] += 1
        counts = Counts(suits, int(suits.sum()))
        e = Econ.of(view)
        e.spare_cards = max(0, len(view.hand) - 1)
        after = simulate_play(
            (g.effects[played][PUBLIC], None), (PUBLIC,), e, counts, view.leader_resource
        )
        return econ_value(after, self.style, view.my_rule) - econ_value(e, self.style, view.my_rule)

    def _follow(self, view: SeatView, acts: Acts) -> dict[int, float]:
        values = self.card_values(view)
        scores: dict[int, float] = {}
        for a, _ in acts.get("PASS", []):
            scores[a] = 0.0
        second = view.kind == K.FOLLOW_SECOND
        keep = 0 if second else self.style.keep_cards
        if len(view.hand) > keep:
            for a, c in acts.get("FOLLOW_CARD", []):
                gain = self.follow_gain(view, c)
                cost = self.style.follow_threshold + 0.1 * max(0.0, values[c])
                scores[a] = gain - cost
        for a, _ in acts.get("ROUGH_HOUSE", []):
            worth = values[view.played_card] if view.played_card >= 0 else 0.0
            scores[a] = worth - self.style.rough_housing
        return scores

    def _do_over(self, view: SeatView, acts: Acts) -> dict[int, float]:
        best = 0.0
        for c in view.hand:
            counts = self._available_counts(view, int(c), view.game.suit_counts[c])
            best = max(best, self._play_gain(view, int(c), counts))
        scores = {}
        for a, _ in acts.get("DO_OVER", []):
            scores[a] = best - 2.0
        for a, _ in acts.get("PASS", []):
            scores[a] = 0.0
        return scores

    def _stop_or_continue(self, view: SeatView, acts: Acts) -> dict[int, float]:
        # R3: these bots were built when the other action always went as far as it goes;
        # going on keeps their play as it was (a search bot weighs stopping itself)
        scores = {a: 1.0 for a, _ in acts.get("CONTINUE_ACTION", [])}
        scores.update({a: 0.0 for a, _ in acts.get("STOP_ACTION", [])})
        return scores

    def _draft(self, view: SeatView, acts: Acts) -> dict[int, float]:
        values = self.card_values(view)
        return {a: values[c] for a, c in acts.get("DRAFT_CARD", [])}


class BuilderAgent(HeuristicAgent):
    """Packs and advances: races to Fort Level 5 and the macaroni sculpture."""

    name = "builder"
    style = BUILDER
    # The batched env (fort_env.envs.vector.FortBatchVecEnv) plays it in C++: Policy::BUILDER
    # (cpp/include/fort/bots/rollout_policy.h) is this bot's port, score for score
    # (tests/test_ismcts.py); only its ties are broken by the C++ policy's own draws.
    cpp_policy = "builder"


class ScorerAgent(HeuristicAgent):
    """Victory-point actions and whatever its made-up rule scores."""

    name = "scorer"
    style = SCORER
    # The batched env (fort_env.envs.vector.FortBatchVecEnv) plays it in C++: Policy::SCORER
    # (cpp/include/fort/bots/rollout_policy.h) is this bot's port, score for score
    # (tests/test_cpp_heuristics.py); only its ties are broken by the C++ policy's own draws.
    cpp_policy = "scorer"


class OpportunistAgent(HeuristicAgent):
    """Follows often, recruits rivals' best Yard cards, trashes rivals' cards."""

    name = "opportunist"
    style = OPPORTUNIST
    # The batched env (fort_env.envs.vector.FortBatchVecEnv) plays it in C++:
    # Policy::OPPORTUNIST (cpp/include/fort/bots/rollout_policy.h) is this bot's port, score for
    # score (tests/test_cpp_heuristics.py); only its ties are broken by the C++ policy's own draws.
    cpp_policy = "opportunist"


assert MAX_FORT_LEVEL == 5 and len(BUILDER.level_value) == MAX_FORT_LEVEL + 1
