"""The rules of Fort: game facts (:class:`FortGame`) and the state machine (:class:`FortState`).

Rulebook pages are cited as ``p.N`` (``../shared/rules/rulebook.txt``). Where the rulebook is
silent the decision is in ``docs/rules.md`` with its reason and its test.

The state is a handful of numpy arrays (``state_arrays.py``); every pending choice is a
:class:`~fort_env.decisions.DecisionKind` recorded in them. Legality is exact: the legal mask
only allows actions after which the whole play can still be completed within the rules ("use
at least one action fully", "an added card must change the outcome"), found by a depth-first
search over cloned states in which choices that cannot differ in feasibility are tried once
(``_candidates``). ``fort_env.reference`` enumerates whole plays without that pruning to check it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property, lru_cache
from hashlib import blake2b as _blake2b
from struct import Struct
from types import SimpleNamespace
from typing import Any

import numpy as np

from . import actions as A
from .cards import (
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
    REPEAT,
    SCORE,
    SPEND,
    THEN,
    TRASH_RIVAL,
    TRASH_THIS,
    TRASH_V,
    VERBS,
    Card,
    CardSet,
    Effect,
    all_steps,
    first_step,
    load_card_set,
    multipliers,
    single_step,
)
from .constants import (
    BIRTHDAY_PARTY,
    BRIBE,
    COIN,
    COPY_CAT,
    DECK,
    DISCARD,
    DIY,
    DO_OVER,
    DRAFT_KEPT,
    DRAFT_PACK,
    FOLLOWED,
    HAND,
    HAND_SIZE,
    IN_BOX,
    IN_PLAY,
    IN_STACK,
    LOOKOUT,
    MADE_UP_RULES,
    MAX_FORT_LEVEL,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_SUITS,
    OUT_OF_GAME,
    PARK,
    PARK_DECK,
    PARK_SIZE,
    PERKS,
    PIZZA,
    RECYCLING,
    ROUGH_HOUSING,
    SCORE_TRIGGER,
    STARTING_KIDS,
    STICKY_FINGERS,
    STUFF_CAPACITY,
    TERMINAL_PLAYER,
    TOYS,
    TRASH,
    USED,
    XXL,
    XXL_BACKPACK_BONUS,
    YARD,
)
from .decisions import Decision, DecisionKind
from .errors import ConfigError, IllegalActionError
from .inputs import as_action, check_seed
from .observation import observation_layout, observation_tensor
from .stages import (
    ST_ACTION,
    ST_ADD,
    ST_ADD_COIN,
    ST_ANY_SUIT,
    ST_BIRTHDAY,
    ST_DECLARE,
    ST_DO_OVER,
    ST_DRAFT,
    ST_FOLLOW,
    ST_FOLLOW_RUN,
    ST_FOLLOW_SECOND,
    ST_MODE,
    ST_OVER,
    ST_PLAY,
    ST_PROBE,
    ST_PROBE_DONE,
    ST_RECRUIT,
)
from .state_arrays import (
    C_ACTOR,
    C_ANY_PRIV,
    C_ANY_PUB,
    C_ANY_SIDE,
    C_BOTH_FULL,
    C_CONVERT_DIR,
    C_COPIED,
    C_DECISION,
    C_DRAFT_ROUND,
    C_END,
    C_FIRST,
    C_FOLLOW_TRASH,
    C_FOLLOWER,
    C_LEADER,
    C_LEADER_RES,
    C_MODE,
    C_PAY_E,
    C_PAY_P,
    C_PAY_T,
    C_PC,
    C_PENDING_COIN,
    C_PLAYED,
    C_PLAYS,
    C_PROG_FAILED,
    C_PROG_FULL,
    C_PROG_LEN,
    C_PROG_OWNER,
    C_PROG_SIDE,
    C_RES_CHOICE,
    C_REWARD,
    C_ROUGH,
    C_SCULPTURE,
    C_SEED,
    C_SERIAL,
    C_SHUFFLES,
    C_STAGE,
    C_STEP,
    C_TRASH_THIS,
    CTX_FIELDS,
    MAX_STEPS,
    P_LEVEL,
    P_PACK_P,
    P_PACK_T,
    P_SCORE,
    P_STUFF_P,
    P_STUFF_T,
    P_TURNS,
    StateArrays,
)

_CTX_PACK = Struct(f"<{len(CTX_FIELDS)}q").pack  # the ctx list's bytes for the digest
# Decision kinds as plain ints: IntEnum attribute access is slow on the hot path (py3.11).
K = SimpleNamespace(**{kind.name: int(kind) for kind in DecisionKind})
SETUPS = ("basic", "advanced")
# Stages inside a play whose choices must keep the play completable (searched).
_SEARCHED_STAGES = frozenset(
    (
        ST_PLAY,
        ST_DECLARE,
        ST_MODE,
        ST_ANY_SUIT,
        ST_ADD,
        ST_ADD_COIN,
        ST_ACTION,
        ST_FOLLOW,
        ST_FOLLOW_SECOND,
        ST_FOLLOW_RUN,
        ST_PROBE,
    )
)
REWARD_RULE, REWARD_PERK = 1, 2
SEARCH_MEMO_LIMIT = 200_000  # entries (16-byte digests) before the memo is cleared
# atom outcomes
NONE, PARTIAL, FULL = 0, 1, 2
# What a step's status (can it be done now?) reads, and what doing a step can change, for the
# player doing it (see _atom_status and _do_atom); "score" and "trash this card" always can.
STUFF, PACK_TAG, LEVEL, PERK_TAG, HAND_TAG, DISCARD_TAG, LOOKOUT_TAG, PARK_TAG, YARDS = range(9)
_STATUS_READS: dict[int, frozenset[int]] = {
    GATHER: frozenset((STUFF,)),
    PACK: frozenset((STUFF, PACK_TAG, LEVEL, PERK_TAG)),  # capacity: level, XXL; Sticky Fingers
    SPEND: frozenset((STUFF, PACK_TAG)),
    CONVERT: frozenset((STUFF, PACK_TAG)),
    ADVANCE: frozenset((STUFF, PACK_TAG, LEVEL)),
    COPY_PACK: frozenset((STUFF, PACK_TAG)),
    COPY_RIVAL_PACK: frozenset((STUFF,)),  # and rivals' Packs, which no step of mine changes
    TRASH_V: frozenset((HAND_TAG, DISCARD_TAG)),
    LOOKOUT_V: frozenset((HAND_TAG, LOOKOUT_TAG, LEVEL, PERK_TAG, PARK_TAG, YARDS)),  # Bribe
    RECRUIT: frozenset((PARK_TAG, YARDS)),
    TRASH_RIVAL: frozenset((YARDS,)),
    SCORE: frozenset(),
    TRASH_THIS: frozenset(),
}
_STEP_CHANGES: dict[int, frozenset[int]] = {
    GATHER: frozenset((STUFF,)),
    PACK: frozenset((STUFF, PACK_TAG)),
    SPEND: frozenset((STUFF, PACK_TAG)),
    CONVERT: frozenset((STUFF, PACK_TAG)),
    ADVANCE: frozenset((STUFF, PACK_TAG, LEVEL, PERK_TAG)),  # a level's reward may be a perk
    COPY_PACK: frozenset((STUFF,)),
    COPY_RIVAL_PACK: frozenset((STUFF,)),
    TRASH_V: frozenset((HAND_TAG, DISCARD_TAG)),
    LOOKOUT_V: frozenset((HAND_TAG, LOOKOUT_TAG, PARK_TAG, YARDS)),
    RECRUIT: frozenset((PARK_TAG, YARDS, DISCARD_TAG)),
    TRASH_RIVAL: frozenset((YARDS,)),
    SCORE: frozenset(),
    TRASH_THIS: frozenset(),
}
# verbs whose one step, once it can start, is used fully whatever is chosen in it
_ONE_STEP_VERBS = frozenset((PACK, TRASH_V, LOOKOUT_V, RECRUIT, TRASH_RIVAL))
# What kind of decision a verb needs once it is reached (None: carried out at once).
_VERB_DECISION = {
    PACK: K.PACK, LOOKOUT_V: K.LOOKOUT, TRASH_V: K.TRASH, RECRUIT: K.RECRUIT, ADVANCE: K.PAY,
    SPEND: K.SPEND, TRASH_RIVAL: K.TRASH_RIVAL, COPY_RIVAL_PACK: K.COPY_RIVAL,
    CONVERT: K.CONVERT,
}  # fmt: skip


# Unrolled programs by (effect tree, multiplier counts). Effect trees are plain tuples, so
# equal trees share entries whatever card set they come from.
_PROGRAMS: dict[tuple[Effect | None, tuple[int, ...]], tuple[np.ndarray, int]] = {}


@lru_cache(maxsize=4096)
def _mults_cached(effect: Effect) -> tuple[tuple[int, int], ...]:
    return tuple(multipliers(effect))


def _mults(effect: Effect | None) -> tuple[tuple[int, int], ...]:
    return () if effect is None else _mults_cached(effect)


_ALL_TAGS = frozenset(
    (STUFF, PACK_TAG, LEVEL, PERK_TAG, HAND_TAG, DISCARD_TAG, LOOKOUT_TAG, PARK_TAG, YARDS)
)
# what a multiplier's count reads (suits in play cannot change once the actions start)
_COUNT_READS = {MULT_FORT_LEVEL: frozenset((LEVEL,)), MULT_PACK_SIZE: frozenset((PACK_TAG,)),
                MULT_LOOKOUT_SIZE: frozenset((LOOKOUT_TAG,))}  # fmt: skip


def _plain_reads(effect: Effect | None) -> frozenset[int]:
    """What a one-step action (``ATOM`` or ``REPEAT`` of one) reads to be done fully: its
    step's status and its count; everything for any other shape."""
    step = single_step(effect)
    if step is None:
        return _ALL_TAGS
    verb, _arg, mult, _mult_arg = step
    return _STATUS_READS[verb] | _COUNT_READS.get(mult, frozenset())


