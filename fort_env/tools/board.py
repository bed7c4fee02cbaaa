"""The board of a Fort position as the browser pages draw it: one frame (JSON), its styles and
its script, shared by the replay page (``fort_env.tools.replay_html``) and the play page of
``fort-env serve`` (``agents.arena.serve``).

- :func:`board_frame` is one position as a frame (schema below): the whole table
  (``viewer=None``: every hand, what a finished game's replay shows), or what one seat may see
  (``viewer=seat``). A seat's frame is built from what the rules show that seat and nothing
  else: its own hand and Lookout by card; a rival's hand and Lookout by their sizes only (the
  card lists stay empty), the public zones (Yards, Park, cards in play) by card, made-up rules
  by name for the seat and as a count for a rival (taking one is public, which one is not)
  until the end, when every seat's are scored and named. No card a seat may not see is ever
  put into its frame, so none can be left in it by mistake.
- :data:`BOARD_CSS` and :data:`BOARD_JS` are the board's styles and script
  (``fort_env/tools/static/board.css`` and ``board.js``, package data): the script defines
  ``FortBoard`` (``drawTable(frame, opts)``, ``drawFinal(...)``, ``el``, ``lookup``), which
  each page's own script calls; :func:`with_board` puts both into a page at its
  ``/*__BOARD_CSS__*/`` and ``/*__BOARD_JS__*/`` markers.
- :func:`card_texts` maps every card's label to its two actions (the text a card shows on
  hover).

Cards' actions, the chosen move ("pay 1 toy from their Stuff") and the decision's ``text`` (its
kind in words: "stop or continue") read in the rulebook's English (``fort_env.views.words``:
"Gather 1 toy for each crown you show"); ``raw=True`` keeps the card language, the action names
and the kinds' names as code (``fort-env replay --html OUT --raw``).

Frame schema (JSON)::

    {"index": i, "turn": t, "decision": {"kind", "player", "context", "text"} | null,
     "action": {"id", "text"} | null, "leader": int,
     "seats": [{"seat", "fort_level", "score", "stuff": [pizza, toys], "pack": [pizza, toys],
                "perks": [...], "hand": [...], "yard": [...], "lookout": [...],
                "deck": n, "discard": n}],
     "park": [...], "park_deck": n,
     "in_play": [{"card", "owner", "zone", "public", "private"}],
     "final": {"scores": [score_breakdown rows], "winners": [...]} | null}

A seat's frame (``viewer`` given) adds, per rival seat, ``hand_count`` and ``lookout_count``
(its ``hand`` and ``lookout`` are ``[]``), and per seat either ``made_up_rules`` (names) or
``made_up_rule_count``. Cards are ``fort_env.views.text.card_label`` strings (``"Chef
[book]#3"``), each zone in its order on the table (``pos``).
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

from fort_env.core import FortState
from fort_env.game.constants import MADE_UP_RULES
from fort_env.views import words
from fort_env.views.text import card_label

__all__ = [
    "BOARD_CSS",
    "BOARD_JS",
    "OWN_ZONES",
    "PUBLIC_ZONES",
    "board_frame",
    "card_texts",
    "with_board",
]

_STATIC = resources.files("fort_env.tools").joinpath("static")
BOARD_CSS: str = _STATIC.joinpath("board.css").read_text(encoding="utf-8")
"""The board's styles (``static/board.css``)."""
BOARD_JS: str = _STATIC.joinpath("board.js").read_text(encoding="utf-8")
"""The board's script (``static/board.js``): defines ``FortBoard``; no ``</script>`` in it."""

PUBLIC_ZONES = ("yard", "park", "in_play", "followed")
"""Zones whose cards every seat sees (face up)."""
OWN_ZONES = ("hand", "lookout")
"""Zones whose cards only their owner sees; the others see how many (the Lookout's suits
too, in the observation: the board shows the count)."""


