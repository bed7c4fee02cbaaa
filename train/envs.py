"""The training environments of MaskablePPO: the league's games in an SB3 vector env.

By default :class:`fort_env.envs.vector.FortBatchVecEnv` (every game stepped in C++, the
league's ``random`` played there too, the other opponents grouped and called from this
process), or, without the compiled core, ``SubprocVecEnv`` (one process per env) of
:class:`fort_env.envs.single_agent.SingleAgentEnv`. The learner's seat rotates over episodes;
opponents are drawn from the league for each game.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import gymnasium
import torch
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

from agents.arena.games import decision_info
from fort_env.core import default_backend
from fort_env.envs.single_agent import SingleAgentEnv
from fort_env.envs.vector import FortBatchVecEnv
from train.config import VEC_ENVS, Config
from train.device import resolve_threads
from train.league import League

__all__ = ["make_env", "make_vec_env", "vec_env_kind"]


def make_env(config: Config, league: League, rank: int) -> gymnasium.Env:
    """Build environment ``rank``: a :class:`~fort_env.envs.single_agent.SingleAgentEnv`
    drawing opponents from ``league``, in a ``Monitor`` (episode returns for SB3's ``rollout/``
    metrics). Call it in the worker process: it limits torch to one thread there."""
    torch.set_num_threads(1)
    env = SingleAgentEnv(
        num_players=config.num_players,
        setup=config.setup,
        opponent_sampler=league,
        reward=config.reward,
        shaping=config.shaping,
        opponent_info=decision_info,
    )
    return Monitor(env)


def _env_factory(config: Config, league: League, rank: int) -> Callable[[], gymnasium.Env]:
    def thunk() -> gymnasium.Env:
        return make_env(config, league, rank)

    return thunk


def vec_env_kind(config: Config) -> str:
    """The vector env ``config.vec_env`` resolves to: ``auto`` is ``batch`` when the compiled
    core is usable (``fort_env.core.default_backend() == "cpp"``), else ``subproc``.

    Raises:
        ValueError: an unknown ``vec_env``.
    """
    if config.vec_env not in VEC_ENVS:
        raise ValueError(f"vec_env must be one of {VEC_ENVS}, got {config.vec_env!r}")
    if config.vec_env == "auto":
        if default_backend() == "cpp":
            return "batch"
        # one process per env pays off up to a couple per core; more would only cost memory
        return "subproc" if config.n_envs <= 2 * (os.cpu_count() or 1) else "dummy"
    return config.vec_env


def make_vec_env(config: Config, league: League) -> VecEnv:
    """The ``n_envs`` training environments in the vector env that :func:`vec_env_kind` names:
    ``FortBatchVecEnv`` (``"batch"``: the games in C++, opponents drawn from ``league``, in
    SB3's ``VecMonitor`` for the episode returns), or :func:`make_env`'s ``SingleAgentEnv`` in
    ``SubprocVecEnv`` (``"subproc"`` with more than one env) or ``DummyVecEnv`` (in this
    process). Not seeded: call ``seed()`` on it."""
    kind = vec_env_kind(config)
    if kind == "batch":
        venv = FortBatchVecEnv(
            config.n_envs,
            num_players=config.num_players,
            setup=config.setup,
            opponent_sampler=league,
            reward=config.reward,
            shaping=config.shaping,
            opponent_info=decision_info,
            threads=resolve_threads(config)[0],
        )
        return VecMonitor(venv)
    fns = [_env_factory(config, league, i) for i in range(config.n_envs)]
    if kind == "subproc" and config.n_envs > 1:
        return SubprocVecEnv(fns, start_method="forkserver")
    return DummyVecEnv(fns)
