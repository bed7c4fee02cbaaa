"""``ppo:PATH``: a policy trained with MaskablePPO (``train/selfplay.py``), as an agent.

``agents.make("ppo:runs/quick/model.zip")`` loads the ``.zip`` that ``MaskablePPO.save`` wrote
and plays it at any seat: it reads ``observation["observation"]`` (the seat's own view, as the
learner saw it in training) and ``observation["action_mask"]``, and never takes a masked
action. Arguments after the path, ``ppo:PATH:deterministic=0``, are passed to
:class:`PPOAgent`: ``deterministic=1`` (default) takes the most probable legal action,
``deterministic=0`` samples from the masked policy with the agent's own seeded generator (so
``seed()`` makes it reproducible). The path may not contain ``:``.

Loaded policies are cached per process by (path, modification time), so a league of frozen
snapshots loads each file once. Needs the ``[train]`` extra (torch, sb3-contrib).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["PPOAgent", "load_policy", "make_ppo_agent"]

_POLICIES: dict[tuple[str, float], Any] = {}


def load_policy(path: str | Path) -> Any:
    """The ``MaskableActorCriticPolicy`` of a saved MaskablePPO model (cached; CPU, eval mode).

    Raises:
        FileNotFoundError: no such file (the message names it).
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no trained model at {str(p)!r} (a MaskablePPO .zip)")
    key = (str(p.resolve()), p.stat().st_mtime)
    if key not in _POLICIES:
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(p, device="cpu")
        model.policy.set_training_mode(False)
        _POLICIES[key] = model.policy
    return _POLICIES[key]


class PPOAgent:
    """An agent playing a MaskablePPO policy (module docstring).

    Args:
        path: a model ``.zip`` saved by ``MaskablePPO.save`` (or ``None`` with ``policy``).
        deterministic: take the most probable legal action (else sample).
        policy: an in-memory ``MaskableActorCriticPolicy`` to play instead of a file.
        seed: the initial seed of the sampling generator.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: neither or both of ``path`` and ``policy``.
    """

    name = "ppo"

    def __init__(
        self,
        path: str | Path | None = None,
        deterministic: bool = True,
        policy: Any = None,
        seed: int | None = None,
    ) -> None:
        if (path is None) == (policy is None):
            raise ValueError("give exactly one of path and policy")
        self.path = None if path is None else str(path)
        self.policy = load_policy(path) if path is not None else policy
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
        from stable_baselines3.common.policies import BasePolicy

        policy = self.policy
        obs = torch.as_tensor(np.asarray(observation, dtype=np.float32)[None])
        legal = np.asarray(mask, dtype=bool)
        with torch.no_grad():
            features = BasePolicy.extract_features(policy, obs, policy.pi_features_extractor)
            logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
        z = logits[0].numpy().astype(np.float64)
        z[~legal] = -np.inf
        probs = np.exp(z - z[legal].max())
        return probs / probs.sum()

    def act(self, observation: Mapping[str, np.ndarray], info: Mapping[str, Any]) -> int:
        mask = info.get("action_mask")
        if mask is None:
            mask = observation["action_mask"]
        probs = self.action_probabilities(observation["observation"], mask)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(probs.size, p=probs))

    def __repr__(self) -> str:
        return f"PPOAgent(name={self.name!r}, path={self.path!r})"


def make_ppo_agent(args: str | None) -> PPOAgent:
    """The registry factory: ``args`` is ``PATH[:key=value...]`` (``agents.make("ppo:...")``).

    Raises:
        ValueError: no path given, or a bad ``key=value`` argument.
    """
    from . import parse_kwargs

    if not args:
        raise ValueError("ppo needs a model path: ppo:PATH (e.g. ppo:runs/quick/model.zip)")
    path, _, rest = args.partition(":")
    kwargs = parse_kwargs(rest or None)
    if "deterministic" in kwargs:
        kwargs["deterministic"] = bool(kwargs["deterministic"])
    return PPOAgent(path, **kwargs)
