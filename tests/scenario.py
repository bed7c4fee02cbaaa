"""Hand-built positions for scenario tests, made through the state dict (``docs/state.md``).

``build(...)`` takes a freshly dealt game's ``to_dict()``, clears the table, places the named
cards where the arguments say, leaves every other Park card in the Park deck, sets resources,
levels, scores, perks and made-up rules, and loads the dict back with ``FortState.from_dict``.
The result is the leader's PLAY decision of a turn that is not their first (every seat has
taken at least one turn, so the engine's "skip Cleanup on the first turn" does not apply).

Cards are named by nickname (the first copy not yet placed is used) or by card id. Typical use::

    s = build(2, leader=0, hands={0: ["Bug", "The Moles"]}, lookout={0: ["Rusty"]},
              level={0: 1})
    act(s, "play Bug")
    act(s, "use public (fully), then private")
    act(s, "add The Moles")
    ...
    assert player(s, 0)["stuff_pizza"] == 4

``act(state, text)`` applies the one legal action whose ``action_to_string`` starts with
``text`` and fails, listing the legal actions, if none or several match.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import fort_env
from fort_env import FortGame, FortState
from fort_env.core import default_backend
from fort_env.game.cards import DATA_DIR
from fort_env.game.constants import MADE_UP_RULES, PERKS

CardSpec = str | int
Seats = Mapping[int, Sequence[CardSpec]]

_GAMES: dict[tuple[int, str, str], FortGame] = {}


def game_for(num_players: int, setup: str = "basic") -> FortGame:
    """A shared ``FortGame`` (loading the card set is the slow part), one per backend: the
    default one (``fort_env.core.default_backend``, which ``$FORT_ENV_BACKEND`` sets)."""
    key = (num_players, setup, default_backend())
    if key not in _GAMES:
        _GAMES[key] = FortGame(num_players, setup)
    return _GAMES[key]


class _Pool:
    """Hands out unused card ids by nickname or id."""

    def __init__(self, game: FortGame) -> None:
        self.game = game
        self.used: set[int] = set()

    def take(self, spec: CardSpec) -> int:
        if isinstance(spec, int):
            if not 0 <= spec < self.game.num_cards:
                raise ValueError(f"no card id {spec}")
            if spec in self.used:
                raise ValueError(f"card #{spec} ({self.game.cards[spec].name}) placed twice")
            self.used.add(spec)
            return spec
        for card in self.game.cards:
            if card.name == spec and card.id not in self.used:
                self.used.add(card.id)
                return card.id
        copies = [c.id for c in self.game.cards if c.name == spec]
        if not copies:
            raise ValueError(f"no card named {spec!r}")
        raise ValueError(f"all {len(copies)} copies of {spec!r} are already placed")


def build_dict(
    num_players: int = 2,
    *,
    leader: int = 0,
    first_player: int | None = None,
    hands: Seats | None = None,
    deck: Seats | None = None,
    discard: Seats | None = None,
    yard: Seats | None = None,
    lookout: Seats | None = None,
    trash: Sequence[CardSpec] = (),
    park: Sequence[CardSpec] | None = None,
    park_deck: Sequence[CardSpec] | None = None,
    stuff: Mapping[int, tuple[int, int]] | None = None,
    pack: Mapping[int, tuple[int, int]] | None = None,
    level: Mapping[int, int] | None = None,
    score: Mapping[int, int] | None = None,
    turns: Mapping[int, int] | None = None,
    perks: Mapping[int, Sequence[str]] | None = None,
    perk_row: Sequence[str] | None = None,
    rules: Mapping[int, str] | None = None,
    rule_stack: Sequence[str] | None = None,
    sculpture: int = -1,
    end_triggered: bool = False,
    seed: int = 0,
    setup: str = "basic",
) -> dict[str, Any]:
    """The dict of a hand-built position; see :func:`build` for the arguments."""
    game = game_for(num_players, setup)
    first = leader if first_player is None else first_player
    d = game.new_initial_state(seed, first_player=first).to_dict()
    pool = _Pool(game)
    cards = d["cards"]
    placed: dict[int, tuple[str, int, int]] = {}  # id -> (zone, owner, pos)

    def put(zone: str, owner: int, specs: Iterable[CardSpec]) -> None:
        for pos, spec in enumerate(specs):
            placed[pool.take(spec)] = (zone, owner, pos)

    for zone, table in (
        ("hand", hands), ("deck", deck), ("discard", discard), ("yard", yard),
        ("lookout", lookout),
    ):  # fmt: skip
        for seat, specs in (table or {}).items():
            if not 0 <= seat < num_players:
                raise ValueError(f"{zone}: no seat {seat} in a {num_players}-player game")
            put(zone, seat, specs)
    put("trash", -1, trash)
    if park is not None:
        if len(park) > 3:
            raise ValueError("the Park holds 3 cards")
        put("park", -1, park)
    if park_deck is not None:
        put("park_deck", -1, park_deck)
    # Best Friends not placed: their own seat's deck (under any deck cards named), or out of
    # the game for boards nobody plays.
    boards = list(game.board_of_seat)
    for card in game.cards:
        if card.is_best_friend and card.id not in pool.used:
            pool.take(card.id)
            if card.board in boards:
                seat = boards.index(card.board)
                n = sum(1 for z, o, _ in placed.values() if z == "deck" and o == seat)
                placed[card.id] = ("deck", seat, n)
            else:
                placed[card.id] = ("out_of_game", -1, 0)
    free = [c.id for c in game.cards if c.id not in pool.used]
    if park is None:  # the Park is full: the first free cards
        for slot, cid in enumerate(free[:3]):
            pool.take(cid)
            placed[cid] = ("park", -1, slot)
        free = free[3:]
    if park_deck is None:  # every other card is in the Park deck, in id order
        for pos, cid in enumerate(free):
            placed[cid] = ("park_deck", -1, pos)
    else:  # exactly the named Park deck: the rest is in the box
        for cid in free:
            placed[cid] = ("trash", -1, 0)
    for cid, (zone, owner, pos) in placed.items():
        cards[cid].update(zone=zone, owner=owner, pos=pos, mark=0, coin_as=-1)

    for p, row in enumerate(d["players"]):
        row.update(stuff_pizza=0, stuff_toys=0, pack_pizza=0, pack_toys=0)
        row.update(fort_level=0, score=0)
        # A round starts at `first`; seats from `first` up to the leader have had one more turn.
        ahead = (p - first) % num_players < (leader - first) % num_players
        row["turns"] = 1 + int(ahead)
    for table, keys in (
        (stuff, ("stuff_pizza", "stuff_toys")),
        (pack, ("pack_pizza", "pack_toys")),
    ):
        for seat, (pizza, toys) in (table or {}).items():
            d["players"][seat][keys[0]], d["players"][seat][keys[1]] = pizza, toys
    for table, key in ((level, "fort_level"), (score, "score"), (turns, "turns")):
        for seat, value in (table or {}).items():
            d["players"][seat][key] = value

    held_perks = {name: seat for seat, names in (perks or {}).items() for name in names}
    free_perks = [p for p in PERKS if p not in held_perks]
    row = list(perk_row) if perk_row is not None else free_perks[: num_players + 1]
    for name in PERKS:
        d["perks"][name] = held_perks.get(name, -1 if name in row else -2)
    held_rules = {name: seat for seat, name in (rules or {}).items()}
    free_rules = [r for r in MADE_UP_RULES if r not in held_rules]
    stack = list(rule_stack) if rule_stack is not None else free_rules[: num_players + 1]
    for name in MADE_UP_RULES:
        d["made_up_rules"][name] = held_rules.get(name, -1 if name in stack else -2)

    ctx = d["ctx"]
    ctx.update(leader=leader, actor=leader, first_player=first, plays=0)
    ctx["sculpture"] = sculpture
    ctx["end_triggered"] = int(end_triggered)
    return d


def build(num_players: int = 2, **kwargs: Any) -> FortState:
    """A hand-built position at the leader's PLAY decision.

    Args:
        num_players: 2, 3 or 4.
        leader: the seat whose turn it is (acting now); ``first_player`` defaults to it.
        hands, deck, discard, yard, lookout: ``{seat: [card, ...]}``; ``deck`` is top first.
        trash: cards returned to the box.
        park: up to 3 cards for the Park slots 0..; ``None`` fills it with 3 spare cards.
        park_deck: exactly these cards (top first), the spare cards go to the box; ``None``
            leaves every spare card in the Park deck (in id order).
        stuff, pack: ``{seat: (pizza, toys)}``; level, score, turns: ``{seat: int}`` (turns
            defaults to 1, or 2 for seats that already played this round).
        perks: ``{seat: [perk names]}``; perk_row: the face-up row (default: the first
            ``num_players + 1`` unheld perks in glossary order).
        rules: ``{seat: made-up rule}``; rule_stack: the stack (same default as the row).
        sculpture: the seat holding the macaroni sculpture, -1 for none.
        end_triggered: set the end flag (the round then finishes as usual).
        seed, setup: passed to ``new_initial_state``/``FortGame`` (future shuffles).
        Best Friends not placed go to the bottom of their owner's deck; Best Friends of boards
        nobody plays are out of the game. The leader's Yard should stay empty: at a PLAY
        decision their Cleanup has already happened.

    Raises:
        ValueError: an unknown card name or id, a card placed twice, a seat not in the game.
    """
    d = build_dict(num_players, **kwargs)
    return FortState.from_dict(game_for(num_players, kwargs.get("setup", "basic")), d)


# ---------------------------------------------------------------- acting


def legal_strings(state: FortState) -> list[str]:
    """``action_to_string`` of every legal action, in action order."""
    return [state.action_to_string(a) for a in state.legal_actions()]


def legal(state: FortState) -> list[str]:
    """The legal action texts without card ids (``"add The Moles [shovel/shovel]"``), sorted."""
    return sorted(re.sub(r"#\d+$", "", t) for t in legal_strings(state))


def find(state: FortState, text: str) -> int:
    """The one legal action whose text starts with ``text`` (an exact match wins)."""
    legal = state.legal_actions()
    texts = {a: state.action_to_string(a) for a in legal}
    exact = [a for a, t in texts.items() if t == text]
    if len(exact) == 1:
        return exact[0]
    hits = [a for a, t in texts.items() if t.startswith(text)]
    if len(hits) != 1:
        kind = state.decision.kind.name
        raise AssertionError(
            f"{len(hits)} legal actions start with {text!r} at {kind} "
            f"(player {state.current_player()}); legal: {list(texts.values())}"
        )
    return hits[0]


def act(state: FortState, *texts: str) -> FortState:
    """Apply, in order, the legal action named by each text (see :func:`find`)."""
    for text in texts:
        state.apply_action(find(state, text))
    return state


def can(state: FortState, text: str) -> bool:
    """Whether some legal action's text starts with ``text``."""
    return any(t.startswith(text) for t in legal_strings(state))


