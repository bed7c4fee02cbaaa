// The board of a Fort position (fort_env/tools/board.py): the replay page and the play page of
// fort-env serve both draw a frame (board.board_frame's JSON) with these functions, then add
// their own parts (the replay's step buttons; the play page's actions and log).
const FortBoard = (function () {
  "use strict";

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // a table's own properties only: a card named "constructor" must not find Object's
  function lookup(table) {
    return Object.assign(Object.create(null), table || {});
  }

  // Park, hand, Yard and Lookout cards are labels (their two actions on hover, from cardText);
  // a card in play is {card, owner, public, private}: its owner and actions written on it
  function fillCards(ul, items, cardText, ownerName) {
    ul.replaceChildren();
    for (const item of items) {
      if (typeof item === "string") {
        const text = cardText[item];
        ul.appendChild(el("li", text === undefined ? {} : {"title": text}, item));
        continue;
      }
      const li = el("li", {"data-owner": item.owner}, item.card + " (" + ownerName(item.owner) + ")");
      li.appendChild(el("span", {"class": "acts"},
        "public: " + item.public + " | private: " + item.private));
      ul.appendChild(li);
    }
  }
  // a seat's own hand with each card's two actions written on it ({card, public, private})
  function fillHand(ul, cards) {
    ul.replaceChildren();
    for (const c of cards) {
      const li = el("li", {"data-card": c.card}, c.card);
      li.appendChild(el("span", {"class": "acts"},
        "public: " + c.public + " | private: " + c.private));
      ul.appendChild(li);
    }
  }
  // made-up rules, where the frame has them (a seat's view): the seat's own by name with the
  // rule's text; a rival's only as a count (until the end, when every one is scored and named)
  function rulesBox(s, ruleText) {
    const box = el("div", {"class": "rules"});
    if (Array.isArray(s.made_up_rules)) {
      box.appendChild(el("span", {}, "Made-up rule: " + (s.made_up_rules.join(", ") || "none yet")));
      for (const r of s.made_up_rules) {
        const text = ruleText[r];
        if (text) box.appendChild(el("span", {"class": "rule-text", "data-rule": r}, r + ": " + text));
      }
    } else {
      const k = s.made_up_rule_count || 0;
      box.appendChild(el("span", {}, "Made-up rule: " + (k === 0 ? "none yet"
        : k === 1 ? "has one (face down)" : "has " + k + " (face down)")));
    }
    return box;
  }

  // opts: seatName(p), ownerName(p) (a card in play's owner), cardText, ruleText (lookups),
  // you (the viewing seat, or null), handCards (the viewing seat's hand with its texts)
  function seatBox(s, f, opts) {
    const you = opts.you === s.seat;
    const acting = f.decision && f.decision.player === s.seat;
    const box = el("div", {"class": "seat" + (you ? " you" : "") + (acting ? " acting" : ""),
      "data-seat": s.seat});
    box.appendChild(el("h3", {}, opts.seatName(s.seat) + (f.leader === s.seat ? " (leader)" : "")));
    const stats = el("div", {"class": "stats"});
    stats.appendChild(el("span", {"class": "fort-level"}, "Fort Level " + s.fort_level));
    // the Victory Track, not the total: the final table adds the end-of-game scoring
    stats.appendChild(el("span", {"class": "score", "title": "points on the Victory Track so " +
      "far; the final total adds the Fort Level's points, made-up rules and more"},
      "Victory Track " + s.score));
    stats.appendChild(el("span", {"class": "stuff"},
      "Stuff " + s.stuff[0] + " pizza " + s.stuff[1] + " toys"));
    stats.appendChild(el("span", {"class": "pack"},
      "Pack " + s.pack[0] + " pizza " + s.pack[1] + " toys"));
    stats.appendChild(el("span", {"class": "piles"}, "deck " + s.deck + ", discard " + s.discard));
    box.appendChild(stats);
    box.appendChild(el("div", {"class": "perks"}, "perks: " + (s.perks.join(", ") || "-")));
    if (Array.isArray(s.made_up_rules) || s.made_up_rule_count !== undefined) {
      box.appendChild(rulesBox(s, opts.ruleText));
    }
    for (const zone of ["hand", "yard", "lookout"]) {
      const count = s[zone + "_count"];  // a rival's hidden zone: its size only
      box.appendChild(el("div", {"class": "zone-title"}, zone[0].toUpperCase() + zone.slice(1) +
        (count === undefined ? "" : ": " + count + (count === 1 ? " card" : " cards"))));
      const ul = el("ul", {"class": "cards " + zone});
      if (you && zone === "hand" && opts.handCards) fillHand(ul, opts.handCards);
      else fillCards(ul, s[zone], opts.cardText, opts.ownerName);
      box.appendChild(ul);
    }
    return box;
  }

  // the Park, the Park deck's size, the cards in play and the seats of frame f (seatBox's opts)
  function drawTable(f, opts) {
    fillCards(document.getElementById("park"), f.park, opts.cardText, opts.ownerName);
    document.getElementById("park-deck").textContent =
      "(deck: " + f.park_deck + (f.park_deck === 1 ? " card)" : " cards)");
    fillCards(document.getElementById("in-play"), f.in_play, opts.cardText, opts.ownerName);
    document.getElementById("seats").replaceChildren(...f.seats.map((s) => seatBox(s, f, opts)));
  }

  // the final table (score_breakdown rows, columns named by labels) and the winners
  function drawFinal(final, labels, seatName, firstHead) {
    const table = document.getElementById("scores");
    table.replaceChildren();
    const keys = Object.keys(final.scores[0]);
    const head = el("tr");
    head.appendChild(el("th", {}, firstHead));
    for (const k of keys) head.appendChild(el("th", {"data-key": k}, labels[k] || k));
    table.appendChild(head);
    final.scores.forEach((row, p) => {
      const tr = el("tr", {"data-seat": p});
      tr.appendChild(el("td", {}, seatName(p)));
      for (const k of keys) tr.appendChild(el("td", {"class": k}, String(row[k])));
      table.appendChild(tr);
    });
    document.getElementById("winners").textContent =
      "Winners: " + final.winners.map(seatName).join(", ");
  }

  return {el: el, lookup: lookup, drawTable: drawTable, drawFinal: drawFinal};
})();
