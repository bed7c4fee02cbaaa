"""The observation space of the Fort envs: the ``"observation"`` Box (:func:`observation_box`),
float32 ``(game.observation_size,)``, 0 to 1 except the count slices, whose upper bounds
:func:`count_slice_bounds` gives (``fort_env.envs.aec``'s module docstring lists the slices).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from fort_env.core import FortGame
from fort_env.game.cards import PARK_DECK_SIZE
from fort_env.game.constants import (
    MADE_UP_RULES,
    MAX_FORT_LEVEL,
    SCORE_TRIGGER,
    STUFF_CAPACITY,
    XXL_BACKPACK_BONUS,
)
from fort_env.views.observation import SIZE_SCALE, observation_layout

__all__ = ["count_slice_bounds", "observation_box"]

_INT16_MAX = float(np.iinfo(np.int16).max)  # the state stores scores and turns as int16


def count_slice_bounds(game: FortGame) -> dict[str, float]:
    """Upper bounds of the observation slices that hold counts (every other slice is 0/1).

    Structural bounds where the rules give one (suits of the whole card set, the largest Fort
    cost plus one for DIY, Stuff and Pack capacities, card counts); the int16 range of the
    state for the open-ended Victory Track and turn counters.
    """
    total_suits = float(game.suit_counts.sum())
    return {
        "play_suits": total_suits,
        "rival_lookout_suits": total_suits,
        "cost_to_pay": float(max(s.toys + s.pizza + s.either for s in game.fort_steps) + 1),
        "resources": float(max(STUFF_CAPACITY, MAX_FORT_LEVEL + 1 + XXL_BACKPACK_BONUS)),
        "score": _INT16_MAX / SCORE_TRIGGER,
        "pile_sizes": game.num_cards / SIZE_SCALE,
        "turns": _INT16_MAX / SIZE_SCALE,
        "park_deck_size": game.card_set.num_park_cards / PARK_DECK_SIZE,
        "rule_stack_size": float(len(MADE_UP_RULES)),
    }


def observation_box(game: FortGame) -> spaces.Box:
    """The ``"observation"`` space: float32, shape ``(game.observation_size,)``, >= 0."""
    layout = observation_layout(game.num_players, game)
    high = np.ones(layout.size, dtype=np.float32)
    for name, bound in count_slice_bounds(game).items():
        s = layout[name]
        high[s.offset : s.offset + s.size] = bound
    return spaces.Box(low=np.zeros_like(high), high=high, dtype=np.float32)
