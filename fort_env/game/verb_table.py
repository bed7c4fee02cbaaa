"""The one table of the action language's verbs, the decisions and the action ranges, for both
engines (docs/DESIGN.md "Adding a verb with a choice").

Three lists of rows, in code order (append only: a row's position is its code in a saved state,
a policy file and the observation):

- ``RANGES``: the flat action space (``actions.ActionLayout``): each range's size, its words in
  ``text.action_to_string`` and the handler that applies it (``rules/handlers.py``
  ``on_<name>``, its C++ twin in ``cpp/src/rules/handlers.cc``).
- ``DECISIONS``: ``DecisionKind``: each kind's action ranges (``decision_offers``), the function
  listing its locally legal actions (``rules/legality.py`` ``_<rows>``, C++ ``legal_<rows>``)
  and whether an action's program asks it (the saved-state checks, ``check_indices``).
- ``VERBS``: the verbs of the card language (``cards.VERBS``): the argument words it takes, the
  decision it asks once reached, and what its status reads and doing it changes
  (``rules/verbs.py`` ``VERB_RULES``, the legality search's reuse of positions).

``scripts/gen_constants.py`` writes from it: ``fort_env/game/codes.py`` (``DecisionKind``,
the range and verb codes, the range starts of ``ActionLayout``), the C++ codes and tables of
``cpp/include/fort/constants.h``, the C++ dispatch ``cpp/src/rules/dispatch.cc`` (``HANDLERS``,
``LEGAL``, ``decision_offers``) and the tables of ``docs/actions.md`` and ``docs/state.md``.
The Python engine builds ``HANDLERS`` and ``LEGAL`` from the same rows when it is imported.
``tests/differential/test_constants_header.py`` fails when a generated file is stale.

This module imports only ``constants``, so the generator can read it whatever state the rest is
in.
"""

from __future__ import annotations

from dataclasses import dataclass

from fort_env.game.constants import MADE_UP_RULES, PERKS, RESOURCES, SUITS

# --- option tables: what index i of a fixed-size range means ---------------------------------
# Modes of using the played card's two actions (rulebook p.7: "use one or both actions, in
# either order; you must fully use at least one"). The FULL one is the action committed to
# being used fully; the other one is used partially: step by step, skipping what cannot be
# done, and the leader may stop it after any step (docs/rules.md R3).
MODES: tuple[str, ...] = (
    "public (fully)",
    "private (fully)",
    "public (fully), then private",
    "public, then private (fully)",
    "private (fully), then public",
    "private, then public (fully)",
)
# PAY / SPEND_FROM sub-actions: (resource, from_pack)
PAY_OPTIONS: tuple[tuple[int, bool], ...] = ((1, False), (1, True), (0, False), (0, True))
PAY_NAMES = ("toys from Stuff", "toys from Pack", "pizza from Stuff", "pizza from Pack")
# PACK_FROM sub-actions: (resource, from_supply)
PACK_OPTIONS: tuple[tuple[int, bool], ...] = ((0, False), (1, False), (0, True), (1, True))
PACK_NAMES = ("pizza from Stuff", "toys from Stuff", "pizza from supply", "toys from supply")
# CONVERT sub-actions: (from resource, in_pack)
CONVERT_OPTIONS: tuple[tuple[int, bool], ...] = ((0, False), (0, True), (1, False), (1, True))
CONVERT_NAMES = (
    "pizza->toys in Stuff", "pizza->toys in Pack", "toys->pizza in Stuff", "toys->pizza in Pack",
)  # fmt: skip
MAX_RIVALS = 3

# Option tables written into constants.h as ``<NAME>[n][2]`` (C++ reads the pairs by index).
OPTION_TABLES: dict[str, tuple[tuple[int, bool], ...]] = {
    "PAY_OPTIONS": PAY_OPTIONS,
    "PACK_OPTIONS": PACK_OPTIONS,
    "CONVERT_OPTIONS": CONVERT_OPTIONS,
}
# Names of the options of a range: the size of a range that has them, and ``{option}`` in its
# text.
OPTION_NAMES: dict[str, tuple[str, ...]] = {
    "SUITS": SUITS,
    "MODES": MODES,
    "RESOURCES": RESOURCES,
    "PACK_NAMES": PACK_NAMES,
    "PAY_NAMES": PAY_NAMES,
    "CONVERT_NAMES": CONVERT_NAMES,
    "RIVALS": tuple(f"the rival {k + 1} to the left" for k in range(MAX_RIVALS)),
    "MADE_UP_RULES": MADE_UP_RULES,
    "PERKS": PERKS,
}

