"""The agent that plays a saved policy: :class:`PPOAgent`, and :func:`load_policy`'s cache.

:func:`load_policy` loads a saved policy (``agents.learned.policy_file``: tensors and a checked
description, nothing unpickled; an SB3 ``.zip`` only with ``trusted``), cached per process by
(path, modification time), so a league of frozen snapshots loads each file once.
:class:`PPOAgent` plays it at any seat of a game of the size it was trained for: it reads
``observation["observation"]`` (the seat's own view) and the action mask, and never takes a
masked action; ``deterministic`` takes the most probable legal action, else it samples with its
own seeded generator. A policy whose logits for an observation are not finite never plays: the
agent raises ``ModelFileError``. ``agents.make("ppo:PATH")`` builds one
(``agents.learned.ppo``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import act_on_probabilities, check_logits, masked_softmax
from agents.learned.forward import policy_logits, policy_observation_size
from fort_env.game.errors import ModelFileError

__all__ = ["PPOAgent", "load_policy"]

_POLICIES: dict[tuple[str, float, bool], Any] = {}


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
