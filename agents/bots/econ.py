"""A rough model of one player's economy, for heuristics: what a card's action would do.

The heuristic agents cannot search the engine (from the PettingZoo env they only have the
observation), so they estimate an action's worth on a small summary of their own position,
:class:`Econ` (Stuff, Pack, Fort Level, score, Lookout), with :func:`simulate` (a simplified
interpreter of the card language of ``docs/cards.md``) and :func:`econ_value` (a weighted sum,
the weights in a :class:`Style`). The engine stays the authority on legality: the model only
ranks actions the mask allows.

The model's simplifications: every step is done "as far as it goes" (rulebook p.6), choices
inside an action (pizza or toys, what to pack, how to pay) go to the resource the next Fort
step needs, cards and rivals are abstract counts, and a whole action's multipliers are counted
when it starts (as the engine does, docs/rules.md R5).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from fort_env.game.cards import (
    ADVANCE,
    ANY_RESOURCE,
    ATOM,
    CONVERT,
    COPY_PACK,
    COPY_RIVAL_PACK,
    GATHER,
    LOOKOUT_V,
    MULT_ANY_SUIT,
    MULT_CONST,
    MULT_FORT_LEVEL,
    MULT_LOOKOUT_SIZE,
    MULT_PACK_SIZE,
    MULT_SUIT,
    PACK,
    RECRUIT,
    SCORE,
    SPEND,
    THEN,
    TRASH_RIVAL,
    TRASH_THIS,
    TRASH_V,
    Effect,
)  # fmt: skip
from fort_env.game.constants import MAX_FORT_LEVEL, PIZZA, RULE_INDEX, STUFF_CAPACITY, TOYS
from fort_env.game.facts import advance_cost as game_advance_cost
from fort_env.views.seat import SeatView

__all__ = ["Counts", "Econ", "Style", "advance", "econ_value", "simulate", "simulate_play"]

MAX_REPEAT = 12  # more repetitions than any resource cap can use


@dataclass
class Econ:
    """One player's economy: the fields an action can change (and counters for the rest)."""

    stuff: list[int]  # [pizza, toys]
    pack: list[int]  # [pizza, toys]
    level: int
    score: int
    lookout: int
    pack_cap: int
    lookout_bonus: int  # Lookout capacity is Fort Level + 1 (+ this, always 0 today)
    spare_cards: int  # hand cards left to tuck or trash
    fort_steps: tuple  # game.fort_steps
    rival_packs: tuple[tuple[int, int], ...] = ()
    rival_yard_cards: int = 0
    trashed: int = 0
    recruited: int = 0
    rival_trashed: int = 0
    trash_this: int = 0
    choice: int = -1  # pizza/toys chosen in the running action (-1: not yet)
    convert_from: int = -1

    @classmethod
    def of(cls, view: SeatView, r: int = 0) -> Econ:
        """The economy of relative seat ``r`` of ``view``."""
        res = view.resources[r]
        rivals = [
            (int(view.resources[q, 2]), int(view.resources[q, 3]))
            for q in range(view.num_players)
            if q != r
        ]
        yard_cards = sum(len(y) for y in view.rival_yards) if r == 0 else 0
        return cls(
            stuff=[int(res[0]), int(res[1])],
            pack=[int(res[2]), int(res[3])],
            level=int(view.levels[r]),
            score=int(view.scores[r]),
            lookout=len(view.lookout) if r == 0 else 0,
            pack_cap=view.pack_capacity(r),
            lookout_bonus=0,
            spare_cards=max(0, len(view.hand) - 1) if r == 0 else 2,
            fort_steps=tuple(view.game.fort_steps),
            rival_packs=tuple(rivals),
            rival_yard_cards=yard_cards,
        )

    def copy(self) -> Econ:
        return replace(self, stuff=list(self.stuff), pack=list(self.pack))

    def total(self, r: int) -> int:
        return self.stuff[r] + self.pack[r]

    def need(self) -> tuple[int, int, int]:
        """``(toys, pizza, either)`` still missing for the next Fort step."""
        if self.level >= MAX_FORT_LEVEL:
            return (0, 0, 0)
        step = self.fort_steps[self.level]
        toys, pizza = self.total(TOYS), self.total(PIZZA)
        short_t, short_p = max(0, step.toys - toys), max(0, step.pizza - pizza)
        spare = max(0, toys - step.toys) + max(0, pizza - step.pizza)
        return short_t, short_p, max(0, step.either - spare)

    def wanted(self) -> int:
        """The resource the next Fort step needs more (ties: the one with more Stuff room)."""
        t, p, _ = self.need()
        if t != p:
            return TOYS if t > p else PIZZA
        return TOYS if self.stuff[TOYS] < self.stuff[PIZZA] else PIZZA


