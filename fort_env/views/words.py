"""The card language, the moves and the decisions in the rulebook's English: what a person reads
in the terminal (``fort-env play``, ``fort-env replay``) and the browser (``fort-env serve``,
the replay page). The code form stays for developers (``fort_env.game.cards.effect_to_string``,
``FortState.action_to_string``; ``--raw`` on ``play`` and ``replay``).

An action's English is put together from the verb table, word by word, not looked up per card,
so a custom card set reads as well as the shipped one (rulebook pp.12-14, "Actions" and "Other
Action Symbols"):

- a verb is its :class:`~fort_env.game.verb_table.Words` (``verb_table.VERBS``): the
  imperative, what it counts ("1 card", "2 toys") or how many times ("twice"), the words
  after it;
- a multiplier ("Per", ``x``) folds a number into the count ("Gather 2 toys") and reads
  anything else as a "for each" clause (:data:`MULT_WORDS`: "Gather 1 toy for each crown you
  show"); on a group in parentheses it leads the group ("For each squirtgun you show: recruit
  1 card, then gather 1 toy");
- "then" (``->``) joins steps with ", then"; a repeated group followed by more ends its
  sentence, so where the group stops is never in doubt ("... . Then score 1 point").

Examples: ``gather(toys) x crown`` -> "Gather 1 toy for each crown you show";
``score x book -> trash_this`` -> "Score 1 point for each book you show, then trash this card";
``advance(-1)`` -> "Advance Fort, paying 1 resource less".

The moves (:func:`action_words`) and the decisions (:data:`DECISION_WORDS`) read the same
way: the option tables' structure (``actions.MODE_PLAN``, ``PAY_OPTIONS``...) in words, the
rivals named by seat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fort_env.game import verb_table
from fort_env.game.actions import (
    CONVERT_OPTIONS,
    MODE_PLAN,
    PACK_OPTIONS,
    PAY_OPTIONS,
    PUBLIC,
)
from fort_env.game.cards import (
    ATOM,
    MULT_CONST,
    MULT_SUIT,
    MULTS,
    REPEAT,
    THEN,
    VERB_ARGS,
    Card,
    Effect,
    parse_action,
)
from fort_env.game.constants import RESOURCES, SUITS
from fort_env.game.decisions import DecisionKind
from fort_env.game.fields import C_ACTOR
from fort_env.views.text import card_label

if TYPE_CHECKING:
    from fort_env.game.state_arrays import StateArrays

__all__ = [
    "BLANK",
    "DECISION_WORDS",
    "MULT_WORDS",
    "action_words",
    "card_text",
    "card_words",
    "decision_name",
    "decision_words",
    "effect_words",
    "is_internal",
    "mode_words",
    "text_words",
]

BLANK = "blank"
"""A blank action (rulebook p.7: "using a blank action fully doesn't count")."""

# What each multiplier but a number counts, as a "for each" clause (rulebook pp.13-14): a suit
# counts that suit on the played card, the added cards and the Lookout cards added to it
# ("{suit}"); "any_suit" one suit the player names when the action is used.
MULT_WORDS: dict[str, str] = {
    "suit": "for each {suit} you show",
    "any_suit": "for each icon you show of one suit you choose",
    "fort_level": "for each Fort Level you have",
    "pack_size": "for each resource in your Pack",
    "lookout_size": "for each card in your Lookout",
}
assert set(MULT_WORDS) | {"const"} == set(MULTS), "every multiplier has its words"

_ARG_NAMES = {code: {v: k for k, v in names.items()} for code, names in VERB_ARGS.items() if names}


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _per(mult: int, arg: int) -> str:
    """The "for each" clause of a multiplier other than a number."""
    words = MULT_WORDS[MULTS[mult]]
    return words.format(suit=SUITS[arg]) if mult == MULT_SUIT else words


def _step(verb: int, arg: int, count: int, per: str, repeated: bool) -> str:
    """One verb in words: ``count`` of it (a number), or 1 ``per`` clause when ``per`` is
    set; ``repeated``: the step is done a varying number of times (its own clause or an
    enclosing group's)."""
    row = verb_table.VERBS[verb]
    w = row.words
    name = _ARG_NAMES.get(verb, {}).get(arg, "")
    noun = (w.arg_nouns or {}).get(name, w.noun)
    rest = (w.arg_rests or {}).get(name, w.rest)
    note = (w.repeated or {}).get(name, "") if repeated or per else ""
    if noun is None:  # a verb that counts times: "advance Fort twice"
        how = f" once {per}" if per else "" if count == 1 else f" {_times(count)}"
        return f"{w.verb}{how}{rest}{note}"
    thing = noun[0] if count == 1 else noun[1]
    return f"{w.verb} {thing.format(n=count)}{rest}{' ' + per if per else ''}{note}"


def _clause(node: Effect, repeated: bool = False) -> list[str]:
    """``node`` as sentences (the first one's first letter still lower case): a repeated group
    followed by more steps ends its sentence."""
    kind = node[0]
    if kind == ATOM:
        return [_step(node[1], node[2], 1, "", repeated)]
    if kind == REPEAT:
        body, mult, arg = node[1], node[2], node[3]
        if body[0] == ATOM:
            if mult == MULT_CONST:
                return [_step(body[1], body[2], int(arg), "", repeated)]
            return [_step(body[1], body[2], 1, _per(mult, arg), True)]
        if mult == MULT_CONST and arg == 1:
            return _clause(body, repeated)
        lead = _times(int(arg)) if mult == MULT_CONST else _per(mult, arg)
        inner = _clause(body, True)
        return [f"{lead}: {inner[0]}", *inner[1:]]
    # THEN: the chain's parts in order, left to right
    parts: list[Effect] = []
    stack = [node]
    while stack:
        top = stack.pop()
        if top[0] == THEN:
            stack += [top[2], top[1]]
        else:
            parts.append(top)
    sentences: list[str] = []
    for k, part in enumerate(parts):
        said = _clause(part, repeated)
        if k == 0:
            sentences = said
        elif _ends_group(parts[k - 1]) and not repeated:
            sentences += [f"then {said[0]}", *said[1:]]  # a new sentence after a group
        elif _ends_group(parts[k - 1]):
            sentences[-1] += f"; then {said[0]}"
            sentences += said[1:]
        else:
            sentences[-1] += f", then {said[0]}"
            sentences += said[1:]
    return sentences


def _ends_group(node: Effect) -> bool:
    """Whether ``node``'s words end with a group's steps (a repeated chain)."""
    if node[0] == REPEAT:
        body = node[1]
        if body[0] == ATOM or (node[2] == MULT_CONST and node[3] == 1):
            return body[0] != ATOM and _ends_group(body)
        return True
    if node[0] == THEN:
        return _ends_group(node[2])
    return False


def effect_words(node: Effect | None) -> str:
    """An action's effect tree (``cards.parse_action``) in the rulebook's English (module
    docstring); :data:`BLANK` for a blank action. Sentences start with a capital letter; one
    sentence has no full stop ("Gather 1 toy for each crown you show"), several do."""
    if node is None:
        return BLANK
    sentences = [s[0].upper() + s[1:] for s in _clause(node)]
    return sentences[0] if len(sentences) == 1 else " ".join(s + "." for s in sentences)


def text_words(text: str) -> str:
    """An action text of the card language (``"gather(toys) x crown"``) in English.

    Raises:
        ValueError: the text is not of the card language (``cards.parse_action``).
    """
    return effect_words(parse_action(text))


def card_words(card: Card, raw: bool = False) -> tuple[str, str]:
    """A card's public and private actions in English (``raw``: the card language as written,
    ``"-"`` for a blank one)."""
    if raw:
        return card.public or "-", card.private or "-"
    return effect_words(card.public_effect), effect_words(card.private_effect)


def card_text(card: Card, raw: bool = False) -> str:
    """A card's two actions on one line: ``public: ... | private: ...`` (:func:`card_words`)."""
    public, private = card_words(card, raw)
    return f"public: {public} | private: {private}"


# --- moves ----------------------------------------------------------------------------------

_SIDE = {PUBLIC: "public", 1 - PUBLIC: "private"}
_RESOURCE_ONE = tuple(f"1 {r.removesuffix('s')}" for r in RESOURCES)  # "1 pizza", "1 toy"


def mode_words(mode: int) -> str:
    """A mode of using the played card's actions (``actions.MODE_PLAN``; rulebook p.7: one
    action used fully, the other, if any, partially: as far as the player likes)."""
    first, second, full = MODE_PLAN[mode]
    if second < 0:
        return f"only the {_SIDE[first]} action, fully"
    how = {True: "fully", False: "as far as you like"}
    return (
        f"the {_SIDE[first]} action {how[first == full]}, "
        f"then the {_SIDE[second]} one {how[second == full]}"
    )


def _place(in_pack: bool) -> str:
    return "{own} Pack" if in_pack else "{own} Stuff"


# each option range's option index -> words, from its option table's structure
_OPTION_WORDS: dict[str, tuple[str, ...]] = {
    "SUITS": tuple(f"the {s} suit" for s in SUITS),
    "MODES": tuple(mode_words(m) for m in range(len(MODE_PLAN))),
    "RESOURCES": RESOURCES,
    "PACK_NAMES": tuple(
        f"{_RESOURCE_ONE[r]} from {'the supply, with Sticky Fingers' if supply else '{own} Stuff'}"
        for r, supply in PACK_OPTIONS
    ),
    "PAY_NAMES": tuple(f"{_RESOURCE_ONE[r]} from {_place(pack)}" for r, pack in PAY_OPTIONS),
    "CONVERT_NAMES": tuple(
        f"{_RESOURCE_ONE[r]} into {_RESOURCE_ONE[1 - r]} in {_place(pack)}"
        for r, pack in CONVERT_OPTIONS
    ),
    "MADE_UP_RULES": verb_table.OPTION_NAMES["MADE_UP_RULES"],
    "PERKS": verb_table.OPTION_NAMES["PERKS"],
}

# Each range's move in words (``{card}``: the card's label, ``{option}``: its option's words,
# ``{rival}``: the rival seat it names, ``{own}``: "your" or "their"); the ranges not here read
# as ``Range.text`` does.
_RANGE_WORDS: dict[str, str] = {
    "USE_DIY": "trash DIY to Advance Fort, paying 1 resource more",
    "RECYCLE": "trash Recycling to take {card} from {own} discard pile into {own} hand",
    "SUIT": "choose {option}",
    "STOP_ADDING": "stop adding cards",
    "PACK_FROM": "pack {option}",
    "LOOKOUT_CARD": "tuck {card} into {own} Lookout",
    "LOOKOUT_PARK_DECK": "tuck the top card of the Park deck into {own} Lookout",
    "RECRUIT_PARK_DECK": "recruit the top card of the Park deck",
    "TRASH_RIVAL_CARD": "trash {card} from {rival}'s Yard",
    "COPY_RIVAL": "copy {rival}'s Pack",
    "PICK_RULE": "take the made-up rule {option}",
    "PICK_PERK": "take the perk {option}",
    "FOLLOW_CARD": "follow, discarding {card}",
    "ROUGH_HOUSE": "trash Rough Housing to trash the leader's played card",
    "DO_OVER": "trash Do-Over to play a second card",
    "DRAFT_CARD": "keep {card}",
    "STOP_ACTION": "stop this action here",
    "CONTINUE_ACTION": "do the next step of this action",
}
assert set(_RANGE_WORDS) <= set(verb_table.RANGE_NAMES), "words of known ranges"
assert all(
    r.options is None or r.options in _OPTION_WORDS or r.options == "RIVALS"
    for r in verb_table.RANGES
), "every option range has its words"
_RANGE_ROWS = {r.name: r for r in verb_table.RANGES}

INTERNAL_RANGES = frozenset({"CONTINUE_ACTION"})
"""Moves that only carry on what was chosen already: going on with an action used partially
(docs/rules.md R3). The terminal and the browser do not print them as a player's move."""


def is_internal(state: StateArrays, action: int) -> bool:
    """Whether ``action`` is an internal step (:data:`INTERNAL_RANGES`), not a move worth
    printing."""
    return state.game.layout.decode(int(action))[0] in INTERNAL_RANGES


def action_words(state: StateArrays, action: int, own: str = "your") -> str:
    """``action`` as a move in words ("play Chef [book]#3", "use the public action fully,
    then the private one as far as you like", "copy player 2's Pack"), for the position
    ``state`` it is taken from (a rival is named from the acting seat). ``own``: the mover's
    things as the reader sees them: "your" (a choice offered to the reader) or "their" (a
    move someone else made: "pay 1 toy from their Stuff").

    Raises:
        ValueError: the action is outside ``[0, num_distinct_actions)``.
    """
    name, i = state.game.layout.decode(int(action))
    row = _RANGE_ROWS[name]
    text = _RANGE_WORDS.get(name, row.text)
    card = card_label(state, i) if row.size == verb_table.C else ""
    rival = ""
    if name == "TRASH_RIVAL_CARD":
        rival = f"player {int(state.owner[i])}"
    elif name == "COPY_RIVAL":
        n, me = state.game.num_players, int(state.ctx[C_ACTOR])
        rival = f"player {(me + i + 1) % n}" if me >= 0 else f"the rival {i + 1} to the left"
    option = ""
    if row.options is not None and row.options != "RIVALS":
        option = _OPTION_WORDS[row.options][i].format(own=own)
    return text.format(card=card, option=option, rival=rival, i=i, own=own)


# --- decisions ------------------------------------------------------------------------------

DECISION_WORDS: dict[str, str] = {
    "DRAFT": "keep one card of the pack passed to you",
    "PLAY": "play a card from your hand, or skip the Play phase",
    "DECLARE_COIN": "say which suit your played coin card shows",
    "MODE": "choose which actions of the played card to use, in which order, and which one "
    "you use fully",
    "ANY_SUIT": "choose the one suit this action counts",
    "ADD": "add a card from your hand or Lookout to improve the action, or stop adding",
    "ADD_COIN": "say which suit the added coin card shows",
    "RESOURCE": "choose pizza or toys for this action",
    "PACK": "choose what to pack",
    "LOOKOUT": "choose a card to tuck into your Lookout",
    "TRASH": "choose a card to trash",
    "RECRUIT": "choose a card to recruit",
    "PAY": "pay for Advance Fort, one resource at a time",
    "SPEND": "choose what to spend",
    "TRASH_RIVAL": "choose a card in a rival's Yard to trash",
    "COPY_RIVAL": "choose whose Pack to copy",
    "CONVERT": "choose what to convert, and where",
    "PICK_RULE": "Fort Level 1: take a made-up rule",
    "PICK_PERK": "Fort Level 2: take a perk",
    "FOLLOW": "follow the leader's public action by discarding a card of a matching suit, or pass",
    "FOLLOW_SECOND": "Copy Cat: follow again with a second card, or stop",
    "DO_OVER": "use Do-Over to play a second card, or pass",
    "BIRTHDAY": "Birthday Party: recruit one more card, or pass",
    "TERMINAL": "the game is over",
    "ROUGH_HOUSING": "use Rough Housing to trash the leader's played card, or pass",
    "STOP_OR_CONTINUE": "you are using this action partially: stop it here, or do its next step",
}
"""What each decision kind asks, in words (``verb_table.DECISIONS``)."""
assert set(DECISION_WORDS) == set(verb_table.DECISION_NAMES), "every decision has its words"


def decision_name(kind: DecisionKind | int) -> str:
    """A decision kind's short name in words, for a column or a third person ("stop or
    continue", "play"): its name in lower case with spaces."""
    return DecisionKind(int(kind)).name.lower().replace("_", " ")


def decision_words(kind: DecisionKind | int) -> str:
    """What a decision of ``kind`` asks, in words, first letter in capitals."""
    text = DECISION_WORDS[DecisionKind(int(kind)).name]
    return text[0].upper() + text[1:]