# The columns of a program row (``state.prog``, one row per step of the running action): the
# constants ``PROG_<NAME>`` index them in both engines (fields.py, constants.h).
PROG_COLUMNS: tuple[tuple[str, str], ...] = (
    ("verb", "the step's verb (VERBS code)"),
    ("arg", "its argument (the verb's args value, else 0)"),
    ("req_lo", "a 'then': some row of [req_lo, req_hi) must be done first; -1: none"),
    ("req_hi", "the end of that range; -1: none"),
)


@dataclass(frozen=True)
class Range:
    """One range of the flat action space.

    ``size``: ``"C"`` (one action per card of the card set, indexed by card id) or the number of
    actions; None takes the length of ``OPTION_NAMES[options]``. ``text``: the action's words,
    with ``{card}`` (the card's label), ``{option}`` (``OPTION_NAMES[options][i]``) or ``{i}``.
    ``meaning``: the line of docs/actions.md. Its handler is ``on_<name in lower case>``.
    """

    name: str
    size: int | str | None
    text: str
    meaning: str
    options: str | None = None

    @property
    def handler(self) -> str:
        return f"on_{self.name.lower()}"


@dataclass(frozen=True)
class Decision:
    """One decision kind: ``ranges`` (the ranges its actions come from), ``rows`` (its
    locally-legal rows function: ``legality._<rows>``, C++ ``legal_<rows>``; None: no action,
    ``"search"``: the legality search's own, ``search.py``), ``program`` (asked inside a
    running action's program), ``doc`` (what is chosen, rulebook page)."""

    name: str
    ranges: tuple[str, ...]
    rows: str | None
    doc: str
    program: bool = False


@dataclass(frozen=True)
class Words:
    """How one verb reads in the rulebook's English (pp.12-13 "Actions"), the words that
    ``fort_env.views.words`` puts together with the multipliers and "then" of an action.

    ``verb``: the imperative ("gather", "advance Fort"). ``noun``: what one step does one of,
    singular and plural, ``{n}`` standing for the count (``("{n} card", "{n} cards")``); None
    when the verb counts times instead ("twice", "once for each crown you show").
    ``rest``: the words after the noun (" from your hand or discard pile"). ``arg_nouns`` and
    ``arg_rests``: the noun or rest each argument word takes instead. ``repeated``: words
    added after an argument's noun when the step is repeated a varying number of times (a
    choice of resource is made once for the whole action, rulebook p.12).
    """

    verb: str
    noun: tuple[str, str] | None = None
    rest: str = ""
    arg_nouns: dict[str, tuple[str, str]] | None = None
    arg_rests: dict[str, str] | None = None
    repeated: dict[str, str] | None = None


@dataclass(frozen=True)
class Verb:
    """One verb of the card language (docs/cards.md).

    ``args``: the argument words it takes and their codes (None: none). ``decision``: the kind
    it asks once reached (None: carried out at once by ``verbs.do_atom``). ``reads``: what its
    status (``verbs.atom_status``) reads; ``changes``: what doing it can change (tag names of
    ``TAGS``). ``one_step``: once it can start, it is used fully whatever is chosen in it.
    ``words``: how it reads in English (:class:`Words`).
    """

    name: str
    reads: tuple[str, ...]
    changes: tuple[str, ...]
    decision: str | None = None
    one_step: bool = False
    args: dict[str, int] | None = None
    doc: str = ""
    words: Words = Words("")


