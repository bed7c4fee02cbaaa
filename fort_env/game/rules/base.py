"""Shared pieces of the rules: decision kinds as ints, step outcomes, small queries on a seat
(capacities, perks, rivals, what there is to recruit) and on the Park deck, the generator of
random events, and what the rules read of a game beyond its facts (``RulesGame``), that every
rules module uses.

The rules are functions over ``fort_env.game.state_arrays.StateArrays`` (``fort_env.core`` sits
above them and is never imported here). Their modules import one another one way only (no
import cycle), lowest first: base, verbs, program, flow, deal, handlers, legality, witness,
search. Where a lower module must go on in a higher one, the higher one fills in a table of the
lower one (``program.PROGRAM_DONE``, ``legality.LEGAL``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from types import SimpleNamespace
from typing import Protocol

import numpy as np

from fort_env.game.cards import REPEAT, Effect, multipliers
from fort_env.game.constants import (
    DISCARD,
    PARK,
    PARK_DECK,
    RECYCLING,
    XXL,
    XXL_BACKPACK_BONUS,
    YARD,
)
from fort_env.game.decisions import DecisionKind
from fort_env.game.fields import C_ACTOR, C_DECISION, C_LEADER, C_SEED, C_SHUFFLES, P_FORT_LEVEL
from fort_env.game.rng import EventRng
from fort_env.game.stages import (
    ST_ACTION,
    ST_ADD,
    ST_ADD_COIN,
    ST_ANY_SUIT,
    ST_BIRTHDAY,
    ST_DECLARE,
    ST_DO_OVER,
    ST_FOLLOW,
    ST_FOLLOW_RUN,
    ST_FOLLOW_SECOND,
    ST_MODE,
    ST_PLAY,
    ST_PROBE,
    ST_RECRUIT,
)
from fort_env.game.state_arrays import StateArrays

# Decision kinds as plain ints: IntEnum attribute access is slow on the hot path (py3.11).
K = SimpleNamespace(**{kind.name: int(kind) for kind in DecisionKind})
# Stages inside a play whose choices must keep the play completable (searched).
SEARCHED_STAGES = frozenset(
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
# Stages at whose decisions the leader may use Recycling ("Anytime on your turn", p.16;
# docs/rules.md R15): the Play decision, every decision inside the leader's actions (ST_PROBE:
# the search's witness runs of them), Do-Over, the Recruit phase and Birthday Party. Not the
# decisions that set up the played card (coin, mode, "any one suit", adding): nothing moves a
# card into the discard pile between the Play decision and the first action, so recycling there
# is recycling at the Play decision. Not a follower's decisions: it is not the follower's turn.
RECYCLE_STAGES = frozenset((ST_PLAY, ST_ACTION, ST_PROBE, ST_DO_OVER, ST_RECRUIT, ST_BIRTHDAY))
# ctx.both_full inside the legality probes (0 outside them): 1, both actions must be used
# fully; BOTH_FULL_TAIL + k (k >= 0), the fully used one fully and the other must carry out
# some step of its repetition k (0-based), the first an added card brings (legality R7)
BOTH_FULL_TAIL = 2
REWARD_RULE, REWARD_PERK = 1, 2  # ctx.reward: a Fort Level reward waiting to be picked
NONE, PARTIAL, FULL = 0, 1, 2  # whether a step can be done now (verbs.atom_status)


@lru_cache(maxsize=4096)
def _mults_cached(effect: Effect) -> tuple[tuple[int, int], ...]:
    return tuple(multipliers(effect))


def mults(effect: Effect | None) -> tuple[tuple[int, int], ...]:
    """An action's multipliers ``(kind, arg)`` in ``cards.multipliers`` order (cached)."""
    return () if effect is None else _mults_cached(effect)


def rivals(state: StateArrays, p: int) -> list[int]:
    n = state.game.num_players
    return [(p + k) % n for k in range(1, n)]


def pack_capacity(state: StateArrays, p: int) -> int:
    cap = int(state.players[p, P_FORT_LEVEL]) + 1
    return cap + XXL_BACKPACK_BONUS if state.perk_loc[XXL] == p else cap


