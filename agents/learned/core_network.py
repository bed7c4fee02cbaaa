"""A trained network on the compiled core: the policy file's tensors as a ``_core.PolicyValueNet``.

The C++ search (``puct``, ``cpp/include/fort/bots/puct.h``) evaluates positions without
Python; this module hands it the tensors of a ``fort-env-policy`` file
(:mod:`agents.learned.policy_file`, which checks the file first: its description, layout
fingerprint, hash, shapes and values). Both network kinds the trainer writes map onto the
core's one description (``cpp/include/fort/bots/network.h``):

======================  ============================  ====================================
kind                    trunk                         towers and heads
======================  ============================  ====================================
``ActorCritic``         ``trunk.{2i}``                none; ``policy_head``, ``value_head``
MaskablePPO MlpPolicy   none                          ``mlp_extractor.policy_net.{2i}`` and
                                                      ``.value_net.{2i}``; ``action_net``,
                                                      ``value_net``
======================  ============================  ====================================

The core runs ReLU and Tanh layers (the trainer's ``ActorCritic`` uses ReLU, SB3's MlpPolicy
Tanh); another activation raises :class:`~fort_env.game.errors.ModelFileError`. The forward
pass equals torch's within 1e-4 (``tests/test_core_network.py``, on observations of random
games).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from fort_env.game.errors import ModelFileError
from fort_env.native import backend as cpp_backend

__all__ = [
    "CORE_ACTIVATIONS",
    "core_critic",
    "core_network",
    "critic_from_policy",
    "network_from_policy",
]

CORE_ACTIVATIONS = ("ReLU", "Tanh")
"""The activations ``_core.PolicyValueNet`` implements."""

_NETS: dict[tuple[str, float], Any] = {}


def _linear(state: dict[str, Any], prefix: str) -> tuple[np.ndarray, np.ndarray]:
    weight = np.ascontiguousarray(state[f"{prefix}.weight"].detach().cpu().numpy(), np.float32)
    bias = np.ascontiguousarray(state[f"{prefix}.bias"].detach().cpu().numpy(), np.float32)
    return weight, bias


def _layers(state: dict[str, Any], prefix: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The Linear layers ``{prefix}.0``, ``{prefix}.2``, ... of an ``nn.Sequential`` whose odd
    entries are activations."""
    out = []
    i = 0
    while f"{prefix}.{i}.weight" in state:
        out.append(_linear(state, f"{prefix}.{i}"))
        i += 2
    return out


def _activation_name(policy: Any) -> str:
    if hasattr(policy, "activation_fn") and isinstance(policy.activation_fn, str):
        return str(policy.activation_fn)  # ActorCritic keeps the class name
    fn = getattr(policy, "activation_fn", None)
    return getattr(fn, "__name__", repr(fn))


def network_from_policy(policy: Any, source: str | Path = "the policy") -> Any:
    """The core's copy of a torch policy (``ActorCritic`` or ``MaskableActorCriticPolicy``).

    Args:
        policy: the network, as :func:`agents.learned.ppo_agent.load_policy` returns it.
        source: what to name in an error (the file).

    Returns:
        ``fort_env.native._core.PolicyValueNet``; its ``forward(obs)`` gives logits float32
        ``(K, num_actions)`` and values float32 ``(K,)``.

    Raises:
        ModelFileError: an activation the core does not run, or a network of another shape.
        RuntimeError: the compiled core is not available.
    """
    core = cpp_backend.require()
    activation = _activation_name(policy)
    if activation not in CORE_ACTIVATIONS:
        raise ModelFileError(
            Path(source),
            f"its activation {activation} does not run on the core (it runs "
            f"{', '.join(CORE_ACTIVATIONS)}): search it with puct:engine=python",
        )
    state = dict(policy.state_dict())
    if hasattr(policy, "policy_head"):  # agents.learned.network.ActorCritic
        trunk = _layers(state, "trunk")
        policy_tower: list[tuple[np.ndarray, np.ndarray]] = []
        value_tower: list[tuple[np.ndarray, np.ndarray]] = []
        heads = (_linear(state, "policy_head"), _linear(state, "value_head"))
        size, actions = int(policy.observation_size), int(policy.num_actions)
    else:  # sb3_contrib's MaskableActorCriticPolicy with its MlpExtractor
        trunk = []
        policy_tower = _layers(state, "mlp_extractor.policy_net")
        value_tower = _layers(state, "mlp_extractor.value_net")
        heads = (_linear(state, "action_net"), _linear(state, "value_net"))
        size, actions = int(policy.observation_space.shape[0]), int(policy.action_space.n)
    try:
        return core.PolicyValueNet(
            size, actions, activation, trunk, policy_tower, value_tower, heads[0], heads[1]
        )
    except ValueError as exc:
        raise ModelFileError(Path(source), f"its network does not fit the core: {exc}") from None


def critic_from_policy(policy: Any, source: str | Path = "the policy") -> Any:
    """The core's copy of an ``ActorCritic``'s whole-table critic, or ``None`` without one.

    The core runs it as a ``_core.PolicyValueNet`` whose observation is the table observation
    (``fort_env.views.observation.table_from_observations``): its trunk the critic's layers,
    its value head the critic's head, and one unused "action" (a zero head), since the search
    reads only its values (``puct_search(..., critic=)``).

    Raises:
        ModelFileError: an activation the core does not run.
    """
    if getattr(policy, "critic", None) is None:
        return None
    core = cpp_backend.require()
    activation = _activation_name(policy)
    if activation not in CORE_ACTIVATIONS:
        raise ModelFileError(Path(source), f"its activation {activation} does not run on the core")
    state = dict(policy.state_dict())
    layers = _layers(state, "critic")
    last = layers[-1][0].shape[0]
    unused = (np.zeros((1, last), np.float32), np.zeros(1, np.float32))
    try:
        return core.PolicyValueNet(
            int(policy.table_size), 1, activation, layers, [], [], unused,
            _linear(state, "critic_head"),
        )  # fmt: skip
    except ValueError as exc:
        raise ModelFileError(Path(source), f"its critic does not fit the core: {exc}") from None


def core_critic(path: str | Path) -> Any:
    """The core's copy of the saved policy's whole-table critic (``None`` without one); cached
    as :func:`core_network`.

    Raises:
        ModelFileError: as :func:`core_network`.
    """
    from agents.learned.policy_file import policy_paths
    from agents.learned.ppo_agent import load_policy

    weights = policy_paths(path)[0]
    policy = load_policy(path)
    key = ("critic:" + str(weights.resolve()), weights.stat().st_mtime)
    if key not in _NETS:
        _NETS[key] = critic_from_policy(policy, weights)
    return _NETS[key]


def core_network(path: str | Path) -> Any:
    """The core's copy of the saved policy at ``path`` (cached by file and modification time).

    Args:
        path: ``NAME.safetensors`` (or ``NAME.json``, or ``NAME``) saved by
            :func:`agents.learned.policy_file.save_policy`; never an SB3 zip (pickles).

    Raises:
        ModelFileError: as :func:`agents.learned.ppo_agent.load_policy`, or as
            :func:`network_from_policy`.
    """
    from agents.learned.policy_file import policy_paths
    from agents.learned.ppo_agent import load_policy

    weights = policy_paths(path)[0]
    policy = load_policy(path)  # checks the file (description, layout, hash, shapes, values)
    key = (str(weights.resolve()), weights.stat().st_mtime)
    if key not in _NETS:
        _NETS[key] = network_from_policy(policy, weights)
    return _NETS[key]
