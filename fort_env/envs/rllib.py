"""Fort on Ray RLlib: a multi-agent env, an action-masking RLModule spec and a self-play PPO config.

Needs the ``rllib`` extra, in its own virtual environment (Ray pins an older gymnasium than
the ``dev`` extra's)::

    python -m venv .venv-rllib
    .venv-rllib/bin/pip install -c constraints.txt -e ".[rllib]"

``import fort_env`` never imports this module (nor Ray); import it yourself::

    from fort_env.envs.rllib import ppo_config

    algo = ppo_config(num_players=2, num_env_runners=2).build_algo()
    result = algo.train()

- :class:`FortMultiAgentEnv`: RLlib's ``MultiAgentEnv`` over :class:`fort_env.envs.aec.raw_env`.
  Only the acting agent gets an observation each step. Each observation is
  ``{"observations": float32 (D,), "action_mask": float32 (N,)}``, the keys RLlib's
  ``ActionMaskingTorchRLModule`` reads. An illegal action raises
  :class:`~fort_env.game.errors.IllegalActionError` (no silent penalty), so a training run that
  finishes took none.
- :func:`rl_module_spec`: one ``ActionMaskingTorchRLModule`` (RLlib's example module, shipped
  in the ``ray`` package) under :data:`POLICY_ID`.
- :func:`policy_mapping_fn`: every seat plays the one shared policy (self-play).
- :func:`ppo_config`: PPO on RLlib's new API stack with the three above.

``config.environment(env_config=...)`` takes the keyword arguments of
:class:`fort_env.envs.aec.raw_env` (``num_players``, ``setup``, ``reward``, ``cards``,
``max_decisions``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
    ActionMaskingTorchRLModule,
)

from fort_env.envs.aec import raw_env
from fort_env.envs.obs_space import observation_box
from fort_env.game.errors import ConfigError

__all__ = [
    "ENV_CONFIG_KEYS",
    "POLICY_ID",
    "ActionMaskingTorchRLModule",
    "FortMultiAgentEnv",
    "policy_mapping_fn",
    "ppo_config",
    "rl_module_spec",
]

POLICY_ID = "shared_policy"
"""The id of the one policy (and RLModule) every seat plays in self-play."""

ENV_CONFIG_KEYS = ("num_players", "setup", "reward", "cards", "max_decisions")
"""The ``env_config`` keys :class:`FortMultiAgentEnv` accepts (``raw_env``'s arguments)."""


class FortMultiAgentEnv(MultiAgentEnv):  # type: ignore[misc]
    """Fort as an RLlib ``MultiAgentEnv``: one agent acts per step, self-play on every seat.

    Args:
        config: ``env_config`` (an RLlib ``EnvContext`` or a plain mapping) with any of
            :data:`ENV_CONFIG_KEYS`; ``num_players`` defaults to 2 here, the rest to
            ``raw_env``'s defaults.

    Spaces (the same for every agent ``player_0`` .. ``player_{n-1}``):

    - observation: ``Dict(observations=Box(float32, (D,)), action_mask=Box(0, 1, (N,),
      float32))``; D = ``game.observation_size``, N = ``game.num_distinct_actions``.
    - action: ``Discrete(N)``.

    ``reset()`` and ``step()`` return observations for the acting agent only; when the game
    ends (or is truncated by ``max_decisions``) every agent gets its final observation, its
    reward (``raw_env``'s reward mode) and ``terminated``/``truncated`` True, with
    ``"__all__"``. ``infos`` are empty dicts.

    Raises:
        ConfigError: an unknown ``env_config`` key, or a bad value (from ``raw_env``).
        IllegalActionError: (``step``) the action is not legal for the acting agent.
        ValueError: (``step``) ``action_dict`` has no action for the acting agent.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        kwargs = dict(config or {})
        unknown = sorted(set(kwargs) - set(ENV_CONFIG_KEYS))
        if unknown:
            raise ConfigError(
                f"unknown env_config key(s) {unknown}; known: {', '.join(ENV_CONFIG_KEYS)}"
            )
        kwargs.setdefault("num_players", 2)
        self.env = raw_env(**kwargs)
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        n_actions = self.env.game.num_distinct_actions
        obs_space = gymnasium.spaces.Dict(
            {
                "observations": observation_box(self.env.game),
                "action_mask": gymnasium.spaces.Box(0.0, 1.0, (n_actions,), np.float32),
            }
        )
        act_space = gymnasium.spaces.Discrete(n_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.illegal_actions = 0  # stays 0: an illegal action raises before it is counted

    def _obs(self, agent: str) -> dict[str, np.ndarray]:
        raw = self.env.observe(agent)
        return {
            "observations": raw["observation"],
            "action_mask": raw["action_mask"].astype(np.float32),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Deal a new game (``raw_env.reset``); returns ``({actor: obs}, {actor: {}})``."""
        self.env.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        actor = self.env.agent_selection
        return {actor: self._obs(actor)}, {actor: {}}

    def step(
        self, action_dict: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """Apply the acting agent's action; returns ``(obs, rewards, terminateds, truncateds,
        infos)`` dicts, keyed by the next actor, or by every agent once the game is over."""
        actor = self.env.agent_selection
        if actor not in action_dict:
            raise ValueError(f"no action for the acting agent {actor!r} in {sorted(action_dict)}")
        self.env.step(int(action_dict[actor]))  # IllegalActionError if not legal; state kept
        env = self.env
        if env.terminations[actor] or env.truncations[actor]:
            truncated = bool(env.truncations[actor])
            agents = list(self.possible_agents)
            obs = {a: self._obs(a) for a in agents}
            rewards = {a: float(env.rewards[a]) for a in agents}
            terminateds = {a: not truncated for a in agents}
            truncateds = {a: truncated for a in agents}
            terminateds["__all__"] = not truncated
            truncateds["__all__"] = truncated
            self.agents = []
            return obs, rewards, terminateds, truncateds, {a: {} for a in agents}
        nxt = env.agent_selection
        return (
            {nxt: self._obs(nxt)},
            {nxt: 0.0},
            {"__all__": False},
            {"__all__": False},
            {nxt: {}},
        )


def policy_mapping_fn(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Self-play: every agent maps to :data:`POLICY_ID`."""
    return POLICY_ID


def rl_module_spec(hiddens: Sequence[int] = (256, 256)) -> MultiRLModuleSpec:
    """One ``ActionMaskingTorchRLModule`` under :data:`POLICY_ID`.

    Args:
        hiddens: sizes of the hidden layers of the policy and value networks (``fcnet_hiddens``
            of RLlib's default model config; separate networks for policy and value).

    Raises:
        ValueError: ``hiddens`` empty or with a size < 1.
    """
    sizes = [int(h) for h in hiddens]
    if not sizes or min(sizes) < 1:
        raise ValueError(f"hiddens must be one or more sizes >= 1, got {list(hiddens)!r}")
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"fcnet_hiddens": sizes, "head_fcnet_hiddens": [], "vf_share_layers": False},
    )
    return MultiRLModuleSpec(rl_module_specs={POLICY_ID: module})


def ppo_config(
    num_players: int = 2,
    num_env_runners: int = 2,
    *,
    env_config: Mapping[str, Any] | None = None,
    hiddens: Sequence[int] = (256, 256),
    train_batch_size: int = 4000,
    minibatch_size: int = 512,
    num_epochs: int = 4,
    lr: float = 3e-4,
    seed: int | None = None,
) -> PPOConfig:
    """Self-play PPO on :class:`FortMultiAgentEnv`, one shared masked policy.

    Args:
        num_players: 2, 3 or 4 (``env_config["num_players"]``).
        num_env_runners: remote env-runner actors that sample (0: sample in the driver). Each
            takes 1 CPU of the Ray cluster, on whatever node has one.
        env_config: more ``raw_env`` arguments (:data:`ENV_CONFIG_KEYS`).
        hiddens: hidden layer sizes (:func:`rl_module_spec`).
        train_batch_size: env steps (decisions) per training iteration.
        minibatch_size, num_epochs, lr: PPO's SGD settings.
        seed: seeds the env runners' envs and the networks (``config.debugging(seed=...)``).

    Returns:
        A ``PPOConfig``; ``.build_algo()`` makes the algorithm (Ray must be initialised or is
        started locally).

    Raises:
        ValueError: a count out of range.
    """
    if num_env_runners < 0:
        raise ValueError(f"num_env_runners must be >= 0, got {num_env_runners}")
    if train_batch_size < 1 or minibatch_size < 1 or num_epochs < 1:
        raise ValueError("train_batch_size, minibatch_size and num_epochs must be >= 1")
    env_cfg = {**dict(env_config or {}), "num_players": num_players}
    config = (
        PPOConfig()
        # RLlib's env check steps random unmasked actions, which this env refuses (it raises)
        .environment(FortMultiAgentEnv, env_config=env_cfg, disable_env_checking=True)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=policy_mapping_fn)
        .rl_module(rl_module_spec=rl_module_spec(hiddens))
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=min(minibatch_size, train_batch_size),
            num_epochs=num_epochs,
            lr=lr,
        )
    )
    # An illegal action raises in the env; RLlib's default would restart the failed env runner
    # and carry on, hiding it. Fail the training step instead.
    config = config.fault_tolerance(restart_failed_env_runners=False)
    if seed is not None:
        config = config.debugging(seed=seed)
    return config
