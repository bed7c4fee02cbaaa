"""The checks of values a user hands the engine: actions and seeds, one check each.

Actions: ``int(x)`` would turn ``311.7``, ``"311"``, ``np.float32(311)`` or ``True`` into an
action; :func:`as_action` refuses them, so a caller's bug (a float policy output, a string from
a file) fails loudly instead of playing some action.

Seeds: one range, ``[0, SEED_LIMIT)`` (``fort_env.game.constants``), checked by :func:`is_seed` at
the deal, ``reset``, a record and a saved state alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fort_env.game.constants import SEED_LIMIT
from fort_env.game.errors import ConfigError

# the words of every seed error: "an int in [0, 2**62)"
SEED_RANGE = f"an int in [0, 2**{SEED_LIMIT.bit_length() - 1})"


def is_seed(value: Any) -> bool:
    """True if ``value`` is a seed: an int or numpy integer (not a bool) in
    ``[0, SEED_LIMIT)``."""
    return (
        isinstance(value, (int, np.integer))
        and not isinstance(value, bool)
        and 0 <= int(value) < SEED_LIMIT
    )


def check_seed(value: Any) -> int:
    """``value`` as a Python int if :func:`is_seed`.

    Raises:
        ConfigError: not a seed ("seed must be an int in [0, 2**62), got ...").
    """
    if not is_seed(value):
        raise ConfigError(f"seed must be {SEED_RANGE}, got {value!r}")
    return int(value)


def as_action(action: Any) -> int:
    """``action`` as a Python int, if it is an integer.

    Accepted: a Python ``int`` (not ``bool``), a numpy integer scalar (``np.int64(3)``, what
    ``Discrete.sample`` returns) and a 0-d numpy integer array (what Stable-Baselines3's
    ``predict`` returns for a single observation). The value is not range-checked here (the
    engine names an out-of-range action with ``IllegalActionError``).

    Raises:
        TypeError: anything else (floats, strings, bools, numpy bools, arrays of another
            shape or dtype, ``None``), naming the type.
    """
    if type(action) is int:  # the common case, first
        return action
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        return int(action)
    if (
        isinstance(action, np.ndarray)
        and action.ndim == 0
        and np.issubdtype(action.dtype, np.integer)
    ):
        return int(action)
    what = type(action).__name__
    if isinstance(action, np.ndarray):
        what = f"ndarray of dtype {action.dtype} and shape {action.shape}"
    raise TypeError(
        f"an action must be an int or a numpy integer (or a 0-d integer array), got {what}: "
        f"{action!r}"
    )
