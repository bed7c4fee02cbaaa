"""Card data: the schema, the loader and the action-language compiler.

The action language (``docs/cards.md``) is parsed once at load time with a ``lark`` grammar
into small immutable effect trees that one interpreter (``engine.py``) runs. Unknown verbs,
suits or multipliers and malformed expressions raise :class:`CardDataError` at load, naming the
file, the card and the field.

Effect trees are tuples, cheap to walk:

- ``(ATOM, verb, arg)``
- ``(THEN, left, right)``: do left, then right if left was done (rulebook p.14 "Then")
- ``(REPEAT, body, mult, mult_arg)``: repeat body; mult is one of ``MULT_*`` (p.14 "Per")
"""

from __future__ import annotations

import os
import stat
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from lark import Lark, LarkError, Token, Transformer

from fort_env.game.constants import MADE_UP_RULES, MAX_FORT_LEVEL, PERKS, SUITS
from fort_env.game.errors import CardDataError, InputFileError, describe
from fort_env.game.inputs import control_characters, read_text_file
from fort_env.game.verb_table import ANY_RESOURCE as ANY_RESOURCE  # (re-exported)
from fort_env.game.verb_table import RESOURCE_ARGS as RESOURCE_ARGS
from fort_env.game.verb_table import VERB_NAMES
from fort_env.game.verb_table import VERBS as VERB_ROWS

DATA_DIR = Path(__file__).resolve().parent.parent / "data"  # fort_env/data
PARK_DECK_SIZE = 60  # rulebook p.2 step 8; reference "Components"
# --- limits of card data, checked at load before the value is used (docs/cards.md "Limits").
# The C++ core gets its tables from this loader, so they hold for both engines.
MAX_CARD_FILE_BYTES = 1 << 20  # each file: 1 MiB (the shipped cards.toml is ~10 KB)
MAX_ACTION_TEXT = 200  # characters of one action text (the shipped longest: 37)
MAX_ACTION_NESTING = 8  # parentheses inside parentheses in one action text (shipped: 2)
MAX_COPIES = PARK_DECK_SIZE  # a Park card's copies: 1..60 (the deck holds 60)
MAX_BOARDS = 16  # boards of Best Friends (a game seats 4; the shipped set has 4)
MAX_STEP_COST = 99  # toys, pizza or either of one Fort step: 0..99 (a seat holds at most 16)
# Victory points of one Fort Level: 0..999. The total score (Victory Track + Fort Level points
# + made-up rule + macaroni) then fits in int16 (32,767) in either engine, the bound of the
# state's ``players`` columns and far inside the C++ core's int32 totals: the Victory Track is
# at most 2,279 (999, the most a saved state may hold, plus 1,280 in the round the end is
# triggered: a seat runs at most 10 actions a round, 4 as leader (a card and a Do-Over, both
# actions of each) and 2 following each rival's turn, of at most MAX_ACTION_STEPS = 128 steps,
# one point a step); a made-up rule is at most 17,408 points (Big Plans: 68 cards a seat can
# have, 2 actions each, at most 128 printed steps an action since every multiplier is >= 1);
# 2,279 + 17,408 + 999 + 4 (macaroni) = 20,690.
MAX_LEVEL_POINTS = 999

# --- effect tree node kinds ---
ATOM, THEN, REPEAT = 0, 1, 2

# --- verbs (rulebook pp.12-13 action glossary): the rows of verb_table.VERBS ---
VERBS: tuple[str, ...] = VERB_NAMES
_CODE = {name: code for code, name in enumerate(VERBS)}
GATHER, PACK, LOOKOUT_V, TRASH_V, TRASH_THIS, RECRUIT, ADVANCE, SCORE = (
    _CODE[v] for v in ("gather", "pack", "lookout", "trash", "trash_this", "recruit", "advance",
                       "score")
)  # fmt: skip
SPEND, TRASH_RIVAL, COPY_PACK, COPY_RIVAL_PACK, CONVERT = (
    _CODE[v] for v in ("spend", "trash_rival", "copy_pack", "copy_rival_pack", "convert")
)
# the argument words of the verbs that take one (verb_table.Verb.args)
VERB_ARGS: dict[int, dict[str, int] | None] = {
    code: dict(v.args) for code, v in enumerate(VERB_ROWS) if v.args is not None
}

