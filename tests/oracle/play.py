"""Every complete play of the leader, enumerated from the rulebook (slow, small positions).

A second, independent interpretation of the part of the rules the legal-action masks decide:
from the leader's PLAY decision, which sequences of decisions make up a play that obeys the
rulebook. It reads the position only through ``FortState.to_dict()`` (the documented schema,
``docs/state.md``) and the card data (``fort_env.game.cards``), and it imports nothing from
``fort_env.game.rules`` (``tests/test_oracle.py`` checks this). It speaks the engine's action
numbers (``fort_env.game.actions.ActionLayout``) so that the two can be compared.

What it covers (the rulebook's words, p.7 and pp.12-14; decisions of ``docs/rules.md``):

- playing a card from hand, or skipping the Play phase (p.7);
- the played coin card's suit (R9), the mode (R2), "any one suit" (p.13), adding cards from
  hand and suits from the Lookout (p.6-7, R8), an added coin's suit (R9);
- "You must use at least one action on your card fully ... you can use the other action
  partially or fully, in either order" (p.7): the action named fully must do every step; in
  the other a step that cannot be done is skipped, and (R3, this round) once a step of it was
  done the player may stop before any further step that can be done, except inside a "then"
  chain one of whose steps was done (p.14: "you must do the action on the right if able") and
  except when a card was added only for that action (p.7: it must change the effect);
  "Then" (p.14, R6): the right side only if a step of the left was done; a blank action or
  zero repetitions is no full use (p.7, R4);
- "at least one of its suits must change the effect of at least one action that you use"
  (p.7, R7): an added card's suit is counted by a used action, and that action is the one used
  fully, or, in the action used partially, some step of the extra repetition the card brings
  is carried out in the play as actually played;
- every verb of the glossary (pp.12-13) with its choices: gather (one choice of resource per
  action), pack (XXL Backpack, Sticky Fingers), lookout (Bribe), trash, trash this card,
  recruit (not from your own Yard; the Park refilled from the Park deck), advance (paying unit
  by unit, R25's modifiers; made-up rule, perk and sculpture rewards, R24), score, spend,
  trash a rival's Yard card, copy your Pack or a rival's (an empty Pack is no use, R4),
  convert (one direction per action; README fact 2); multipliers counted when the action
  starts (R5).

- Recycling (p.16, "Anytime on your turn, you may trash this card to take a card from your
  discard pile and add it to your hand"; docs/rules.md R15) at every decision inside the
  leader's actions: before any of a step's choices, its stop or go on, or a reward's pick; a
  tuck can be done when a card can be recycled to tuck, and in the action used partially the
  player may pass instead (the step cannot be done without the perk).

Not covered: DIY and Recycling at the PLAY decision (their actions are left out of the
comparison), following, Do-Over, Rough Housing, the Recruit phase, and the draft.

Engine conventions the enumeration follows (how a rule becomes decisions, not rules): a
choice is asked even when only one option is left, except where noted in :func:`_step`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from fort_env.game.actions import ActionLayout
from fort_env.game.cards import (
    ADVANCE,
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
    REPEAT,
    SCORE,
    SPEND,
    THEN,
    TRASH_RIVAL,
    TRASH_THIS,
    TRASH_V,
    Card,
)
from fort_env.game.constants import MADE_UP_RULES, PERKS, SUITS

COIN = SUITS.index("coin")
PIZZA, TOYS = 0, 1
STUFF_CAP = 4  # of each resource (p.5)
BRIBE, STICKY, XXL, RECYCLING = (
    PERKS.index("Bribe"),
    PERKS.index("Sticky Fingers"),
    PERKS.index("XXL Backpack"),
    PERKS.index("Recycling"),
)
# mode -> (first side, second side or None, side used fully); 0 public, 1 private (p.7)
MODES = ((0, None, 0), (1, None, 1), (0, 1, 0), (0, 1, 1), (1, 0, 1), (1, 0, 0))


class TooBig(RuntimeError):
    """The enumeration went past its budget of explored branches."""


class Failed(Exception):
    """This branch breaks a rule (an action named fully cannot be completed)."""


@dataclass
class Table:
    """What the oracle knows of the position (its own copy, mutated along one branch)."""

    n: int
    leader: int
    where: dict[int, list[Any]]  # card -> [zone name, owner]
    park: dict[int, int]  # slot -> card
    park_deck: list[int]  # top first
    res: list[list[int]]  # seat -> [stuff pizza, stuff toys, pack pizza, pack toys]
    level: list[int]
    score: list[int]
    perks: list[set[int]]
    perk_row: list[int]
    rule_stack: list[int]
    has_rule: list[bool]
    sculpture: int
    coin_as: dict[int, int] = field(default_factory=dict)
    counts: list[int] = field(default_factory=lambda: [0] * len(SUITS))
    added: list[tuple[int, list[tuple[int, int]]]] = field(default_factory=list)
    done_tags: set[tuple[Any, ...]] = field(default_factory=set)
    any_suit: dict[int, int] = field(default_factory=dict)
    # the running action's own choices: its resource (p.12) and its convert direction
    choice: dict[str, int | None] = field(default_factory=dict)
    # the running action's progress: some step done, stopped (R3)
    progress: dict[str, Any] = field(default_factory=dict)

    def copy(self) -> Table:
        return Table(
            self.n, self.leader, {c: list(v) for c, v in self.where.items()}, dict(self.park),
            list(self.park_deck), [list(r) for r in self.res], list(self.level),
            list(self.score), [set(p) for p in self.perks], list(self.perk_row),
            list(self.rule_stack), list(self.has_rule), self.sculpture, dict(self.coin_as),
            list(self.counts), list(self.added), set(self.done_tags), dict(self.any_suit),
            dict(self.choice), dict(self.progress),
        )  # fmt: skip

    def cards(self, zone: str, seat: int | None = None) -> list[int]:
        return sorted(c for c, (z, o) in self.where.items()
                      if z == zone and (seat is None or o == seat))  # fmt: skip

    def pack_cap(self, p: int) -> int:
        return self.level[p] + 1 + (2 if XXL in self.perks[p] else 0)  # p.5, p.16

    def lookout_cap(self, p: int) -> int:
        return self.level[p] + 1  # p.5


def table_from_state(state: Any) -> Table:
    """The oracle's table, read from ``state.to_dict()`` (``docs/state.md``)."""
    d = state.to_dict()
    n = d["num_players"]
    where = {i: [c["zone"], c["owner"]] for i, c in enumerate(d["cards"])}
    park = {c["pos"]: i for i, c in enumerate(d["cards"]) if c["zone"] == "park"}
    deck = sorted((c["pos"], i) for i, c in enumerate(d["cards"]) if c["zone"] == "park_deck")
    ps = d["players"]
    res = [[p["stuff_pizza"], p["stuff_toys"], p["pack_pizza"], p["pack_toys"]] for p in ps]
    perks = [{i for i, k in enumerate(PERKS) if d["perks"][k] == p} for p in range(n)]
    rules = d["made_up_rules"]
    return Table(
        n=n, leader=d["ctx"]["leader"], where=where, park=park, park_deck=[i for _, i in deck],
        res=res, level=[p["fort_level"] for p in ps], score=[p["score"] for p in ps],
        perks=perks, perk_row=[i for i, k in enumerate(PERKS) if d["perks"][k] == -1],
        rule_stack=[i for i, k in enumerate(MADE_UP_RULES) if rules[k] == -1],
        has_rule=[any(rules[k] == p for k in MADE_UP_RULES) for p in range(n)],
        sculpture=d["ctx"]["sculpture"],
    )  # fmt: skip


