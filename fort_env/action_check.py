"""The one check every action passes before it reaches the engine: an integer, not a look-alike.

``int(x)`` would turn ``311.7``, ``"311"``, ``np.float32(311)`` or ``True`` into an action; this
module refuses them, so a caller's bug (a float policy output, a string from a file) fails
loudly instead of playing some action.
"""

from __future__ import annotations

from typing import Any

import numpy as np


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
