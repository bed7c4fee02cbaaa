"""A Box-only observation view of ``fort_env.env()``, for SuperSuit's observation wrappers.

``fort_env.env()`` observes ``Dict(observation, action_mask)``, which SuperSuit's observation
wrappers (``dtype_v0``, ``flatten_v0``, ``normalize_obs_v0``, ``frame_stack_v1``,
``agent_indicator_v0``, ``observation_lambda_v0``, ``pad_observations_v0``) reject: they need a
``Box``. :func:`box_env` gives the same game with

=================  =============================================================================
Observation        ``Box(float32, (D,))``: the ``"observation"`` entry alone (same vector, bounds)
Action mask        ``infos[agent]["action_mask"]`` (int8 ``(N,)``), the place PettingZoo's API
                   documents for masks when the observation cannot carry them; ``last()``
                   returns it in ``info``
Everything else    as ``fort_env.env()`` (agents, rewards, wrappers, records)
=================  =============================================================================

::

    import supersuit as ss
    env = ss.frame_stack_v1(ss.dtype_v0(fort_env.envs.box.box_env(num_players=2), "float16"), 2)

SuperSuit's vector-env converters (``pettingzoo_env_to_vec_env_v1``, ``black_death_v3``) need
a *parallel* env in which every agent acts at every step; Fort is turn-based (one seat decides
at a time), so they do not apply: ``fort_env.envs.vector.FortVecEnv`` (single-agent games stepped
together, masks included) is the vectorised form.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from fort_env.envs.aec import env as _dict_env

__all__ = ["BoxObservations", "box_env"]


class BoxObservations(BaseWrapper):  # type: ignore[misc]
    """Wraps a ``fort_env.env()``: Box observations, the mask moved into ``infos``."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        space = env.observation_space(env.possible_agents[0])
        assert isinstance(space, spaces.Dict), "wrap fort_env.env(), whose observation is a Dict"
        self._box = space["observation"]
        self._infos: dict[str, dict[str, Any]] | None = None  # built once per reset/step

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._infos = None
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        self._infos = None
        self.env.step(action)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._box

    def observe(self, agent: str) -> np.ndarray:
        """``agent``'s observation vector: float32 ``(D,)``."""
        return self.env.observe(agent)["observation"]  # type: ignore[no-any-return,index]

    @property
    def infos(self) -> dict[str, dict[str, Any]]:  # type: ignore[override]
        """The env's infos, each with ``"action_mask"`` (int8 ``(N,)``) added; the same dicts
        until the next ``reset``/``step``, so ``last()``'s info is ``infos[agent]``."""
        if self._infos is None:
            self._infos = {
                agent: {**info, "action_mask": self._raw._mask_for(agent)}
                for agent, info in self.env.infos.items()
            }
        return self._infos


def box_env(**kwargs: Any) -> AECEnv:
    """``BoxObservations(fort_env.env(**kwargs))`` (the module docstring is the spec)."""
    return BoxObservations(_dict_env(**kwargs))