@dataclass(frozen=True)
class Style:
    """Weights of :func:`econ_value` and the habits of one heuristic.

    ``level_value[L]`` is what reaching Fort Level L is worth, counting what it unlocks (a
    made-up rule at 1, a perk at 2, the race to 5); the Fort Level's own end-of-game points are
    0, 0, 1, 3, 9, 23 (``fort.toml``), plus 4 for the macaroni sculpture at 5.
    """

    name: str
    w_score: float = 1.0
    level_value: tuple[float, ...] = (0.0, 4.6, 10.5, 15.7, 22.2, 32.0)
    w_useful: float = 1.0  # a resource the next Fort step needs
    w_surplus: float = 0.5  # any other resource
    w_pack: float = 0.2  # a resource in the Pack rather than the Stuff
    w_lookout: float = 0.6  # a card in the Lookout (its suits improve later plays)
    w_trash: float = 0.3  # trashing one of my cards (a thinner deck)
    w_recruit: float = 0.8  # a recruited card
    w_rival_trash: float = 0.2  # a card trashed from a rival's Yard
    w_trash_this: float = -1.0  # losing the played card
    w_rule: float = 1.0  # points my made-up rule would score
    follow_threshold: float = 0.8  # follow when the gain beats this
    keep_cards: int = 2  # never follow below this many cards in hand
    yard_bonus: float = 0.0  # extra value of recruiting from a rival's Yard (denial)
    rough_housing: float = 99.0  # use Rough Housing on a played card worth more than this
    perk_order: tuple[str, ...] = (
        "Do-Over", "DIY", "XXL Backpack", "Sticky Fingers", "Birthday Party", "Copy Cat",
        "Recycling", "Bribe", "Rough Housing",
    )  # fmt: skip
    rule_bias: dict[str, float] = field(default_factory=dict)  # extra value per made-up rule


def econ_value(e: Econ, style: Style, rule: int = -1) -> float:
    """Worth of an economy to a player with ``style`` holding made-up rule ``rule`` (-1: none).

    ``w_score * score + level_value[level] + w_useful * (resources the next step needs) +
    w_surplus * (other resources) + w_pack * (Pack) + w_lookout * (Lookout) + counters
    (trashed, recruited, rival cards trashed, played card trashed) + w_rule * (made-up rule
    points from resources, Pack, Lookout or Fort Level)``.
    """
    v = style.w_score * e.score + style.level_value[min(e.level, MAX_FORT_LEVEL)]
    toys, pizza = e.total(TOYS), e.total(PIZZA)
    if e.level < MAX_FORT_LEVEL:
        step = e.fort_steps[e.level]
        use_t, use_p = min(toys, step.toys), min(pizza, step.pizza)
        rest = toys - use_t + pizza - use_p
        use_e = min(rest, step.either)
        useful = use_t + use_p + use_e
        v += style.w_useful * useful + style.w_surplus * (toys + pizza - useful)
    else:
        v += 0.2 * (toys + pizza)
    v += style.w_pack * (e.pack[0] + e.pack[1]) + style.w_lookout * e.lookout
    v += style.w_trash * e.trashed + style.w_recruit * e.recruited
    v += style.w_rival_trash * e.rival_trashed + style.w_trash_this * e.trash_this
    if rule >= 0:
        v += style.w_rule * _rule_points(e, rule)
    return v


