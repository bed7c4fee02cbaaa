"""A recorded game as one self-contained HTML page (``fort-env replay GAME.json --html OUT.html``).

:func:`build_frames` replays a record (``fort_env.records``) and keeps, before every decision
and once at the end, what the table shows: each seat's Fort Level, score, Stuff, Pack, perks,
hand, Yard, Lookout and pile sizes; the Park; the cards in play with their two actions; the
decision, who makes it and the action chosen; and at the end the score breakdown and winners.
The state is read through public functions only (``FortState.to_dict``, ``decision``,
``action_to_string``, ``score_breakdown``, ``winners``; ``text.card_label``). The replay shows
the whole table (every hand), as a finished game's record may.

:func:`render_html` puts the frames into one page: inline CSS and JavaScript, the frames as
JSON in a ``<script type="application/json">`` element, no network access at view time. Keys:
Left/Right (previous/next decision), Home/End; buttons do the same. The URL fragment
``#step=N`` opens decision ``N`` and follows navigation (so a step can be linked).

Frame schema (``frames[i]``, JSON)::

    {"index": i, "turn": t, "decision": {"kind", "player", "context"} | null,
     "action": {"id", "text"} | null, "leader": int,
     "seats": [{"seat", "fort_level", "score", "stuff": [pizza, toys], "pack": [pizza, toys],
                "perks": [...], "hand": [...], "yard": [...], "lookout": [...],
                "deck": n, "discard": n}],
     "park": [...], "park_deck": n,
     "in_play": [{"card", "owner", "zone", "public", "private"}],
     "final": {"scores": [score_breakdown rows], "winners": [...]} | null}

A record that names its seats (``agents``: ``fort-env play``, ``serve`` and ``tournament`` write
it) gives ``meta["players"]``, one name a seat (``"you"``, an agent's spec), and the page calls
each seat ``player_K (NAME)``; without it, ``player_K``. A seat's ``score`` is its place on the
Victory Track, labelled so (the final table's ``total`` adds the end-of-game scoring).

Cards are shown as ``text.card_label`` strings (``"Chef [book]#3"``); ``meta["card_text"]``
maps each label to the card's two actions (``"public: ... | private: ..."``), shown when the
pointer rests on a Park, Hand, Yard or Lookout card. ``meta["score_labels"]`` names the final
table's columns (``fort_env.views.text.SCORE_LABELS``: the ``fort_level`` entry is the Fort Level's
points, ``level`` the Fort Level); the rows keep ``score_breakdown``'s keys.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from fort_env.core import FortState
from fort_env.game.decisions import DecisionKind
from fort_env.game.files import write_text
from fort_env.records import replay
from fort_env.views.text import SCORE_LABELS, card_label

__all__ = [
    "BOARD_CSS", "board_frame", "build_frames", "card_texts", "render_html", "script_json",
    "write_replay_html",
]  # fmt: skip


def board_frame(state: FortState, index: int, turn: int, action: int | None) -> dict[str, Any]:
    d = state.to_dict()
    n = state.game.num_players
    cards = d["cards"]

    def zone(name: str, owner: int | None = None) -> list[str]:
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
        seats.append(
            {
                "seat": p,
                "fort_level": row["fort_level"],
                "score": row["score"],
                "stuff": [row["stuff_pizza"], row["stuff_toys"]],
                "pack": [row["pack_pizza"], row["pack_toys"]],
                "perks": sorted(k for k, v in d["perks"].items() if v == p),
                "hand": zone("hand", p),
                "yard": zone("yard", p),
                "lookout": zone("lookout", p),
                "deck": count("deck", p),
                "discard": count("discard", p),
            }
        )
    in_play = []
    for i, c in enumerate(cards):
        if c["zone"] in ("in_play", "followed"):
            card = state.game.cards[i]
            in_play.append(
                {
                    "card": card_label(state, i),
                    "owner": c["owner"],
                    "zone": c["zone"],
                    "public": card.public,
                    "private": card.private,
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
        dec = state.decision
        context = {k: list(v) if isinstance(v, tuple) else v for k, v in dec.context.items()}
        frame["decision"] = {"kind": dec.kind.name, "player": dec.player, "context": context}
    if action is not None:
        frame["action"] = {"id": int(action), "text": state.action_to_string(action)}
    assert len(seats) == n
    return frame


def card_texts(state: FortState) -> dict[str, str]:
    """Every card's label -> its two actions, the text a chip shows on hover."""
    return {
        card_label(state, i): f"public: {card.public or '-'} | private: {card.private or '-'}"
        for i, card in enumerate(state.game.cards)
    }


