"""How fast the vectorised envs run: learner decisions per second with random legal actions
(``fort-env bench``, ``scripts/batch_vs_hanabi.py``)."""

from __future__ import annotations

import numpy as np

from fort_env.envs.vector import FortBatchVecEnv, FortVecEnv, random_legal_actions

__all__ = ["batch_decisions_per_second", "vector_decisions_per_second"]


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


def batch_decisions_per_second(
    num_envs: int = 64, seconds: float = 2.0, seed: int = 0, threads: int = 1
) -> float:
    """Learner decisions per second of a :class:`FortBatchVecEnv` (2 players, uniformly random
    opponents built in) driven with uniformly random legal actions, chosen with a few numpy
    calls over the whole ``(B, N)`` mask: :func:`vector_decisions_per_second`'s measure on the
    C++ batch (observations and masks filled at every learner decision)."""
    import time

    venv = FortBatchVecEnv(num_envs, seed=seed, num_players=2, threads=threads)
    rng = np.random.default_rng(seed)
    venv.reset()
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(random_legal_actions(venv.action_masks(), rng))
        steps += num_envs
    elapsed = time.perf_counter() - start
    venv.close()
    return steps / elapsed
