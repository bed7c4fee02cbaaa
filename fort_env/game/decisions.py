"""Decision kinds: every pending choice is one of these, recorded in the state (no callbacks).

A Fort turn is many small decisions (docs/DESIGN.md, "Decisions"); each is one turn of one agent in
the AEC loop, with its own mask over the flat action space (``actions.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The kinds are rows of the verb table (fort_env/game/verb_table.py DECISIONS), generated into
# codes.py with the C++ K_* codes; this is their public home.
from fort_env.game.codes import DecisionKind

__all__ = ["Decision", "DecisionKind"]


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
