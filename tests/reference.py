"""A slow, plainly exhaustive reference for the legal-action masks (tests only).

For every locally legal action it enumerates every way of finishing the play (every card,
every order, no equivalence classes, no shortcuts) and keeps the action if one of them ends
with the play completed within the rules. ``FortState.legal_actions`` must agree with it; it
prunes the same search by treating equivalent choices once (``rules.search.equivalence_key``).
It uses only the state's public search hooks (``local_legal_actions``, ``apply_unchecked``...).
"""

from __future__ import annotations

from fort_env.core import FortState


class BudgetExceeded(RuntimeError):
    """The enumeration visited more states than allowed."""


def reference_legal_actions(state: FortState, budget: int = 20_000) -> list[int]:
    """Legal actions found by exhaustive enumeration of whole plays.

    Raises:
        BudgetExceeded: more than ``budget`` states were visited.
    """
    raw = state.local_legal_actions()
    if not state.in_searched_stage():
        return sorted(raw)
    goal = state.play_serial()
    counter = [budget]
    out = []
    for a in raw:
        if state.never_strands(a):
            out.append(a)
            continue
        child = state.clone()
        child.apply_unchecked(a)
        if _completable(child, goal, counter):
            out.append(a)
    return sorted(out)


def _completable(s: FortState, goal: int, counter: list[int]) -> bool:
    counter[0] -= 1
    if counter[0] < 0:
        raise BudgetExceeded
    if s.play_failed():
        return False
    if s.play_serial() > goal or not s.in_searched_stage():
        return True
    layout = s.game.layout
    at_play = s.decision.kind.name == "PLAY"
    for a in s.local_legal_actions():
        recycle = layout.RECYCLE <= a < layout.RECYCLE + layout.num_cards
        if a == layout.SKIP_PLAY or (at_play and recycle):
            continue  # these do not complete the play under test (Recycling inside the
            # leader's actions may: a tuck with an empty hand, docs/rules.md R15)
        child = s.clone()
        child.apply_unchecked(a)
        if _completable(child, goal, counter):
            return True
    return False