# --- multipliers (rulebook p.13-14 "Other Action Symbols") ---
MULTS: tuple[str, ...] = ("suit", "any_suit", "fort_level", "pack_size", "lookout_size", "const")
MULT_SUIT, MULT_ANY_SUIT, MULT_FORT_LEVEL, MULT_PACK_SIZE, MULT_LOOKOUT_SIZE, MULT_CONST = range(6)

Effect = tuple[Any, ...]
MAX_ACTION_STEPS = 128  # the most steps an action unrolls to (see max_steps)
# The most steps a constant multiplier may unroll a body of two or more steps to (see
# chained_steps): each such repetition is a fresh choice of every step, which the exact legality
# search explores in turn, so its cost grows exponentially with this count ("(recruit ->
# trash_rival -> lookout -> trash) x 6" took 12 s a decision; x 4, 16 steps, 0.02-0.7 s). The
# shipped cards repeat multi-step bodies by suit counts only (0 here); the search's own budget
# (constants.SEARCH_NODE_BUDGET) bounds what this cannot see (issue 42, docs/reliability.md).
MAX_CHAINED_STEPS = 16


def _short(text: str) -> str:
    return text if len(text) <= 12 else f"{text[:12]}... ({len(text)} characters)"


_GRAMMAR = r"""
    start: chain?
    ?chain: term ("->" term)*
    ?term: primary ("x" mult)?
    ?primary: verb | "(" chain ")"
    verb: NAME ("(" ARG ")")?
    mult: NAME | INT
    ARG: /[+-]?[a-z0-9]+/
    NAME: /[a-z_]+/
    INT: /[0-9]+/
    %import common.WS
    %ignore WS
"""


class _ToEffect(Transformer[Token, Effect]):
    """Turns the parse tree into effect tuples, validating names (errors name the token)."""

    def start(self, items: list[Effect]) -> Effect | None:
        return items[0] if items else None

    def chain(self, items: list[Effect]) -> Effect:
        node = items[0]
        for right in items[1:]:
            node = (THEN, node, right)
        return node

    def term(self, items: list[Any]) -> Effect:
        body, (mult, arg) = items
        return (REPEAT, body, mult, arg)

    def verb(self, items: list[Token]) -> Effect:
        name = str(items[0])
        if name not in VERBS:
            raise ValueError(f"unknown verb {name!r} (known: {', '.join(VERBS)})")
        code = VERBS.index(name)
        allowed = VERB_ARGS.get(code)
        if len(items) == 1:
            if code in (GATHER, SPEND):
                raise ValueError(f"verb {name!r} needs a resource: pizza, toys or any")
            return (ATOM, code, 0)
        raw = str(items[1])
        if allowed is None or raw not in allowed:
            raise ValueError(f"verb {name!r} does not take argument {raw!r}")
        return (ATOM, code, allowed[raw])

    def mult(self, items: list[Token]) -> tuple[int, int]:
        tok = items[0]
        if tok.type == "INT":
            value = int(tok) if len(tok) <= 4 else MAX_ACTION_STEPS + 1  # no int() of a long one
            if not 1 <= value <= MAX_ACTION_STEPS:
                raise ValueError(
                    f"multiplier {_short(str(tok))} out of range; a number is 1..{MAX_ACTION_STEPS}"
                )
            return (MULT_CONST, value)
        name = str(tok)
        if name in SUITS:
            return (MULT_SUIT, SUITS.index(name))
        if name in MULTS[1:5]:
            return (MULTS.index(name), 0)
        raise ValueError(f"unknown multiplier {name!r} (a suit, any_suit, fort_level, ...)")


_PARSER = Lark(_GRAMMAR, parser="lalr")


@lru_cache(maxsize=1024)
def parse_action(text: str) -> Effect | None:
    """Parse one action string into an effect tree (``None`` for a blank action).

    Checked before parsing, so that no text makes the parser or a tree walk recurse deeply:
    at most ``MAX_ACTION_TEXT`` (200) characters and ``MAX_ACTION_NESTING`` (8) levels of
    parentheses. A constant multiplier is 1..``MAX_ACTION_STEPS`` (128).

    Raises:
        ValueError: the text is too long, nested too deeply, malformed, has a constant
            multiplier out of range or names an unknown verb, suit or multiplier.
    """
    if len(text) > MAX_ACTION_TEXT:
        raise ValueError(f"{len(text)} characters; the limit is {MAX_ACTION_TEXT}")
    depth = deepest = 0
    for ch in text:
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1
    if deepest > MAX_ACTION_NESTING:
        raise ValueError(f"parentheses {deepest} deep; the limit is {MAX_ACTION_NESTING}")
    try:
        tree = _PARSER.parse(text)
        return _ToEffect().transform(tree)
    except LarkError as exc:
        cause = exc.orig_exc if hasattr(exc, "orig_exc") else exc
        raise ValueError(str(cause).strip().splitlines()[0]) from None


