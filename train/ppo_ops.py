"""The lean PPO's tensor operations: masking, sampling and GAE per seat stream.

Pure functions of tensors (no learner state), on whatever device their inputs are:
:func:`masked_logits`, :func:`legal_actions` (each sample's legal actions, for a log-softmax
over them only), :func:`sample_actions` (Gumbel-max) and :func:`seat_advantages` (GAE per
(env, seat) stream of an interleaved self-play rollout: ``train.ppo``'s module docstring,
point 2).
"""

from __future__ import annotations

import torch

from agents.learned.network import active_features

__all__ = ["MASKED_LOGIT", "legal_actions", "masked_logits", "sample_actions", "seat_advantages"]

MASKED_LOGIT = -1e8
"""The logit an illegal action gets: finite, so that 0 * log p stays 0 in the entropy."""


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with the illegal actions (``mask`` False) at :data:`MASKED_LOGIT`."""
    return logits.masked_fill(~mask, MASKED_LOGIT)


def legal_actions(
    mask: torch.Tensor, actions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Each row's legal actions, padded to the most of a row: ``(legal, padding, position)``,
    ``legal`` int64 ``(K, L)`` (a row's legal actions in increasing order, then padding),
    ``padding`` bool ``(K, L)`` (True: not an action), and ``position`` int64 ``(K,)``: where
    ``actions`` (each legal in its row) stands in its row of ``legal``.

    ``log_softmax(logits.gather(1, legal).masked_fill(padding, MASKED_LOGIT))`` is then the
    masked log-softmax at the legal actions (the others' probabilities are exactly 0)."""
    legal, flags = active_features(mask.to(torch.float32))
    padding = flags == 0
    position = ((legal == actions[:, None]) & ~padding).to(torch.float32).argmax(dim=1)
    return legal, padding, position


def sample_actions(
    logits: torch.Tensor, generator: torch.Generator | None, deterministic: bool = False
) -> torch.Tensor:
    """One action per row of masked ``logits`` ``(K, N)``: the argmax, or a draw by the
    Gumbel-max trick (exact, no distribution object, stays on the device)."""
    if deterministic:
        return logits.argmax(dim=1)
    u = torch.rand(logits.shape, device=logits.device, generator=generator)
    return (logits - torch.log(-torch.log(u.clamp_(min=1e-20)))).argmax(dim=1)


def seat_advantages(
    rewards: torch.Tensor,
    done: torch.Tensor,
    actor: torch.Tensor,
    values: torch.Tensor,
    bootstrap: torch.Tensor,
    gamma: float,
    gae_lambda: float,
) -> torch.Tensor:
    """GAE per (env, seat) stream of an interleaved rollout.

    Args:
        rewards: float32 ``(T, B, n)``: each seat's reward over step t's transition.
        done: bool ``(T, B)``: a game ended during step t (step t's action or later in it).
        actor: int64 ``(T, B)``: the seat whose action step t applied.
        values: float32 ``(T, B)``: the value estimate of step t's decision (its actor's).
        bootstrap: float32 ``(B, n)``: each seat's value at the position after the last step
            (for a seat whose next decision is beyond the rollout).
        gamma, gae_lambda: per decision of the seat, as in single-agent GAE.

    Returns:
        float32 ``(T, B)``: the advantage of each step's decision for its actor. Sample (t, b)
        gets ``delta = R + gamma * V' * (1 - d) - V`` and ``A = delta + gamma * lambda *
        (1 - d) * A'``, where R sums its seat's rewards from step t to the step before its
        next decision, V' and A' are that decision's, and d says the game ended before it.
    """
    steps, num_envs, _ = rewards.shape
    rows = torch.arange(num_envs, device=rewards.device)
    next_value = bootstrap.clone()
    next_adv = torch.zeros_like(bootstrap)
    live = torch.ones_like(bootstrap)  # 0: the seat's stream ended (game over) after this
    acc = torch.zeros_like(bootstrap)  # rewards since the decision being closed
    advantages = torch.zeros_like(values)
    for t in range(steps - 1, -1, -1):
        ended = done[t].unsqueeze(1)
        acc = torch.where(ended, rewards[t], acc + rewards[t])
        live = torch.where(ended, torch.zeros_like(live), live)
        a = actor[t]
        v = values[t]
        seat_live = live[rows, a]
        delta = acc[rows, a] + gamma * next_value[rows, a] * seat_live - v
        adv = delta + gamma * gae_lambda * seat_live * next_adv[rows, a]
        advantages[t] = adv
        next_value[rows, a] = v
        next_adv[rows, a] = adv
        acc[rows, a] = 0.0
        live[rows, a] = 1.0
    return advantages
