"""Decision kinds: every pending choice is one of these, recorded in the state (no callbacks).

A Fort turn is many small decisions (docs/DESIGN.md, "Decisions"); each is one turn of one agent in
the AEC loop, with its own mask over the flat action space (``actions.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any


class DecisionKind(IntEnum):
    """What the acting player is choosing now (rulebook pages in brackets)."""

    DRAFT = 0  # keep one card of the pack passed to you [p.2 advanced setup]
    PLAY = 1  # play a card, skip, DIY, Recycling [p.7, p.16]
    DECLARE_COIN = 2  # the suit of the played coin card [Russian edition; p.8]
    MODE = 3  # which actions, which order, which one fully [p.7]
    ANY_SUIT = 4  # the suit of a "x any one suit" action [p.13]
    ADD = 5  # add a card from hand or Lookout, or stop [p.6-7]
    ADD_COIN = 6  # the suit of an added coin card [Russian edition]
    RESOURCE = 7  # pizza or toys for a gather/spend of either [p.12]
    PACK = 8  # which resource to pack (and from where, with Sticky Fingers) [p.12]
    LOOKOUT = 9  # which card to tuck into the Lookout [p.12]
    TRASH = 10  # which card to trash [p.12]
    RECRUIT = 11  # which card to recruit (Recruit phase or the recruit action) [p.9]
    PAY = 12  # one unit of an Advance Fort cost [p.12]
    SPEND = 13  # which resource to spend, from Stuff or Pack [p.13]
    TRASH_RIVAL = 14  # which rival Yard card to trash [p.13]
    COPY_RIVAL = 15  # whose Pack to copy [p.13]
    CONVERT = 16  # direction and place of a conversion [p.13]
    PICK_RULE = 17  # made-up rule at Fort Level 1 [p.10]
    PICK_PERK = 18  # perk at Fort Level 2 [p.10]
    FOLLOW = 19  # follow the leader's public action, or pass [p.8]
    FOLLOW_SECOND = 20  # Copy Cat: a second card to follow with, or stop [p.16]
    DO_OVER = 21  # use Do-Over to play a second card, or pass [p.16]
    BIRTHDAY = 22  # Birthday Party: an extra recruit, or pass [p.16]
    TERMINAL = 23  # the game is over
    # Rough Housing, once every other rival has followed or passed [p.16; docs/rules.md R16]
    ROUGH_HOUSING = 24
    # stop the action used partially after a step, or go on [p.6; docs/rules.md R3]
    STOP_OR_CONTINUE = 25


@dataclass(frozen=True)
class Decision:
    """The pending decision: its kind, who makes it, and its context (plain values).

    ``context`` keys depend on the kind: ``played_card``, ``mode``, ``side`` (0 public,
    1 private), ``leader``, ``cost`` (toys, pizza, either still to pay), ``full`` (whether the
    running action must be used fully).
    """

    kind: DecisionKind
    player: int
    context: dict[str, Any] = field(default_factory=dict)