def build_frames(record: dict[str, Any]) -> dict[str, Any]:
    """Replay ``record`` and return ``{"meta": {...}, "frames": [...]}`` (module docstring).

    ``frames`` has ``len(record["actions"]) + 1`` entries: one before each decision, then the
    position after the last action (the end of the game, or where the record stops).

    Raises:
        RecordError: the record is malformed or does not replay (``fort_env.records.replay``).
        ConfigError: the configuration is not a valid game.
    """
    frames: list[dict[str, Any]] = []
    turn = 0
    leader: int | None = None

    def on_decision(state: FortState, action: int) -> None:
        nonlocal turn, leader
        dec = state.decision
        now = -1 if dec.kind == DecisionKind.DRAFT else int(dec.context["leader"])
        if now != leader:
            leader = now
            if now >= 0:
                turn += 1
        frames.append(board_frame(state, len(frames), turn, action))

    final = replay(record, on_decision=on_decision)
    frames.append(board_frame(final, len(frames), turn, None))
    cfg = record["config"]
    meta = {
        "num_players": cfg["num_players"],
        "setup": cfg["setup"],
        "seed": record["seed"],
        "decisions": len(record["actions"]),
        "finished": final.is_terminal(),
        "card_text": card_texts(final),
        "score_labels": dict(SCORE_LABELS),
    }
    if record.get("agents"):  # who sat where (validated: one string a seat)
        meta["players"] = list(record["agents"])
    return {"meta": meta, "frames": frames}


# What could end or change the parsing of a <script> element's text ("</script>", "<!--" and
# "<script" switch the HTML tokenizer's script-data states; "]]>" in foreign content), written
# as JSON's own \uXXXX escapes: the payload stays valid JSON with the same strings. U+2028 and
# U+2029 are escaped as well (line terminators to pre-2019 JavaScript).
_SCRIPT_ESCAPES = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


def script_json(data: Any) -> str:
    """``data`` as JSON safe to embed in a ``<script type="application/json">`` element: no
    ``<``, ``>`` or ``&`` in the text (each is its ``\\u00XX`` escape, inside JSON strings,
    the only place they can occur), so ``JSON.parse(element.textContent)`` gives ``data`` back
    whatever its strings hold (``</script>``, ``<!--``, ``]]>``, quotes, any Unicode)."""
    return json.dumps(data, separators=(",", ":")).translate(_SCRIPT_ESCAPES)


def render_html(data: dict[str, Any], title: str = "Fort replay") -> str:
    """One self-contained HTML page stepping through ``data`` (from :func:`build_frames`)."""
    parts = {
        "__TITLE__": html.escape(title),
        "__CSS__": BOARD_CSS,
        "__JS__": _JS,
        "__DATA__": script_json(data),
    }
    # one pass: a title or a card name holding "__DATA__" is not itself replaced
    return re.sub("__(?:TITLE|CSS|JS|DATA)__", lambda m: parts[m.group(0)], _TEMPLATE)


def write_replay_html(record: dict[str, Any], out: str | Path, title: str | None = None) -> int:
    """Write the replay page of ``record`` to ``out``; returns the number of frames.

    Raises:
        RecordError, ConfigError: as :func:`build_frames`.
        OSError: ``out`` cannot be written.
    """
    data = build_frames(record)
    meta = data["meta"]
    title = title or f"Fort replay: {meta['num_players']} players, seed {meta['seed']}"
    write_text(out, render_html(data, title))
    return len(data["frames"])


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>__CSS__</style>
</head>
<body>
<header>
  <h1>__TITLE__</h1>
  <nav>
    <button id="first" title="Home">&laquo; first</button>
    <button id="prev" title="Left arrow">&#x25C0; prev</button>
    <span id="step-label"></span>
    <button id="next" title="Right arrow">next &#x25B6;</button>
    <button id="last" title="End">last &raquo;</button>
    <input id="slider" type="range" min="0" value="0" aria-label="decision">
  </nav>
  <p class="hint">Keys: &larr; / &rarr; step, Home / End. Link a step with <code>#step=N</code>.</p>