C = "C"  # a range of one action per card
RANGES: tuple[Range, ...] = (
    Range("PLAY_CARD", C, "play {card}", "play this card from hand (Play phase, p.7)"),
    Range("SKIP_PLAY", 1, "skip the Play phase", "skip the Play phase"),
    Range("USE_DIY", 1, "use DIY (Advance Fort, +1 cost)",
          "trash the DIY perk to Advance Fort at one more resource (p.16)"),
    Range("RECYCLE", C, "recycle {card}",
          "trash Recycling: take this card from your discard pile to hand (p.16)"),
    Range("SUIT", None, "suit {option}",
          'declare a suit: a played or added coin card, or "any one suit" (p.13)', "SUITS"),
    Range("MODE", None, "use {option}",
          "which actions to use, their order, and which one is used fully (p.7)", "MODES"),
    Range("ADD_CARD", C, "add {card}",
          "add this card from hand or Lookout to improve the played card (p.6-7)"),
    Range("STOP_ADDING", 1, "stop adding", "add no more cards"),
    Range("RESOURCE", None, "choose {option}",
          "pizza or toys, for an action that lets you choose (p.12)", "RESOURCES"),
    Range("PACK_FROM", None, "pack {option}",
          "pack pizza/toys from Stuff, or from the supply with Sticky Fingers (p.12, 16)",
          "PACK_NAMES"),
    Range("LOOKOUT_CARD", C, "lookout {card}",
          "tuck this card into your Lookout (hand; Park or Yard with Bribe)"),
    Range("LOOKOUT_PARK_DECK", 1, "lookout: top of the Park deck",
          "Bribe: tuck the top card of the Park deck"),
    Range("TRASH_CARD", C, "trash {card}",
          "trash this card from your hand or discard pile (p.12)"),
    Range("RECRUIT_CARD", C, "recruit {card}",
          "recruit this card from the Park or a rival's Yard (p.9)"),
    Range("RECRUIT_PARK_DECK", 1, "recruit the top of the Park deck",
          "recruit the top card of the Park deck"),
    Range("PAY", None, "pay {option}",
          "pay one unit of a Fort cost: toys/pizza from Stuff/Pack (p.12)", "PAY_NAMES"),
    Range("SPEND_FROM", None, "spend {option}",
          "spend one resource: toys/pizza from Stuff/Pack (p.13)", "PAY_NAMES"),
    Range("TRASH_RIVAL_CARD", C, "trash rival's {card}",
          "trash this card from a rival's Yard (p.13)"),
    Range("COPY_RIVAL", None, "copy the Pack of {option}",
          "copy the Pack of the rival 1, 2 or 3 seats to your left (p.13)", "RIVALS"),
    Range("CONVERT", None, "convert {option}",
          "pizza->toys or toys->pizza, in Stuff or Pack (p.13)", "CONVERT_NAMES"),
    Range("PICK_RULE", None, "take made-up rule {option}",
          "keep this made-up rule from the stack (p.10)", "MADE_UP_RULES"),
    Range("PICK_PERK", None, "take perk {option}", "take this perk from the row (p.10)",
          "PERKS"),
    Range("FOLLOW_CARD", C, "follow with {card}",
          "discard this card to follow the leader's public action (p.8)"),
    Range("PASS", 1, "pass",
          "decline: do not follow, do not use Do-Over, no Birthday Party recruit, no tuck "
          "that only Recycling could make (R15)"),
    Range("ROUGH_HOUSE", 1, "use Rough Housing",
          "trash Rough Housing to trash the leader's played card (p.16)"),
    Range("DO_OVER", 1, "use Do-Over", "trash Do-Over to play a second card (p.16)"),
    Range("DRAFT_CARD", C, "draft {card}",
          "advanced setup: keep this card from the pack passed to you (p.2)"),
    Range("STOP_ACTION", 1, "stop this action here",
          "stop the action used partially here (p.6; docs/rules.md R3)"),
    Range("CONTINUE_ACTION", 1, "go on with this action",
          "go on with the action used partially: do its next step (R3)"),
)  # fmt: skip

