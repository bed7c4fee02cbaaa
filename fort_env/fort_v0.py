"""``fort_v0``: the versioned name of the environment, as PettingZoo names its own.

``from fort_env import fort_v0; env = fort_v0.env()``. The spec is ``fort_env.envs.aec``'s module
docstring. Importing ``fort_env`` also registers the environment with PettingZoo's registry
(PettingZoo >= 1.27; earlier versions have none), so ``pettingzoo.make("aec", ENV_ID)`` works,
with the same keyword arguments as ``env()``.
"""

from __future__ import annotations

import pettingzoo

from fort_env.envs.aec import env, raw_env

ENV_ID = "fort_env/fort-v0"  # PettingZoo normalises "fort_env/fort_v0" to this
ENTRY_POINT = "fort_env.fort_v0:env"

__all__ = ["ENV_ID", "env", "raw_env"]


def _register() -> None:
    """Register ``ENV_ID`` in PettingZoo's AEC registry, where the registry exists."""
    register = getattr(pettingzoo, "register", None)
    registry = getattr(pettingzoo, "aec_registry", None)
    if register is None or registry is None or ENV_ID in registry:
        return
    register("aec", ENV_ID, entry_point=ENTRY_POINT)


_register()