def effect_to_string(node: Effect | None) -> str:
    """The action-language text of an effect tree (the inverse of :func:`parse_action`)."""
    if node is None:
        return ""
    kind = node[0]
    if kind == ATOM:
        verb, arg = node[1], node[2]
        names = VERB_ARGS.get(verb)
        if names is None or (verb == ADVANCE and arg == 0):
            return VERBS[verb]
        label = {v: k for k, v in names.items()}[arg]
        return f"{VERBS[verb]}({label})"
    if kind == THEN:
        return f"{effect_to_string(node[1])} -> {effect_to_string(node[2])}"
    body = node[1]
    inner = effect_to_string(body)
    if body[0] != ATOM:
        inner = f"({inner})"
    mult, arg = node[2], node[3]
    label = str(arg) if mult == MULT_CONST else SUITS[arg] if mult == MULT_SUIT else MULTS[mult]
    return f"{inner} x {label}"


# Upper bounds of each multiplier in any game, used to refuse at load an action that could
# unroll past MAX_ACTION_STEPS: suits on the played card, a hand of 5 plus a recycled card and
# a full Lookout of 6, two suits each; a Pack of 6 + 2 (XXL Backpack); a Lookout of 6.
_MULT_BOUND = {MULT_SUIT: 2 * (1 + 6 + 6), MULT_ANY_SUIT: 2 * (1 + 6 + 6),
               MULT_FORT_LEVEL: MAX_FORT_LEVEL, MULT_PACK_SIZE: MAX_FORT_LEVEL + 1 + 2,
               MULT_LOOKOUT_SIZE: MAX_FORT_LEVEL + 1}  # fmt: skip


def max_steps(node: Effect | None) -> int:
    """The most steps an action can unroll to in any game (see ``_MULT_BOUND``)."""
    if node is None:
        return 0
    if node[0] == ATOM:
        return 1
    if node[0] == THEN:
        return max_steps(node[1]) + max_steps(node[2])
    bound = node[3] if node[2] == MULT_CONST else _MULT_BOUND[node[2]]
    return bound * max_steps(node[1])


def chained_steps(node: Effect | None) -> int:
    """The most steps a constant multiplier unrolls a body of two or more steps to, anywhere in
    an effect tree (0 if there is none); nested multipliers multiply (``MAX_CHAINED_STEPS``)."""
    if node is None or node[0] == ATOM:
        return 0
    if node[0] == THEN:
        return max(chained_steps(node[1]), chained_steps(node[2]))
    inner = chained_steps(node[1])
    if node[2] == MULT_CONST and node[1][0] != ATOM:
        return max(inner, int(node[3]) * max_steps(node[1]))
    return inner


def count_verb(node: Effect | None, verb: int) -> int:
    """How many times ``verb`` is printed in an effect tree (Big Plans counts advances)."""
    if node is None:
        return 0
    if node[0] == ATOM:
        return int(node[1] == verb)
    if node[0] == THEN:
        return count_verb(node[1], verb) + count_verb(node[2], verb)
    return count_verb(node[1], verb)


def first_step(node: Effect | None) -> tuple[int, int] | None:
    """``(verb, arg)`` of an action's first step, or None for a blank action."""
    while node is not None and node[0] != ATOM:
        node = node[1]  # THEN: its left part; REPEAT: its body
    return None if node is None else (node[1], node[2])


def all_steps(node: Effect | None) -> list[tuple[int, int]]:
    """Every step ``(verb, arg)`` an effect tree contains, in order (with repeats once)."""
    if node is None:
        return []
    if node[0] == ATOM:
        return [(node[1], node[2])]
    if node[0] == THEN:
        return all_steps(node[1]) + all_steps(node[2])
    return all_steps(node[1])


def single_step(node: Effect | None) -> tuple[int, int, int, int] | None:
    """``(verb, arg, mult, mult_arg)`` of an action that is one step, repeated or not
    (``MULT_CONST``, 1 when not), or None for a blank action or any other shape."""
    if node is None:
        return None
    if node[0] == ATOM:
        return (node[1], node[2], MULT_CONST, 1)
    if node[0] == REPEAT and node[1][0] == ATOM:
        return (node[1][1], node[1][2], node[2], node[3])
    return None


