"""``ppo:PATH``: a policy trained with MaskablePPO (``train/selfplay.py``), as an agent.

``agents.make("ppo:runs/quick/latest/model.safetensors")`` loads a policy saved by
``agents.learned.policy_file.save_policy`` (``model.safetensors`` + ``model.json``: tensors and a
JSON description, checked against the game; nothing is unpickled) and plays it at any seat of a game
of the size it was trained for: it reads ``observation["observation"]`` (the seat's own view,
as the learner saw it in training) and ``observation["action_mask"]``, and never takes a masked
action. Arguments after the path, ``ppo:PATH:deterministic=0``, are passed to
:class:`PPOAgent`: ``deterministic=1`` (default) takes the most probable legal action,
``deterministic=0`` samples from the masked policy with the agent's own seeded generator (so
``seed()`` makes it reproducible). The path may not contain ``:``.

A Stable-Baselines3 ``.zip`` (``MaskablePPO.save``) is pickled: loading it runs any code its
author put in it, so it loads only with ``ppo:PATH.zip:trusted=1`` (``trusted=True``), for a
file whose origin you trust; without it the agent raises ``ModelFileError`` and reads nothing.

A policy whose logits for an observation are not finite (NaN or infinite) never plays: the
agent raises ``ModelFileError`` instead of picking an action from them (the load-time checks
of ``agents.learned.policy_file`` refuse most such files first).

Loaded policies are cached per process by (path, modification time), so a league of frozen
snapshots loads each file once. Needs the ``[train]`` extra (torch, sb3-contrib, safetensors).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import act_on_probabilities, check_logits, masked_softmax
from fort_env.game.errors import ModelFileError

__all__ = [
    "PPOAgent",
    "load_policy",
    "make_ppo_agent",
    "policy_logits",
    "policy_observation_size",
    "policy_values",
]

_POLICIES: dict[tuple[str, float, bool], Any] = {}


def policy_logits(policy: Any, obs: Any) -> Any:
    """The actor's logits: torch float32 ``(K, num_actions)`` for observations ``(K, D)``.

    The modules ``MaskableActorCriticPolicy.get_distribution`` runs (features, actor MLP,
    action head), without building a distribution object. Gradients flow unless the caller
    runs it under ``torch.no_grad()``.
    """
    if hasattr(policy, "action_logits"):  # agents.learned.network.ActorCritic
        return policy.action_logits(obs)
    from stable_baselines3.common.policies import BasePolicy

    features = BasePolicy.extract_features(policy, obs, policy.pi_features_extractor)
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


def policy_values(policy: Any, obs: Any) -> Any:
    """The value head: torch float32 ``(K,)`` for observations ``(K, D)`` (``predict_values``
    without its reshaping); gradients as for :func:`policy_logits`."""
    if hasattr(policy, "state_values"):  # agents.learned.network.ActorCritic
        return policy.state_values(obs)
    from stable_baselines3.common.policies import BasePolicy

    features = BasePolicy.extract_features(policy, obs, policy.vf_features_extractor)
    return policy.value_net(policy.mlp_extractor.forward_critic(features))[:, 0]


def policy_observation_size(policy: Any) -> int:
    """D, the observation size a network takes (either kind of ``policy_file``)."""
    if hasattr(policy, "observation_size"):  # agents.learned.network.ActorCritic
        return int(policy.observation_size)
    return int(policy.observation_space.shape[0])


def load_policy(path: str | Path, trusted: bool = False) -> Any:
    """The ``MaskableActorCriticPolicy`` of a saved policy (cached; CPU, eval mode).

    Args:
        path: ``NAME.safetensors`` (or ``NAME.json``, or ``NAME``) saved by
            ``agents.learned.policy_file.save_policy``; or an SB3 ``.zip`` with ``trusted``.
        trusted: allow unpickling an SB3 ``.zip`` (it can run any code: trust its origin).

    Raises:
        ModelFileError: no such file, a corrupt or mismatched one (names it), or an SB3 zip
            without ``trusted`` (nothing of it is read).
    """
    from agents.learned.policy_file import (
        is_sb3_zip,
        load_policy_file,
        load_sb3_zip,
        policy_paths,
        train_command,
    )

    p = Path(path)
    zipped = is_sb3_zip(p)
    probe = p if zipped else policy_paths(p)[0]
    # missing: no model there; anything else that is not a regular file (a FIFO, a device, a
    # directory) is named by load_policy_file's checks, from os.stat alone
    if not probe.exists():
        command = train_command(probe)
        raise ModelFileError(
            p,
            "no trained model there (a saved policy is NAME.safetensors + NAME.json)"
            + ("" if command is None else f": train one with `{command}`"),
        )
    key = (str(probe.resolve()), probe.stat().st_mtime, bool(trusted))
    if key not in _POLICIES:
        if zipped:
            _POLICIES[key] = load_sb3_zip(p, trusted=trusted)
        else:
            _POLICIES[key] = load_policy_file(p)[0]
    return _POLICIES[key]


class PPOAgent:
    """An agent playing a MaskablePPO policy (module docstring).

    Args:
        path: a saved policy (:func:`load_policy`), or ``None`` with ``policy``.
        deterministic: take the most probable legal action (else sample).
        policy: an in-memory ``MaskableActorCriticPolicy`` to play instead of a file.
        seed: the initial seed of the sampling generator.
        trusted: allow ``path`` to be a pickled SB3 ``.zip`` (:func:`load_policy`).

    Raises:
        ModelFileError: ``path`` is missing, corrupt, mismatched or an untrusted zip.
        ValueError: neither or both of ``path`` and ``policy``.
    """

    name = "ppo"

    def __init__(
        self,
        path: str | Path | None = None,
        deterministic: bool = True,
        policy: Any = None,
        seed: int | None = None,
        trusted: bool = False,
    ) -> None:
        if (path is None) == (policy is None):
            raise ValueError("give exactly one of path and policy")
        self.path = None if path is None else str(path)
        self.policy = load_policy(path, trusted=trusted) if path is not None else policy
        self.observation_size = policy_observation_size(self.policy)
        self.deterministic = bool(deterministic)
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def action_probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The masked policy's probabilities: float64 ``(N,)``, zero on illegal actions.

        The actor's logits come from the same modules ``MaskableActorCriticPolicy
        .get_distribution`` runs (features, actor MLP, action head); the masked softmax is
        taken here in float64 rather than through a torch distribution object, which cost
        about twice the forward pass itself. The two agree to float32 precision
        (``tests/test_train.py``).
        """
        import torch

        policy = self.policy
        observation = np.asarray(observation, dtype=np.float32)
        if observation.shape != (self.observation_size,):
            raise ValueError(
                f"{self.path or 'this policy'} takes observations of {self.observation_size} "
                f"entries (the game it was trained for); got shape {observation.shape}: a game "
                "of another player count or setup?"
            )
        obs = torch.as_tensor(observation[None])
        legal = np.asarray(mask, dtype=bool)
        with torch.no_grad():
            logits = policy_logits(policy, obs)
        z = logits[0].numpy().astype(np.float64)
        return masked_softmax(z, legal, self.path)

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        mask = info.get("action_mask")
        if mask is None:
            mask = observation["action_mask"]
        probs = self.action_probabilities(observation["observation"], mask)
        return act_on_probabilities(probs, self.deterministic, self.rng)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for K decisions at once, with one forward pass (``fort_env.envs.vector
        .FortBatchVecEnv`` calls it for the envs waiting for this agent).

        Args:
            observations: float32 ``(K, D)``, each the acting seat's own view.
            masks: ``(K, N)``, nonzero for the legal actions (each row has one).

        Returns:
            int64 ``(K,)``: row k's most probable legal action, or a draw from its masked
            policy (``deterministic=False``, rows in order from the agent's generator), as
            :meth:`act` would choose for that row.

        Raises:
            ValueError: observations of another size than the policy's.
            ModelFileError: a legal action's logit is NaN or infinite.
        """
        import torch

        obs = np.asarray(observations, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.observation_size:
            raise ValueError(
                f"{self.path or 'this policy'} takes observations of {self.observation_size} "
                f"entries; got shape {obs.shape}"
            )
        legal = np.asarray(masks).astype(bool)
        with torch.no_grad():
            logits = policy_logits(self.policy, torch.as_tensor(obs))
        z = logits.numpy().astype(np.float64)
        check_logits(z[legal], self.path)
        z[~legal] = -np.inf
        if self.deterministic:  # the most probable legal action: the largest legal logit
            return np.argmax(z, axis=1).astype(np.int64)
        # masked_softmax and Generator.choice(p=...) row by row, in whole-array operations:
        # the same float64 steps (cumulative sum, normalised, searched with one uniform draw
        # per row, in row order), so the same actions as act() from the same seed
        probs = np.exp(z - z.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        cdf = probs.cumsum(axis=1)
        cdf /= cdf[:, -1:]
        draws = self.rng.random(len(z))
        return (cdf <= draws[:, None]).sum(axis=1).astype(np.int64)

    def __repr__(self) -> str:
        return f"PPOAgent(name={self.name!r}, path={self.path!r})"


def make_ppo_agent(args: str | None) -> Any:
    """The registry factory: ``args`` is ``PATH[:key=value...]`` (``agents.make("ppo:...")``;
    a path holding ``:`` is quoted, ``ppo:"C:/m.safetensors"``), or, without a path, the
    shipped model (``agents.learned.zoo``): ``ppo``, ``ppo:players=N``, ``ppo:deterministic=0``.
    Read by ``agents.spec``: with a path it takes ``deterministic`` and ``trusted``, without
    one ``players`` and ``deterministic``.

    Raises:
        ValueError: a bad ``key=value`` argument (``agents.spec.SpecError``: ``deterministic``
            and ``trusted`` are taken, each 0 or 1; ``players`` 2-4 without a path).
        ModelFileError: the file does not load (:func:`load_policy`), or no model ships for
            ``players``.
    """
    from agents.spec import Param, convert, parse

    deterministic = Param("deterministic", bool, True)
    spec = parse(f"ppo:{args}" if args else "ppo")
    if spec.path is None:  # no path: the zoo's model (ppo, ppo:players=4, ...)
        from agents.learned.zoo import ZooAgent

        zoo = {"players": Param("players", int), "deterministic": deterministic}
        kwargs = convert("ppo", spec.args, zoo)
        if kwargs.get("players", 2) not in (2, 3, 4):
            raise ValueError(f"ppo: players must be 2, 3 or 4, got {kwargs['players']!r}")
        return ZooAgent(kwargs.get("players"), kwargs.get("deterministic", True))
    params = {"deterministic": deterministic, "trusted": Param("trusted", bool, False)}
    return PPOAgent(spec.path, **convert("ppo", spec.args, params))
