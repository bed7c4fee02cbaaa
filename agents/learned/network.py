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

The whole-table critic (optional, ``critic=`` widths): an MLP of its own that reads the *table
observation* of a seat, float32 ``(K, n * D)``: every seat's observation of the position, the
seat's own first, then the next seats in turn order (``fort_env.views.table``). It sees every
hand, Lookout and Pack (never the deck's order): the critic of *perfect-training,
imperfect-execution* (PerfectDou, NeurIPS 2022; the asymmetric actor-critic of Pinto et al.
2018). Only training and the search's leaves use it; the policy never reads it, so a network
plays the same with or without one. Tensors ``critic.{2i}.weight`` / ``.bias`` for its hidden
layers and ``critic_head.weight`` ``(1, last)`` / ``.bias``.
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
    observation_size: int,
    num_actions: int,
    trunk: Sequence[int],
    critic: Sequence[int] = (),
    table_size: int = 0,
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
    prev = table_size
    for i, width in enumerate(critic):
        shapes[f"critic.{2 * i}.weight"] = (width, prev)
        shapes[f"critic.{2 * i}.bias"] = (width,)
        prev = width
    if critic:
        shapes["critic_head.weight"] = (1, prev)
        shapes["critic_head.bias"] = (1,)
    return shapes


class ActorCritic(nn.Module):
    """A shared MLP trunk with a policy head (logits over the N actions) and a value head.

    Args:
        observation_size: D.
        num_actions: N.
        trunk: the hidden layers' widths (at least one).
        activation_fn: a ``torch.nn`` activation's class name (``ReLU``, ``Tanh``, ...).
        critic: the whole-table critic's hidden widths; empty: no critic (module docstring).
        table_size: the table observation's length ``n * D`` (required with ``critic``).

    Raises:
        ValueError: an empty trunk, or a critic without a positive ``table_size``.

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
        critic: Sequence[int] = (),
        table_size: int = 0,
    ) -> None:
        super().__init__()
        if not trunk:
            raise ValueError("the trunk needs at least one hidden layer")
        if critic and table_size < 1:
            raise ValueError("a whole-table critic needs the table observation's size")
        self.observation_size = int(observation_size)
        self.num_actions = int(num_actions)
        self.trunk_widths = [int(w) for w in trunk]
        self.activation_fn = activation_fn
        self.trunk, prev = _mlp(self.observation_size, self.trunk_widths, activation_fn)
        self.policy_head = _init(nn.Linear(prev, self.num_actions), 0.01)
        self.value_head = _init(nn.Linear(prev, 1), 1.0)
        self.critic_widths = [int(w) for w in critic]
        self.table_size = int(table_size) if critic else 0
        self.critic: nn.Sequential | None = None
        self.critic_head: nn.Linear | None = None
        if critic:
            self.critic, prev = _mlp(self.table_size, self.critic_widths, activation_fn)
            self.critic_head = _init(nn.Linear(prev, 1), 1.0)

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

    def table_values(self, table: torch.Tensor) -> torch.Tensor:
        """The whole-table critic's estimates ``(K,)`` for table observations ``(K, n * D)``.

        Raises:
            ValueError: the network has no critic.
        """
        if self.critic is None or self.critic_head is None:
            raise ValueError("this network has no whole-table critic")
        return self.critic_head(self.critic(table))[:, 0]


def _mlp(inputs: int, widths: Sequence[int], activation_fn: str) -> tuple[nn.Sequential, int]:
    """Dense layers of ``widths`` with the activation after each; returns it and its width."""
    layers: list[nn.Module] = []
    prev = inputs
    for width in widths:
        layers += [_init(nn.Linear(prev, width), math.sqrt(2)), getattr(nn, activation_fn)()]
        prev = width
    return nn.Sequential(*layers), prev


def _init(layer: nn.Linear, gain: float) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer
