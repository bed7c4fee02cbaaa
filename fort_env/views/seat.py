"""What one seat can see, as plain fields: the documented view that heuristic agents read.

A :class:`SeatView` holds exactly what the seat's observation holds
(``fort_env.views.observation``): its own cards by zone, the public zones of the table, resources,
Fort Levels, scores, perks, its own made-up rule, and the pending decision's public context. It
never holds a rival's hand or deck, the Park deck's contents, or a rival's made-up rule.

Two ways to build one, giving equal views of the same position (``tests/test_agents.py``):

- :meth:`SeatView.from_observation` decodes an observation vector (works from the PettingZoo
  env, where agents get only the observation and the mask);
- :meth:`SeatView.from_state` reads the engine state directly for one seat, copying only the
  fields the observation shows. It is much cheaper than computing the observation tensor, so
  the tournament runner and the search agents' rollouts use it. It reads the state's arrays,
  hence it is a view (``fort_env.views``): the bots above read the state only through this
  view and ``FortState``'s accessors (``tests/test_boundaries.py``).

Seats are *relative*: index 0 is the viewer, 1..n-1 the rivals in turn order (the rival to
the left first), as in the observation. ``COPY_RIVAL`` action ``k`` targets relative seat
``k + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from fort_env.game.constants import (
    DECK,
    DISCARD,
    HAND,
    IN_PLAY,
    IN_STACK,
    LOOKOUT,
    MAX_FORT_LEVEL,
    MAX_PLAYERS,
    NUM_SUITS,
    PARK,
    PARK_DECK,
    PERKS,
    SCORE_TRIGGER,
    STUFF_CAPACITY,
    XXL,
    XXL_BACKPACK_BONUS,
    YARD,
    ZONES,
)  # fmt: skip
from fort_env.game.decisions import DecisionKind
from fort_env.game.fields import C_STAGE
from fort_env.game.stages import ST_OVER
from fort_env.views.observation import observation_layout

if TYPE_CHECKING:  # below fort_env.core: the game's facts and the state's arrays, not FortState
    from fort_env.game.facts import GameFacts
    from fort_env.game.state_arrays import StateArrays

__all__ = ["SeatView"]


_EMPTY = np.zeros(0, dtype=np.int64)


_OWNER_SLOTS = MAX_PLAYERS + 1  # owners -1..3 as 0..4 in a (zone, owner) key


@dataclass
class SeatView:
    """One seat's view of a position (no hidden information).

    Card fields are ``int64`` arrays of card ids (indices into ``game.cards``), ascending.
    Per-seat arrays are indexed by relative seat (0 = me).

    Attributes:
        game: the static game facts (card set, layout, Fort costs).
        num_players: 2, 3 or 4.
        kind: the pending :class:`~fort_env.game.decisions.DecisionKind` (as an ``int``).
        actor: relative seat that must act (0 when I am asked).
        leader: relative seat of the leader (whose turn it is).
        hand, deck, discard, yard, lookout: my cards in each zone (deck: contents only).
        park: the face-up Park cards.
        in_play: the leader's played and added cards.
        park_deck_size: cards left in the Park deck.
        rival_yards: ``rival_yards[r - 1]`` are the Yard cards of relative seat ``r``.
        rival_lookout_suits: shape ``(n - 1, 7)``: suit counts shown in each rival's Lookout.
        resources: shape ``(n, 4)``: Stuff pizza, Stuff toys, Pack pizza, Pack toys.
        levels: shape ``(n,)``: Fort Levels.
        scores: shape ``(n,)``: Victory Track points.
        perks: shape ``(n, 9)`` bool: perks held.
        perk_row: shape ``(9,)`` bool: perks still in the row.
        my_rule: index of my made-up rule in ``MADE_UP_RULES``, or -1.
        rule_stack: shape ``(11,)`` bool: the rules I may pick (only while I pick one).
        played_card: the leader's played card, or -1.
        running_side: the action being resolved: 0 public, 1 private, -1 none.
        play_suits: shape ``(7,)``: suits counted for the played card so far.
        leader_resource: pizza (0) or toys (1) the leader chose in the public action, or -1.
        resource_choice: the resource chosen in the running action, or -1.
        cost_to_pay: ``(toys, pizza, either)`` left to pay for an Advance Fort.
        sculpture_free: the macaroni sculpture has not been taken.
        end_triggered: an end trigger has happened (rulebook p.10).
    """

    game: GameFacts
    num_players: int
    kind: int
    actor: int
    leader: int
    hand: np.ndarray
    deck: np.ndarray
    discard: np.ndarray
    yard: np.ndarray
    lookout: np.ndarray
    park: np.ndarray
    in_play: np.ndarray
    park_deck_size: int
    rival_yards: list[np.ndarray]
    rival_lookout_suits: np.ndarray
    resources: np.ndarray
    levels: np.ndarray
    scores: np.ndarray
    perks: np.ndarray
    perk_row: np.ndarray
    my_rule: int
    rule_stack: np.ndarray
    played_card: int
    running_side: int
    play_suits: np.ndarray
    leader_resource: int
    resource_choice: int
    cost_to_pay: tuple[int, int, int]
    sculpture_free: bool
    end_triggered: bool

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_observation(cls, observation: np.ndarray, game: GameFacts) -> SeatView:
        """Decode ``observation`` (float32, shape ``(game.observation_size,)``) of ``game``."""
        n = game.num_players
        lay = observation_layout(n, game)

        def v(name: str) -> np.ndarray:
            return lay.view(observation, name)

        def ids(name: str) -> np.ndarray:
            return np.flatnonzero(v(name) > 0.5)

        def onehot(name: str, default: int = -1) -> int:
            x = v(name)
            return int(np.argmax(x)) if x.max() > 0.5 else default

        cost = v("cost_to_pay")
        running = v("running_action")
        choice = v("resource_choice")
        sculpture = v("sculpture")
        return cls(
            game=game,
            num_players=n,
            kind=onehot("decision"),
            actor=onehot("actor", 0),
            leader=onehot("leader", 0),
            hand=ids("my_hand"),
            deck=ids("my_deck"),
            discard=ids("my_discard"),
            yard=ids("my_yard"),
            lookout=ids("my_lookout"),
            park=ids("park"),
            in_play=ids("in_play"),
            park_deck_size=round(float(v("park_deck_size")[0]) * 60),
            rival_yards=[np.flatnonzero(v("rival_yard")[r] > 0.5) for r in range(n - 1)],
            rival_lookout_suits=np.rint(v("rival_lookout_suits")[: n - 1]).astype(np.int64),
            resources=np.rint(v("resources")[:n]).astype(np.int64),
            levels=np.argmax(v("fort_level")[:n], axis=1).astype(np.int64),
            scores=np.rint(v("score")[:n] * SCORE_TRIGGER).astype(np.int64),
            perks=v("perks")[:n] > 0.5,
            perk_row=v("perk_row") > 0.5,
            my_rule=onehot("my_made_up_rule"),
            rule_stack=v("rule_stack") > 0.5,
            played_card=onehot("played_card"),
            running_side=0 if running[0] > 0.5 else (1 if running[1] > 0.5 else -1),
            play_suits=np.rint(v("play_suits")).astype(np.int64),
            leader_resource=int(np.argmax(choice[1])) if choice[1].max() > 0.5 else -1,
            resource_choice=int(np.argmax(choice[0])) if choice[0].max() > 0.5 else -1,
            cost_to_pay=(round(float(cost[0])), round(float(cost[1])), round(float(cost[2]))),
            sculpture_free=bool(sculpture[-1] > 0.5),
            end_triggered=bool(v("end_triggered")[0] > 0.5),
        )

    @classmethod
    def from_state(cls, state: StateArrays, seat: int) -> SeatView:
        """The view of absolute seat ``seat`` of ``state``: only what its observation shows."""
        g = state.game
        n = g.num_players
        order = [(seat + r) % n for r in range(n)]  # relative -> absolute
        # Cards grouped by (zone, owner) in one stable sort: each group is ascending card ids.
        key = state.zone.astype(np.int64) * _OWNER_SLOTS + state.owner + 1
        by_key = np.argsort(key, kind="stable")
        ends = np.cumsum(np.bincount(key, minlength=len(ZONES) * _OWNER_SLOTS)).tolist()

        def group(z: int, q: int) -> np.ndarray:  # q = -1: no owner
            k = z * _OWNER_SLOTS + q + 1
            return by_key[(ends[k - 1] if k else 0) : ends[k]]

        def my(z: int) -> np.ndarray:
            return group(z, seat)

        rival_yards = [group(YARD, q) for q in order[1:]]
        look = np.zeros((n - 1, NUM_SUITS), dtype=np.int64)
        for r, q in enumerate(order[1:]):
            cards = group(LOOKOUT, q)
            if len(cards):
                look[r] = g.suit_counts[cards].sum(axis=0)
        held = np.flatnonzero(state.rule_loc == seat)
        kind = state.decision_kind
        picking = kind == DecisionKind.PICK_RULE and state.actor == seat
        played = state.played_card
        terminal = state.ctx[C_STAGE] == ST_OVER  # FortState.is_terminal, one layer up
        return cls(
            game=g,
            num_players=n,
            kind=kind,
            actor=0 if terminal else (state.actor - seat) % n,
            leader=(state.leader - seat) % n,
            hand=my(HAND),
            deck=my(DECK),
            discard=my(DISCARD),
            yard=my(YARD),
            lookout=my(LOOKOUT),
            park=group(PARK, -1),  # Park and Park deck cards have no owner
            in_play=np.flatnonzero(state.zone == IN_PLAY),
            park_deck_size=len(group(PARK_DECK, -1)),
            rival_yards=rival_yards,
            rival_lookout_suits=look,
            resources=state.resources()[order],
            levels=state.fort_levels()[order],
            scores=state.scores()[order],
            perks=np.stack([state.perk_loc == q for q in order]),
            perk_row=state.perk_loc == IN_STACK,
            my_rule=int(held[0]) if len(held) else -1,
            rule_stack=(state.rule_loc == IN_STACK)
            if picking
            else np.zeros(len(state.rule_loc), bool),
            played_card=played if played >= 0 else -1,
            running_side=state.running_side,
            play_suits=state.play_suits.astype(np.int64),
            leader_resource=state.leader_resource,
            resource_choice=state.resource_choice,
            cost_to_pay=state.cost_to_pay,
            sculpture_free=state.macaroni_holder < 0,
            end_triggered=state.end_triggered,
        )

    # ------------------------------------------------------------------ derived facts
    def pack_capacity(self, r: int = 0) -> int:
        """Pack capacity of relative seat ``r``: Fort Level + 1, +2 with XXL Backpack (p.5, 16)."""
        bonus = XXL_BACKPACK_BONUS if self.perks[r, XXL] else 0
        return int(self.levels[r]) + 1 + bonus

    def lookout_capacity(self, r: int = 0) -> int:
        """Lookout capacity of relative seat ``r``: Fort Level + 1 (p.5)."""
        return int(self.levels[r]) + 1

    def has_perk(self, name: str, r: int = 0) -> bool:
        return bool(self.perks[r, PERKS.index(name)])

    def next_cost(self, r: int = 0) -> tuple[int, int, int]:
        """``(toys, pizza, either)`` to reach the next Fort Level, or zeros at Level 5."""
        level = int(self.levels[r])
        if level >= MAX_FORT_LEVEL:
            return (0, 0, 0)
        step = self.game.fort_steps[level]
        return (step.toys, step.pizza, step.either)

    def stuff_room(self, resource: int, r: int = 0) -> int:
        """Free Stuff space for pizza (0) or toys (1) of relative seat ``r``."""
        return STUFF_CAPACITY - int(self.resources[r, resource])

    def all_my_cards(self) -> np.ndarray:
        """Every card I have (deck, discard, hand, Yard, Lookout): what made-up rules count."""
        if (
            not len(self.hand)
            + len(self.deck)
            + len(self.discard)
            + len(self.yard)
            + len(self.lookout)
        ):
            return _EMPTY
        return np.concatenate([self.hand, self.deck, self.discard, self.yard, self.lookout])

    def equals(self, other: SeatView) -> bool:
        """Field-by-field equality (arrays compared by value)."""
        for name in self.__dataclass_fields__:
            a, b = getattr(self, name), getattr(other, name)
            if name == "game":
                continue
            if isinstance(a, list):
                if len(a) != len(b) or not all(
                    np.array_equal(x, y) for x, y in zip(a, b, strict=True)
                ):
                    return False
            elif isinstance(a, np.ndarray):
                if not np.array_equal(a, b):
                    return False
            elif a != b:
                return False
        return True