</header>
<main id="board">
  <section id="decision-box">
    <div id="turn"></div>
    <div id="decision"></div>
    <div id="action"></div>
  </section>
  <section id="table">
    <div class="zone-title">Park <span id="park-deck"></span></div>
    <ul id="park" class="cards"></ul>
    <div class="zone-title">In play</div>
    <ul id="in-play" class="cards"></ul>
  </section>
  <section id="seats"></section>
  <section id="final" hidden>
    <h2>Final scores</h2>
    <table id="scores"></table>
    <p id="winners"></p>
  </section>
</main>
<script type="application/json" id="frames">__DATA__</script>
<script>__JS__</script>
</body>
</html>
"""

BOARD_CSS = """
body { font-family: system-ui, sans-serif; margin: 0; background: #f4f1ea; color: #222; }
header { background: #3b5b3b; color: #fff; padding: 8px 16px; }
h1 { font-size: 18px; margin: 4px 0; }
nav { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
nav button { font-size: 14px; padding: 4px 10px; }
#step-label { font-weight: bold; min-width: 160px; text-align: center; }
#slider { flex: 1; min-width: 200px; }
.hint { font-size: 12px; margin: 4px 0; opacity: 0.8; }
main { padding: 12px 16px; }
#decision-box { background: #fff8d8; border: 1px solid #d9c77a; padding: 8px 12px;
  border-radius: 6px; margin-bottom: 10px; }
#decision { font-weight: bold; }
#action { color: #7a3000; }
#table { background: #fff; border: 1px solid #ccc; border-radius: 6px; padding: 8px 12px;
  margin-bottom: 10px; }
.zone-title { font-weight: bold; font-size: 13px; margin-top: 4px; }
ul.cards { list-style: none; padding: 0; margin: 4px 0; display: flex; flex-wrap: wrap;
  gap: 4px; min-height: 22px; }
ul.cards li { background: #e8eef8; border: 1px solid #9fb3d1; border-radius: 4px;
  padding: 2px 6px; font-size: 12px; }
ul.cards li .acts { display: block; color: #555; font-size: 11px; }
#seats { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 10px; }
.seat { background: #fff; border: 2px solid #ccc; border-radius: 6px; padding: 8px 10px; }
.seat.acting { border-color: #d07a00; box-shadow: 0 0 6px #d07a00; }
.seat h3 { margin: 0 0 4px 0; font-size: 15px; }
.seat .stats, .seat .perks { font-size: 13px; margin-bottom: 4px; }
.seat .stats span { margin-right: 10px; }
#final table { border-collapse: collapse; background: #fff; }
#final td, #final th { border: 1px solid #bbb; padding: 3px 8px; font-size: 13px; }
"""

_JS = r"""
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("frames").textContent);
  const frames = data.frames;
  // own properties only: a card named "constructor" must not find Object's
  const cardText = Object.assign(Object.create(null), data.meta.card_text || {});
  const scoreLabels = Object.assign(Object.create(null), data.meta.score_labels || {});
  const players = Array.isArray(data.meta.players) ? data.meta.players : null;
  let step = 0;

  // "player_1 (heuristic)" when the record names its seats, else "player_1"
  function seatName(p) {
    const who = players && typeof players[p] === "string" ? players[p] : "";
    return "player_" + p + (who ? " (" + who + ")" : "");
  }

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function fillCards(ul, items) {
    ul.replaceChildren();
    for (const item of items) {
      if (typeof item === "string") {
        const text = cardText[item];
        ul.appendChild(el("li", text === undefined ? {} : {"title": text}, item));
        continue;
      }
      const li = el("li", {"data-owner": item.owner},
        item.card + " (" + seatName(item.owner) + ")");
      li.appendChild(el("span", {"class": "acts"},
        "public: " + item.public + " | private: " + item.private));
      ul.appendChild(li);
    }
  }
  function seatBox(s, f) {
    const acting = f.decision && f.decision.player === s.seat;
    const box = el("div", {"class": "seat" + (acting ? " acting" : ""), "data-seat": s.seat});
    box.appendChild(el("h3", {}, seatName(s.seat) + (f.leader === s.seat ? " (leader)" : "")));
    const stats = el("div", {"class": "stats"});
    stats.appendChild(el("span", {"class": "fort-level"}, "Fort Level " + s.fort_level));
    stats.appendChild(el("span", {"class": "score"}, "Victory Track " + s.score));
    stats.appendChild(el("span", {"class": "stuff"},
      "Stuff " + s.stuff[0] + " pizza " + s.stuff[1] + " toys"));
    stats.appendChild(el("span", {"class": "pack"},
      "Pack " + s.pack[0] + " pizza " + s.pack[1] + " toys"));
    stats.appendChild(el("span", {"class": "piles"},
      "deck " + s.deck + ", discard " + s.discard));
    box.appendChild(stats);
    box.appendChild(el("div", {"class": "perks"}, "perks: " + (s.perks.join(", ") || "-")));
    for (const name of ["hand", "yard", "lookout"]) {
      box.appendChild(el("div", {"class": "zone-title"}, name[0].toUpperCase() + name.slice(1)));
      const ul = el("ul", {"class": "cards " + name});
      fillCards(ul, s[name]);
      box.appendChild(ul);
    }
    return box;
  }
  function render() {
    const f = frames[step];
    document.getElementById("step-label").textContent =
      "decision " + step + " / " + (frames.length - 1);
    document.getElementById("slider").value = String(step);
    document.getElementById("turn").textContent =
      f.turn > 0 ? "Turn " + f.turn + ", " + seatName(f.leader) + " leads" : "Draft";
    document.getElementById("decision").textContent = f.decision
      ? seatName(f.decision.player) + " decides: " + f.decision.kind
      : (data.meta.finished ? "Game over" : "The record stops here");
    document.getElementById("action").textContent = f.action ? "chooses: " + f.action.text : "";
    fillCards(document.getElementById("park"), f.park);
    document.getElementById("park-deck").textContent =
      "(deck: " + f.park_deck + (f.park_deck === 1 ? " card)" : " cards)");
    fillCards(document.getElementById("in-play"), f.in_play);
    const seats = document.getElementById("seats");
    seats.replaceChildren(...f.seats.map((s) => seatBox(s, f)));
    const fin = document.getElementById("final");
    fin.hidden = !f.final;
    if (f.final) {
      const table = document.getElementById("scores");
      table.replaceChildren();
      const keys = Object.keys(f.final.scores[0]);
      const head = el("tr");
      head.appendChild(el("th", {}, "seat"));
      for (const k of keys) head.appendChild(el("th", {"data-key": k}, scoreLabels[k] || k));
      table.appendChild(head);
      f.final.scores.forEach((row, p) => {
        const tr = el("tr", {"data-seat": p});
        tr.appendChild(el("td", {}, seatName(p)));
        for (const k of keys) tr.appendChild(el("td", {"class": k}, String(row[k])));
        table.appendChild(tr);
      });
      document.getElementById("winners").textContent =
        "Winners: " + f.final.winners.map(seatName).join(", ");
    }
    document.body.setAttribute("data-step", String(step));
  }
  function go(n, updateHash) {
    step = Math.max(0, Math.min(frames.length - 1, n));
    render();
    if (updateHash !== false) history.replaceState(null, "", "#step=" + step);
  }
  function fromHash() {
    const m = /step=(\d+)/.exec(location.hash);
    return m ? parseInt(m[1], 10) : 0;
  }
  document.getElementById("slider").max = String(frames.length - 1);
  document.getElementById("slider").addEventListener("input", (e) => go(+e.target.value));
  document.getElementById("first").addEventListener("click", () => go(0));
  document.getElementById("prev").addEventListener("click", () => go(step - 1));
  document.getElementById("next").addEventListener("click", () => go(step + 1));
  document.getElementById("last").addEventListener("click", () => go(frames.length - 1));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") go(step + 1);
    else if (e.key === "ArrowLeft") go(step - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(frames.length - 1);
    else return;
    e.preventDefault();
  });
  window.addEventListener("hashchange", () => go(fromHash(), false));
  go(fromHash(), false);
})();
"""