def pass_all(state: FortState) -> FortState:
    """Every pending FOLLOW decision passes (rivals decline to follow)."""
    while state.decision.kind == fort_env.DecisionKind.FOLLOW:
        act(state, "pass")
    return state


# ---------------------------------------------------------------- reading


def player(state: FortState, seat: int) -> dict[str, int]:
    """The seat's row of ``to_dict()["players"]``."""
    return state.to_dict()["players"][seat]


def ids(state: FortState, zone: str, seat: int | None = None) -> list[int]:
    """Card ids in a zone (``fort_env.game.constants.ZONES`` name), of one seat or of all."""
    d = state.to_dict()["cards"]
    return [
        i for i, c in enumerate(d)
        if c["zone"] == zone and (seat is None or c["owner"] == seat)
    ]  # fmt: skip


def names(state: FortState, zone: str, seat: int | None = None) -> list[str]:
    """Sorted nicknames of the cards in a zone."""
    return sorted(state.game.cards[i].name for i in ids(state, zone, seat))


def zone_of(state: FortState, cid: int) -> tuple[str, int]:
    c = state.to_dict()["cards"][cid]
    return c["zone"], c["owner"]


def card_id(state: FortState, name: str, zone: str | None = None, seat: int | None = None) -> int:
    """The id of the (first) card named ``name``, optionally in a zone / of a seat."""
    d = state.to_dict()["cards"]
    for c in state.game.cards:
        if c.name != name:
            continue
        if zone is not None and d[c.id]["zone"] != zone:
            continue
        if seat is not None and d[c.id]["owner"] != seat:
            continue
        return c.id
    raise AssertionError(f"no {name!r} in zone {zone!r} of seat {seat!r}")