def board_frame(
    state: FortState,
    index: int = 0,
    turn: int = 0,
    action: int | None = None,
    viewer: int | None = None,
    raw: bool = False,
) -> dict[str, Any]:
    """``state`` as a frame (module docstring): the whole table (``viewer=None``), or what
    seat ``viewer`` may see. ``index`` and ``turn`` number the frame in a replay; ``action``
    is the one chosen at it (``None``: none yet). ``raw``: cards' actions, the move and the
    decision as code (the card language, ``action_to_string``, the kind's name), not words.

    Raises:
        ValueError: ``viewer`` is not a seat of the game.
    """
    n = state.game.num_players
    if viewer is not None and not 0 <= viewer < n:
        raise ValueError(f"viewer must be a seat in [0, {n}) or None, got {viewer}")
    d = state.to_dict()
    cards = d["cards"]

    def shown(name: str, owner: int | None) -> bool:
        if name in PUBLIC_ZONES or viewer is None:
            return True
        return name in OWN_ZONES and owner == viewer

    def zone(name: str, owner: int | None = None) -> list[str]:
        if not shown(name, owner):  # never reached with a hidden zone: a programming error
            raise AssertionError(f"seat {viewer} may not see the cards of {name} {owner}")
        ids = [
            i
            for i, c in enumerate(cards)
            if c["zone"] == name and (owner is None or c["owner"] == owner)
        ]
        ids.sort(key=lambda i: cards[i]["pos"])
        return [card_label(state, i) for i in ids]

    def count(name: str, owner: int) -> int:
        return sum(1 for c in cards if c["zone"] == name and c["owner"] == owner)

    seats = []
    for p, row in enumerate(d["players"]):
        seat: dict[str, Any] = {
            "seat": p,
            "fort_level": row["fort_level"],
            "score": row["score"],
            "stuff": [row["stuff_pizza"], row["stuff_toys"]],
            "pack": [row["pack_pizza"], row["pack_toys"]],
            "perks": sorted(k for k, v in d["perks"].items() if v == p),
        }
        for name in ("hand", "yard", "lookout"):
            if shown(name, p):
                seat[name] = zone(name, p)
            else:  # a rival's hidden zone: its size, no card
                seat[name] = []
                seat[f"{name}_count"] = count(name, p)
        seat["deck"] = count("deck", p)
        seat["discard"] = count("discard", p)
        if viewer is not None:
            held = [MADE_UP_RULES[int(i)] for i in state.made_up_rules_held(p)]
            if p == viewer or state.is_terminal():  # scored, hence named, at the end
                seat["made_up_rules"] = held
            else:
                seat["made_up_rule_count"] = len(held)
        seats.append(seat)
    in_play = []
    for i, c in enumerate(cards):
        if c["zone"] in ("in_play", "followed"):
            public, private = words.card_words(state.game.cards[i], raw)
            in_play.append(
                {
                    "card": card_label(state, i),
                    "owner": c["owner"],
                    "zone": c["zone"],
                    "public": public,
                    "private": private,
                }
            )
    frame: dict[str, Any] = {
        "index": index,
        "turn": turn,
        "leader": d["ctx"]["leader"],
        "seats": seats,
        "park": zone("park"),
        "park_deck": sum(1 for c in cards if c["zone"] == "park_deck"),
        "in_play": in_play,
        "decision": None,
        "action": None,
        "final": None,
    }
    if state.is_terminal():
        frame["final"] = {"scores": state.score_breakdown(), "winners": state.winners()}
    else:
        dec = state.decision  # kind, player and public context (leader, played card, cost)
        context = {k: list(v) if isinstance(v, tuple) else v for k, v in dec.context.items()}
        text = dec.kind.name if raw else words.decision_name(dec.kind)
        frame["decision"] = {
            "kind": dec.kind.name, "player": dec.player, "context": context, "text": text,
        }  # fmt: skip
    if action is not None:
        text = state.action_to_string(action) if raw else words.action_words(state, action, "their")
        frame["action"] = {"id": int(action), "text": text}
    return frame


def card_texts(state: FortState, raw: bool = False) -> dict[str, str]:
    """Every card's label -> its two actions (``public: ... | private: ...``, in words or with
    ``raw`` in the card language), the text a card shows on hover."""
    return {
        card_label(state, i): words.card_text(card, raw) for i, card in enumerate(state.game.cards)
    }


_MARKERS = {"/*__BOARD_CSS__*/": BOARD_CSS, "/*__BOARD_JS__*/": BOARD_JS}


def with_board(page: str) -> str:
    """``page`` (HTML) with the board's styles at ``/*__BOARD_CSS__*/`` (inside its
    ``<style>``) and script at ``/*__BOARD_JS__*/`` (inside its ``<script>``, before the code
    that calls ``FortBoard``), in one pass: nothing inserted is scanned again."""
    pattern = "|".join(re.escape(m) for m in _MARKERS)
    return re.sub(pattern, lambda m: _MARKERS[m.group(0)], page)