DECISIONS: tuple[Decision, ...] = (
    Decision("DRAFT", ("DRAFT_CARD",), "draft",
             "keep one card of the pack passed to you [p.2 advanced setup]"),
    Decision("PLAY", ("PLAY_CARD", "SKIP_PLAY", "USE_DIY", "RECYCLE"), "play",
             "play a card, skip, DIY, Recycling [p.7, p.16]"),
    Decision("DECLARE_COIN", ("SUIT",), "suit",
             "the suit of the played coin card [Russian edition; p.8]"),
    Decision("MODE", ("MODE",), "mode", "which actions, which order, which one fully [p.7]"),
    Decision("ANY_SUIT", ("SUIT",), "suit", 'the suit of a "x any one suit" action [p.13]'),
    Decision("ADD", ("ADD_CARD", "STOP_ADDING"), "search",
             "add a card from hand or Lookout, or stop [p.6-7]"),
    Decision("ADD_COIN", ("SUIT",), "search", "the suit of an added coin card [Russian edition]"),
    Decision("RESOURCE", ("RESOURCE", "RECYCLE"), "resource",
             "pizza or toys for a gather/spend of either [p.12]", program=True),
    Decision("PACK", ("PACK_FROM", "RECYCLE"), "pack",
             "which resource to pack (and from where, with Sticky Fingers) [p.12]", program=True),
    Decision("LOOKOUT", ("LOOKOUT_CARD", "LOOKOUT_PARK_DECK", "RECYCLE", "PASS"), "lookout",
             "which card to tuck into the Lookout, or pass if only Recycling gives one [p.12; R15]",
             program=True),
    Decision("TRASH", ("TRASH_CARD", "RECYCLE"), "trash", "which card to trash [p.12]",
             program=True),
    Decision("RECRUIT", ("RECRUIT_CARD", "RECRUIT_PARK_DECK", "RECYCLE"), "recruit",
             "which card to recruit (Recruit phase or the recruit action) [p.9]"),
    Decision("PAY", ("PAY", "RECYCLE"), "pay", "one unit of an Advance Fort cost [p.12]",
             program=True),
    Decision("SPEND", ("SPEND_FROM", "RECYCLE"), "spend",
             "which resource to spend, from Stuff or Pack [p.13]", program=True),
    Decision("TRASH_RIVAL", ("TRASH_RIVAL_CARD", "RECYCLE"), "trash_rival",
             "which rival Yard card to trash [p.13]", program=True),
    Decision("COPY_RIVAL", ("COPY_RIVAL", "RECYCLE"), "copy_rival",
             "whose Pack to copy [p.13]", program=True),
    Decision("CONVERT", ("CONVERT", "RECYCLE"), "convert",
             "direction and place of a conversion [p.13]", program=True),
    Decision("PICK_RULE", ("PICK_RULE", "RECYCLE"), "pick_rule",
             "made-up rule at Fort Level 1 [p.10]", program=True),
    Decision("PICK_PERK", ("PICK_PERK", "RECYCLE"), "pick_perk",
             "perk at Fort Level 2 [p.10]", program=True),
    Decision("FOLLOW", ("FOLLOW_CARD", "PASS"), "follow",
             "follow the leader's public action, or pass [p.8]"),
    Decision("FOLLOW_SECOND", ("FOLLOW_CARD", "PASS"), "follow",
             "Copy Cat: a second card to follow with, or stop [p.16]"),
    Decision("DO_OVER", ("DO_OVER", "PASS", "RECYCLE"), "do_over",
             "use Do-Over to play a second card, or pass [p.16]"),
    Decision("BIRTHDAY", ("RECRUIT_CARD", "RECRUIT_PARK_DECK", "PASS", "RECYCLE"), "recruit",
             "Birthday Party: an extra recruit, or pass [p.16]"),
    Decision("TERMINAL", (), None, "the game is over"),
    Decision("ROUGH_HOUSING", ("ROUGH_HOUSE", "PASS"), "rough_housing",
             "Rough Housing, once every other rival has followed or passed [p.16; R16]"),
    Decision("STOP_OR_CONTINUE", ("STOP_ACTION", "CONTINUE_ACTION", "RECYCLE"),
             "stop_or_continue", "stop the action used partially after a step, or go on [p.6; R3]",
             program=True),
)  # fmt: skip

# What a step's status (can it be done now?) reads, and what doing a step can change, for the
# player doing it: parts of the state (``verbs.py`` names them ``STUFF``, ``PACK_TAG``...; C++
# ``TAG_*`` bits).
TAGS: tuple[str, ...] = (
    "stuff", "pack", "level", "perk", "hand", "discard", "lookout", "park", "yards",
)  # fmt: skip

RESOURCE_ARGS = {"pizza": 0, "toys": 1, "any": 2}
ANY_RESOURCE = RESOURCE_ARGS["any"]
# the nouns of a resource argument (Words.arg_nouns); "any" lets the player choose (p.12)
RESOURCE_NOUNS = {
    "pizza": ("{n} pizza", "{n} pizza"),
    "toys": ("{n} toy", "{n} toys"),
    "any": ("{n} pizza or {n} toy", "{n} pizza or {n} toys"),
}
ONE_KIND = {"any": ", all of one kind"}  # gathered or spent: chosen once an action (p.12)
CARDS = ("{n} card", "{n} cards")
RESOURCES_NOUN = ("{n} resource", "{n} resources")

