"""Text twins of actions and states: ``action_to_string`` and the table as text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fort_env.game import verb_table
from fort_env.game.constants import (
    DECK,
    DISCARD,
    HAND,
    IN_STACK,
    LOOKOUT,
    PARK,
    PARK_DECK,
    PERKS,
    YARD,
)
from fort_env.game.fields import (
    C_LEADER,
    C_SCULPTURE,
    P_FORT_LEVEL,
    P_PACK_PIZZA,
    P_PACK_TOYS,
    P_SCORE,
    P_STUFF_PIZZA,
    P_STUFF_TOYS,
)

if TYPE_CHECKING:
    from fort_env.game.state_arrays import StateArrays


# What a person reads beside each entry of ``scoring.score_breakdown`` (its keys stay the
# records' and results' JSON keys): ``fort_level`` is the points the Fort Level gives
# (rulebook p.11), ``level`` the Fort Level itself, so the two are never both "Fort Level".
SCORE_LABELS = {
    "track": "Victory Track",
    "fort_level": "Fort Level points",
    "made_up_rule": "made-up rule",
    "macaroni": "macaroni sculpture",
    "total": "total",
    "level": "Fort Level",
}


def score_label(key: str) -> str:
    """The words shown for the score breakdown's entry ``key`` (:data:`SCORE_LABELS`)."""
    return SCORE_LABELS.get(key, key.replace("_", " "))


def score_line(row: dict[str, int]) -> str:
    """One seat's score breakdown as a line: ``Victory Track 12, Fort Level points 6,
    made-up rule 0, macaroni sculpture 0, total 18 (Fort Level 3)``."""
    parts = [f"{score_label(k)} {v}" for k, v in row.items() if k != "level"]
    text = ", ".join(parts)
    return f"{text} ({score_label('level')} {row['level']})" if "level" in row else text


def plural(count: int, word: str, words: str | None = None) -> str:
    """``"1 card"``, ``"2 cards"``: ``count`` and the word in the number it takes."""
    return f"{count} {word if count == 1 else (words or word + 's')}"


def card_label(state: StateArrays, cid: int) -> str:
    card = state.game.cards[cid]
    return f"{card.name} [{'/'.join(card.suit_names)}]#{cid}"


def action_to_string(state: StateArrays, action: int) -> str:
    """A readable name of ``action`` (meaningful for any action number in range).

    Raises:
        ValueError: the action is outside ``[0, num_distinct_actions)``.
    """
    name, i = state.game.layout.decode(int(action))
    row = _RANGE_ROWS[name]
    option = verb_table.OPTION_NAMES[row.options][i] if row.options is not None else ""
    card = card_label(state, i) if row.size == verb_table.C else ""
    return row.text.format(card=card, option=option, i=i)


# range name -> its row of the verb table (its words: ``Range.text``)
_RANGE_ROWS = {r.name: r for r in verb_table.RANGES}


def state_to_string(state: StateArrays, viewer: int | None = None, words: bool = False) -> str:
    """The table as text. With ``viewer`` set, hands other than the viewer's are hidden.

    ``words``: each seat's points read "Victory Track 3" (the rulebook's name, as the final
    breakdown says it) instead of the code form's "score 3" (``fort-env play``, ``serve``)."""
    g = state.game

    def names(ids: object) -> str:
        return ", ".join(card_label(state, int(c)) for c in ids) or "-"  # type: ignore[attr-defined]

    lines = [f"Park: {names(sorted(state.cards_in(PARK), key=lambda c: state.pos[c]))}"]
    lines.append(f"Park deck: {plural(len(state.cards_in(PARK_DECK)), 'card')}")
    rules = int((state.rule_loc == IN_STACK).sum())
    row = [PERKS[i] for i in range(len(PERKS)) if state.perk_loc[i] == IN_STACK]
    lines.append(f"Made-up rules in the stack: {rules}; perk row: {', '.join(row) or '-'}")
    leader = int(state.ctx[C_LEADER])
    for p in range(g.num_players):
        pl = state.players[p]
        tag = " (leader)" if p == leader else ""
        perks = [PERKS[i] for i in range(len(PERKS)) if state.perk_loc[i] == p]
        if state.ctx[C_SCULPTURE] == p:
            perks.append("macaroni sculpture")
        points = f"{SCORE_LABELS['track']} {pl[P_SCORE]}" if words else f"score {pl[P_SCORE]}"
        lines.append(
            f"Player {p}{tag}: {points}, Fort Level {pl[P_FORT_LEVEL]}, "
            f"Stuff {pl[P_STUFF_PIZZA]} pizza {pl[P_STUFF_TOYS]} toys, "
            f"Pack {pl[P_PACK_PIZZA]} pizza {pl[P_PACK_TOYS]} toys; "
            f"perks: {', '.join(perks) or '-'}"
        )
        hand = state.cards_in(HAND, p)
        if viewer is None or viewer == p:
            lines.append(f"  hand: {names(hand)}")
        else:
            lines.append(f"  hand: {plural(len(hand), 'card')}")
        lines.append(f"  deck: {plural(len(state.cards_in(DECK, p)), 'card')}")
        lines.append(f"  yard: {names(state.cards_in(YARD, p))}")
        pile = state.cards_in(DISCARD, p)
        lines.append(f"  discard: {plural(len(pile), 'card')}")
        look = state.cards_in(LOOKOUT, p)
        if viewer is None or viewer == p:
            lines.append(f"  lookout: {names(look)}")
        else:
            # sorted: the order of ids would tell which hidden cards are there
            shown = sorted("/".join(g.cards[c].suit_names) for c in look)
            lines.append(f"  lookout: {', '.join(shown) or '-'}")
    return "\n".join(lines)