def multipliers(node: Effect | None) -> list[tuple[int, int]]:
    """Every ``(mult, arg)`` in an effect tree, outermost first."""
    if node is None or node[0] == ATOM:
        return []
    if node[0] == THEN:
        return multipliers(node[1]) + multipliers(node[2])
    return [(node[2], node[3]), *multipliers(node[1])]


@dataclass(frozen=True)
class Card:
    """One physical kid card.

    Attributes:
        id: index 0..num_cards-1; Park cards first, then Best Friends board by board.
        name: the nickname (not unique: some names are printed on several cards).
        suits: suit indices into ``SUITS``, one or two (a double suit repeats).
        public, private: the action texts; ``public_effect``/``private_effect`` their trees.
        is_best_friend: a Best Friend (marked B); ``board`` names its player board.
        kind: index of the distinct card design (same name, suits and actions share a kind).
    """

    id: int
    name: str
    suits: tuple[int, ...]
    public: str
    private: str
    is_best_friend: bool
    board: str | None
    kind: int
    public_effect: Effect | None = field(repr=False, compare=False)
    private_effect: Effect | None = field(repr=False, compare=False)

    @property
    def suit_names(self) -> tuple[str, ...]:
        return tuple(SUITS[s] for s in self.suits)


@dataclass(frozen=True)
class FortStep:
    """The cost to go up one Fort Level (rulebook p.5 board F): toys, pizza, either."""

    toys: int
    pizza: int
    either: int


@dataclass(frozen=True)
class CardSet:
    """Everything loaded from a data directory (see ``docs/cards.md``)."""

    cards: tuple[Card, ...]
    boards: tuple[str, ...]  # board names in file order; seat i takes boards[i]
    fort_steps: tuple[FortStep, ...]  # fort_steps[L] is the cost from level L to L+1
    level_points: tuple[int, ...]  # victory points of Fort Level 0..5
    rules: tuple[str, ...]  # made-up rule names, in MADE_UP_RULES order
    perks: tuple[str, ...]  # perk names, in PERKS order
    source: str

    @property
    def num_park_cards(self) -> int:
        return sum(not c.is_best_friend for c in self.cards)