VERBS: tuple[Verb, ...] = (
    Verb("gather", ("stuff",), ("stuff",), args=RESOURCE_ARGS, doc="gain a resource (p.12)",
         words=Words("gather", arg_nouns=RESOURCE_NOUNS, repeated=ONE_KIND)),
    Verb("pack", ("stuff", "pack", "level", "perk"), ("stuff", "pack"), "PACK", one_step=True,
         doc="move a resource from Stuff to Pack (p.12); capacity: level, XXL; Sticky Fingers",
         words=Words("pack", RESOURCES_NOUN, " from your Stuff")),
    Verb("lookout", ("hand", "discard", "lookout", "level", "perk", "park", "yards"),
         ("hand", "lookout", "park", "yards"), "LOOKOUT", one_step=True,
         doc="tuck a card into the Lookout (p.12); Bribe reads the Park and the Yards, "
         "Recycling the discard pile (R15)",
         words=Words("tuck", CARDS, " from your hand into your Lookout")),
    Verb("trash", ("hand", "discard"), ("hand", "discard"), "TRASH", one_step=True,
         doc="trash a card from hand or discard pile (p.12)",
         words=Words("trash", CARDS, " from your hand or discard pile")),
    Verb("trash_this", (), (), doc="trash the played card (p.13); always can",
         words=Words("trash this card")),
    Verb("recruit", ("park", "yards"), ("park", "yards", "discard"), "RECRUIT", one_step=True,
         doc="recruit a card (p.12)", words=Words("recruit", CARDS)),
    Verb("advance", ("stuff", "pack", "level"), ("stuff", "pack", "level", "perk"), "PAY",
         args={"-1": -1, "+1": 1, "0": 0},
         doc="Advance Fort, at a cost modifier (p.12); a level's reward may be a perk",
         words=Words("advance Fort", arg_rests={"-1": ", paying 1 resource less",
                                                "+1": ", paying 1 resource more", "0": ""})),
    Verb("score", (), (), doc="one victory point (p.12); always can",
         words=Words("score", ("{n} point", "{n} points"))),
    Verb("spend", ("stuff", "pack"), ("stuff", "pack"), "SPEND", args=RESOURCE_ARGS,
         doc="spend a resource (p.13)",
         words=Words("spend", rest=" from your Stuff or Pack", arg_nouns=RESOURCE_NOUNS,
                     repeated=ONE_KIND)),
    Verb("trash_rival", ("yards",), ("yards",), "TRASH_RIVAL", one_step=True,
         doc="trash a card from a rival's Yard (p.13)",
         words=Words("trash", CARDS, " from a rival's Yard")),
    Verb("copy_pack", ("stuff", "pack"), ("stuff",), doc="copy your own Pack into Stuff (p.13)",
         words=Words("copy your Pack into your Stuff")),
    Verb("copy_rival_pack", ("stuff",), ("stuff",), "COPY_RIVAL",
         doc="copy a rival's Pack into Stuff (p.13); reads rivals' Packs, which no step of "
         "mine changes", words=Words("copy a rival's Pack into your Stuff")),
    Verb("convert", ("stuff", "pack"), ("stuff", "pack"), "CONVERT",
         doc="turn one resource into the other, in Stuff or Pack (p.13)",
         words=Words("convert", RESOURCES_NOUN, " in your Stuff or Pack to the other kind")),
)  # fmt: skip

RANGE_NAMES: tuple[str, ...] = tuple(r.name for r in RANGES)
DECISION_NAMES: tuple[str, ...] = tuple(d.name for d in DECISIONS)
VERB_NAMES: tuple[str, ...] = tuple(v.name for v in VERBS)


def range_size(row: Range, num_cards: int) -> int:
    """The number of actions of range ``row`` for a card set of ``num_cards`` cards."""
    if row.size == C:
        return num_cards
    if row.size is None:
        assert row.options is not None, row.name
        return len(OPTION_NAMES[row.options])
    return int(row.size)


def _check() -> None:
    """The rows name each other consistently (run at import: a typo fails at once)."""
    ranges = set(RANGE_NAMES)
    assert len(ranges) == len(RANGES), "range names are unique"
    assert len(set(DECISION_NAMES)) == len(DECISIONS), "decision names are unique"
    assert len(set(VERB_NAMES)) == len(VERBS), "verb names are unique"
    for r in RANGES:
        assert r.size == C or isinstance(r.size, int) or r.options in OPTION_NAMES, r.name
        assert ("{option}" in r.text) == (r.options is not None), r.name
    for d in DECISIONS:
        assert set(d.ranges) <= ranges, d.name
    kinds = set(DECISION_NAMES)
    for v in VERBS:
        assert v.decision is None or v.decision in kinds, v.name
        w = v.words
        assert w.verb, f"{v.name}: its words"
        for table in (w.arg_nouns, w.arg_rests, w.repeated):
            assert table is None or set(table) <= set(v.args or ()), v.name
        assert set(v.reads) | set(v.changes) <= set(TAGS), v.name


_check()