def lookout_capacity(state: StateArrays, p: int) -> int:
    return int(state.players[p, P_FORT_LEVEL]) + 1


def has_perk(state: StateArrays, p: int, perk: int) -> bool:
    return bool(state.perk_loc[perk] == p)


def is_leader(state: StateArrays, p: int) -> bool:
    return bool(state.ctx[C_LEADER] == p)


def can_recycle(state: StateArrays, p: int) -> bool:
    """Whether ``p`` could use Recycling now (p.16: "Anytime on your turn, you may trash this
    card to take a card from your discard pile and add it to your hand"): it holds the perk,
    it is its turn, and its discard pile has a card (docs/rules.md R15)."""
    return bool(
        state.perk_loc[RECYCLING] == p
        and state.ctx[C_LEADER] == p
        and ((state.zone == DISCARD) & (state.owner == p)).any()
    )


def set_decision(state: StateArrays, kind: int, player: int) -> None:
    state.ctx[C_DECISION] = int(kind)
    state.ctx[C_ACTOR] = player


def repeats_plain_body(effect: Effect | None) -> bool:
    """An action that is one body (a step, or a "then" chain of steps) repeated by one
    multiplier, the body itself without multipliers: ``(X -> Y) x suit``."""
    return effect is not None and effect[0] == REPEAT and not mults(effect[1])


def recruit_options(state: StateArrays, p: int, yards: bool) -> bool:
    """Whether ``p`` has something to recruit (p.9): the Park or its deck, or with ``yards``
    a rival's Yard (the Recruit phase and the recruit step; Birthday Party has no Yards)."""
    if (state.zone == PARK).any() or (state.zone == PARK_DECK).any():
        return True
    return yards and any(state.count_in(YARD, r) for r in rivals(state, p))


def top_of_park_deck(state: StateArrays) -> int:
    """The Park deck's top card (lowest ``pos``), -1 when it is empty."""
    ids = (state.zone == PARK_DECK).nonzero()[0]
    if len(ids) == 0:
        return -1
    return int(ids[np.argmin(state.pos[ids])])


def event_rng(state: StateArrays) -> EventRng:
    """The generator of the next random event, keyed by (seed, events so far) (``rng.py``).

    Keeping only two integers makes ``clone()`` and ``to_dict()`` exact and cheap.
    """
    count = int(state.ctx[C_SHUFFLES])
    state.ctx[C_SHUFFLES] = count + 1
    return EventRng(int(state.ctx[C_SEED]), count)


# What the rules read of a game beyond its facts. ``StateArrays.game`` is a ``GameFacts``; the
# game a state plays (``fort_env.core.FortGame``, a layer above the rules, never imported here)
# adds two tables the rules build: ``handlers.handler_list`` and ``search.SearchTables``. The
# modules that read them see ``state.game`` as this Protocol (``typing.cast``).
Handler = Callable[[StateArrays, int, int, int], None]


class SearchTablesView(Protocol):
    """What the rules read of ``search.SearchTables`` (documented there): per card and side,
    the steps of its actions and what they read and change; and the search's memo."""

    first_atom: list[tuple[tuple[int, int] | None, ...]]
    atoms: list[tuple[frozenset[tuple[int, int]], ...]]
    first_reads: list[tuple[frozenset[int], ...]]
    changes: list[tuple[frozenset[int], ...]]
    plain_reads: list[tuple[frozenset[int], ...]]
    all_atoms: list[tuple[tuple[int, int], ...]]
    search_memo: dict[bytes, bool]


class RulesGame(Protocol):
    """The tables ``fort_env.core.FortGame`` adds to its ``GameFacts`` for the rules."""

    @property
    def handlers(self) -> Sequence[tuple[Handler, int]]:
        """Per action: ``(handler, index within its range)`` (``handlers.handler_list``)."""
        ...

    @property
    def search_tables(self) -> SearchTablesView:
        """The search's per-game tables and memo (``search.SearchTables``)."""
        ...
