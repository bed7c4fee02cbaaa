"""A batched vector env for Stable-Baselines3 and sb3-contrib's MaskablePPO.

``FortVecEnv`` steps B single-agent games (:class:`fort_env.wrappers.SingleAgentEnv`, learner
against opponents) together in one process: ``reset()`` returns observations ``(B, D)``
float32, ``step(actions)`` returns observations ``(B, D)``, rewards ``(B,)``, dones ``(B,)``
and infos, with finished games reset automatically (the last observation of a finished game is
in ``infos[i]["terminal_observation"]``, SB3's convention), and ``action_masks()`` returns the
learner masks ``(B, N)`` bool in one call.

It is SB3's ``DummyVecEnv`` (a well-kept, tested implementation of the VecEnv protocol) with
the mask method added, so ``MaskablePPO(policy, FortVecEnv(...))`` works without the
``ActionMasker`` wrapper or SuperSuit's vector envs, which do not pass masks through.
Requires the ``train`` extra (stable-baselines3).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

from .wrappers import SingleAgentEnv


class FortVecEnv(DummyVecEnv):
    """B games of :class:`SingleAgentEnv` stepped together.

    Args:
        num_envs: B, the number of games.
        seed: seeds game i with ``seed + i`` at the first reset (``None``: unseeded).
        **env_kwargs: passed to every :class:`SingleAgentEnv` (``num_players``, ``opponents``,
            ``reward``, ...).
    """

    def __init__(self, num_envs: int, seed: int | None = None, **env_kwargs: Any) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        super().__init__([lambda: SingleAgentEnv(**env_kwargs) for _ in range(num_envs)])
        if seed is not None:
            self.seed(seed)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game: bool, shape ``(B, N)``."""
        return np.stack([env.action_masks() for env in self.envs])  # type: ignore[attr-defined]

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        # MaskablePPO asks every env for its mask through env_method("action_masks").
        if method_name == "action_masks" and indices is None and not method_args:
            return list(self.action_masks())
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)


def vector_decisions_per_second(num_envs: int = 64, seconds: float = 2.0, seed: int = 0) -> float:
    """Learner decisions per second of a :class:`FortVecEnv` driven with random legal actions
    (opponents: uniform random), 2 players."""
    import time

    venv = FortVecEnv(num_envs, seed=seed, num_players=2)
    rng = np.random.default_rng(seed)
    venv.reset()
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        venv.step(actions)
        steps += num_envs
    elapsed = time.perf_counter() - start
    venv.close()
    return steps / elapsed