class FortGame:
    """Static facts of a Fort game: players, setup, card set, action and observation sizes.

    Args:
        num_players: 2, 3 or 4 (rulebook p.1).
        setup: ``"basic"`` or ``"advanced"`` (the draft of 8 passes, p.2).
        cards: a directory of card data (``docs/cards.md``), or ``None`` for the shipped set.

    Raises:
        ConfigError: a bad player count or setup name.
        CardDataError: the card data is malformed (file, card and field named).
    """

    def __init__(
        self, num_players: int = 4, setup: str = "basic", cards: str | None = None
    ) -> None:
        if not isinstance(num_players, int) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise ConfigError(f"num_players must be 2, 3 or 4, got {num_players!r}")
        if setup not in SETUPS:
            raise ConfigError(f"setup must be one of {SETUPS}, got {setup!r}")
        self.num_players = num_players
        self.setup = setup
        self.card_set: CardSet = load_card_set(None if cards is None else str(cards))
        self.cards: tuple[Card, ...] = self.card_set.cards
        self.num_cards = len(self.cards)
        self.layout = A.ActionLayout(self.num_cards)
        self.num_distinct_actions: int = self.layout.num_actions
        # action -> (FortState._on_<range name>, index within the range), for _apply
        self.handlers: list[tuple[Any, int]] = [
            (getattr(FortState, "_on_" + name.lower()), i)
            for name, i in map(self.layout.decode, range(self.num_distinct_actions))
        ]
        c = self.cards
        # Per-card lookup tables used on the hot path.
        self.suit_counts = np.zeros((self.num_cards, NUM_SUITS), dtype=np.int16)
        for card in c:
            for s in card.suits:
                self.suit_counts[card.id, s] += 1
        self.suit_counts_f32 = self.suit_counts.astype(np.float32)  # for the observation
        self.card_ids = np.arange(self.num_cards, dtype=np.int64)
        self.perk_ids = np.arange(len(PERKS), dtype=np.int64)
        self.suit_lists: list[tuple[int, ...]] = [card.suits for card in c]
        self.has_coin = [COIN in card.suits for card in c]
        self.kind = [card.kind for card in c]
        self.is_best_friend = np.array([card.is_best_friend for card in c], dtype=bool)
        self.effects: list[tuple[Effect | None, Effect | None]] = [
            (card.public_effect, card.private_effect) for card in c
        ]
        self.improvable: list[tuple[bool, bool]] = [
            tuple(  # type: ignore[misc]
                any(m in (MULT_SUIT, MULT_ANY_SUIT) for m, _ in multipliers(e))
                for e in (card.public_effect, card.private_effect)
            )
            for card in c
        ]
        # per card and side: the action's first step, and its distinct steps (verb, arg)
        self.first_atom: list[tuple[tuple[int, int] | None, ...]] = [
            tuple(first_step(e) for e in effects) for effects in self.effects
        ]
        self.atoms: list[tuple[frozenset[tuple[int, int]], ...]] = [
            tuple(frozenset(all_steps(e)) for e in effects) for effects in self.effects
        ]
        # per card and side: what the first step's status reads, what any step may change
        self.first_reads: list[tuple[frozenset[int], ...]] = [
            tuple(frozenset() if a is None else _STATUS_READS[a[0]] for a in firsts)
            for firsts in self.first_atom
        ]
        self.changes: list[tuple[frozenset[int], ...]] = [
            tuple(frozenset().union(*(_STEP_CHANGES[v] for v, _ in side)) for side in sides)
            for sides in self.atoms
        ]
        # per card and side: what a one-step action (repeated or not) reads, its count included
        self.plain_reads: list[tuple[frozenset[int], ...]] = [
            tuple(_plain_reads(e) for e in effects) for effects in self.effects
        ]
        self.all_atoms: list[tuple[tuple[int, int], ...]] = [
            tuple(sorted(pub | priv)) for pub, priv in self.atoms
        ]
        # suits a fixed "x suit" multiplier of either action counts, per card
        self.counted_suits: list[frozenset[int]] = [
            frozenset(arg for e in effects for m, arg in _mults(e) if m == MULT_SUIT)
            for effects in self.effects
        ]
        self.has_any_suit: list[tuple[bool, bool]] = [
            tuple(  # type: ignore[misc]
                any(m == MULT_ANY_SUIT for m, _ in multipliers(e))
                for e in (card.public_effect, card.private_effect)
            )
            for card in c
        ]
        # Memo of the play search: state digest -> completable. A pure function of the state,
        # so sharing it between states of this game is safe; bounded by clearing.
        self.search_memo: dict[bytes, bool] = {}
        self.board_of_seat = self.card_set.boards[:num_players]
        self.fort_steps = self.card_set.fort_steps
        self.level_points = self.card_set.level_points

    @cached_property
    def observation_size(self) -> int:
        return observation_layout(self.num_players, self).size

    def new_initial_state(self, seed: int = 0, first_player: int | None = None) -> FortState:
        """Deal a new game (rulebook p.2 setup steps 1-11).

        Args:
            seed: seeds the generator carried in the state: an int in ``[0, 2**62)``.
            first_player: the starting seat, or ``None`` to draw it at random (step 1).

        Raises:
            ConfigError: a seed that is not an int in range, or a bad ``first_player``.
        """
        return FortState.new(self, seed, first_player)

    def __repr__(self) -> str:
        return f"FortGame(num_players={self.num_players}, setup={self.setup!r})"