def _load_toml(path: Path) -> dict[str, Any]:
    try:
        text = read_text_file(path, "card data file", MAX_CARD_FILE_BYTES)
    except InputFileError as exc:
        raise CardDataError(path, None, None, exc.problem) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardDataError(path, None, None, f"not valid TOML: {exc}") from None
    except ValueError as exc:  # an integer past Python's 4,300-digit limit
        raise CardDataError(path, None, None, f"not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per level of nested arrays, tables, keys
        raise CardDataError(path, None, None, "not valid TOML: nested too deeply") from None


def _is_int(value: object) -> bool:
    """An integer of the data (TOML ``true`` is a bool, which Python also calls an int)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _need(path: Path, card: object, entry: dict[str, Any], key: str, typ: type) -> Any:
    if key not in entry:
        raise CardDataError(path, card, key, "missing")
    return _typed(path, card, entry, key, typ)


def _typed(path: Path, card: object, entry: dict[str, Any], key: str, typ: type) -> Any:
    """``entry[key]`` if it is a ``typ`` (an int is not a bool, a bool is not an int)."""
    value = entry[key]
    if typ is int:
        ok = _is_int(value)
    elif typ is bool:
        ok = isinstance(value, bool)
    else:
        ok = isinstance(value, typ)
    if not ok:
        raise CardDataError(path, card, key, f"expected {typ.__name__}, got {describe(value)}")
    return value


def _plain_text(path: Path, card: object, entry: dict[str, Any], key: str) -> str:
    """The string ``entry[key]`` (a name the commands print), refused if it holds a control
    character (``fort_env.game.inputs.CONTROL_CHARACTERS``: ESC, BEL, NUL, newlines...), which
    a terminal would act on."""
    text: str = _need(path, card, entry, key, str)
    found = control_characters(text)
    if found:
        raise CardDataError(path, card, key, f"holds control characters ({found}); a name is "
                            "printed as it is, so it may hold none")  # fmt: skip
    return text


def _tables(path: Path, key: str, entries: object) -> list[dict[str, Any]]:
    """``entries`` if it is a list of tables (``[[key]]`` entries); the entry that is not a
    table is named ``#i`` (1-based), as the loaders name an entry without a name."""
    if not isinstance(entries, list) or not entries:
        raise CardDataError(path, None, key, f"no [[{key}]] entries")
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise CardDataError(
                path, f"#{i + 1}", key, f"expected a [[{key}]] table, got {describe(entry)}"
            )
    return entries


def _load_cards(path: Path) -> tuple[list[Card], list[str]]:
    entries = _tables(path, "card", _load_toml(path).get("card"))
    park: list[dict[str, Any]] = []
    friends: list[dict[str, Any]] = []
    for i, entry in enumerate(entries):
        name = _plain_text(path, f"#{i + 1}", entry, "name")
        suits = _need(path, name, entry, "suits", list)
        if (
            not 1 <= len(suits) <= 2
            or not all(isinstance(s, str) for s in suits)
            or any(s not in SUITS for s in suits)
        ):
            raise CardDataError(
                path, name, "suits", f"need 1 or 2 of {SUITS}, got {describe(suits)}"
            )
        parsed = {}
        for side in ("public", "private"):
            text = _need(path, name, entry, side, str)
            try:
                parsed[side] = parse_action(text)
            except ValueError as exc:
                raise CardDataError(path, name, side, f"{describe(text)}: {exc}") from None
            longest = max_steps(parsed[side])
            if longest > MAX_ACTION_STEPS:
                raise CardDataError(
                    path, name, side,
                    f"{text!r} can unroll to {longest} steps; the limit is {MAX_ACTION_STEPS}",
                )  # fmt: skip
            chained = chained_steps(parsed[side])
            if chained > MAX_CHAINED_STEPS:
                raise CardDataError(
                    path, name, side,
                    f"{text!r} unrolls a repeated chain of steps to {chained} steps; a constant "
                    f"multiplier may unroll a chain to at most {MAX_CHAINED_STEPS} steps",
                )  # fmt: skip
        unknown = set(entry) - {"name", "suits", "public", "private", "copies", "board"}
        if unknown:
            raise CardDataError(path, name, sorted(unknown)[0], "unknown field")
        item = {**entry, "name": name, "suits": tuple(SUITS.index(s) for s in suits)}
        item["effects"] = parsed
        if "board" in entry:
            _plain_text(path, name, entry, "board")
            if "copies" in entry:
                raise CardDataError(path, name, "copies", "a Best Friend is not in the Park deck")
            friends.append(item)
        else:
            copies = _need(path, name, entry, "copies", int)
            if not 1 <= copies <= MAX_COPIES:
                raise CardDataError(
                    path, name, "copies", f"must be in [1, {MAX_COPIES}], got {describe(copies)}"
                )
            park.append(item)
    total = sum(p["copies"] for p in park)
    if total != PARK_DECK_SIZE:
        raise CardDataError(path, None, "copies", f"Park deck has {total} cards, need 60")
    boards: list[str] = []
    for f in friends:
        if f["board"] not in boards:
            boards.append(f["board"])
    for b in boards:
        n = sum(f["board"] == b for f in friends)
        if n != 2:
            raise CardDataError(path, b, "board", f"board {b!r} has {n} Best Friends, need 2")
    if len(boards) < 4:
        raise CardDataError(path, None, "board", f"need 4 boards of Best Friends, got {boards}")
    if len(boards) > MAX_BOARDS:
        raise CardDataError(
            path, boards[MAX_BOARDS], "board", f"{len(boards)} boards; the limit is {MAX_BOARDS}"
        )
    ordered = [(p, None) for p in park for _ in range(p["copies"])]
    ordered += [(f, f["board"]) for b in boards for f in friends if f["board"] == b]
    kinds: dict[tuple[Any, ...], int] = {}
    cards = []
    for cid, (item, board) in enumerate(ordered):
        key = (item["name"], item["suits"], item["public"], item["private"], board is not None)
        kind = kinds.setdefault(key, len(kinds))
        cards.append(
            Card(
                cid,
                item["name"],
                item["suits"],
                item["public"],
                item["private"],
                board is not None,
                board,
                kind,
                item["effects"]["public"],
                item["effects"]["private"],
            )
        )
    return cards, boards


def _load_fort(path: Path) -> tuple[tuple[FortStep, ...], tuple[int, ...]]:
    data = _load_toml(path)
    steps = data.get("step")
    if not isinstance(steps, list) or len(steps) != MAX_FORT_LEVEL:
        raise CardDataError(path, "fort track", "step", f"need {MAX_FORT_LEVEL} [[step]] entries")
    out = []
    for i, s in enumerate(steps):
        if not isinstance(s, dict):
            raise CardDataError(
                path, f"step {i}->{i + 1}", "step", f"expected a [[step]] table, got {describe(s)}"
            )
        unknown = set(s) - {"toys", "pizza", "either"}
        if unknown:
            raise CardDataError(path, f"step {i}->{i + 1}", sorted(unknown)[0], "unknown field")
        vals = [_need(path, f"step {i}->{i + 1}", s, k, int) for k in ("toys", "pizza", "either")]
        for key, v in zip(("toys", "pizza", "either"), vals, strict=True):
            if not 0 <= v <= MAX_STEP_COST:
                raise CardDataError(
                    path, f"step {i}->{i + 1}", key,
                    f"must be in [0, {MAX_STEP_COST}], got {describe(v)}",
                )  # fmt: skip
        if sum(vals) < 1:
            raise CardDataError(path, f"step {i}->{i + 1}", "cost", f"bad cost {vals}")
        out.append(FortStep(*vals))
    points = data.get("victory_points")
    if (
        not isinstance(points, list)
        or len(points) != MAX_FORT_LEVEL + 1
        or not all(_is_int(p) and p >= 0 for p in points)
    ):
        raise CardDataError(
            path, "fort track", "victory_points",
            f"need 6 non-negative integers, got {describe(points)}",
        )  # fmt: skip
    for level, p in enumerate(points):
        if p > MAX_LEVEL_POINTS:
            raise CardDataError(
                path, "fort track", f"victory_points[{level}]",
                f"must be in [0, {MAX_LEVEL_POINTS}], got {describe(p)}",
            )  # fmt: skip
    return tuple(out), tuple(points)


def _load_names(path: Path, table: str, expected: tuple[str, ...]) -> tuple[str, ...]:
    entries = _tables(path, table, _load_toml(path).get(table))
    fields = {"name": str, "text": str, **({"once": bool} if table == "perk" else {})}
    names = []
    for i, entry in enumerate(entries):
        name = _need(path, f"#{i + 1}", entry, "name", str)
        for key in entry:
            if key not in fields:
                raise CardDataError(path, name, key, "unknown field")
            _typed(path, name, entry, key, fields[key])
        names.append(name)
    if sorted(names) != sorted(expected):
        raise CardDataError(
            path, None, "name", f"need exactly {sorted(expected)}, got {describe(names)}"
        )
    return expected


@lru_cache(maxsize=8)
def load_card_set(directory: str | None = None) -> CardSet:
    """Load a card set from a directory holding cards.toml, fort.toml, rules.toml, perks.toml.

    Args:
        directory: a path, or ``None`` for the shipped reconstruction in ``fort_env/data``.

    Each file is read with ``fort_env.game.inputs.read_text_file``: a regular file only (a
    directory, FIFO, device or symlink loop is refused without blocking), at most
    ``MAX_CARD_FILE_BYTES`` (1 MiB), strict UTF-8. Every number has a limit (docs/cards.md
    "Limits"): copies 1..``MAX_COPIES`` (60), Fort step costs 0..``MAX_STEP_COST`` (99),
    victory points 0..``MAX_LEVEL_POINTS`` (999), constant multipliers 1..``MAX_ACTION_STEPS``
    (128), at most ``MAX_BOARDS`` (16) boards; an action text at most ``MAX_ACTION_TEXT``
    (200) characters, ``MAX_ACTION_NESTING`` (8) parentheses deep and ``MAX_ACTION_STEPS``
    steps unrolled.

    Raises:
        CardDataError: a file is missing, unreadable or malformed, or a value is past its limit
            (names the file, card and field, and the limit).
    """
    root = Path(directory) if directory is not None else DATA_DIR
    try:
        is_dir = stat.S_ISDIR(os.stat(root).st_mode)
    except (OSError, ValueError):  # missing, a symlink loop, a name too long, a NUL byte
        is_dir = False
    if not is_dir:
        raise CardDataError(root, None, None, "not a directory of card data")
    cards, boards = _load_cards(root / "cards.toml")
    steps, points = _load_fort(root / "fort.toml")
    rules = _load_names(root / "rules.toml", "rule", MADE_UP_RULES)
    perks = _load_names(root / "perks.toml", "perk", PERKS)
    return CardSet(tuple(cards), tuple(boards), steps, points, rules, perks, str(root))
