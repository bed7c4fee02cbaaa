"""The argument and action checks every Fort env front end shares: the shaping weight's bounds
(:func:`check_shaping`), the seed a front end draws when it is given none
(:func:`draw_game_seed`) and the legality test before the engine's own (:func:`is_legal`).

``raw_env`` (``fort_env.envs.aec``), ``SingleAgentEnv``, the vector envs and ``SelfPlayBatch``
check their arguments here, so they accept and refuse the same values with the same errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fort_env.game.constants import SEED_LIMIT
from fort_env.game.errors import ConfigError, describe

__all__ = ["MAX_SHAPING", "check_shaping", "draw_game_seed", "is_legal"]

MAX_SHAPING = 1000.0
"""The largest ``|shaping|`` (the weight of the dense score-margin shaping of
``SingleAgentEnv``, ``FortBatchVecEnv``, ``FortVectorEnv`` and ``SelfPlayBatch``) an env takes.
A shaping term is ``shaping`` times a change of the score margin / 25 (a few units at most), so
at 1000 it is already about a thousand times the game's own +-1: far past any useful weight
(the training presets use 0.5), and far from float32's overflow (``shaping=1e308`` made every
reward ``inf``)."""


def check_shaping(shaping: Any) -> float:
    """``shaping`` as a float, if it is a finite real number with ``|shaping| <=``
    :data:`MAX_SHAPING`: the one check of every env that takes a shaping weight.

    Raises:
        ConfigError: anything else (NaN, an infinity, 1e308, a bool, a string), named.
    """
    ok = isinstance(shaping, (int, float, np.integer, np.floating)) and not isinstance(
        shaping, (bool, np.bool_)
    )
    if ok:
        value = float(shaping)
        if np.isfinite(value) and abs(value) <= MAX_SHAPING:
            return value
    raise ConfigError(
        f"shaping must be a finite number in [-{MAX_SHAPING:g}, {MAX_SHAPING:g}] "
        f"(MAX_SHAPING), got {describe(shaping)}"
    )


def draw_game_seed(rng: np.random.Generator) -> int:
    """A game seed in ``[0, SEED_LIMIT)`` drawn from ``rng``: how both front ends (``raw_env``
    and ``wrappers.SingleAgentEnv``) deal a game when they are not given its seed."""
    return int(rng.integers(SEED_LIMIT))


def is_legal(action: int, mask: np.ndarray) -> bool:
    """Whether ``action`` (already an int, ``inputs.as_action``) is allowed by ``mask``
    (shape ``(N,)``): the one legality test of both front ends before the engine's own."""
    return 0 <= action < mask.size and bool(mask[action])