class FortState(StateArrays):
    """One position of a game of Fort; OpenSpiel-style API (see DESIGN.md).

    The arrays it holds (``zone``, ``owner``, ``pos``, ``mark``, ``coin_as`` per card;
    ``players`` per seat; ``rule_loc``, ``perk_loc``; the running action's ``prog``/``done``;
    the scalar context ``ctx``) are documented in ``docs/state.md``.
    """

    # ------------------------------------------------------------------ setup
    @classmethod
    def new(cls, game: FortGame, seed: int, first_player: int | None) -> FortState:
        seed = check_seed(seed)  # ConfigError out of [0, SEED_LIMIT)
        s = cls.empty(game)
        s.ctx[C_SEED] = seed
        rng = s._rng()
        n = game.num_players
        first = int(rng.integers(n)) if first_player is None else int(first_player)
        if not 0 <= first < n:
            raise ConfigError(f"first_player must be in [0, {n}), got {first_player!r}")
        s.ctx[C_FIRST] = s.ctx[C_LEADER] = first
        # Made-up rules: a facedown stack of N+1 (step 6); perks: a face-up row of N+1 (step 7).
        s.rule_loc[:] = IN_BOX
        s.rule_loc[rng.permutation(len(MADE_UP_RULES))[: n + 1]] = IN_STACK
        s.perk_loc[:] = IN_BOX
        s.perk_loc[rng.permutation(len(PERKS))[: n + 1]] = IN_STACK
        # Best Friends by board; the rest of the boards' friends stay in the box.
        for cid, card in enumerate(game.cards):
            if card.is_best_friend:
                seat = (
                    game.board_of_seat.index(card.board) if card.board in game.board_of_seat else -1
                )
                s.zone[cid] = DECK if seat >= 0 else OUT_OF_GAME
                s.owner[cid] = seat
            else:
                s.zone[cid] = PARK_DECK
        s.prog.flags.writeable = False  # shared by clones, as every program the engine loads
        s._shuffle_park_deck(rng)
        for slot in range(PARK_SIZE):
            s._refill_park(slot)
        # Each player draws 8 kid cards (step 9) or drafts them (advanced setup).
        for p in range(n):
            for _ in range(STARTING_KIDS):
                cid = s._top_of_park_deck()
                s.zone[cid] = DECK if game.setup == "basic" else DRAFT_PACK
                s.owner[cid] = p
        if game.setup == "basic":
            s._finish_setup()
        else:
            s.ctx[C_DRAFT_ROUND] = 0
            s.ctx[C_STAGE] = ST_DRAFT
            s._set_decision(K.DRAFT, first)
        return s

    def _finish_setup(self) -> None:
        """Steps 10-11: each shuffles kids + Best Friends into a deck and draws 5."""
        rng = self._rng()
        for p in range(self.game.num_players):
            ids = ((self.owner == p) & ((self.zone == DECK) | (self.zone == DRAFT_KEPT))).nonzero()[
                0
            ]
            self.zone[ids] = DECK
            self.pos[ids] = rng.permutation(len(ids))
            self._draw(p, HAND_SIZE)
        self._begin_turn()

    # ------------------------------------------------------------------ randomness
    def _rng(self) -> np.random.Generator:
        """A generator for the next random event: seeded by (seed, events so far).

        Keeping only two integers makes ``clone()`` and ``to_dict()`` exact and cheap.
        """
        count = int(self.ctx[C_SHUFFLES])
        self.ctx[C_SHUFFLES] = count + 1
        return np.random.default_rng([int(self.ctx[C_SEED]), count])

    def _shuffle_park_deck(self, rng: np.random.Generator) -> None:
        ids = (self.zone == PARK_DECK).nonzero()[0]
        self.pos[ids] = rng.permutation(len(ids))

    def _top_of_park_deck(self) -> int:
        ids = (self.zone == PARK_DECK).nonzero()[0]
        if len(ids) == 0:
            return -1
        return int(ids[np.argmin(self.pos[ids])])

    def _refill_park(self, slot: int) -> None:
        cid = self._top_of_park_deck()
        if cid >= 0:
            self.zone[cid] = PARK
            self.pos[cid] = slot

    def _draw(self, p: int, n: int) -> None:
        """Draw phase (p.9): draw n, reshuffling the discard pile when the deck runs out."""
        while n > 0:
            ids = ((self.zone == DECK) & (self.owner == p)).nonzero()[0]
            if len(ids) == 0:
                pile = ((self.zone == DISCARD) & (self.owner == p)).nonzero()[0]
                if len(pile) == 0:
                    return
                self.zone[pile] = DECK
                self.pos[pile] = self._rng().permutation(len(pile))
                ids = pile
            top = ids[np.argsort(self.pos[ids], kind="stable")[:n]]  # lowest pos on top
            self.zone[top] = HAND
            n -= len(top)

    # ------------------------------------------------------------------ public API
    def current_player(self) -> int:
        """The seat to act, or ``TERMINAL_PLAYER`` (-4) when the game is over."""
        return TERMINAL_PLAYER if self.ctx[C_STAGE] == ST_OVER else int(self.ctx[C_ACTOR])

    def is_terminal(self) -> bool:
        return bool(self.ctx[C_STAGE] == ST_OVER)

    @property
    def decision(self) -> Decision:
        """The pending :class:`Decision` (kind, player, context)."""
        kind = DecisionKind(int(self.ctx[C_DECISION]))
        ctx: dict[str, Any] = {"leader": int(self.ctx[C_LEADER])}
        if self.ctx[C_PLAYED] >= 0:
            ctx["played_card"] = int(self.ctx[C_PLAYED])
        if self.ctx[C_MODE] >= 0:
            ctx["mode"] = A.MODES[int(self.ctx[C_MODE])]
        if self.ctx[C_STAGE] in (ST_ACTION, ST_FOLLOW_RUN):
            ctx["side"] = "public" if self.ctx[C_PROG_SIDE] == A.PUBLIC else "private"
            ctx["full"] = bool(self.ctx[C_PROG_FULL])
        if kind == K.PAY:
            ctx["cost"] = (int(self.ctx[C_PAY_T]), int(self.ctx[C_PAY_P]), int(self.ctx[C_PAY_E]))
        return Decision(kind, self.current_player(), ctx)

    def legal_actions_mask(self) -> np.ndarray:
        """Legal actions of the acting player: bool array, shape ``(num_distinct_actions,)``."""
        mask = np.zeros(self.game.num_distinct_actions, dtype=bool)
        if not self.is_terminal():
            mask[self._legal()] = True
        return mask

    def legal_actions(self) -> list[int]:
        """The legal actions, ascending."""
        return [] if self.is_terminal() else list(self._legal())

    def apply_action(self, action: int) -> None:
        """Take ``action`` for the acting player.

        Raises:
            IllegalActionError: the action is not legal now; the state is unchanged.
            TypeError: ``action`` is not an integer (``fort_env.inputs.as_action``).
        """
        a = as_action(action)
        if self.is_terminal() or a not in self._legal_set():
            why = "out of range" if not 0 <= a < self.game.num_distinct_actions else "not legal"
            raise IllegalActionError(a, DecisionKind(int(self.ctx[C_DECISION])).name, why)
        self._apply(a)
        self._check_end()  # the flag is public as soon as a trigger happens (p.10)

    def returns(self) -> np.ndarray:
        """Win/loss returns, float64 shape ``(num_players,)``: +1 winners, -1 the others.

        Zeros until the game is over. Ties: the higher Fort Level wins; still tied, the victory
        is shared and every tied player gets +1 (rulebook p.11).
        """
        out = np.zeros(self.game.num_players)
        if not self.is_terminal():
            return out
        out[:] = -1.0
        out[self.winners()] = 1.0
        return out

    def winners(self) -> list[int]:
        """Seats that win (rulebook p.11: most points, then highest Fort Level, else shared)."""
        from .scoring import winners

        return winners(self)

    def score_breakdown(self) -> list[dict[str, int]]:
        """Per seat: ``track``, ``fort_level``, ``made_up_rule``, ``macaroni``, ``total``."""
        from .scoring import score_breakdown

        return score_breakdown(self)

    def action_to_string(self, action: int) -> str:
        from .text import action_to_string

        return action_to_string(self, action)

    def observation_tensor(self, player: int) -> np.ndarray:
        """``player``'s view: float32, shape ``(game.observation_size,)`` (``observation.py``)."""
        return observation_tensor(self, player)

    def resample_hidden(self, observer: int, rng: np.random.Generator) -> FortState:
        """A copy with everything ``observer`` cannot see re-dealt consistently (``hidden.py``)."""
        from .hidden import resample_hidden

        return resample_hidden(self, observer, rng)

    def __str__(self) -> str:
        from .text import state_to_string

        return state_to_string(self)

    # ------------------------------------------------------------------ helpers on zones
    def _cards(self, zone: int, p: int | None = None) -> np.ndarray:
        if p is None:
            return (self.zone == zone).nonzero()[0]
        return ((self.zone == zone) & (self.owner == p)).nonzero()[0]

    def _count(self, zone: int, p: int) -> int:
        return int(np.count_nonzero((self.zone == zone) & (self.owner == p)))

    def _rivals(self, p: int) -> list[int]:
        n = self.game.num_players
        return [(p + k) % n for k in range(1, n)]

    def _pack_capacity(self, p: int) -> int:
        cap = int(self.players[p, P_LEVEL]) + 1
        return cap + XXL_BACKPACK_BONUS if self.perk_loc[XXL] == p else cap

    def _lookout_capacity(self, p: int) -> int:
        return int(self.players[p, P_LEVEL]) + 1

    def _has_perk(self, p: int, perk: int) -> bool:
        return bool(self.perk_loc[perk] == p)

    def _is_leader(self, p: int) -> bool:
        return bool(self.ctx[C_LEADER] == p)

    def _set_decision(self, kind: int, player: int) -> None:
        self.ctx[C_DECISION] = int(kind)
        self.ctx[C_ACTOR] = player

    # ------------------------------------------------------------------ turn flow
    def _begin_turn(self) -> None:
        leader = int(self.ctx[C_LEADER])
        if self.players[leader, P_TURNS] > 0:  # Cleanup, skipped on the first turn (p.7)
            yard = self._cards(YARD, leader)
            self.zone[yard] = DISCARD
        self.ctx[C_PLAYS] = 0
        self._to_play()

    def _to_play(self) -> None:
        self.ctx[C_PLAYED] = -1
        self.ctx[C_MODE] = -1
        self.ctx[C_ANY_PUB] = self.ctx[C_ANY_PRIV] = -1
        self.ctx[C_LEADER_RES] = -1
        self.ctx[C_TRASH_THIS] = 0
        self.ctx[C_ROUGH] = -1
        self.mark[:] = 0
        self.coin_as[:] = -1
        self.play_suits[:] = 0
        self.ctx[C_STAGE] = ST_PLAY
        self._set_decision(K.PLAY, int(self.ctx[C_LEADER]))

    def _after_declare_played(self) -> None:
        self.ctx[C_STAGE] = ST_MODE
        self._set_decision(K.MODE, int(self.ctx[C_LEADER]))

    def _used_sides(self) -> tuple[int, ...]:
        first, second, _ = A.MODE_PLAN[int(self.ctx[C_MODE])]
        return (first,) if second < 0 else (first, second)

    def _after_mode(self) -> None:
        """Choose each used action's "any one suit", then add cards (p.6-7, p.13)."""
        played = int(self.ctx[C_PLAYED])
        leader = int(self.ctx[C_LEADER])
        for side in self._used_sides():
            slot = C_ANY_PUB if side == A.PUBLIC else C_ANY_PRIV
            if played >= 0 and self.game.has_any_suit[played][side] and self.ctx[slot] < 0:
                self.ctx[C_ANY_SIDE] = side
                self.ctx[C_STAGE] = ST_ANY_SUIT
                self._set_decision(K.ANY_SUIT, leader)
                return
        if played >= 0 and any(self.game.improvable[played][s] for s in self._used_sides()):
            self.ctx[C_STAGE] = ST_ADD
            self._set_decision(K.ADD, leader)
            return
        self._start_action(0)

    def _start_action(self, step: int) -> None:
        plan = A.MODE_PLAN[int(self.ctx[C_MODE])]
        side = plan[step] if step < 2 else -1
        if side < 0:
            self._end_leader_play()
            return
        self.ctx[C_STEP] = step
        self.ctx[C_STAGE] = ST_ACTION
        leader = int(self.ctx[C_LEADER])
        effect = self.game.effects[int(self.ctx[C_PLAYED])][side]
        any_suit = int(self.ctx[C_ANY_PUB if side == A.PUBLIC else C_ANY_PRIV])
        full = side == plan[2] or bool(self.ctx[C_BOTH_FULL])
        self._load_program(effect, leader, side, full, self.play_suits, any_suit)
        self._run_program()

    def _end_leader_play(self) -> None:
        """The leader's card is resolved; rivals may follow its public action (p.8)."""
        self.ctx[C_SERIAL] += 1
        played = int(self.ctx[C_PLAYED])
        if played >= 0 and self.game.effects[played][A.PUBLIC] is not None:
            self._next_follower(int(self.ctx[C_LEADER]))
        else:
            self._after_follow()

    def _next_follower(self, after: int) -> None:
        """Ask the next rival in turn order. Every rival is asked, even one who can only pass,
        so that who is asked reveals nothing about hands (docs/rules.md)."""
        n = self.game.num_players
        leader = int(self.ctx[C_LEADER])
        nxt = (after + 1) % n
        if nxt == leader:
            self.ctx[C_FOLLOWER] = -1
            self._after_follow()
            return
        self.ctx[C_FOLLOWER] = nxt
        self.ctx[C_STAGE] = ST_FOLLOW
        self._set_decision(K.FOLLOW, nxt)

    def _start_follow_program(self) -> None:
        f = int(self.ctx[C_FOLLOWER])
        played = int(self.ctx[C_PLAYED])
        counts, any_suit = self._follow_counts(self._cards(FOLLOWED, f).tolist())
        self.ctx[C_STAGE] = ST_FOLLOW_RUN
        self.ctx[C_FOLLOW_TRASH] = 0
        effect = self.game.effects[played][A.PUBLIC]
        self._load_program(effect, f, A.PUBLIC, True, counts, any_suit)
        self.ctx[C_RES_CHOICE] = self.ctx[C_LEADER_RES]
        self._run_program()

    def _follow_counts(self, cards: list[int]) -> tuple[np.ndarray, int]:
        """A follower's suit counts for ``cards`` and its "any one suit" (docs/rules.md R11):
        a coin counts as each suit of the leader's card, once per multiplier; "any one suit"
        is the leader's suit the follower holds most of."""
        follow_suits = self._leader_suits()
        counts = np.zeros(NUM_SUITS, dtype=np.int16)
        for cid in cards:
            for s in self.game.suit_lists[cid]:
                if s == COIN:
                    for t in follow_suits:
                        counts[t] += 1
                else:
                    counts[s] += 1
        return counts, max(follow_suits, key=lambda t: int(counts[t]))

    def _leader_suits(self) -> tuple[int, ...]:
        """Suits a follower must match: the played card's, its coin as declared (p.8)."""
        played = int(self.ctx[C_PLAYED])
        out = []
        for s in self.game.suit_lists[played]:
            t = int(self.coin_as[played]) if s == COIN else s
            if t not in out:
                out.append(t)
        return tuple(out)

    def _end_follow(self) -> None:
        f = int(self.ctx[C_FOLLOWER])
        ids = self._cards(FOLLOWED, f)
        self.zone[ids] = TRASH if self.ctx[C_FOLLOW_TRASH] else DISCARD
        self.ctx[C_SERIAL] += 1
        self._next_follower(f)

    def _after_follow(self) -> None:
        """Rough Housing, then "trash this card", then Do-Over (p.12, p.16)."""
        played = int(self.ctx[C_PLAYED])
        leader = int(self.ctx[C_LEADER])
        if played >= 0 and (self.ctx[C_ROUGH] >= 0 or self.ctx[C_TRASH_THIS]):
            self.zone[played] = TRASH
        if (
            self.ctx[C_PLAYS] == 1
            and played >= 0  # Do-Over follows a played card, not DIY (docs/rules.md)
            and self._has_perk(leader, DO_OVER)
            and self._count(HAND, leader) > 0
        ):
            self.ctx[C_STAGE] = ST_DO_OVER
            self._set_decision(K.DO_OVER, leader)
            return
        self._to_recruit()

    def _recruit_options(self, p: int, yards: bool) -> bool:
        if (self.zone == PARK).any() or (self.zone == PARK_DECK).any():
            return True
        return yards and any(self._count(YARD, r) for r in self._rivals(p))

    def _to_recruit(self) -> None:
        leader = int(self.ctx[C_LEADER])
        self.ctx[C_PLAYED] = -1
        if self._recruit_options(leader, yards=True):
            self.ctx[C_STAGE] = ST_RECRUIT
            self._set_decision(K.RECRUIT, leader)
            return
        self._to_birthday()  # nothing to recruit: the phase is skipped (docs/rules.md)

    def _to_birthday(self) -> None:
        leader = int(self.ctx[C_LEADER])
        if self._has_perk(leader, BIRTHDAY_PARTY) and self._recruit_options(leader, yards=False):
            self.ctx[C_STAGE] = ST_BIRTHDAY
            self._set_decision(K.BIRTHDAY, leader)
            return
        self._end_turn()

    def _end_turn(self) -> None:
        """Discard (p.9) and Draw (p.9) phases; then the next turn or the end (p.10)."""
        leader = int(self.ctx[C_LEADER])
        in_play = self._cards(IN_PLAY, leader)
        self.zone[in_play] = DISCARD
        hand = self._cards(HAND, leader)
        bf = self.game.is_best_friend[hand]
        self.zone[hand[bf]] = DISCARD
        self.zone[hand[~bf]] = YARD
        self._draw(leader, HAND_SIZE)
        self.players[leader, P_TURNS] += 1
        self._check_end()
        nxt = (leader + 1) % self.game.num_players
        if self.ctx[C_END] and nxt == self.ctx[C_FIRST]:
            self.ctx[C_STAGE] = ST_OVER
            self._set_decision(K.TERMINAL, TERMINAL_PLAYER)
            return
        self.ctx[C_LEADER] = nxt
        self._begin_turn()

    def _check_end(self) -> None:
        """End triggers (p.10): 25+ points, a Fort at Level 5, or an empty Park deck."""
        if self.ctx[C_END]:
            return
        if (
            any(row[P_SCORE] >= SCORE_TRIGGER or row[P_LEVEL] >= MAX_FORT_LEVEL
                for row in self.players.tolist())
            or PARK_DECK not in self.zone.tobytes()  # zone codes are single bytes (int8)
        ):  # fmt: skip
            self.ctx[C_END] = 1

    # ------------------------------------------------------------------ action programs
    def _count_for(self, mult: int, arg: int, p: int, suits: np.ndarray, any_suit: int) -> int:
        if mult == MULT_CONST:
            return arg
        if mult == MULT_SUIT:
            return int(suits[arg])
        if mult == MULT_ANY_SUIT:
            return int(suits[any_suit]) if any_suit >= 0 else 0
        if mult == MULT_FORT_LEVEL:
            return int(self.players[p, P_LEVEL])
        if mult == MULT_PACK_SIZE:
            return int(self.players[p, P_PACK_P] + self.players[p, P_PACK_T])
        if mult == MULT_LOOKOUT_SIZE:
            return self._count(LOOKOUT, p)
        raise AssertionError(mult)

    def _load_program(
        self,
        effect: Effect | None,
        p: int,
        side: int,
        full: bool,
        suits: np.ndarray,
        any_suit: int,
    ) -> None:
        """Unroll an action into steps ``(verb, arg, req_lo, req_hi)``, counts fixed now.

        Multipliers are evaluated when the action starts (docs/rules.md). A step whose
        ``req`` range is set happens only if some step of that range was done ("then", p.14).
        """
        counts = tuple(self._count_for(m, a, p, suits, any_suit) for m, a in _mults(effect))
        key = (effect, counts)
        cached = _PROGRAMS.get(key)
        if cached is None:
            steps = self._unroll(effect, counts)
            # padded with zero rows (equal states compare equal after a round trip) and
            # read-only: states share it, and clone() does not copy it
            padded = np.zeros((MAX_STEPS, 4), dtype=np.int16)
            padded[: len(steps)] = steps
            padded.flags.writeable = False
            cached = _PROGRAMS[key] = (padded, len(steps))
        self.prog, n = cached
        self.done[:] = 0
        self.ctx[C_PROG_LEN] = n
        self.ctx[C_PC] = 0
        self.ctx[C_PROG_FULL] = int(full)
        self.ctx[C_PROG_OWNER] = p
        self.ctx[C_PROG_SIDE] = side
        self.ctx[C_PROG_FAILED] = 0
        self.ctx[C_RES_CHOICE] = -1
        self.ctx[C_CONVERT_DIR] = -1
        self.ctx[C_REWARD] = 0
        self.ctx[C_COPIED] = 0
        if full and n == 0:  # a blank (or x 0) action cannot be used fully (p.7 FAQ)
            self.ctx[C_PROG_FAILED] = 1

    @staticmethod
    def _unroll(effect: Effect | None, counts: tuple[int, ...]) -> np.ndarray:
        """The steps of an action given its multipliers' counts (in ``multipliers`` order:
        pre-order, so every repetition of a nested multiplier reads the same count)."""
        steps: list[list[int]] = []
        fixed: dict[int, int] = {}
        order = iter(counts)

        def assign(node: Effect | None) -> None:  # same walk as cards.multipliers
            if node is None or node[0] == ATOM:
                return
            if node[0] == THEN:
                assign(node[1])
                assign(node[2])
            else:
                fixed[id(node)] = next(order)
                assign(node[1])

        assign(effect)

        def count_of(node: Effect) -> int:
            return fixed[id(node)]

        def emit(node: Effect) -> tuple[int, int]:
            start = len(steps)
            if node[0] == ATOM:
                steps.append([node[1], node[2], -1, -1])
            elif node[0] == THEN:
                lo, hi = emit(node[1])
                r0, r1 = emit(node[2])
                for st in steps[r0:r1]:
                    if st[2] < 0:
                        st[2], st[3] = lo, hi
            else:
                for _ in range(count_of(node)):
                    emit(node[1])
            if len(steps) > MAX_STEPS:
                raise OverflowError(f"an action unrolls to more than {MAX_STEPS} steps")
            return start, len(steps)

        if effect is not None:
            emit(effect)
        return np.array(steps, dtype=np.int16).reshape(-1, 4)

    def _run_program(self) -> None:
        """Carry out steps until one needs a choice, or the action ends."""
        p = int(self.ctx[C_PROG_OWNER])
        full = bool(self.ctx[C_PROG_FULL])
        while True:
            if self.ctx[C_PROG_FAILED]:
                return
            if self.ctx[C_REWARD]:
                self._set_decision(
                    K.PICK_RULE if self.ctx[C_REWARD] == REWARD_RULE else K.PICK_PERK, p
                )
                return
            pc = int(self.ctx[C_PC])
            if pc >= self.ctx[C_PROG_LEN]:
                self._program_done()
                return
            verb, arg, lo, hi = self.prog[pc].tolist()
            if lo >= 0 and not self.done[lo:hi].any():
                if full:
                    self.ctx[C_PROG_FAILED] = 1
                    return
                self.ctx[C_PC] = pc + 1
                continue
            status = self._atom_status(p, verb, arg)
            if status != FULL and full:
                self.ctx[C_PROG_FAILED] = 1
                return
            if status == NONE:
                self.ctx[C_PC] = pc + 1  # as far as it goes: skip what cannot be done
                continue
            decision = self._choice_needed(p, verb, arg)
            paying = self.ctx[C_PAY_T] + self.ctx[C_PAY_P] + self.ctx[C_PAY_E] > 0
            if decision == K.PAY and not paying and self._start_payment(p, arg):
                continue  # a free step: already levelled up
            if decision is not None:
                self._set_decision(decision, p)
                return
            self._do_atom(p, verb, arg)
            self._step_done()

    def _step_done(self) -> None:
        pc = int(self.ctx[C_PC])
        self.done[pc] = 1
        self.ctx[C_PC] = pc + 1

    def _program_done(self) -> None:
        stage = self.ctx[C_STAGE]
        if stage == ST_ACTION:
            if self.ctx[C_PROG_SIDE] == A.PUBLIC:
                self.ctx[C_LEADER_RES] = self.ctx[C_RES_CHOICE]
            self._start_action(int(self.ctx[C_STEP]) + 1)
        elif stage == ST_FOLLOW_RUN:
            self._end_follow()
        elif stage == ST_PROBE:
            self.ctx[C_STAGE] = ST_PROBE_DONE
            self.ctx[C_SERIAL] += 1
        else:
            raise AssertionError(f"program ended in stage {stage}")

    def _choice_needed(self, p: int, verb: int, arg: int) -> int | None:
        if verb in (GATHER, SPEND) and arg == ANY_RESOURCE and self.ctx[C_RES_CHOICE] < 0:
            return K.RESOURCE
        if verb == SPEND:
            return K.SPEND
        return _VERB_DECISION.get(verb)

    def _resource_of(self, arg: int) -> int:
        return int(self.ctx[C_RES_CHOICE]) if arg == ANY_RESOURCE else arg

    def _atom_status(self, p: int, verb: int, arg: int) -> int:
        """Whether an atom can be done now: FULL, PARTIAL (copying part of a Pack) or NONE."""
        pl = self.players[p]
        if verb == GATHER:
            rs = (
                (PIZZA, TOYS)
                if arg == ANY_RESOURCE and self.ctx[C_RES_CHOICE] < 0
                else (self._resource_of(arg),)
            )
            return FULL if any(pl[P_STUFF_P + r] < STUFF_CAPACITY for r in rs) else NONE
        if verb in (SCORE, TRASH_THIS):
            return FULL
        if verb == PACK:
            if pl[P_PACK_P] + pl[P_PACK_T] >= self._pack_capacity(p):
                return NONE
            sticky = self._has_perk(p, STICKY_FINGERS) and self._is_leader(p)
            return FULL if sticky or pl[P_STUFF_P] + pl[P_STUFF_T] > 0 else NONE
        if verb == LOOKOUT_V:
            if self._count(LOOKOUT, p) >= self._lookout_capacity(p):
                return NONE
            return FULL if len(self._lookout_sources(p)) else NONE
        if verb == TRASH_V:
            return FULL if len(self._trash_sources(p)) else NONE
        if verb == RECRUIT:
            return FULL if self._recruit_options(p, yards=True) else NONE
        if verb == ADVANCE:
            if self.ctx[C_PAY_T] + self.ctx[C_PAY_P] + self.ctx[C_PAY_E] > 0:
                return FULL  # a payment under way
            if pl[P_LEVEL] >= MAX_FORT_LEVEL:
                return NONE
            t, z, e = self._cost(p, arg)
            return FULL if self._payable(p, t, z, e) else NONE
        if verb == SPEND:
            rs = (
                (PIZZA, TOYS)
                if arg == ANY_RESOURCE and self.ctx[C_RES_CHOICE] < 0
                else (self._resource_of(arg),)
            )
            return FULL if any(pl[P_STUFF_P + r] + pl[P_PACK_P + r] > 0 for r in rs) else NONE
        if verb == TRASH_RIVAL:
            return FULL if any(self._count(YARD, r) for r in self._rivals(p)) else NONE
        if verb == COPY_PACK:
            return self._copy_status(p, p)
        if verb == COPY_RIVAL_PACK:
            best = NONE
            for r in self._rivals(p):
                best = max(best, self._copy_status(p, r))
            return best
        if verb == CONVERT:
            return FULL if self._convert_options(p) else NONE
        raise AssertionError(VERBS[verb])

    def _copy_status(self, p: int, source: int) -> int:
        pl, src = self.players[p], self.players[source]
        want = (int(src[P_PACK_P]), int(src[P_PACK_T]))
        if sum(want) == 0:
            return NONE  # copying an empty Pack changes nothing: not a use (docs/rules.md)
        room = (STUFF_CAPACITY - int(pl[P_STUFF_P]), STUFF_CAPACITY - int(pl[P_STUFF_T]))
        if all(w <= r for w, r in zip(want, room, strict=True)):
            return FULL
        return PARTIAL if any(min(w, r) > 0 for w, r in zip(want, room, strict=True)) else NONE

    def _lookout_sources(self, p: int) -> list[int]:
        """Cards that may be tucked: hand, plus Park and every Yard with Bribe (p.16)."""
        out = [int(c) for c in self._cards(HAND, p)]
        if self._has_perk(p, BRIBE) and self._is_leader(p):
            out += [int(c) for c in ((self.zone == PARK) | (self.zone == YARD)).nonzero()[0]]
            top = self._top_of_park_deck()
            if top >= 0:
                out.append(-1)  # the Park deck's top card
        return out

    def _trash_sources(self, p: int) -> np.ndarray:
        return (((self.zone == HAND) | (self.zone == DISCARD)) & (self.owner == p)).nonzero()[0]

    def _convert_options(self, p: int) -> list[int]:
        pl = self.players[p]
        out = []
        for i, (src, in_pack) in enumerate(A.CONVERT_OPTIONS):
            if self.ctx[C_CONVERT_DIR] >= 0 and self.ctx[C_CONVERT_DIR] != src:
                continue
            dst = 1 - src
            if in_pack:
                ok = pl[P_PACK_P + src] > 0
            else:
                ok = pl[P_STUFF_P + src] > 0 and pl[P_STUFF_P + dst] < STUFF_CAPACITY
            if ok:
                out.append(i)
        return out

    def _cost(self, p: int, modifier: int) -> tuple[int, int, int]:
        step = self.game.fort_steps[int(self.players[p, P_LEVEL])]
        t, z, e = step.toys, step.pizza, step.either + modifier
        if e < 0:  # -1 on a step with no "either" unit: one toy less, else one pizza less
            e = 0
            if t > 0:
                t -= 1
            elif z > 0:
                z -= 1
        return t, z, e

    def _payable(self, p: int, t: int, z: int, e: int) -> bool:
        pl = self.players[p]
        toys = int(pl[P_STUFF_T] + pl[P_PACK_T])
        pizza = int(pl[P_STUFF_P] + pl[P_PACK_P])
        return toys >= t and pizza >= z and toys + pizza >= t + z + e

    def _start_payment(self, p: int, modifier: int) -> bool:
        """Set the cost to pay; True if it is free (then the level is gained at once)."""
        t, z, e = self._cost(p, modifier)
        self.ctx[C_PAY_T], self.ctx[C_PAY_P], self.ctx[C_PAY_E] = t, z, e
        if t + z + e == 0:
            self._level_up(p)
            return True
        return False

    def _level_up(self, p: int) -> None:
        """Go up one Fort Level and take its reward (p.10)."""
        self.players[p, P_LEVEL] += 1
        level = int(self.players[p, P_LEVEL])
        if level == 1 and (self.rule_loc == IN_STACK).any() and not (self.rule_loc == p).any():
            self.ctx[C_REWARD] = REWARD_RULE
        elif level == 2 and (self.perk_loc == IN_STACK).any():
            self.ctx[C_REWARD] = REWARD_PERK
        elif level == MAX_FORT_LEVEL and self.ctx[C_SCULPTURE] < 0:
            self.ctx[C_SCULPTURE] = p
        self._step_done()

    def _gain(self, p: int, r: int, n: int) -> None:
        col = P_STUFF_P + r
        self.players[p, col] = min(STUFF_CAPACITY, int(self.players[p, col]) + n)

    def _do_atom(self, p: int, verb: int, arg: int) -> None:
        """Carry out an atom that needs no choice."""
        if verb == GATHER:
            self._gain(p, self._resource_of(arg), 1)
        elif verb == SCORE:
            self.players[p, P_SCORE] += 1
        elif verb == TRASH_THIS:
            if self.ctx[C_STAGE] == ST_FOLLOW_RUN:
                self.ctx[C_FOLLOW_TRASH] = 1
            else:
                self.ctx[C_TRASH_THIS] = 1
        elif verb == COPY_PACK:
            self._copy_from(p, p)
        else:
            raise AssertionError(VERBS[verb])

    def _copy_from(self, p: int, source: int) -> None:
        status = self._copy_status(p, source)
        self._gain(p, PIZZA, int(self.players[source, P_PACK_P]))
        self._gain(p, TOYS, int(self.players[source, P_PACK_T]))
        if status != FULL and self.ctx[C_PROG_FULL]:
            self.ctx[C_PROG_FAILED] = 1

    # ------------------------------------------------------------------ legality
    def _raw_legal(self) -> list[int]:
        """Actions allowed by the local rules of the pending decision, before the search
        that removes those after which the play cannot be completed."""
        g, L = self.game, self.game.layout
        kind = int(self.ctx[C_DECISION])
        p = int(self.ctx[C_ACTOR])
        out: list[int] = []
        if kind == K.PLAY:
            out += (self._cards(HAND, p) + L.PLAY_CARD).tolist()
            out.append(L.SKIP_PLAY)
            if (
                self.ctx[C_PLAYS] == 0
                and self._has_perk(p, DIY)
                and self.players[p, P_LEVEL] < MAX_FORT_LEVEL
            ):
                t, z, e = self._cost(p, 1)
                if self._payable(p, t, z, e):
                    out.append(L.USE_DIY)
            if self._has_perk(p, RECYCLING):
                out += [L.RECYCLE + int(c) for c in self._cards(DISCARD, p)]
        elif kind == K.DECLARE_COIN:
            out += [L.SUIT + s for s in range(NUM_SUITS)]
        elif kind == K.MODE:
            played = int(self.ctx[C_PLAYED])
            blank = [e is None for e in g.effects[played]]
            for m, (first, second, _) in enumerate(A.MODE_PLAN):
                if not blank[first] and (second < 0 or not blank[second]):
                    out.append(L.MODE + m)
        elif kind == K.ANY_SUIT:
            out += [L.SUIT + s for s in range(NUM_SUITS)]
        elif kind == K.ADD:
            out += [L.ADD_CARD + c for c in self._addable()]
            out.append(L.STOP_ADDING)
        elif kind == K.ADD_COIN:
            cid = int(self.ctx[C_PENDING_COIN])
            useful = self._useful_suits()
            out += [L.SUIT + s for s in useful if self._changes_outcome_with(cid, s)]
        elif kind == K.RESOURCE:
            pc = int(self.ctx[C_PC])
            verb = int(self.prog[pc, 0])
            pl = self.players[p]
            for r in (PIZZA, TOYS):
                ok = (
                    pl[P_STUFF_P + r] < STUFF_CAPACITY
                    if verb == GATHER
                    else pl[P_STUFF_P + r] + pl[P_PACK_P + r] > 0
                )
                if ok:
                    out.append(L.RESOURCE + r)
        elif kind == K.PACK:
            pl = self.players[p]
            sticky = self._has_perk(p, STICKY_FINGERS) and self._is_leader(p)
            for i, (r, supply) in enumerate(A.PACK_OPTIONS):
                if (supply and sticky) or (not supply and pl[P_STUFF_P + r] > 0):
                    out.append(L.PACK_FROM + i)
        elif kind == K.LOOKOUT:
            for c in self._lookout_sources(p):
                out.append(L.LOOKOUT_PARK_DECK if c < 0 else L.LOOKOUT_CARD + c)
        elif kind == K.TRASH:
            out += [L.TRASH_CARD + int(c) for c in self._trash_sources(p)]
        elif kind in (K.RECRUIT, K.BIRTHDAY):
            zone = self.zone
            where = zone == PARK
            if kind == K.RECRUIT:  # and every rival's Yard
                where |= (zone == YARD) & (self.owner != p)
            out += (where.nonzero()[0] + L.RECRUIT_CARD).tolist()
            if (self.zone == PARK_DECK).any():
                out.append(L.RECRUIT_PARK_DECK)
            if kind == K.BIRTHDAY:
                out.append(L.PASS)
        elif kind == K.PAY:
            pl = self.players[p]
            t, z, e = int(self.ctx[C_PAY_T]), int(self.ctx[C_PAY_P]), int(self.ctx[C_PAY_E])
            for i, (r, from_pack) in enumerate(A.PAY_OPTIONS):
                col = (P_PACK_P if from_pack else P_STUFF_P) + r
                if pl[col] == 0:
                    continue
                fixed = t if r == TOYS else z
                if fixed == 0 and e == 0:
                    continue
                # after paying this unit, the rest must still be payable
                nt, nz, ne = (
                    (t - 1 if r == TOYS and t else t),
                    (z - 1 if r == PIZZA and z else z),
                    e,
                )
                if (r == TOYS and not t) or (r == PIZZA and not z):
                    ne = e - 1
                pl[col] -= 1
                ok = self._payable(p, nt, nz, ne)
                pl[col] += 1
                if ok:
                    out.append(L.PAY + i)
        elif kind == K.SPEND:
            pl = self.players[p]
            r_fixed = self._resource_of(int(self.prog[int(self.ctx[C_PC]), 1]))
            for i, (r, from_pack) in enumerate(A.PAY_OPTIONS):
                if r == r_fixed and pl[(P_PACK_P if from_pack else P_STUFF_P) + r] > 0:
                    out.append(L.SPEND_FROM + i)
        elif kind == K.TRASH_RIVAL:
            rivals_yards = (self.zone == YARD) & (self.owner != p)
            out += (rivals_yards.nonzero()[0] + L.TRASH_RIVAL_CARD).tolist()
        elif kind == K.COPY_RIVAL:
            for k, r in enumerate(self._rivals(p)):
                if self._copy_status(p, r) != NONE:
                    out.append(L.COPY_RIVAL + k)
        elif kind == K.CONVERT:
            out += [L.CONVERT + i for i in self._convert_options(p)]
        elif kind == K.PICK_RULE:
            out += [L.PICK_RULE + int(i) for i in (self.rule_loc == IN_STACK).nonzero()[0]]
        elif kind == K.PICK_PERK:
            out += [L.PICK_PERK + int(i) for i in (self.perk_loc == IN_STACK).nonzero()[0]]
        elif kind == K.FOLLOW:
            match = set(self._leader_suits())
            for c in self._cards(HAND, p):
                if any(s == COIN or s in match for s in g.suit_lists[c]):
                    out.append(L.FOLLOW_CARD + int(c))
            out.append(L.PASS)
            if self._has_perk(p, ROUGH_HOUSING) and self.ctx[C_ROUGH] < 0:
                out.append(L.ROUGH_HOUSE)
        elif kind == K.FOLLOW_SECOND:
            match = set(self._leader_suits())
            for c in self._cards(HAND, p):
                if any(s == COIN or s in match for s in g.suit_lists[c]):
                    out.append(L.FOLLOW_CARD + int(c))
            out.append(L.PASS)
        elif kind == K.DO_OVER:
            out += [L.DO_OVER, L.PASS]
        elif kind == K.DRAFT:
            out += [L.DRAFT_CARD + int(c) for c in self._cards(DRAFT_PACK, p)]
        return out

    def _useful_suits(self) -> list[int]:
        """Suits counted by a used action of the played card (its "x suit" and any-one-suit)."""
        played = int(self.ctx[C_PLAYED])
        out: list[int] = []
        for side in self._used_sides():
            for mult, arg in multipliers(self.game.effects[played][side]):
                s = arg if mult == MULT_SUIT else -1
                if mult == MULT_ANY_SUIT:
                    s = int(self.ctx[C_ANY_PUB if side == A.PUBLIC else C_ANY_PRIV])
                if s >= 0 and s not in out:
                    out.append(s)
        return out

    def _addable(self) -> list[int]:
        """Cards that may be added now: from hand or not-yet-added Lookout cards (p.6-7) whose
        suits change the outcome of a used action."""
        leader = int(self.ctx[C_LEADER])
        cands = (
            (self.owner == leader)
            & ((self.zone == HAND) | ((self.zone == LOOKOUT) & (self.mark == 0)))
        ).nonzero()[0]
        useful = self._useful_suits()
        ok_suit = {s: self._changes_outcome(s) for s in useful}
        out = []
        for c in cands:
            suits = self.game.suit_lists[c]
            if any(ok_suit[s] for s in useful if s in suits or COIN in suits):
                out.append(int(c))
        return out

    def _changes_outcome_with(self, card: int, suit: int) -> bool:
        return self._changes_outcome(suit)

    def _changes_outcome(self, suit: int) -> bool:
        """Whether one more ``suit`` changes what a used action does (p.7): it raises the
        count of the action used fully, or lets the other one be done one more time.

        The action used fully is checked by the play search; the other by a probe: with one
        more ``suit`` and both actions required in full, can the play be completed in its
        order? That asks whether the other action can go one repetition further where it
        really starts, after the first action (docs/rules.md R7).
        """
        played = int(self.ctx[C_PLAYED])
        plan = A.MODE_PLAN[int(self.ctx[C_MODE])]
        for side in self._used_sides():
            effect = self.game.effects[played][side]
            any_suit = int(self.ctx[C_ANY_PUB if side == A.PUBLIC else C_ANY_PRIV])
            counts = [
                (m == MULT_SUIT and a == suit) or (m == MULT_ANY_SUIT and any_suit == suit)
                for m, a in multipliers(effect)
            ]
            if not any(counts):
                continue
            if side == plan[2]:
                return True
            probe = self.clone()
            probe.play_suits[suit] += 1
            probe.ctx[C_BOTH_FULL] = 1
            goal = int(probe.ctx[C_SERIAL])
            probe._start_action(0)
            if probe._search(goal):
                return True
        return False

    def _legal(self) -> list[int]:
        """Raw-legal actions, minus those after which the play cannot be completed (sorted;
        computed once per position)."""
        if self._legal_memo is None:
            self._legal_memo = self._compute_legal()
        return self._legal_memo

    def _legal_set(self) -> frozenset[int] | list[int]:
        legal = self._legal()
        return legal if len(legal) < 16 else frozenset(legal)

    def _compute_legal(self) -> list[int]:
        raw = self._raw_legal()
        if self.ctx[C_STAGE] not in _SEARCHED_STAGES or self._constraint_met():
            return sorted(raw)
        L = self.game.layout
        goal = int(self.ctx[C_SERIAL])
        classes: dict[object, list[int]] = {}
        out = []
        for a in raw:
            if self._unsearched(a, L):
                out.append(a)
            else:
                classes.setdefault(self._equivalence_key(a), []).append(a)
        # Inside a play already under way the state is known to be completable (every action
        # that led here was checked), so when only one class is left it needs no search.
        known_completable = self.ctx[C_STAGE] not in (ST_PLAY, ST_FOLLOW)
        remaining = len(classes)
        dead = self._dead_modes_of_choice()
        for members in classes.values():
            if dead is not None and dead(members[0]):
                ok = False  # no step of any way to use it can start: docs/rules.md R32
            elif known_completable and remaining == 1:
                ok = True  # the last class of a completable state: it is the completion
            elif self._runs_straight_through(members[0]):
                ok = True
            else:
                child = self.clone()
                child._apply(members[0])
                ok = child._search(goal)
            remaining -= 1
            if ok:
                out.extend(members)
                known_completable = False  # one completion found; the rest must be searched
        return sorted(out)

    def _dead_modes_of_choice(self) -> Any:
        """At a PLAY or MODE decision: a test ``action -> True`` for a card or mode that
        provably cannot be used (``_dead_modes``); None at other decisions."""
        kind = self.ctx[C_DECISION]
        L = self.game.layout
        if kind == K.PLAY:

            def dead_card(a: int) -> bool:
                if not L.PLAY_CARD <= a < L.PLAY_CARD + L.num_cards:
                    return False
                card = a - L.PLAY_CARD
                blank = [e is None for e in self.game.effects[card]]
                return all(
                    flag
                    for flag, (first, second, _) in zip(
                        self._dead_modes(card), A.MODE_PLAN, strict=True
                    )
                    if not blank[first] and (second < 0 or not blank[second])
                )

            return dead_card
        if kind == K.MODE:
            flags = self._dead_modes(int(self.ctx[C_PLAYED]))
            return lambda a: flags[a - L.MODE]
        if kind == K.FOLLOW:
            # A follower uses the public action fully (p.8): if its first step cannot be done
            # now, discarding a card (which only shrinks the hand) cannot change that.
            atom = self.game.first_atom[int(self.ctx[C_PLAYED])][A.PUBLIC]
            if atom is not None and self._statuses(int(self.ctx[C_ACTOR]), [atom])[0] == NONE:
                return lambda a: L.FOLLOW_CARD <= a < L.FOLLOW_CARD + L.num_cards
        return None

    def _statuses(self, p: int, atoms: Sequence[tuple[int, int]]) -> list[int]:
        """``_atom_status`` of each atom for ``p`` as at the start of an action (no resource
        chosen, no conversion direction, no payment under way)."""
        saved = self.ctx
        fresh = saved.copy()
        fresh[C_RES_CHOICE] = fresh[C_CONVERT_DIR] = -1
        fresh[C_PAY_T] = fresh[C_PAY_P] = fresh[C_PAY_E] = 0
        self.ctx = fresh
        try:
            return [self._atom_status(p, verb, arg) for verb, arg in atoms]
        finally:
            self.ctx = saved

    def _dead_modes(self, card: int) -> list[bool]:
        """Per mode of ``card`` (``A.MODE_PLAN`` order), True when that way to use it provably
        cannot be completed by the leader now, without any search.

        A step that cannot be done now (status NONE) cannot become possible before the
        actions start: playing the card, declaring a coin, choosing suits and adding cards only
        take cards out of the hand. So an action whose first step cannot be done fails when it
        must be used fully, and an action none of whose steps can be done changes nothing when
        used as far as it goes. A mode is dead when its fully used action fails at its first
        step, unless the other action runs first and might change what that step needs: it has
        a step that can be done now, and its steps may change something the first step's
        status reads (``_STATUS_READS``, ``_STEP_CHANGES``; docs/rules.md R32).
        """
        g = self.game
        atoms = g.all_atoms[card]
        status = dict(zip(atoms, self._statuses(int(self.ctx[C_LEADER]), atoms), strict=True))
        first_dead = [atom is None or status[atom] == NONE for atom in g.first_atom[card]]
        all_dead = [all(status[atom] == NONE for atom in side) for side in g.atoms[card]]
        reads, changes = g.first_reads[card], g.changes[card]
        out = []
        for first, second, full in A.MODE_PLAN:
            runs_first_alone = second < 0 or full == first
            other = second if full == first else first
            harmless = all_dead[other] or not (reads[full] & changes[other])
            out.append(first_dead[full] and (runs_first_alone or harmless))
        return out

    def _runs_straight_through(self, a: int) -> bool:
        """A sufficient test that playing card ``a`` (or choosing mode ``a``) can be completed:
        with no added card, and the first allowed option at every choice, the action used
        fully runs to a full use (after the other one, used as far as it goes, when the mode
        runs that one first). That run is then itself a completion, so the search is not
        needed; when it fails the search decides."""
        L = self.game.layout
        kind = self.ctx[C_DECISION]
        g = self.game
        # ways to try: the steps ((side, used fully) in order), and for a play the suits in play
        # after it (a coin declared as ``coin`` first), else None (the play is under way)
        plans: list[tuple[tuple[tuple[int, bool], ...], np.ndarray | None, int]] = []
        if kind == K.PLAY and L.PLAY_CARD <= a < L.PLAY_CARD + L.num_cards:
            card = a - L.PLAY_CARD
            for side in (A.PUBLIC, A.PRIVATE):
                for coin, counts in self._suits_if_played(card, side):
                    plans.append((((side, True),), counts, coin))
        elif kind == K.FOLLOW and L.FOLLOW_CARD <= a < L.FOLLOW_CARD + L.num_cards:
            return self._follow_plainly_usable(a - L.FOLLOW_CARD)
        elif kind == K.MODE:
            card = int(self.ctx[C_PLAYED])
            first, second, full = A.MODE_PLAN[a - L.MODE]
            if second < 0:
                plans = [(((first, True),), None, -1)]
            elif full == second:
                plans = [(((first, False), (second, True)), None, -1)]
            else:
                return False  # "X fully, then Y" shares the class of "X only"
        else:
            return False
        p = int(self.ctx[C_LEADER])
        playing = card if kind == K.PLAY else -1
        effects, any_suit = g.effects[card], g.has_any_suit[card]
        for steps, suits, coin in plans:
            if any(effects[side] is None or any_suit[side] for side, _ in steps):
                continue
            if len(steps) == 1:
                effect = g.effects[card][steps[0][0]]
                counted = self.play_suits if suits is None else suits
                if self._plainly_usable(p, effect, counted, playing):
                    return True
            else:  # "Y, then X (fully)": Y used as far as it goes never fails; if none of
                # its steps can change what X reads (its step's status and its count), X is
                # exactly as plainly usable after Y as now
                (y, _), (x, _) = steps
                if not (g.plain_reads[card][x] & g.changes[card][y]) and self._plainly_usable(
                    p, effects[x], self.play_suits, -1
                ):
                    return True
            probe = self.clone()
            if suits is not None:  # as if played ("trash this card" names it)
                probe.zone[card] = IN_PLAY
                probe.play_suits[:] = suits
                probe.ctx[C_PLAYED] = card
                if coin >= 0:
                    probe.coin_as[card] = coin
            for side, full in steps:
                probe.ctx[C_STAGE] = ST_PROBE
                probe._load_program(g.effects[card][side], p, side, full, probe.play_suits, -1)
                probe._run_program()
                # Choices inside the action: take the first allowed option each time. Any run
                # that ends with the action used fully is a witness; a failed one proves
                # nothing.
                while probe.ctx[C_STAGE] == ST_PROBE and not probe.ctx[C_PROG_FAILED]:
                    options = probe._raw_legal()
                    if not options:
                        break
                    probe._apply(options[0])
                if probe.ctx[C_STAGE] != ST_PROBE_DONE:
                    break
            else:
                return True
        return False

    def _suits_if_played(self, card: int, side: int) -> list[tuple[int, np.ndarray]]:
        """The suits in play right after playing ``card`` (before adding), as ``(declared coin
        suit or -1, counts)``: one entry for a card without a coin; for a coin, declared as a
        suit ``side`` counts (if any) and as one it does not (every suit may be declared)."""
        g = self.game
        base = g.suit_counts[card].copy()
        if not g.has_coin[card]:
            return [(-1, base)]
        base[COIN] = 0  # a played coin counts only as the suit declared for it (p.6)
        counted = sorted(arg for m, arg in _mults(g.effects[card][side]) if m == MULT_SUIT)
        uncounted = next(s for s in range(NUM_SUITS) if s not in counted)
        out = []
        for s in ([counted[0]] if counted else []) + [uncounted]:
            suits = base.copy()
            suits[s] += 1
            out.append((s, suits))
        return out

    def _follow_plainly_usable(self, card: int) -> bool:
        """The counting witness for a follow: following with ``card`` alone completes when
        the leader's public action, counted as the follower's would be, is plainly usable by
        the follower (``_plainly_usable``). Copy Cat (a second card) is left to the search."""
        p = int(self.ctx[C_ACTOR])
        if self._has_perk(p, COPY_CAT):
            return False
        counts, any_suit = self._follow_counts([card])
        effect = self.game.effects[int(self.ctx[C_PLAYED])][A.PUBLIC]
        resource = int(self.ctx[C_LEADER_RES])  # a follower gathers what the leader chose
        return self._plainly_usable(p, effect, counts, card, any_suit, resource)

    def _plainly_usable(
        self,
        p: int,
        effect: Effect | None,
        suits: np.ndarray,
        playing: int,
        any_suit: int = -1,
        resource: int = -1,
    ) -> bool:
        """A cheaper sufficient test for the simplest actions: one step, or one step repeated,
        that ``p`` can do fully right now by plain counting (no choice inside can fail it).

        Scoring and "trash this card" always can; gathering ``n`` of one resource can when the
        Stuff has room for ``n`` of it (with "any", the first resource chosen is kept for the
        whole action, unless ``resource`` is already chosen); one Pack, trash, Lookout, recruit
        or trash-a-rival step can when it can start, judged with card ``playing`` (>= 0: about
        to be played or followed with) already out of the hand. Anything else answers False
        and is left to the witness run.
        """
        step = single_step(effect)
        if step is None:
            return False
        verb, arg, mult, mult_arg = step
        n = self._count_for(mult, mult_arg, p, suits, any_suit)
        if n < 1:
            return False  # no step: not a full use (p.7 FAQ)
        if verb in (SCORE, TRASH_THIS):
            return True
        if verb == GATHER:
            stuff = self.players[p, P_STUFF_P : P_STUFF_T + 1].tolist()
            if arg != ANY_RESOURCE:
                have = stuff[arg]
            else:
                have = stuff[resource] if resource >= 0 else min(stuff)
            return have + n <= STUFF_CAPACITY
        if n == 1 and verb in _ONE_STEP_VERBS:
            if playing < 0:
                return self._statuses(p, [(verb, arg)])[0] == FULL
            where = self.zone[playing]
            self.zone[playing] = IN_PLAY  # trash and Lookout choose from the hand
            try:
                return self._statuses(p, [(verb, arg)])[0] == FULL
            finally:
                self.zone[playing] = where
        return False

    def _constraint_met(self) -> bool:
        """True while the leader resolves the second action after the fully used one ended:
        nothing left can strand the play, so no search is needed."""
        return bool(
            self.ctx[C_STAGE] == ST_ACTION
            and self.ctx[C_STEP] == 1
            and not self.ctx[C_PROG_FULL]
            and A.MODE_PLAN[int(self.ctx[C_MODE])][2] == A.MODE_PLAN[int(self.ctx[C_MODE])][0]
        )

    def _unsearched(self, a: int, L: A.ActionLayout) -> bool:
        """Actions that can never strand a play: skipping, passing, Recycling, Rough Housing."""
        return (
            a in (L.SKIP_PLAY, L.ROUGH_HOUSE)
            or (a == L.PASS and self.ctx[C_DECISION] == K.FOLLOW)
            or L.RECYCLE <= a < L.RECYCLE + L.num_cards
        )

    def _equivalence_key(self, a: int) -> object:
        """Actions with equal keys cannot differ in whether the play can be completed: cards
        chosen inside an action matter only by where they are; played and added cards by
        their design and suits (docs/rules.md, "Exact masks")."""
        L = self.game.layout
        name, i = L.decode(a)
        if name in ("LOOKOUT_CARD", "TRASH_CARD", "RECRUIT_CARD", "TRASH_RIVAL_CARD"):
            return (name, int(self.zone[i]), int(self.owner[i]))
        if name == "PLAY_CARD":
            return (name, self.game.kind[i])
        if name in ("ADD_CARD", "FOLLOW_CARD"):
            return (name, int(self.zone[i]), self.game.suit_lists[i])
        if name == "PICK_RULE":
            return name  # which made-up rule cannot change what can be done now
        if name == "MODE" and A.MODE_PLAN[i][2] == A.MODE_PLAN[i][0]:
            # "X fully, then Y" can be completed exactly when "X only" can: Y, used as far as
            # it goes, never fails, and every card added for X is still allowed.
            return ("MODE", A.MODE_PLAN[i][0])
        kind = self.ctx[C_DECISION]
        if name == "SUIT" and kind in (K.DECLARE_COIN, K.ANY_SUIT):
            played = int(self.ctx[C_PLAYED])
            if not any(self.game.has_any_suit[played]):
                # the declared suit matters to the play only if one of the card's multipliers
                # counts it; other suits differ only for followers
                return a if i in self.game.counted_suits[played] else (name, -1)
            if self._interchangeable_suit(i):
                return (name, -1, int(self.play_suits[i]))
        return a

    def _interchangeable_suit(self, s: int) -> bool:
        """Whether, for the rest of the leader's play, suit ``s`` is like any other suit with
        as many in play: no fixed "x suit" of the played card counts it, no "any one suit" has
        chosen it, and no card the leader could add has it (coins match every suit alike).
        Swapping two such suits maps the play's remaining choices one to one, so declaring a
        coin as, or choosing "any one suit" as, either has the same verdict (docs/rules.md R32).
        """
        if s == COIN or s in self.game.counted_suits[int(self.ctx[C_PLAYED])]:
            return False
        if s in (self.ctx[C_ANY_PUB], self.ctx[C_ANY_PRIV]):
            return False
        leader = int(self.ctx[C_LEADER])
        suit_lists = self.game.suit_lists
        zone, owner, mark = self.zone, self.owner, self.mark
        for c in (owner == leader).nonzero()[0].tolist():
            z = zone[c]
            if (z == HAND or (z == LOOKOUT and not mark[c])) and s in suit_lists[c]:
                return False
        return True

    def _adding_cannot_help(self) -> bool:
        """After "stop adding" failed: True when more cards cannot make the play possible.

        When the fully used action is one repeat of a body without multipliers, the run with
        n repetitions is a prefix of the run with more; adding only shrinks the hand (fewer
        options, never more); and the other action, if any, counts no suit, so added cards
        change nothing it does. So if n >= 1 failed, every larger count fails too.
        """
        first, second, full = A.MODE_PLAN[int(self.ctx[C_MODE])]
        effects = self.game.effects[int(self.ctx[C_PLAYED])]
        effect = effects[full]
        if effect is None or effect[0] != REPEAT or _mults(effect[1]):
            return False
        if second >= 0:
            other = second if full == first else first
            if any(m in (MULT_SUIT, MULT_ANY_SUIT) for m, _ in _mults(effects[other])):
                return False
        any_suit = int(self.ctx[C_ANY_PUB if full == A.PUBLIC else C_ANY_PRIV])
        leader = int(self.ctx[C_LEADER])
        return self._count_for(effect[2], effect[3], leader, self.play_suits, any_suit) >= 1

    def _digest(self) -> bytes:
        """16-byte digest of every array of the state (the search memo's key)."""
        data = b"".join(
            [
                self.zone.tobytes(),
                self.owner.tobytes(),
                self.pos.tobytes(),
                self.mark.tobytes(),
                self.coin_as.tobytes(),
                self.players.tobytes(),
                self.rule_loc.tobytes(),
                self.perk_loc.tobytes(),
                self.play_suits.tobytes(),
                self.prog.tobytes(),
                self.done.tobytes(),
                _CTX_PACK(*self.ctx),
            ]
        )
        return _blake2b(data, digest_size=16).digest()

    def _search(self, goal: int) -> bool:
        """Depth-first: can this play (or follow) still be completed within the rules?

        Consumes the state: callers pass a copy they no longer need.
        """
        if self.ctx[C_PROG_FAILED]:
            return False
        if self.ctx[C_SERIAL] > goal or self.ctx[C_STAGE] not in _SEARCHED_STAGES:
            return True
        if self._constraint_met():
            return True
        memo = self.game.search_memo
        key = self._digest() + goal.to_bytes(8, "little", signed=True)
        known = memo.get(key)
        if known is not None:
            return known
        if len(memo) >= SEARCH_MEMO_LIMIT:
            memo.clear()
        result = self._search_children(goal)
        memo[key] = result
        return result

    def _search_children(self, goal: int) -> bool:
        seen: set[object] = set()
        L = self.game.layout
        if self.ctx[C_DECISION] == K.ADD:
            # Adding nothing is the cheapest completion to try; the addable cards (which need
            # probes to find) are only listed when it fails.
            child = self.clone()
            child._apply(L.STOP_ADDING)
            if child._search(goal):
                return True
            if self._adding_cannot_help():
                return False
            seen.add(L.STOP_ADDING)
        raw = self._raw_legal()
        if self.ctx[C_DECISION] == K.DECLARE_COIN:
            # a coin declared as a suit the card counts is the likeliest completion: try first
            counted = self.game.counted_suits[int(self.ctx[C_PLAYED])]
            raw.sort(key=lambda a: a - L.SUIT not in counted)
        elif self.ctx[C_DECISION] == K.MODE:
            dead = self._dead_modes(int(self.ctx[C_PLAYED]))
            raw = [a for a in raw if not dead[a - L.MODE]]
            # A one-action mode whose straight run is a full use completes the play: try those
            # witnesses before searching any mode's subtree (a failing mode's subtree, with its
            # suit choices and added cards, is the costly part).
            for a in raw:
                if self._runs_straight_through(a):
                    return True
        firsts = []  # one action per equivalence class
        for a in raw:
            if a == L.SKIP_PLAY or (L.RECYCLE <= a < L.RECYCLE + L.num_cards):
                continue  # not a way to complete the play under test
            key = self._equivalence_key(a)
            if key not in seen:
                seen.add(key)
                firsts.append(a)
        last = len(firsts) - 1
        for j, a in enumerate(firsts):
            # A searched state is a throwaway copy (its verdict is memoised under the digest
            # taken before its children), so the last child is played on it without a clone.
            child = self if j == last else self.clone()
            child._apply(a)
            if child._search(goal):
                return True
        return False

    # ------------------------------------------------------------------ applying
    def _apply(self, a: int) -> None:
        """Apply an action known to be legal."""
        self._legal_memo = None
        handler, i = self.game.handlers[a]
        handler(self, self.ctx[C_ACTOR], i, self.ctx[C_DECISION])

    def _on_play_card(self, p: int, c: int, kind: int) -> None:
        self.zone[c] = IN_PLAY
        self.ctx[C_PLAYED] = c
        self.ctx[C_PLAYS] += 1
        for s in self.game.suit_lists[c]:
            if s != COIN:
                self.play_suits[s] += 1
        if self.game.has_coin[c]:
            self.ctx[C_PENDING_COIN] = c
            self.ctx[C_STAGE] = ST_DECLARE
            self._set_decision(K.DECLARE_COIN, p)
        else:
            self._after_declare_played()

    def _on_skip_play(self, p: int, i: int, kind: int) -> None:
        self._end_leader_play()

    def _on_use_diy(self, p: int, i: int, kind: int) -> None:
        self.perk_loc[DIY] = USED
        self.ctx[C_PLAYS] += 1
        # DIY is no card: its one action (mode "private only") cannot be followed.
        self.ctx[C_MODE] = 1
        self.ctx[C_STEP] = 0
        self.ctx[C_STAGE] = ST_ACTION
        self._load_program((ATOM, ADVANCE, 1), p, A.PRIVATE, True, self.play_suits, -1)
        self._run_program()

    def _on_recycle(self, p: int, c: int, kind: int) -> None:
        self.perk_loc[RECYCLING] = USED
        self.zone[c] = HAND

    def _on_suit(self, p: int, s: int, kind: int) -> None:
        if kind in (K.DECLARE_COIN, K.ADD_COIN):
            c = int(self.ctx[C_PENDING_COIN])
            self.coin_as[c] = s
            self.play_suits[s] += 1
            self.ctx[C_PENDING_COIN] = -1
            if kind == K.DECLARE_COIN:
                self._after_declare_played()
            else:
                self.ctx[C_STAGE] = ST_ADD
                self._set_decision(K.ADD, p)
        else:  # ANY_SUIT
            side = int(self.ctx[C_ANY_SIDE])
            self.ctx[C_ANY_PUB if side == A.PUBLIC else C_ANY_PRIV] = s
            self._after_mode()

    def _on_mode(self, p: int, m: int, kind: int) -> None:
        self.ctx[C_MODE] = m
        self._after_mode()

    def _on_add_card(self, p: int, c: int, kind: int) -> None:
        self.mark[c] = 1
        if self.zone[c] == HAND:
            self.zone[c] = IN_PLAY
        for s in self.game.suit_lists[c]:
            if s != COIN:
                self.play_suits[s] += 1
        if self.game.has_coin[c]:
            self.ctx[C_PENDING_COIN] = c
            self.ctx[C_STAGE] = ST_ADD_COIN
            self._set_decision(K.ADD_COIN, p)

    def _on_stop_adding(self, p: int, i: int, kind: int) -> None:
        self._start_action(0)

    def _on_resource(self, p: int, r: int, kind: int) -> None:
        self.ctx[C_RES_CHOICE] = r
        self._run_program()

    def _on_pack_from(self, p: int, i: int, kind: int) -> None:
        r, supply = A.PACK_OPTIONS[i]
        if not supply:
            self.players[p, P_STUFF_P + r] -= 1
        self.players[p, P_PACK_P + r] += 1
        self._step_done()
        self._run_program()

    def _on_lookout_card(self, p: int, c: int, kind: int) -> None:
        if self.zone[c] == PARK:
            self._refill_park(int(self.pos[c]))
        self.zone[c] = LOOKOUT
        self.owner[c] = p
        self._step_done()
        self._run_program()

    def _on_lookout_park_deck(self, p: int, i: int, kind: int) -> None:
        self._on_lookout_card(p, self._top_of_park_deck(), kind)

    def _on_trash_card(self, p: int, c: int, kind: int) -> None:
        self.zone[c] = TRASH
        self._step_done()
        self._run_program()

    def _recruit(self, p: int, c: int) -> None:
        if self.zone[c] == PARK:
            slot = int(self.pos[c])
            self.zone[c] = DISCARD
            self._refill_park(slot)
        else:
            self.zone[c] = DISCARD
        self.owner[c] = p

    def _on_recruit_card(self, p: int, c: int, kind: int) -> None:
        self._recruit(p, c)
        self._after_recruit(p, kind)

    def _on_recruit_park_deck(self, p: int, i: int, kind: int) -> None:
        self._recruit(p, self._top_of_park_deck())
        self._after_recruit(p, kind)

    def _after_recruit(self, p: int, kind: int) -> None:
        stage = self.ctx[C_STAGE]
        if stage == ST_RECRUIT:
            self._to_birthday()
        elif stage == ST_BIRTHDAY:
            self._end_turn()
        else:
            self._step_done()
            self._run_program()

    def _on_pay(self, p: int, i: int, kind: int) -> None:
        r, from_pack = A.PAY_OPTIONS[i]
        self.players[p, (P_PACK_P if from_pack else P_STUFF_P) + r] -= 1
        fixed = C_PAY_T if r == TOYS else C_PAY_P
        if self.ctx[fixed] > 0:
            self.ctx[fixed] -= 1
        else:
            self.ctx[C_PAY_E] -= 1
        if self.ctx[C_PAY_T] + self.ctx[C_PAY_P] + self.ctx[C_PAY_E] == 0:
            self._level_up(p)
            self._run_program()

    def _on_spend_from(self, p: int, i: int, kind: int) -> None:
        r, from_pack = A.PAY_OPTIONS[i]
        self.players[p, (P_PACK_P if from_pack else P_STUFF_P) + r] -= 1
        self._step_done()
        self._run_program()

    def _on_trash_rival_card(self, p: int, c: int, kind: int) -> None:
        self.zone[c] = TRASH
        self._step_done()
        self._run_program()

    def _on_copy_rival(self, p: int, k: int, kind: int) -> None:
        self._copy_from(p, self._rivals(p)[k])
        self._step_done()
        self._run_program()

    def _on_convert(self, p: int, i: int, kind: int) -> None:
        src, in_pack = A.CONVERT_OPTIONS[i]
        base = P_PACK_P if in_pack else P_STUFF_P
        self.players[p, base + src] -= 1
        self.players[p, base + 1 - src] += 1
        self.ctx[C_CONVERT_DIR] = src
        self._step_done()
        self._run_program()

    def _on_pick_rule(self, p: int, i: int, kind: int) -> None:
        self.rule_loc[i] = p
        self.ctx[C_REWARD] = 0
        self._run_program()

    def _on_pick_perk(self, p: int, i: int, kind: int) -> None:
        self.perk_loc[i] = p
        self.ctx[C_REWARD] = 0
        self._run_program()

    def _on_follow_card(self, p: int, c: int, kind: int) -> None:
        self.zone[c] = FOLLOWED
        if kind == K.FOLLOW and self._has_perk(p, COPY_CAT):
            self.ctx[C_STAGE] = ST_FOLLOW_SECOND
            self._set_decision(K.FOLLOW_SECOND, p)
            return
        self._start_follow_program()

    def _on_pass(self, p: int, i: int, kind: int) -> None:
        if kind == K.FOLLOW:
            self._next_follower(p)
        elif kind == K.FOLLOW_SECOND:
            self._start_follow_program()
        elif kind == K.DO_OVER:
            self._to_recruit()
        elif kind == K.BIRTHDAY:
            self._end_turn()
        else:
            raise AssertionError(kind)

    def _on_rough_house(self, p: int, i: int, kind: int) -> None:
        self.perk_loc[ROUGH_HOUSING] = USED
        self.ctx[C_ROUGH] = p
        self._next_follower(p)

    def _on_do_over(self, p: int, i: int, kind: int) -> None:
        self.perk_loc[DO_OVER] = USED
        self._to_play()

    def _on_draft_card(self, p: int, c: int, kind: int) -> None:
        """Advanced setup (p.2): keep one card; when all have kept, pass packs to the left."""
        self.zone[c] = DRAFT_KEPT
        n = self.game.num_players
        first = int(self.ctx[C_FIRST])
        nxt = (p + 1) % n
        if nxt != first:
            self._set_decision(K.DRAFT, nxt)
            return
        packs = self._cards(DRAFT_PACK)
        self.owner[packs] = (self.owner[packs] + 1) % n  # pass to the left
        self.ctx[C_DRAFT_ROUND] += 1
        if self.ctx[C_DRAFT_ROUND] >= STARTING_KIDS:
            self._finish_setup()
        else:
            self._set_decision(K.DRAFT, first)