Branch = tuple[Table, tuple[int, ...]]


class PlayOracle:
    """All complete plays of the leader from a PLAY decision (``state`` must be at one).

    ``plays`` is the set of action sequences, each a whole play, from the PLAY decision up to
    the end of the leader's actions (the followers' decisions come next). ``legal(prefix)``
    gives the actions the rules allow after ``prefix``; ``complete(prefix)`` whether ``prefix``
    is a whole play.

    Raises:
        TooBig: more than ``budget`` branches.
        ValueError: ``state`` is not at a leader's PLAY decision.
    """

    def __init__(self, state: Any, budget: int = 200_000, r7: str = "whole play") -> None:
        if state.decision_kind != 1 or state.actor != state.leader:
            raise ValueError("the oracle starts at the leader's PLAY decision")
        self.cards: tuple[Card, ...] = state.game.cards
        self.steps = state.game.fort_steps
        self.L = ActionLayout(len(self.cards))
        self.budget = budget
        t = table_from_state(state)
        self.check_adds = True
        self.plays = {seq for _, seq in self._play(t, ())}
        if r7 == "at add":
            # the engine's reading: an add is judged when it is made (some continuation in
            # which it changes the outcome); the choices after "stop adding" are then free
            strict = {self._adds_prefix(p) for p in self.plays}
            self.check_adds = False
            t = table_from_state(state)
            loose = {seq for _, seq in self._play(t, ())}
            self.plays = {p for p in loose if self._adds_prefix(p) in strict}
        elif r7 != "whole play":
            raise ValueError(f"r7 is 'whole play' or 'at add', not {r7!r}")

    def _adds_prefix(self, play: tuple[int, ...]) -> tuple[int, ...]:
        """The play up to its "stop adding" (the whole play if it has none)."""
        if self.L.STOP_ADDING in play:
            return play[: play.index(self.L.STOP_ADDING) + 1]
        return play

    def legal(self, prefix: tuple[int, ...]) -> set[int]:
        k = len(prefix)
        return {s[k] for s in self.plays if len(s) > k and s[:k] == prefix}

    def complete(self, prefix: tuple[int, ...]) -> bool:
        return prefix in self.plays

    # ------------------------------------------------------------------ the play (p.7)
    def _tick(self) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise TooBig

    def _play(self, t: Table, seq: tuple[int, ...]) -> Iterator[Branch]:
        yield t, (*seq, self.L.SKIP_PLAY)  # "you may skip this phase" (p.7)
        for c in t.cards("hand", t.leader):
            u = t.copy()
            u.where[c] = ["in_play", t.leader]
            for s in self.cards[c].suits:
                if s != COIN:
                    u.counts[s] += 1
            yield from self._declare(u, (*seq, self.L.PLAY_CARD + c), c)

    def _declare(self, t: Table, seq: tuple[int, ...], c: int) -> Iterator[Branch]:
        if COIN not in self.cards[c].suits:
            yield from self._modes(t, seq, c)
            return
        for s in range(len(SUITS)):  # any of the seven suits (R9)
            u = t.copy()
            u.coin_as[c] = s
            u.counts[s] += self.cards[c].suits.count(COIN)
            yield from self._modes(u, (*seq, self.L.SUIT + s), c)

    def _effect(self, c: int, side: int) -> Any:
        card = self.cards[c]
        return card.public_effect if side == 0 else card.private_effect

    def _modes(self, t: Table, seq: tuple[int, ...], c: int) -> Iterator[Branch]:
        for m, (first, second, full) in enumerate(MODES):
            if self._effect(c, full) is None:
                continue  # "using a blank action fully doesn't count" (p.7)
            used = [first] if second is None else [first, second]
            yield from self._any_suits(t, (*seq, self.L.MODE + m), c, used, full, used)

    def _any_suits(self, t, seq, c, used, full, todo) -> Iterator[Branch]:
        todo = [s for s in todo if _has_mult(self._effect(c, s), MULT_ANY_SUIT)]
        if not todo:
            yield from self._adds(t, seq, c, used, full)
            return
        for s in range(len(SUITS)):  # "any one of the suits, including the coin" (p.13)
            u = t.copy()
            u.any_suit[todo[0]] = s
            yield from self._any_suits(u, (*seq, self.L.SUIT + s), c, used, full, todo[1:])

    # ------------------------------------------------------------------ adding (p.6-7)
    def _adds(self, t: Table, seq, c, used, full) -> Iterator[Branch]:
        self._tick()
        counted = self._counted_suits(t, c, used)
        if not counted:  # convention: no ADD decision when no used action counts a suit
            yield from self._run_actions(t, seq, c, used, full)
            return
        yield from self._run_actions(t, (*seq, self.L.STOP_ADDING), c, used, full)
        me = t.leader
        for k in t.cards("hand", me) + t.cards("lookout", me):
            if any(a == k for a, _ in t.added):
                continue
            card = self.cards[k]
            plain = [s for s in card.suits if s != COIN]
            coins = card.suits.count(COIN)
            choices = list(range(len(SUITS))) if coins else [None]
            for s_coin in choices:
                suits = plain + ([s_coin] * coins if s_coin is not None else [])
                if not any(s in counted for s in suits):
                    continue  # none of its suits serves a purpose (p.7)
                u = t.copy()
                if u.where[k][0] == "hand":
                    u.where[k] = ["in_play", me]
                gained = []
                for s in suits:
                    u.counts[s] += 1
                    gained.append((s, u.counts[s]))  # this suit's repetition it brings
                if s_coin is not None:
                    u.coin_as[k] = s_coin
                u.added = [*u.added, (k, gained)]
                step = (*seq, self.L.ADD_CARD + k)
                if s_coin is not None:
                    step = (*step, self.L.SUIT + s_coin)
                yield from self._adds(u, step, c, used, full)

    def _counted_suits(self, t: Table, c: int, used: list[int]) -> set[int]:
        out: set[int] = set()
        for side in used:
            for mult, arg in _mults(self._effect(c, side)):
                if mult == MULT_SUIT:
                    out.add(arg)
                elif mult == MULT_ANY_SUIT:
                    out.add(t.any_suit[side])
        return out

    # ------------------------------------------------------------------ the actions
    def _run_actions(self, t: Table, seq, c, used, full) -> Iterator[Branch]:
        def run(i: int, t: Table, seq: tuple[int, ...]) -> Iterator[Branch]:
            if i == len(used):
                if not self.check_adds or self._adds_justified(t, c, used, full):
                    yield t, seq
                return
            side = used[i]
            tree = self._unroll(t, self._effect(c, side), side)
            # R3: the action used partially may stop after any step, unless an added card was
            # allowed only for it (no suit counted by the action used fully)
            full_suits = self._counted_suits(t, c, [full])
            committed = any(not any(s in full_suits for s, _ in gained) for _, gained in t.added)
            ctx = {"full": side == full, "side": side, "stoppable": side != full and not committed,
                   "thens": ()}  # fmt: skip
            t = t.copy()
            t.choice = {"resource": None, "convert": None}
            t.progress = {"did": False, "stopped": False, "begun": frozenset()}
            for u, s2, did in self._node(t, seq, tree, ctx):
                if side == full and not did:
                    continue  # zero steps done is no full use (p.7, R4)
                yield from run(i + 1, u, s2)

        yield from run(0, t, seq)

    def _adds_justified(self, t: Table, c: int, used: list[int], full: int) -> bool:
        """R7 / p.7: each added card brings a repetition of a used action that is the one used
        fully, or of which some step was carried out in the partial action."""
        for _, gained in t.added:
            ok = False
            for side in used:
                for path, mult, arg in _repeats(self._effect(c, side)):
                    suit = t.any_suit.get(side) if mult == MULT_ANY_SUIT else arg
                    if mult not in (MULT_SUIT, MULT_ANY_SUIT):
                        continue
                    for s, rep in gained:
                        if s != suit:
                            continue
                        if side == full or (side, path, rep) in t.done_tags:
                            ok = True
            if not ok:
                return False
        return True

    def _unroll(self, t: Table, node: Any, side: int, path: tuple[int, ...] = ()) -> Any:
        """The tree with every multiplier's count fixed now (R5)."""
        if node is None:
            return None
        if node[0] == ATOM:
            return node
        if node[0] == THEN:
            return (THEN, self._unroll(t, node[1], side, (*path, 1)),
                    self._unroll(t, node[2], side, (*path, 2)))  # fmt: skip
        mult, arg = node[2], node[3]
        p = t.leader
        if mult == MULT_SUIT:
            n = t.counts[arg]
        elif mult == MULT_ANY_SUIT:
            n = t.counts[t.any_suit[side]]
        elif mult == MULT_FORT_LEVEL:
            n = t.level[p]
        elif mult == MULT_PACK_SIZE:
            n = t.res[p][2] + t.res[p][3]
        elif mult == MULT_LOOKOUT_SIZE:
            n = len(t.cards("lookout", p))
        else:
            assert mult == MULT_CONST
            n = arg
        return ("N", self._unroll(t, node[1], side, (*path, 0)), n, path)

    def _node(self, t: Table, seq, node, ctx, tag=()) -> Iterator[tuple[Table, tuple, bool]]:
        """Carry out ``node``: yields (table, sequence, whether some step was done)."""
        if node is None:
            yield t, seq, False
            return
        kind = node[0]
        if kind == ATOM:
            yield from self._atom(t, seq, node[1], node[2], ctx, tag)
        elif kind == THEN:  # "You must do the action on the left in order to do the action on
            # the right, and you must do the action on the right if able" (p.14)
            # once a step of the chain was done, its right side is done if it can: no stop
            # anywhere inside the chain after its first step (R3)
            inner = {**ctx, "thens": (*ctx["thens"], (id(node), tag))}
            for u, s2, did in self._node(t, seq, node[1], inner, tag):
                if not did:
                    if not ctx["full"]:
                        yield u, s2, False
                    continue
                for w, s3, _ in self._node(u, s2, node[2], inner, tag):
                    yield w, s3, True
        else:
            _, body, n, path = node

            def rep(i: int, t: Table, seq: tuple, did: bool) -> Iterator:
                if i > n:
                    yield t, seq, did
                    return
                for u, s2, d in self._node(t, seq, body, ctx, (*tag, (path, i))):
                    yield from rep(i + 1, u, s2, did or d)

            yield from rep(1, t, seq, False)

    def _atom(self, t: Table, seq, verb, arg, ctx, tag) -> Iterator[tuple[Table, tuple, bool]]:
        self._tick()
        if t.progress["stopped"]:
            yield t, seq, False  # the action was stopped (R3): no further step
            return
        options = list(self._step(t, verb, arg, ctx))
        if not options:  # the step cannot be done
            if ctx["full"]:
                return  # the action named fully fails (p.7)
            yield t, seq, False  # a step that cannot be done is skipped (R3)
            return
        begun = any(m in t.progress["begun"] for m in ctx["thens"])
        if ctx["stoppable"] and not begun and t.progress["did"]:
            # "you can use the other action partially or fully" (p.7, R3): stop here or go on,
            # Recycling first or not
            for r, s1 in self._recycles(t, seq):
                u = r.copy()
                u.progress = {**r.progress, "stopped": True}
                yield u, (*s1, self.L.STOP_ACTION), False
                yield from self._do_step(r, (*s1, self.L.CONTINUE_ACTION), verb, arg, ctx, tag)
            return
        yield from self._do_step(t, seq, verb, arg, ctx, tag)

    def _do_step(self, t: Table, seq, verb, arg, ctx, tag) -> Iterator[tuple[Table, tuple, bool]]:
        """The step's choices (a step that can be done), Recycling before any one of them."""
        for actions, change in self._step(t, verb, arg, ctx):
            if change is None:  # a tuck only Recycling could make, declined (R15)
                yield t, (*seq, *actions), False
                continue
            ways = [(actions, change)]
            if verb != LOOKOUT_V:  # a tuck's own options recycle (_step)
                for k in self._recyclable(t):
                    # before the step's i-th choice; the card moves first (a trash may take it)
                    ways += [((*actions[:i], self.L.RECYCLE + k, *actions[i:]),
                              _both(_recycle(t.leader, k), change))
                             for i in range(len(actions))]  # fmt: skip
            for acts, how in ways:
                u = t.copy()
                how(u)
                u.progress = {"did": True, "stopped": False,
                              "begun": t.progress["begun"] | set(ctx["thens"])}  # fmt: skip
                for path, i in tag:
                    u.done_tags.add((ctx["side"], path, i))
                yield from self._after_step(u, (*seq, *acts), verb)

    def _recyclable(self, t: Table) -> list[int]:
        """The cards the leader may recycle now (p.16): its discard pile, if it holds the perk."""
        return t.cards("discard", t.leader) if RECYCLING in t.perks[t.leader] else []

    def _recycles(self, t: Table, seq: tuple[int, ...]) -> Iterator[tuple[Table, tuple]]:
        """Before a decision: Recycling not used, or used on each card it may take."""
        yield t, seq
        for k in self._recyclable(t):
            u = t.copy()
            _recycle(t.leader, k)(u)
            yield u, (*seq, self.L.RECYCLE + k)

    def _after_step(self, t: Table, seq, verb) -> Iterator[tuple[Table, tuple, bool]]:
        """Fort Level rewards after an advance (p.10, R24), then the step is done."""
        if verb != ADVANCE:
            yield t, seq, True
            return
        lv = t.level[t.leader]
        if lv == 1 and t.rule_stack and not t.has_rule[t.leader]:
            for r0, s0 in self._recycles(t, seq):
                for r in r0.rule_stack:
                    u = r0.copy()
                    u.rule_stack.remove(r)
                    u.has_rule[t.leader] = True
                    yield u, (*s0, self.L.PICK_RULE + r), True
        elif lv == 2 and t.perk_row:
            for r0, s0 in self._recycles(t, seq):
                for k in r0.perk_row:
                    u = r0.copy()
                    u.perk_row.remove(k)
                    u.perks[t.leader].add(k)
                    yield u, (*s0, self.L.PICK_PERK + k), True
        else:
            if lv == 5 and t.sculpture < 0:
                t.sculpture = t.leader
            yield t, seq, True

    # ------------------------------------------------------------------ verbs (pp.12-13)
    def _step(self, t: Table, verb: int, arg: int, ctx: dict) -> Iterator[tuple[tuple, Any]]:
        """The ways of doing one step: (actions, change) pairs; none if it cannot be done."""
        L, p = self.L, t.leader
        r = t.res[p]
        if verb == GATHER:
            chosen = arg if arg != 2 else t.choice["resource"]
            if chosen is not None:
                if r[chosen] < STUFF_CAP:
                    yield (), _gain(p, chosen)
                return
            for x in (PIZZA, TOYS):  # choose once for the whole action (p.12)
                if r[x] < STUFF_CAP:
                    yield (L.RESOURCE + x,), _both(_gain(p, x), _remember("resource", x))
        elif verb == SPEND:  # from Stuff or Pack (p.13); "any": the resource is asked first
            chosen = arg if arg != 2 else t.choice["resource"]
            for res_i, from_pack in ((1, False), (1, True), (0, False), (0, True)):
                if chosen is not None and res_i != chosen:
                    continue
                if r[res_i + 2 * from_pack] > 0:
                    change = _spend(p, res_i + 2 * from_pack)
                    act = (L.SPEND_FROM + _idx(res_i, from_pack),)
                    if chosen is None:
                        change = _both(change, _remember("resource", res_i))
                        act = (L.RESOURCE + res_i, *act)
                    yield act, change
        elif verb == PACK:
            if r[2] + r[3] >= t.pack_cap(p):
                return
            for i, (res_i, supply) in enumerate(((0, False), (1, False), (0, True), (1, True))):
                if supply and STICKY not in t.perks[p]:
                    continue
                if not supply and r[res_i] == 0:
                    continue
                yield (L.PACK_FROM + i,), _pack(p, res_i, supply)
        elif verb == LOOKOUT_V:
            if len(t.cards("lookout", p)) >= t.lookout_cap(p):
                return
            sources = t.cards("hand", p)
            deck = BRIBE in t.perks[p] and bool(t.park_deck)
            if BRIBE in t.perks[p]:  # Park, any Yard (own included), top of the Park deck
                sources = sources + sorted(t.park.values()) + t.cards("yard")
                if deck:
                    yield (L.LOOKOUT_PARK_DECK,), _tuck(p, t.park_deck[0])
            for k in sorted(set(sources)):
                yield (L.LOOKOUT_CARD + k,), _tuck(p, k)
            # Recycling first (p.16, R15): the recycled card may be tucked, or another
            for j in self._recyclable(t):
                rec = (L.RECYCLE + j,)
                if deck:
                    yield (
                        (*rec, L.LOOKOUT_PARK_DECK),
                        _both(_recycle(p, j), _tuck(p, t.park_deck[0])),
                    )
                for k in sorted({*sources, j}):
                    yield (*rec, L.LOOKOUT_CARD + k), _both(_recycle(p, j), _tuck(p, k))
            if not sources and not deck and self._recyclable(t) and not ctx["full"]:
                yield (L.PASS,), None  # the perk is not used: no card, the step is skipped
        elif verb == TRASH_V:  # hand or discard pile, not played or added cards (p.12)
            for k in t.cards("hand", p) + t.cards("discard", p):
                yield (L.TRASH_CARD + k,), _move(k, "trash", -1)
        elif verb == TRASH_THIS:
            yield (), _nothing
        elif verb == RECRUIT:  # p.9; not from your own Yard (README fact 8)
            for k in sorted(t.park.values()):
                yield (L.RECRUIT_CARD + k,), _recruit(p, k)
            for k in t.cards("yard"):
                if t.where[k][1] != p:
                    yield (L.RECRUIT_CARD + k,), _recruit(p, k)
            if t.park_deck:
                yield (L.RECRUIT_PARK_DECK,), _recruit(p, t.park_deck[0])
        elif verb == ADVANCE:
            if t.level[p] >= 5:
                return
            cost = self._cost(t.level[p], arg)
            if _payable(cost, r):
                yield from self._pay(t, cost, (), [])
        elif verb == SCORE:
            yield (), _score(p)
        elif verb == TRASH_RIVAL:
            for k in t.cards("yard"):
                if t.where[k][1] != p:
                    yield (L.TRASH_RIVAL_CARD + k,), _move(k, "trash", -1)
        elif verb in (COPY_PACK, COPY_RIVAL_PACK):
            # "Gain the same resources currently in ... Pack" (p.13): used fully, all of them
            # must fit in the Stuff (4 of each); used partially, what fits; gaining nothing
            # (an empty Pack, a full Stuff) is no use (R4)
            seats = (
                [(p, ())]
                if verb == COPY_PACK
                else [((p + k) % t.n, (L.COPY_RIVAL + k - 1,)) for k in range(1, t.n)]
            )  # to the left
            for q, act in seats:
                pz, ty = t.res[q][2], t.res[q][3]
                fits = r[0] + pz <= STUFF_CAP and r[1] + ty <= STUFF_CAP
                if _gains(r, pz, ty) and (fits or not ctx["full"]):
                    yield act, _copy(p, pz, ty)
        elif verb == CONVERT:  # one direction for the whole action (README fact 2)
            for i, (frm, in_pack) in enumerate(((0, False), (0, True), (1, False), (1, True))):
                if t.choice["convert"] is not None and frm != t.choice["convert"]:
                    continue
                to = 1 - frm
                if r[frm + 2 * in_pack] == 0 or (not in_pack and r[to] >= STUFF_CAP):
                    continue
                yield (L.CONVERT + i,), _both(_convert(p, frm, in_pack), _remember("convert", frm))

    def _cost(self, level: int, mod: int) -> tuple[int, int, int]:
        """(toys, pizza, either) to go up from ``level`` (fort.toml), with R25's modifier."""
        s = self.steps[level]
        t, z, e = s.toys, s.pizza, s.either
        if mod == 1:
            e += 1
        elif mod == -1:
            if t and z:
                t, z, e = t - 1, z - 1, e + 1  # "one less ... of either type" (R25)
            elif t:
                t -= 1
            elif z:
                z -= 1
            else:
                e = max(e - 1, 0)
        return t, z, e

    def _pay(self, t: Table, cost, acts, pays) -> Iterator[tuple[tuple, Any]]:
        """Pay unit by unit, only payments that leave the rest payable (R25)."""
        if sum(cost) == 0:
            yield tuple(acts), _both(_pay_all(t.leader, pays), _level_up(t.leader))
            return
        r = list(t.res[t.leader])
        for _, place in pays:
            r[place] -= 1
        for i, (res_i, from_pack) in enumerate(((1, False), (1, True), (0, False), (0, True))):
            place = res_i + 2 * from_pack
            if r[place] == 0:
                continue
            toys, pizza, either = cost
            if res_i == TOYS and toys:
                rest = (toys - 1, pizza, either)
            elif res_i == PIZZA and pizza:
                rest = (toys, pizza - 1, either)
            elif either:
                rest = (toys, pizza, either - 1)
            else:
                continue
            r2 = list(r)
            r2[place] -= 1
            if _payable(rest, r2):
                yield from self._pay(t, rest, (*acts, self.L.PAY + i), [*pays, (res_i, place)])


