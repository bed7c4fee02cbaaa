"""A slow, plainly exhaustive reference for the legal-action masks (tests only).

For every locally legal action it enumerates every way of finishing the play (every card,
every order, no equivalence classes, no shortcuts) and keeps the action if one of them ends
with the play completed within the rules. ``FortState.legal_actions`` must agree with it; it
prunes the same search by treating equivalent choices once (``FortState._equivalence_key``).
"""

from __future__ import annotations

from .engine import _SEARCHED_STAGES, FortState
from .state_arrays import C_PROG_FAILED, C_SERIAL, C_STAGE


class BudgetExceeded(RuntimeError):
    """The enumeration visited more states than allowed."""


def reference_legal_actions(state: FortState, budget: int = 20_000) -> list[int]:
    """Legal actions found by exhaustive enumeration of whole plays.

    Raises:
        BudgetExceeded: more than ``budget`` states were visited.
    """
    raw = state._raw_legal()
    if state.ctx[C_STAGE] not in _SEARCHED_STAGES:
        return sorted(raw)
    goal = int(state.ctx[C_SERIAL])
    counter = [budget]
    layout = state.game.layout
    out = []
    for a in raw:
        if state._unsearched(a, layout):
            out.append(a)
            continue
        child = state.clone()
        child._apply(a)
        if _completable(child, goal, counter):
            out.append(a)
    return sorted(out)


def _completable(s: FortState, goal: int, counter: list[int]) -> bool:
    counter[0] -= 1
    if counter[0] < 0:
        raise BudgetExceeded
    if s.ctx[C_PROG_FAILED]:
        return False
    if s.ctx[C_SERIAL] > goal or s.ctx[C_STAGE] not in _SEARCHED_STAGES:
        return True
    layout = s.game.layout
    for a in s._raw_legal():
        if a == layout.SKIP_PLAY or layout.RECYCLE <= a < layout.RECYCLE + layout.num_cards:
            continue  # these do not complete the play under test
        child = s.clone()
        child._apply(a)
        if _completable(child, goal, counter):
            return True
    return False