def _rule_points(e: Econ, rule: int) -> float:
    if rule == RULE_INDEX["Piggy Bank"]:
        return e.total(TOYS)
    if rule == RULE_INDEX["Pizza Party"]:
        return e.total(PIZZA)
    if rule == RULE_INDEX["Secret Stash"]:
        return e.pack[0] + e.pack[1]
    if rule == RULE_INDEX["Popularity"]:
        return e.lookout
    if rule == RULE_INDEX["Minimalism"]:
        return 8.0 if e.level == 2 else 0.0
    return 0.0


# ---------------------------------------------------------------------- the interpreter
@dataclass
class Counts:
    """Multiplier counts for one action: suits (7), the "any one suit" count, and whether
    "any one suit" counts every suit (a follower's matching suits, docs/rules.md R11)."""

    suits: np.ndarray
    any_suit: int


def simulate(effect: Effect | None, e: Econ, counts: Counts, resource: int = -1) -> bool:
    """Run ``effect`` on ``e`` in place, as far as it goes; True if any step was done.

    ``resource`` fixes the pizza/toys choice of ``gather(any)``/``spend(any)`` (a follower
    takes the leader's choice, rulebook p.8).
    """
    if effect is None:
        return False
    e.choice = resource
    e.convert_from = -1
    start = (e.level, e.pack[0] + e.pack[1], e.lookout)
    return _run(effect, e, counts, start)


def _count(mult: int, arg: int, counts: Counts, start: tuple[int, int, int]) -> int:
    if mult == MULT_CONST:
        return arg
    if mult == MULT_SUIT:
        return int(counts.suits[arg])
    if mult == MULT_ANY_SUIT:
        return counts.any_suit
    if mult == MULT_FORT_LEVEL:
        return start[0]
    if mult == MULT_PACK_SIZE:
        return start[1]
    if mult == MULT_LOOKOUT_SIZE:
        return start[2]
    raise AssertionError(mult)


def _run(node: Effect, e: Econ, counts: Counts, start: tuple[int, int, int]) -> bool:
    if node[0] == ATOM:
        return _atom(node[1], node[2], e)
    if node[0] == THEN:
        if _run(node[1], e, counts, start):
            _run(node[2], e, counts, start)
            return True
        return False
    done = False
    for _ in range(min(MAX_REPEAT, _count(node[2], node[3], counts, start))):
        done = _run(node[1], e, counts, start) or done
    return done


def _atom(verb: int, arg: int, e: Econ) -> bool:
    if verb == GATHER:
        r = _choose(e, arg, gather=True)
        if e.stuff[r] >= STUFF_CAPACITY:
            return False
        e.stuff[r] += 1
        return True
    if verb == SCORE:
        e.score += 1
        return True
    if verb == PACK:
        if e.pack[0] + e.pack[1] >= e.pack_cap or e.stuff[0] + e.stuff[1] == 0:
            return False
        r = PIZZA if e.stuff[PIZZA] >= e.stuff[TOYS] else TOYS
        e.stuff[r] -= 1
        e.pack[r] += 1
        return True
    if verb == ADVANCE:
        return advance(e, arg)
    if verb == SPEND:
        r = _choose(e, arg, gather=False)
        if e.total(r) == 0:
            return False
        if e.stuff[r]:
            e.stuff[r] -= 1
        else:
            e.pack[r] -= 1
        return True
    if verb == LOOKOUT_V:
        if e.lookout >= e.level + 1 + e.lookout_bonus or e.spare_cards <= 0:
            return False
        e.lookout += 1
        e.spare_cards -= 1
        return True
    if verb == TRASH_V:
        e.trashed += 1
        return True
    if verb == TRASH_THIS:
        e.trash_this += 1
        return True
    if verb == RECRUIT:
        e.recruited += 1
        return True
    if verb == TRASH_RIVAL:
        if e.rival_yard_cards <= 0:
            return False
        e.rival_yard_cards -= 1
        e.rival_trashed += 1
        return True
    if verb == COPY_PACK:
        return _gain_pack(e, (e.pack[0], e.pack[1]))
    if verb == COPY_RIVAL_PACK:
        if not e.rival_packs:
            return False
        best = max(
            e.rival_packs, key=lambda p: min(p[0], 4 - e.stuff[0]) + min(p[1], 4 - e.stuff[1])
        )
        return _gain_pack(e, best)
    if verb == CONVERT:
        return _convert(e)
    return False  # a verb the model does not know gains nothing (as in its C++ twin, econ.cc)


