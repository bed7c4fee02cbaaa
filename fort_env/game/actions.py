"""The flat action space: every offset has a name.

One ``Discrete(N)`` space serves every decision; the decision in the state says which ranges
are meaningful and the legal-action mask says which actions are allowed. Card-targeted ranges
are indexed by card id (``game.cards[i]``), so an action names the exact card it moves.

The ranges, their sizes and meanings are the table ``RANGES`` of ``verb_table.py``, listed
in ``docs/actions.md`` (generated from it).

C is the number of cards in the card set (68 for the shipped set).
"""

from __future__ import annotations

from fort_env.game.codes import RangeStarts
from fort_env.game.verb_table import (
    CONVERT_NAMES,
    CONVERT_OPTIONS,
    MAX_RIVALS,
    MODES,
    PACK_NAMES,
    PACK_OPTIONS,
    PAY_NAMES,
    PAY_OPTIONS,
    C,
    range_size,
)
from fort_env.game.verb_table import RANGES as _RANGE_ROWS

__all__ = [
    "CONVERT_NAMES", "CONVERT_OPTIONS", "MAX_RIVALS", "MODES", "MODE_PLAN", "PACK_NAMES",
    "PACK_OPTIONS", "PAY_NAMES", "PAY_OPTIONS", "PRIVATE", "PUBLIC", "RANGES", "ActionLayout",
]  # fmt: skip

PUBLIC, PRIVATE = 0, 1
# mode (verb_table.MODES) -> (first action, second action or -1, which of them is used fully)
MODE_PLAN: tuple[tuple[int, int, int], ...] = (
    (PUBLIC, -1, PUBLIC),
    (PRIVATE, -1, PRIVATE),
    (PUBLIC, PRIVATE, PUBLIC),
    (PUBLIC, PRIVATE, PRIVATE),
    (PRIVATE, PUBLIC, PRIVATE),
    (PRIVATE, PUBLIC, PUBLIC),
)
assert len(MODE_PLAN) == len(MODES)

# (name, size: "C" for one per card, else an int as text), in order: verb_table.RANGES
RANGES: tuple[tuple[str, str], ...] = tuple(
    (r.name, C if r.size == C else str(range_size(r, 0))) for r in _RANGE_ROWS
)


class ActionLayout(RangeStarts):
    """Offsets of every action range for a card set of ``num_cards`` cards.

    Attributes are the range starts (``layout.PLAY_CARD`` etc., typed in ``codes.RangeStarts``);
    ``sizes[name]`` the lengths; ``num_actions`` the size N of the flat space.
    """

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