# A card set in which Recycling matters between a play's actions (docs/rules.md R15), which no
# shipped card reaches: Bones recruits by one action and tucks by the other; Captain recruits,
# then tucks, by one and tucks by the other (``custom_cards`` replacements).
RECYCLE_CARDS: tuple[tuple[str, str], ...] = (
    ('public = "gather(pizza) -> pack"\nprivate = "copy_pack"',
     'public = "recruit"\nprivate = "lookout"'),
    ('public = "lookout"\nprivate = "advance(+1) -> score x 3"',
     'public = "recruit -> lookout"\nprivate = "lookout"'),
)  # fmt: skip


def custom_cards(folder: Path, replacements: Iterable[tuple[str, str]]) -> Path:
    """A copy of the shipped card data under ``folder / "cards"`` with each ``(old, new)``
    text of ``cards.toml`` replaced once (:func:`replaced`); ``FortGame(n, cards=str(path))``
    loads it."""
    data = folder / "cards"
    shutil.copytree(DATA_DIR, data)
    text = (data / "cards.toml").read_text()
    for old, new in replacements:
        text = replaced(text, old, new)
    (data / "cards.toml").write_text(text)
    return data


def replaced(text: str, old: str, new: str, count: int = 1) -> str:
    """``text`` with ``old`` replaced by ``new``, checking ``old`` occurs exactly ``count`` times
    (so a test editing a data file or a code sample fails when the text it edits has changed)."""
    found = text.count(old)
    if found != count:
        raise AssertionError(f"expected {count} occurrence(s) of {old!r}, found {found}")
    return text.replace(old, new)
