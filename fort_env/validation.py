"""Validation of a loaded state (``FortState.from_dict``): ranges and cross-field invariants.

``from_dict`` (``state_arrays.py``) parses the dict into arrays and checks types; then it calls
:func:`validate_state`, which checks what the engine relies on, so that a state that loads
either plays to the end with the game's invariants held or is refused with a ``StateError``
naming the field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import StateError
from .inputs import SEED_RANGE, is_seed
from .state_arrays import C_SEED

if TYPE_CHECKING:
    from .engine import FortGame


def validate_state(game: FortGame, s: Any) -> None:
    """Check a state built by ``from_dict`` (its arrays and ``ctx``) against ``game``.

    Args:
        game: the game the state belongs to.
        s: the loaded state (a ``FortState``: ``zone``, ``owner``, ... arrays and ``ctx``).

    Raises:
        StateError: a field out of range or inconsistent with another; ``err.field`` names it.
    """
    seed = int(s.ctx[C_SEED])
    if not is_seed(seed):
        raise StateError("ctx.seed", f"must be {SEED_RANGE}, got {seed}")