# ---------------------------------------------------------------------- small helpers
def _payable(cost: tuple[int, int, int], r: list[int]) -> bool:
    toys, pizza, either = cost
    have_t, have_p = r[1] + r[3], r[0] + r[2]
    return have_t >= toys and have_p >= pizza and have_t - toys + have_p - pizza >= either


def _gains(r: list[int], pizza: int, toys: int) -> bool:
    """Copying ``pizza``/``toys`` adds something to a Stuff of ``r`` (4 of each at most)."""
    return (pizza > 0 and r[0] < STUFF_CAP) or (toys > 0 and r[1] < STUFF_CAP)


def _idx(res_i: int, from_pack: bool) -> int:
    return ((1, False), (1, True), (0, False), (0, True)).index((res_i, from_pack))


def _has_mult(node: Any, mult: int) -> bool:
    return any(m == mult for m, _ in _mults(node))


def _mults(node: Any) -> list[tuple[int, int]]:
    return [(m, a) for _, m, a in _repeats(node)]


def _repeats(node: Any, path: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], int, int]]:
    """(path, mult, arg) of every repeat in a tree; paths as in ``PlayOracle._unroll``."""
    if node is None or node[0] == ATOM:
        return []
    if node[0] == THEN:
        return _repeats(node[1], (*path, 1)) + _repeats(node[2], (*path, 2))
    assert node[0] == REPEAT
    return [(path, node[2], node[3]), *_repeats(node[1], (*path, 0))]


