"""The flat action space: every offset has a name.

One ``Discrete(N)`` space serves every decision; the decision in the state says which ranges
are meaningful and the legal-action mask says which actions are allowed. Card-targeted ranges
are indexed by card id (``game.cards[i]``), so an action names the exact card it moves.

| range | size | meaning |
|---|---|---|
| PLAY_CARD | C | play this card from hand (Play phase, p.7) |
| SKIP_PLAY | 1 | skip the Play phase |
| USE_DIY | 1 | trash the DIY perk to Advance Fort at one more resource (p.16) |
| RECYCLE | C | trash Recycling: take this card from your discard pile to hand (p.16) |
| SUIT | 7 | declare a suit: a played or added coin card, or "any one suit" (p.13) |
| MODE | 6 | which actions to use, their order, and which one is used fully (p.7) |
| ADD_CARD | C | add this card from hand or Lookout to improve the played card (p.6-7) |
| STOP_ADDING | 1 | add no more cards |
| RESOURCE | 2 | pizza or toys, for an action that lets you choose (p.12) |
| PACK_FROM | 4 | pack pizza/toys from Stuff, or from the supply with Sticky Fingers (p.12, 16) |
| LOOKOUT_CARD | C | tuck this card into your Lookout (hand; Park or Yard with Bribe) |
| LOOKOUT_PARK_DECK | 1 | Bribe: tuck the top card of the Park deck |
| TRASH_CARD | C | trash this card from your hand or discard pile (p.12) |
| RECRUIT_CARD | C | recruit this card from the Park or a rival's Yard (p.9) |
| RECRUIT_PARK_DECK | 1 | recruit the top card of the Park deck |
| PAY | 4 | pay one unit of a Fort cost: toys/pizza from Stuff/Pack (p.12) |
| SPEND_FROM | 4 | spend one resource: toys/pizza from Stuff/Pack (p.13) |
| TRASH_RIVAL_CARD | C | trash this card from a rival's Yard (p.13) |
| COPY_RIVAL | 3 | copy the Pack of the rival 1, 2 or 3 seats to your left (p.13) |
| CONVERT | 4 | pizza->toys or toys->pizza, in Stuff or Pack (p.13) |
| PICK_RULE | 11 | keep this made-up rule from the stack (p.10) |
| PICK_PERK | 9 | take this perk from the row (p.10) |
| FOLLOW_CARD | C | discard this card to follow the leader's public action (p.8) |
| PASS | 1 | decline: do not follow, do not use Do-Over, no Birthday Party recruit |
| ROUGH_HOUSE | 1 | trash Rough Housing to trash the leader's played card (p.16) |
| DO_OVER | 1 | trash Do-Over to play a second card (p.16) |
| DRAFT_CARD | C | advanced setup: keep this card from the pack passed to you (p.2) |
| STOP_ACTION | 1 | stop the action used partially here (p.6; docs/rules.md R3) |
| CONTINUE_ACTION | 1 | go on with the action used partially: do its next step (R3) |

C is the number of cards in the card set (68 for the shipped set).
"""

from __future__ import annotations

from fort_env.game.constants import MADE_UP_RULES, PERKS, RESOURCES, SUITS

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
PUBLIC, PRIVATE = 0, 1
# mode -> (first action, second action or -1, which of them is used fully)
MODE_PLAN: tuple[tuple[int, int, int], ...] = (
    (PUBLIC, -1, PUBLIC),
    (PRIVATE, -1, PRIVATE),
    (PUBLIC, PRIVATE, PUBLIC),
    (PUBLIC, PRIVATE, PRIVATE),
    (PRIVATE, PUBLIC, PRIVATE),
    (PRIVATE, PUBLIC, PUBLIC),
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

RANGES: tuple[tuple[str, str], ...] = (
    # (name, size: "C" for one per card, else an int as text)
    ("PLAY_CARD", "C"), ("SKIP_PLAY", "1"), ("USE_DIY", "1"), ("RECYCLE", "C"),
    ("SUIT", str(len(SUITS))), ("MODE", str(len(MODES))), ("ADD_CARD", "C"),
    ("STOP_ADDING", "1"), ("RESOURCE", str(len(RESOURCES))), ("PACK_FROM", "4"),
    ("LOOKOUT_CARD", "C"), ("LOOKOUT_PARK_DECK", "1"), ("TRASH_CARD", "C"),
    ("RECRUIT_CARD", "C"), ("RECRUIT_PARK_DECK", "1"), ("PAY", "4"), ("SPEND_FROM", "4"),
    ("TRASH_RIVAL_CARD", "C"), ("COPY_RIVAL", str(MAX_RIVALS)), ("CONVERT", "4"),
    ("PICK_RULE", str(len(MADE_UP_RULES))), ("PICK_PERK", str(len(PERKS))),
    ("FOLLOW_CARD", "C"), ("PASS", "1"), ("ROUGH_HOUSE", "1"), ("DO_OVER", "1"),
    ("DRAFT_CARD", "C"), ("STOP_ACTION", "1"), ("CONTINUE_ACTION", "1"),
)  # fmt: skip


class ActionLayout:
    """Offsets of every action range for a card set of ``num_cards`` cards.

    Attributes are the range starts (``layout.PLAY_CARD`` etc.); ``sizes[name]`` the lengths;
    ``num_actions`` the size N of the flat space.
    """

    PLAY_CARD: int
    SKIP_PLAY: int
    USE_DIY: int
    RECYCLE: int
    SUIT: int
    MODE: int
    ADD_CARD: int
    STOP_ADDING: int
    RESOURCE: int
    PACK_FROM: int
    LOOKOUT_CARD: int
    LOOKOUT_PARK_DECK: int
    TRASH_CARD: int
    RECRUIT_CARD: int
    RECRUIT_PARK_DECK: int
    PAY: int
    SPEND_FROM: int
    TRASH_RIVAL_CARD: int
    COPY_RIVAL: int
    CONVERT: int
    PICK_RULE: int
    PICK_PERK: int
    FOLLOW_CARD: int
    PASS: int
    ROUGH_HOUSE: int
    DO_OVER: int
    DRAFT_CARD: int
    STOP_ACTION: int
    CONTINUE_ACTION: int

    def __init__(self, num_cards: int) -> None:
        self.num_cards = num_cards
        offset = 0
        self.sizes: dict[str, int] = {}
        for name, size in RANGES:
            n = num_cards if size == "C" else int(size)
            setattr(self, name, offset)
            self.sizes[name] = n
            offset += n
        self.num_actions = offset
        self._decode = tuple((name, i) for name, _ in RANGES for i in range(self.sizes[name]))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ActionLayout) and other.num_cards == self.num_cards

    def __hash__(self) -> int:
        return hash(self.num_cards)

    def decode(self, action: int) -> tuple[str, int]:
        """``(range name, index within the range)`` of an action.

        Raises:
            ValueError: the action is outside ``[0, num_actions)``.
        """
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} outside [0, {self.num_actions})")
        return self._decode[action]

    def ranges(self) -> list[tuple[str, int, int]]:
        """``[(name, start, size), ...]`` in order: the table of the module docstring."""
        return [(n, getattr(self, n), self.sizes[n]) for n, _ in RANGES]
