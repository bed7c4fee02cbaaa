"""The project's own actor-critic network: one shared MLP trunk, a policy head and a value head.

``train.ppo`` (the lean PPO, ``fort-env train --algo ppo``) learns it; a saved one is a
``fort-env-policy`` file like MaskablePPO's (``agents.learned.policy_file``: network kind
``ActorCritic``), played by ``agents.make("ppo:PATH")``. Sharing the trunk halves the cost of
a forward and backward pass against SB3's two towers of the same widths (CleanRL's Atari PPO
shares its trunk the same way; docs/agents.md has the measured ablation).

Shapes: observations float32 ``(K, D)``; logits float32 ``(K, N)``; values float32 ``(K,)``.
Tensor names (the safetensors file): ``trunk.{2i}.weight`` ``(width_i, width_{i-1})`` and
``trunk.{2i}.bias`` for hidden layer i (``nn.Sequential`` of Linear and activation),
``policy_head.weight`` ``(N, last)``, ``policy_head.bias``, ``value_head.weight`` ``(1, last)``,
``value_head.bias``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

__all__ = ["KIND", "ActorCritic", "actor_critic_shapes"]

KIND = "ActorCritic"
"""The ``network.policy`` value of a description of this network."""


def actor_critic_shapes(
    observation_size: int, num_actions: int, trunk: Sequence[int]
) -> dict[str, tuple[int, ...]]:
    """The ``state_dict`` shapes of an :class:`ActorCritic`, computed without building it."""
    shapes: dict[str, tuple[int, ...]] = {}
    prev = observation_size
    for i, width in enumerate(trunk):
        shapes[f"trunk.{2 * i}.weight"] = (width, prev)
        shapes[f"trunk.{2 * i}.bias"] = (width,)
        prev = width
    shapes["policy_head.weight"] = (num_actions, prev)
    shapes["policy_head.bias"] = (num_actions,)
    shapes["value_head.weight"] = (1, prev)
    shapes["value_head.bias"] = (1,)
    return shapes


class ActorCritic(nn.Module):
    """A shared MLP trunk with a policy head (logits over the N actions) and a value head.

    Args:
        observation_size: D.
        num_actions: N.
        trunk: the hidden layers' widths (at least one).
        activation_fn: a ``torch.nn`` activation's class name (``ReLU``, ``Tanh``, ...).

    Initialisation (CleanRL's ``layer_init``): orthogonal weights, gain sqrt(2) in the trunk,
    0.01 for the policy head (near-uniform first policy), 1 for the value head; zero biases.
    """

    kind = KIND

    def __init__(
        self,
        observation_size: int,
        num_actions: int,
        trunk: Sequence[int] = (256, 256),
        activation_fn: str = "ReLU",
    ) -> None:
        super().__init__()
        if not trunk:
            raise ValueError("the trunk needs at least one hidden layer")
        self.observation_size = int(observation_size)
        self.num_actions = int(num_actions)
        self.trunk_widths = [int(w) for w in trunk]
        self.activation_fn = activation_fn
        layers: list[nn.Module] = []
        prev = self.observation_size
        for width in self.trunk_widths:
            layers += [_init(nn.Linear(prev, width), math.sqrt(2)), getattr(nn, activation_fn)()]
            prev = width
        self.trunk = nn.Sequential(*layers)
        self.policy_head = _init(nn.Linear(prev, self.num_actions), 0.01)
        self.value_head = _init(nn.Linear(prev, 1), 1.0)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits (K, N), values (K,))`` for observations ``(K, D)``."""
        hidden = self.trunk(obs)
        return self.policy_head(hidden), self.value_head(hidden)[:, 0]

    def action_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The policy head's logits, ``(K, N)``."""
        return self.policy_head(self.trunk(obs))

    def state_values(self, obs: torch.Tensor) -> torch.Tensor:
        """The value head's estimates, ``(K,)``."""
        return self.value_head(self.trunk(obs))[:, 0]


def _init(layer: nn.Linear, gain: float) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer
