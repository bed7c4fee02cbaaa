"""The game state as numpy arrays: layout, clone, and the JSON-able dict (``docs/state.md``).

Every field of a position lives in a few small integer arrays plus one int64 array of
scalars (``ctx``), so ``clone()`` is a handful of copies and ``to_dict()``/``from_dict()``
round-trip exactly. ``ctx`` is an ``array.array("q")`` rather than a numpy array because the
engine reads and writes single fields of it constantly: an item of it costs about a third of a
numpy scalar access (docs/performance.md); it is the same int64 buffer either way.

Randomness is counter-based: ``ctx["seed"]`` and ``ctx["shuffles"]`` (random events so far)
key each event's generator (``fort_env.game.rng``), so two integers carry its whole state.

Besides the arrays, the state offers a small read-only accessor API (``fort_level``,
``stuff``, ``pack``, ``score``, ``cards_in``...) for agents and views, so that nothing above
the rules needs the layout constants.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any

import numpy as np

from fort_env.game.cards import MAX_ACTION_STEPS
from fort_env.game.constants import IN_BOX, IN_STACK, MADE_UP_RULES, NUM_SUITS, PERKS, USED, ZONES
from fort_env.game.decisions import DecisionKind
from fort_env.game.errors import StateError, describe
from fort_env.game.facts import config_card_set
from fort_env.game.fields import (
    C_ACTOR,
    C_DECISION,
    C_END_TRIGGERED,
    C_LEADER,
    C_LEADER_RESOURCE,
    C_PAY_EITHER,
    C_PAY_PIZZA,
    C_PAY_TOYS,
    C_PLAYED_CARD,
    C_PLAYS,
    C_PROGRAM_LENGTH,
    C_PROGRAM_SIDE,
    C_RESOURCE_CHOICE,
    C_SCULPTURE,
    C_STAGE,
    P_FORT_LEVEL,
    P_PACK_PIZZA,
    P_PACK_TOYS,
    P_SCORE,
    P_STUFF_PIZZA,
    P_STUFF_TOYS,
    P_TURNS,
)
from fort_env.game.schema import CTX_TABLE, PLAYER_TABLE
from fort_env.game.stages import NUM_STAGES, ST_ACTION, ST_FOLLOW_RUN
from fort_env.game.verb_table import PROG_COLUMNS

if TYPE_CHECKING:
    from fort_env.game.facts import GameFacts

STATE_VERSION = 1
_RUNNING_STAGES = (ST_ACTION, ST_FOLLOW_RUN)  # stages in which an action is being carried out
MAX_STEPS = MAX_ACTION_STEPS  # longest unrolled action; card data is checked at load (cards.py)

# The named fields (scalars of ctx, columns of players) come from one table for both engines
# (fort_env/game/schema.py); their index constants C_*/P_* are generated into fields.py with the
# C++ spelling, and imported from there.
CTX_FIELDS: tuple[str, ...] = tuple(name for name, _ in CTX_TABLE)  # keys of to_dict()["ctx"]
CTX_DEFAULTS: tuple[int, ...] = tuple(default for _, default in CTX_TABLE)
PLAYER_FIELDS: tuple[str, ...] = PLAYER_TABLE  # keys of to_dict()["players"][p]

# name -> (dtype, shape given (num_cards, num_players)); the arrays of a state, in order.
ARRAYS: dict[str, tuple[type, Any]] = {
    "zone": (np.int8, lambda c, n: (c,)),  # constants.ZONES code of each card
    "owner": (np.int8, lambda c, n: (c,)),  # seat holding it, -1 for none
    "pos": (np.int16, lambda c, n: (c,)),  # order in a deck (lowest on top) or Park slot
    "mark": (np.int8, lambda c, n: (c,)),  # 1: added to the current play
    "coin_as": (np.int8, lambda c, n: (c,)),  # declared suit of a played/added coin, -1
    "players": (np.int16, lambda c, n: (n, len(PLAYER_FIELDS))),
    "rule_loc": (np.int8, lambda c, n: (len(MADE_UP_RULES),)),  # seat, -1 stack, -2 box
    "perk_loc": (np.int8, lambda c, n: (len(PERKS),)),  # seat, -1 row, -2 box, -3 used
    "play_suits": (np.int16, lambda c, n: (NUM_SUITS,)),  # suits counted by the play
    # the running action: one row per step (columns verb_table.PROG_COLUMNS: verb, arg, req_lo,
    # req_hi); read-only once built (shared)
    "prog": (np.int16, lambda c, n: (MAX_STEPS, len(PROG_COLUMNS))),
    "done": (np.int8, lambda c, n: (MAX_STEPS,)),  # 1: that step was carried out
}


class StateArrays:
    """Holder of a state's arrays and its read-only accessors; the rules are functions over it
    (``fort_env.game.rules``) and ``fort_env.core.FortState`` is the public class."""

    # legal_cache: the acting player's legal actions, computed once per position by
    # rules.search; every mutation goes through rules.handlers.apply, which clears it (clones
    # start without it).
    __slots__ = ("legal_cache", "game", "ctx", *ARRAYS)
    legal_cache: list[int] | None
    game: GameFacts
    zone: np.ndarray
    owner: np.ndarray
    pos: np.ndarray
    mark: np.ndarray
    coin_as: np.ndarray
    players: np.ndarray
    rule_loc: np.ndarray
    perk_loc: np.ndarray
    play_suits: np.ndarray
    prog: np.ndarray
    done: np.ndarray
    ctx: array  # array("q"): int64 scalars named by CTX_FIELDS

    @classmethod
    def empty(cls, game: GameFacts) -> Any:
        s = cls.__new__(cls)
        s.game = game
        s.legal_cache = None
        for name, (dtype, shape) in ARRAYS.items():
            setattr(s, name, np.zeros(shape(game.num_cards, game.num_players), dtype=dtype))
        s.owner[:] = -1
        s.coin_as[:] = -1
        s.ctx = array("q", CTX_DEFAULTS)
        return s

    def clone(self) -> Any:
        """An independent copy (copies every array; shares only the immutable game)."""
        s = object.__new__(type(self))
        s.game = self.game
        s.legal_cache = None
        s.zone = self.zone.copy()
        s.owner = self.owner.copy()
        s.pos = self.pos.copy()
        s.mark = self.mark.copy()
        s.coin_as = self.coin_as.copy()
        s.players = self.players.copy()
        s.rule_loc = self.rule_loc.copy()
        s.perk_loc = self.perk_loc.copy()
        s.play_suits = self.play_suits.copy()
        s.prog = self.prog  # read-only, shared: the engine replaces it, never writes into it
        s.done = self.done.copy()
        s.ctx = self.ctx[:]
        return s

    __copy__ = clone

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return self.clone()

    def _config(self) -> dict[str, Any]:
        g = self.game
        return {"num_players": g.num_players, "setup": g.setup, "card_set": config_card_set(g)}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StateArrays) or other.game is not self.game:
            return NotImplemented
        return self.ctx == other.ctx and all(
            np.array_equal(getattr(self, n), getattr(other, n)) for n in ARRAYS
        )

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ accessors
    # Read-only views of a position for agents and views (rulebook terms; seats 0..n-1).
    def cards_in(self, zone: int, seat: int | None = None) -> np.ndarray:
        """Ids of the cards in ``zone`` (a ``constants`` zone code), of ``seat`` if given:
        int64 array, ascending ids (not deck order; see ``deck_order``)."""
        if seat is None:
            return (self.zone == zone).nonzero()[0]
        return ((self.zone == zone) & (self.owner == seat)).nonzero()[0]

    def count_in(self, zone: int, seat: int) -> int:
        """How many cards of ``seat`` are in ``zone``."""
        return int(np.count_nonzero((self.zone == zone) & (self.owner == seat)))

    def fort_level(self, seat: int) -> int:
        """``seat``'s Fort Level, 0..5 (p.10)."""
        return int(self.players[seat, P_FORT_LEVEL])

    def stuff(self, seat: int) -> tuple[int, int]:
        """``(pizza, toys)`` in ``seat``'s Stuff (at most 4 each, p.5)."""
        return int(self.players[seat, P_STUFF_PIZZA]), int(self.players[seat, P_STUFF_TOYS])

    def pack(self, seat: int) -> tuple[int, int]:
        """``(pizza, toys)`` in ``seat``'s Pack (p.5)."""
        return int(self.players[seat, P_PACK_PIZZA]), int(self.players[seat, P_PACK_TOYS])

    def score(self, seat: int) -> int:
        """``seat``'s points on the score track (not the final score; see ``scoring``)."""
        return int(self.players[seat, P_SCORE])

    def turns_taken(self, seat: int) -> int:
        """How many turns ``seat`` has finished."""
        return int(self.players[seat, P_TURNS])

    def perks_of(self, seat: int) -> list[int]:
        """Perk indices (``constants.PERKS``) ``seat`` holds, unused."""
        return [int(i) for i in (self.perk_loc == seat).nonzero()[0]]

    def made_up_rule_of(self, seat: int) -> int:
        """The made-up rule index ``seat`` holds (``constants.MADE_UP_RULES``), or -1.

        Private to ``seat``: an agent may read only its own."""
        held = (self.rule_loc == seat).nonzero()[0]
        return int(held[0]) if len(held) else -1

    def perks_available(self) -> list[int]:
        """Perk indices still in the face-up row (p.2 step 7)."""
        return [int(i) for i in (self.perk_loc == IN_STACK).nonzero()[0]]

    def fort_levels(self) -> np.ndarray:
        """Every seat's Fort Level: int64 array, shape ``(num_players,)``."""
        return self.players[:, P_FORT_LEVEL].astype(np.int64)

    def scores(self) -> np.ndarray:
        """Every seat's score-track points: int64 array, shape ``(num_players,)``."""
        return self.players[:, P_SCORE].astype(np.int64)

    def resources(self) -> np.ndarray:
        """Every seat's resources: int64 array, shape ``(num_players, 4)``, columns Stuff
        pizza, Stuff toys, Pack pizza, Pack toys."""
        return self.players[:, [P_STUFF_PIZZA, P_STUFF_TOYS, P_PACK_PIZZA, P_PACK_TOYS]].astype(
            np.int64
        )

    @property
    def plays_this_turn(self) -> int:
        """Cards (or DIY) the leader has played this turn: 0, 1, or 2 with Do-Over."""
        return int(self.ctx[C_PLAYS])

    @property
    def running_side(self) -> int:
        """The side (``actions.PUBLIC``/``PRIVATE``) of the action being carried out, or -1."""
        return int(self.ctx[C_PROGRAM_SIDE]) if self.ctx[C_STAGE] in _RUNNING_STAGES else -1

    @property
    def leader_resource(self) -> int:
        """The resource the leader chose for an "any resource" step (followers take it), -1."""
        return int(self.ctx[C_LEADER_RESOURCE])

    @property
    def resource_choice(self) -> int:
        """The resource chosen for the running action's "any resource" steps, or -1."""
        return int(self.ctx[C_RESOURCE_CHOICE])

    @property
    def cost_to_pay(self) -> tuple[int, int, int]:
        """``(toys, pizza, either)`` left to pay for the Fort Level being bought (p.10)."""
        return int(self.ctx[C_PAY_TOYS]), int(self.ctx[C_PAY_PIZZA]), int(self.ctx[C_PAY_EITHER])

    @property
    def leader(self) -> int:
        """The seat whose turn it is."""
        return int(self.ctx[C_LEADER])

    @property
    def actor(self) -> int:
        """The seat to decide now (-4 when the game is over)."""
        return int(self.ctx[C_ACTOR])

    @property
    def decision_kind(self) -> int:
        """The pending ``DecisionKind`` as an int."""
        return int(self.ctx[C_DECISION])

    @property
    def played_card(self) -> int:
        """The leader's played card in this play, or -1."""
        return int(self.ctx[C_PLAYED_CARD])

    @property
    def end_triggered(self) -> bool:
        """An end trigger has happened; the round is being finished (p.10)."""
        return bool(self.ctx[C_END_TRIGGERED])

    @property
    def macaroni_holder(self) -> int:
        """The seat holding the macaroni sculpture (first to Fort Level 5), or -1."""
        return int(self.ctx[C_SCULPTURE])

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of the whole state (schema: ``docs/state.md``)."""
        out: dict[str, Any] = {"version": STATE_VERSION, **self._config()}
        out["cards"] = [
            {"zone": ZONES[z], "owner": int(o), "pos": int(p), "mark": int(m), "coin_as": int(c)}
            for z, o, p, m, c in zip(
                self.zone, self.owner, self.pos, self.mark, self.coin_as, strict=True
            )
        ]
        out["players"] = [
            dict(zip(PLAYER_FIELDS, map(int, row), strict=True)) for row in self.players
        ]
        out["made_up_rules"] = {MADE_UP_RULES[i]: int(v) for i, v in enumerate(self.rule_loc)}
        out["perks"] = {PERKS[i]: int(v) for i, v in enumerate(self.perk_loc)}
        out["play_suits"] = [int(x) for x in self.play_suits]
        n = int(self.ctx[C_PROGRAM_LENGTH])
        out["program"] = [
            [int(x) for x in row] + [int(d)]
            for row, d in zip(self.prog[:n], self.done[:n], strict=True)
        ]
        out["ctx"] = {k: int(v) for k, v in zip(CTX_FIELDS, self.ctx, strict=True)}
        return out

    @classmethod
    def from_dict(cls, game: GameFacts, d: dict[str, Any]) -> Any:
        """Rebuild a state saved by :meth:`to_dict`.

        Raises:
            StateError: a missing or malformed field, naming it; the state is not built.
        """
        if not isinstance(d, dict):
            raise StateError("<root>", f"expected a dict, got {type(d).__name__}")
        version = d.get("version")
        if not _is_int(version, STATE_VERSION, STATE_VERSION):  # True == 1, but not a version
            raise StateError("version", f"expected {STATE_VERSION}, got {describe(version)}")
        card_set = d.get("card_set")
        if not (card_set is None or isinstance(card_set, str)) or card_set != config_card_set(game):
            raise StateError("card_set", f"state is for card set {describe(card_set)}, "
                             f"the game uses {config_card_set(game)!r}")  # fmt: skip
        num_players, setup = d.get("num_players"), d.get("setup")
        if not _is_int(num_players, game.num_players, game.num_players):  # 3.0 is not 3 here
            raise StateError("num_players", f"state is for {describe(num_players)} players; "
                             f"game is {game!r}")  # fmt: skip
        if not isinstance(setup, str) or setup != game.setup:
            raise StateError("setup", f"state is for the {describe(setup)} setup; "
                             f"game is {game!r}")  # fmt: skip
        s = cls.empty(game)
        cards = _get(d, "cards", list)
        if len(cards) != game.num_cards:
            raise StateError("cards", f"{len(cards)} entries, the card set has {game.num_cards}")
        for i, entry in enumerate(cards):
            where = f"cards[{i}]"
            if not isinstance(entry, dict) or entry.get("zone") not in ZONES:
                raise StateError(where, f"bad zone in {describe(entry)}")
            s.zone[i] = ZONES.index(entry["zone"])
            s.owner[i] = _int(entry, "owner", where, -1, game.num_players - 1)
            s.pos[i] = _int(entry, "pos", where, 0, 32767)
            s.mark[i] = _int(entry, "mark", where, 0, 1)
            s.coin_as[i] = _int(entry, "coin_as", where, -1, NUM_SUITS - 1)
        players = _get(d, "players", list)
        if len(players) != game.num_players:
            raise StateError("players", f"{len(players)} entries for {game.num_players} players")
        for p, row in enumerate(players):
            for j, key in enumerate(PLAYER_FIELDS):
                s.players[p, j] = _int(row, key, f"players[{p}]", 0, 32767)
        for name, arr, names in (
            ("made_up_rules", s.rule_loc, MADE_UP_RULES),
            ("perks", s.perk_loc, PERKS),
        ):
            table = _get(d, name, dict)
            for i, key in enumerate(names):
                arr[i] = _int(table, key, name, USED, game.num_players - 1)
        suits = _get(d, "play_suits", list)
        if len(suits) != NUM_SUITS or not all(_is_int(x, 0, MAX_COUNT) for x in suits):
            raise StateError("play_suits", f"need {NUM_SUITS} ints in [0, {MAX_COUNT}]")
        s.play_suits[:] = suits
        ctx = _get(d, "ctx", dict)
        n = game.num_players
        for i, key in enumerate(CTX_FIELDS):
            lo, hi = _CTX_RANGES.get(key, (-(2**62), 2**62))
            hi = n - 1 if hi == _SEAT else hi
            s.ctx[i] = _int(ctx, key, "ctx", lo, hi)
        program = _get(d, "program", list)
        if len(program) != s.ctx[C_PROGRAM_LENGTH] or len(program) > MAX_STEPS:
            raise StateError("program", "length differs from ctx.program_length")
        for i, row in enumerate(program):
            if (
                not isinstance(row, list)
                or len(row) != 5
                or not all(_is_int(x, -1, MAX_STEPS) for x in row)
                or not _is_int(row[4], 0, 1)  # done: a flag (int8)
            ):
                raise StateError(f"program[{i}]", "need 5 ints [verb, arg, req_lo, req_hi, done]")
            s.prog[i] = row[:4]
            s.done[i] = row[4]
        s.prog.flags.writeable = False  # as the engine's programs: shared by clones
        _check_invariants(s)
        return s


MAX_COUNT = 999  # bound on counters that are small in any real game
_SEAT = -99  # marks an upper bound of "the last seat"
# Ranges of the ctx fields that name seats, kinds or stages (others: any int64).
_CTX_RANGES: dict[str, tuple[int, int]] = {
    "first_player": (0, _SEAT), "leader": (0, _SEAT), "actor": (-4, _SEAT),
    "follower": (-1, _SEAT), "program_owner": (-1, _SEAT), "rough_housing": (-2, _SEAT),
    "sculpture": (-1, _SEAT), "decision": (0, len(DecisionKind) - 1),
    "stage": (0, NUM_STAGES - 1), "mode": (-1, 5),
    "played_card": (-1, 32767), "pending_coin": (-1, 32767), "seed": (0, 2**62),
    "shuffles": (0, 2**62), "program_length": (0, MAX_STEPS), "pc": (0, MAX_STEPS),
    "end_triggered": (0, 1), "program_full": (0, 1), "program_failed": (0, 1),
    "both_full": (0, 1), "continue_pc": (-1, MAX_STEPS - 1),
}  # fmt: skip


def _is_int(x: Any, lo: int, hi: int) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi


def _get(d: dict[str, Any], key: str, typ: type) -> Any:
    if key not in d:
        raise StateError(key, "missing")
    if not isinstance(d[key], typ):
        raise StateError(key, f"expected {typ.__name__}, got {type(d[key]).__name__}")
    return d[key]


def _int(d: Any, key: str, where: str, lo: int, hi: int) -> int:
    if not isinstance(d, dict) or key not in d:
        raise StateError(f"{where}.{key}", "missing")
    v = d[key]
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise StateError(f"{where}.{key}", f"expected an int in [{lo}, {hi}], got {describe(v)}")
    return v


def _check_invariants(s: StateArrays) -> None:
    """Cheap consistency checks on a loaded state (the full set is in the test suite)."""
    from fort_env.game.constants import DRAFT_KEPT, DRAFT_PACK, OUT_OF_GAME, PARK, PARK_DECK, TRASH

    unowned = (PARK_DECK, PARK, TRASH, OUT_OF_GAME)
    for i, (z, o) in enumerate(zip(s.zone, s.owner, strict=True)):
        if (z in unowned) != (o < 0) and z not in (TRASH, OUT_OF_GAME):
            raise StateError(f"cards[{i}].owner", f"zone {ZONES[z]} with owner {o}")
        if z in (DRAFT_PACK, DRAFT_KEPT) and s.game.setup != "advanced":
            raise StateError(f"cards[{i}].zone", "draft zones exist only in the advanced setup")
    if int((s.zone == PARK).sum()) > 3:
        raise StateError("cards", "more than 3 cards in the Park")
    for p in range(s.game.num_players):
        if max(s.players[p, :4]) > 99:
            raise StateError(f"players[{p}]", "resource count out of range")
    if s.rule_loc.min() < IN_BOX:
        raise StateError("made_up_rules", "a made-up rule cannot be 'used'")
