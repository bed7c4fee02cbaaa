"""``random``: uniform over the legal actions (the mask)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.base import BaseAgent, legal_from

__all__ = ["RandomAgent"]


class RandomAgent(BaseAgent):
    """Takes each legal action with equal probability, from its own seeded generator."""

    name = "random"
    cpp_policy = "random"  # the batched env (fort_env.envs.vector) plays it in C++ (same law)

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        legal = legal_from(observation, info)
        return int(legal[int(self.rng.integers(len(legal)))])