def _both(f, g):
    def change(t: Table) -> None:
        f(t)
        g(t)

    return change


def _nothing(t: Table) -> None:
    pass


def _remember(key: str, value: int):
    def change(t: Table) -> None:
        t.choice[key] = value

    return change


def _gain(p: int, x: int):
    def change(t: Table) -> None:
        t.res[p][x] += 1

    return change


def _spend(p: int, place: int):
    def change(t: Table) -> None:
        t.res[p][place] -= 1

    return change


def _pack(p: int, x: int, supply: bool):
    def change(t: Table) -> None:
        if not supply:
            t.res[p][x] -= 1
        t.res[p][2 + x] += 1

    return change


def _score(p: int):
    def change(t: Table) -> None:
        t.score[p] += 1

    return change


def _copy(p: int, pizza: int, toys: int):
    def change(t: Table) -> None:
        t.res[p][0] = min(STUFF_CAP, t.res[p][0] + pizza)
        t.res[p][1] = min(STUFF_CAP, t.res[p][1] + toys)

    return change


def _convert(p: int, frm: int, in_pack: bool):
    def change(t: Table) -> None:
        base = 2 if in_pack else 0
        t.res[p][base + frm] -= 1
        t.res[p][base + 1 - frm] += 1

    return change


def _move(k: int, zone: str, owner: int):
    def change(t: Table) -> None:
        _take(t, k)
        t.where[k] = [zone, owner]

    return change


def _take(t: Table, k: int) -> None:
    """Lift card ``k`` from where it is; a Park slot is refilled from the Park deck (p.9)."""
    if t.where[k][0] == "park":
        slot = next(s for s, c in t.park.items() if c == k)
        del t.park[slot]
        if t.park_deck:
            top = t.park_deck.pop(0)
            t.park[slot] = top
            t.where[top] = ["park", -1]
    elif t.where[k][0] == "park_deck":
        t.park_deck.remove(k)


def _recruit(p: int, k: int):
    return _move(k, "discard", p)


def _recycle(p: int, k: int):
    """Recycling: the discard pile's card ``k`` to hand, the perk trashed (p.16)."""

    def change(t: Table) -> None:
        t.where[k] = ["hand", p]
        t.perks[p].discard(RECYCLING)

    return change


def _tuck(p: int, k: int):
    return _move(k, "lookout", p)


def _pay_all(p: int, pays: list[tuple[int, int]]):
    def change(t: Table) -> None:
        for _, place in pays:
            t.res[p][place] -= 1

    return change


def _level_up(p: int):
    def change(t: Table) -> None:
        t.level[p] += 1

    return change
