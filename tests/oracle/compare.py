"""Walk the engine through a play and compare its legal actions with the oracle's."""

from __future__ import annotations

from typing import Any

from .play import PlayOracle

# decisions that come after the leader's actions (p.8-9, p.16)
AFTER_PLAY = {"FOLLOW", "DO_OVER", "BIRTHDAY", "ROUGH_HOUSING", "TERMINAL", "PLAY"}


def play_over(s: Any) -> bool:
    """The engine has left the leader's play (the Recruit phase's RECRUIT is outside any
    action; the recruit action's runs inside one)."""
    kind = s.decision.kind.name
    return kind in AFTER_PLAY or (kind == "RECRUIT" and s.running_side < 0)


def engine_legal(state: Any, oracle: PlayOracle, prefix: tuple[int, ...]) -> set[int]:
    """The engine's legal actions, less the PLAY decision's DIY and Recycling (not covered)."""
    legal = set(state.legal_actions())
    if not prefix:
        L = oracle.L
        legal = {
            a for a in legal if a != L.USE_DIY and not L.RECYCLE <= a < L.RECYCLE + L.num_cards
        }
    return legal


def disagreements(
    state: Any, oracle: PlayOracle, rng: Any = None, limit: int = 10_000, tally: Any = None
) -> list:
    """Every decision of the play (all paths, or one random path per call when ``rng`` is
    given) where the engine and the oracle disagree: ``[(prefix, engine only, oracle only)]``.
    ``tally`` (a ``collections.Counter``), if given, counts the decisions compared."""
    out: list = []
    count = [limit]

    def walk(s: Any, prefix: tuple[int, ...]) -> None:
        count[0] -= 1
        if count[0] < 0:
            return
        if oracle.complete(prefix) and not oracle.legal(prefix):
            if not play_over(s):
                out.append((prefix, {"decision": s.decision.kind.name}, "play over"))
            return
        if prefix and prefix[-1] == oracle.L.SKIP_PLAY:
            return
        mine = oracle.legal(prefix)
        theirs = engine_legal(s, oracle, prefix)
        if play_over(s) and prefix:
            out.append((prefix, {"decision": s.decision.kind.name}, mine))
            return
        if tally is not None:
            tally["decisions"] += 1
        if mine != theirs:
            out.append((prefix, theirs - mine, mine - theirs))
        both = sorted(mine & theirs)
        if rng is not None and both:
            both = [both[int(rng.integers(len(both)))]]
        for a in both:
            child = s.clone()
            child.apply_action(a)
            walk(child, (*prefix, a))

    walk(state.clone(), ())
    return out


def describe(state: Any, found: list) -> str:
    """The disagreements as text: the play so far, then what only one side allows."""
    lines = []
    for prefix, theirs, mine in found[:8]:
        s = state.clone()
        texts = []
        for a in prefix:
            texts.append(s.action_to_string(a))
            s.apply_action(a)
        lines.append(
            f"{' | '.join(texts)}\n   engine only: {_names(s, theirs)}"
            f"\n   oracle only: {_names(s, mine)}"
        )
    return "\n".join(lines)


def _names(s: Any, xs: Any) -> Any:
    return sorted(s.action_to_string(a) for a in xs) if isinstance(xs, set) else xs
