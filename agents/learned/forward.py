"""The forward passes of a loaded network, of either kind a policy file holds.

sb3-contrib's ``MaskableActorCriticPolicy`` (two towers) or the project's
``agents.learned.network.ActorCritic`` (a shared trunk): :func:`policy_logits` and
:func:`policy_values` run the modules each kind's own methods run, without building a
distribution object, for the agents (``agents.learned.ppo_agent``), the search
(``agents.learned.puct``), the load-time probes (``agents.learned.policy_io``) and training.
"""

from __future__ import annotations

from typing import Any

__all__ = ["policy_logits", "policy_observation_size", "policy_values"]


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
