"""What ``fort-env serve`` shows one seat of a game (``agents.arena.serve``'s module docstring,
``GET /api/games/{id}``): :func:`seat_view`.

The view is built from what the seat may see, never from the whole table with the hidden parts
taken out: the board is ``fort_env.tools.board.board_frame`` with ``viewer=seat`` (the seat's
own hand and Lookout by card, a rival's by size, made-up rules by name for the seat only until
the end), the text view is ``state_to_string`` with ``viewer``, the hand and decision texts are
the seat's own (``agents.arena.human``), the legal actions only at the seat's own decisions.
``tests/test_serve_view.py`` checks over random games that no card the seat's observation does
not show is named anywhere in it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from agents.arena.human import describe_decision, hand_text, move_text, unplayable
from fort_env import FortState
from fort_env.game.cards import Card
from fort_env.game.constants import HAND, MADE_UP_RULES
from fort_env.tools.board import board_frame, card_texts
from fort_env.views.text import SCORE_LABELS, card_label, state_to_string
from fort_env.views.words import card_words

__all__ = ["legal_buttons", "rule_texts", "seat_view"]


@lru_cache(maxsize=8)
def rule_texts(card_data: str) -> dict[str, str]:
    """Each made-up rule's name -> its text (the rulebook's glossary), from ``rules.toml`` in
    the card data directory ``card_data`` (``CardSet.source``; checked when the game loaded)."""
    with open(Path(card_data) / "rules.toml", "rb") as f:
        entries = tomllib.load(f).get("rule", [])
    return {str(e["name"]): str(e.get("text", "")) for e in entries if "name" in e}


def legal_buttons(
    state: FortState, legal: list[int], texts: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The legal actions as buttons: ``id`` and ``text`` (in words, ``human.move_text``); a
    made-up rule to take has the rule's text (from ``texts``, :func:`rule_texts`) as
    ``detail``."""
    out: list[dict[str, Any]] = []
    for a in legal:
        item: dict[str, Any] = {"id": a, "text": move_text(state, a)}
        name, i = state.game.layout.decode(a)
        if name == "PICK_RULE":
            item["detail"] = texts.get(MADE_UP_RULES[i], "")
        out.append(item)
    return out


def _hand_card(label: str, card: Card) -> dict[str, str]:
    """A card of the seat's hand with its two actions in words."""
    public, private = card_words(card)
    return {"card": label, "public": public, "private": private}


def seat_view(state: FortState, seat: int) -> dict[str, Any]:
    """What ``seat`` is shown of ``state`` (no other seat's hidden information): the board
    from the seat, the text view, the hand with its cards' texts, the seat's made-up rules, the
    decision and the legal actions (at the seat's own decisions), the scores; at the end the
    score breakdown and the winners. Cards, moves and decisions read in words
    (``fort_env.views.words``)."""
    terminal = state.is_terminal()
    to_move = None if terminal else int(state.current_player())
    mine = to_move == seat
    legal = [int(a) for a in state.legal_actions()] if mine else []
    board = board_frame(state, viewer=seat)
    # the public score (the Victory Track) while the game is on; the totals, with the made-up
    # rules that were hidden until then, at the end
    scores = [int(s["score"]) for s in board["seats"]]
    if terminal:
        scores = [int(row["total"]) for row in state.score_breakdown()]
    cards = state.game.cards
    mine_by_label = {card_label(state, int(c)): int(c) for c in state.cards_in(HAND, seat)}
    texts = rule_texts(state.game.card_set.source)
    view: dict[str, Any] = {
        "terminal": terminal,
        "to_move": to_move,
        "seat": seat,
        "legal": legal_buttons(state, legal, texts),
        "scores": scores,
        "board": board,
        "table": state_to_string(state, viewer=seat, words=True),
        "hand": hand_text(state, seat),
        "hand_cards": [
            _hand_card(label, cards[mine_by_label[label]])
            for label in board["seats"][seat]["hand"]  # the board's order
        ],
        "decision": describe_decision(state) if mine else None,
        "unplayable": [line.strip() for line in unplayable(state, legal)] if mine else [],
        "final": None,
        "card_text": card_texts(state),  # every card's two actions (the game's data)
        "rule_text": dict(texts),  # every made-up rule's text (the game's data)
    }
    if terminal:
        view["final"] = {
            "scores": state.score_breakdown(),
            "winners": [int(w) for w in state.winners()],
            "labels": dict(SCORE_LABELS),
        }
    return view
