"""A recorded game as one self-contained HTML page (``fort-env replay GAME.json --html OUT.html``).

:func:`build_frames` replays a record (``fort_env.records``) and keeps, before every decision
and once at the end, the whole table as ``fort_env.tools.board.board_frame`` draws it (every
hand: a finished game's record may show them): each seat's Fort Level, score, Stuff, Pack,
perks, hand, Yard, Lookout and pile sizes; the Park; the cards in play with their two actions;
the decision, who makes it and the action chosen; and at the end the score breakdown and
winners (the frame schema is ``board``'s).

:func:`render_html` puts the frames into one page: inline CSS and JavaScript (the board's,
``board.BOARD_CSS`` and ``board.BOARD_JS``, then the replay's own), the frames as JSON in a
``<script type="application/json">`` element, no network access at view time. Keys:
Left/Right (previous/next decision), Home/End; buttons do the same. The URL fragment
``#step=N`` opens decision ``N`` and follows navigation (so a step can be linked).

A record that names its seats (``agents``: ``fort-env play``, ``serve`` and ``tournament`` write
it) gives ``meta["players"]``, one name a seat (``"you"``, an agent's spec), and the page calls
each seat ``player_K (NAME)``; without it, ``player_K``. A seat's ``score`` is its place on the
Victory Track, labelled so (the final table's ``total`` adds the end-of-game scoring).

Cards are shown as ``text.card_label`` strings (``"Chef [book]#3"``); ``meta["card_text"]``
maps each label to the card's two actions (``"public: ... | private: ..."``), shown when the
pointer rests on a Park, Hand, Yard or Lookout card. Actions, moves and decisions read in the
rulebook's words (``fort_env.views.words``), or as code with ``raw`` (``--raw``).
``meta["score_labels"]`` names the final table's columns (``fort_env.views.text.SCORE_LABELS``:
the ``fort_level`` entry is the Fort Level's points, ``level`` the Fort Level); the rows keep
``score_breakdown``'s keys.
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
from fort_env.tools.board import BOARD_CSS, BOARD_JS, board_frame, card_texts
from fort_env.views.text import SCORE_LABELS

__all__ = ["build_frames", "render_html", "script_json", "write_replay_html"]


def build_frames(record: dict[str, Any], raw: bool = False) -> dict[str, Any]:
    """Replay ``record`` and return ``{"meta": {...}, "frames": [...]}`` (module docstring);
    ``raw``: cards, moves and decisions as code, not words (``board.board_frame``).

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
        frames.append(board_frame(state, len(frames), turn, action, raw=raw))

    final = replay(record, on_decision=on_decision)
    frames.append(board_frame(final, len(frames), turn, None, raw=raw))
    cfg = record["config"]
    meta = {
        "num_players": cfg["num_players"],
        "setup": cfg["setup"],
        "seed": record["seed"],
        "decisions": len(record["actions"]),
        "finished": final.is_terminal(),
        "card_text": card_texts(final, raw),
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
        "__JS__": BOARD_JS + _JS,  # the board's script, then the replay's own
        "__DATA__": script_json(data),
    }
    # one pass: a title or a card name holding "__DATA__" is not itself replaced
    return re.sub("__(?:TITLE|CSS|JS|DATA)__", lambda m: parts[m.group(0)], _TEMPLATE)


def write_replay_html(
    record: dict[str, Any], out: str | Path, title: str | None = None, raw: bool = False
) -> int:
    """Write the replay page of ``record`` to ``out``; returns the number of frames (``raw``:
    :func:`build_frames`).

    Raises:
        RecordError, ConfigError: as :func:`build_frames`.
        OSError: ``out`` cannot be written.
    """
    data = build_frames(record, raw)
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

_JS = r"""
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("frames").textContent);
  const frames = data.frames;
  const cardText = FortBoard.lookup(data.meta.card_text);
  const scoreLabels = FortBoard.lookup(data.meta.score_labels);
  const players = Array.isArray(data.meta.players) ? data.meta.players : null;
  let step = 0;

  // "player_1 (heuristic)" when the record names its seats, else "player_1"
  function seatName(p) {
    const who = players && typeof players[p] === "string" ? players[p] : "";
    return "player_" + p + (who ? " (" + who + ")" : "");
  }
  // the whole table: no seat is "you", every hand is shown
  const board = {seatName: seatName, ownerName: seatName, cardText: cardText,
                 ruleText: FortBoard.lookup({}), you: null, handCards: null};

  function render() {
    const f = frames[step];
    document.getElementById("step-label").textContent =
      "decision " + step + " / " + (frames.length - 1);
    document.getElementById("slider").value = String(step);
    document.getElementById("turn").textContent =
      f.turn > 0 ? "Turn " + f.turn + ", " + seatName(f.leader) + " leads" : "Draft";
    document.getElementById("decision").textContent = f.decision
      ? seatName(f.decision.player) + " decides: " + (f.decision.text || f.decision.kind)
      : (data.meta.finished ? "Game over" : "The record stops here");
    document.getElementById("action").textContent = f.action ? "chooses: " + f.action.text : "";
    FortBoard.drawTable(f, board);
    const fin = document.getElementById("final");
    fin.hidden = !f.final;
    if (f.final) FortBoard.drawFinal(f.final, scoreLabels, seatName, "seat");
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