def _choose(e: Econ, arg: int, gather: bool) -> int:
    if arg != ANY_RESOURCE:
        return arg
    if e.choice < 0:
        if gather:
            want = e.wanted()
            e.choice = want if e.stuff[want] < STUFF_CAPACITY else 1 - want
        else:  # spend the resource the next step needs less
            want = e.wanted()
            e.choice = 1 - want if e.total(1 - want) else want
    return e.choice


def _gain_pack(e: Econ, pack: tuple[int, int]) -> bool:
    gained = 0
    for r in (PIZZA, TOYS):
        add = min(pack[r], STUFF_CAPACITY - e.stuff[r])
        e.stuff[r] += add
        gained += add
    return gained > 0


def _convert(e: Econ) -> bool:
    if e.convert_from < 0:
        t, p, _ = e.need()
        e.convert_from = TOYS if p > t else PIZZA
    src = e.convert_from
    dst = 1 - src
    if e.stuff[src] and e.stuff[dst] < STUFF_CAPACITY:
        e.stuff[src] -= 1
        e.stuff[dst] += 1
        return True
    if e.pack[src]:
        e.pack[src] -= 1
        e.pack[dst] += 1
        return True
    return False


def advance_cost(e: Econ, modifier: int) -> tuple[int, int, int] | None:
    """``(toys, pizza, either)`` of the next Fort step with ``modifier`` (docs/rules.md R25)."""
    if e.level >= MAX_FORT_LEVEL:
        return None
    return game_advance_cost(e.fort_steps[e.level], modifier)


def advance(e: Econ, modifier: int) -> bool:
    """Pay for the next Fort Level (Stuff first) and go up; False if it cannot be paid."""
    cost = advance_cost(e, modifier)
    if cost is None:
        return False
    t, z, x = cost
    toys, pizza = e.total(TOYS), e.total(PIZZA)
    if toys < t or pizza < z or toys + pizza < t + z + x:
        return False
    for r, n in ((TOYS, t), (PIZZA, z)):
        _pay(e, r, n)
    for _ in range(x):  # "either": the resource with more left
        _pay(e, TOYS if e.total(TOYS) >= e.total(PIZZA) else PIZZA, 1)
    e.level += 1
    e.pack_cap += 1
    return True


def _pay(e: Econ, r: int, n: int) -> None:
    """Pay ``n`` of resource ``r``, Stuff first, then Pack."""
    from_stuff = min(n, e.stuff[r])
    e.stuff[r] -= from_stuff
    e.pack[r] -= n - from_stuff


def simulate_play(
    effects: tuple[Effect | None, Effect | None],
    order: tuple[int, ...],
    e: Econ,
    counts: Counts,
    resource: int = -1,
) -> Econ:
    """A copy of ``e`` after using the actions ``order`` (0 public, 1 private) in turn."""
    out = e.copy()
    for side in order:
        simulate(effects[side], out, counts, resource)
    return out
