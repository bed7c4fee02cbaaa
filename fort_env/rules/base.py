"""Shared pieces of the rules: decision kinds as ints, step outcomes, and small queries on a
seat (capacities, perks, rivals) that every rules module uses.
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace
from typing import TYPE_CHECKING

from ..cards import (
    REPEAT,
    Effect,
    multipliers,
)
from ..constants import (
    XXL,
    XXL_BACKPACK_BONUS,
)
from ..decisions import DecisionKind
from ..stages import (
    ST_ACTION,
    ST_ADD,
    ST_ADD_COIN,
    ST_ANY_SUIT,
    ST_DECLARE,
    ST_FOLLOW,
    ST_FOLLOW_RUN,
    ST_FOLLOW_SECOND,
    ST_MODE,
    ST_PLAY,
    ST_PROBE,
)
from ..state_arrays import (
    C_ACTOR,
    C_DECISION,
    C_LEADER,
    P_LEVEL,
)

if TYPE_CHECKING:
    from ..core import FortState


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


def rivals(state: FortState, p: int) -> list[int]:
    n = state.game.num_players
    return [(p + k) % n for k in range(1, n)]


def pack_capacity(state: FortState, p: int) -> int:
    cap = int(state.players[p, P_LEVEL]) + 1
    return cap + XXL_BACKPACK_BONUS if state.perk_loc[XXL] == p else cap


def lookout_capacity(state: FortState, p: int) -> int:
    return int(state.players[p, P_LEVEL]) + 1


def has_perk(state: FortState, p: int, perk: int) -> bool:
    return bool(state.perk_loc[perk] == p)


def is_leader(state: FortState, p: int) -> bool:
    return bool(state.ctx[C_LEADER] == p)


def set_decision(state: FortState, kind: int, player: int) -> None:
    state.ctx[C_DECISION] = int(kind)
    state.ctx[C_ACTOR] = player


def repeats_plain_body(effect: Effect | None) -> bool:
    """An action that is one body (a step, or a "then" chain of steps) repeated by one
    multiplier, the body itself without multipliers: ``(X -> Y) x suit``."""
    return effect is not None and effect[0] == REPEAT and not mults(effect[1])
