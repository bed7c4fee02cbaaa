"""Batched reward functions for the C++ vector envs (issue 38, item 4).

The compiled batch computes the built-in rewards (``reward``: ``win_loss``, ``rank``,
``score_margin``; ``shaping``) inside C++. A research reward beyond them need not leave the
fast path: give :class:`~fort_env.envs.vector.FortBatchVecEnv` (and ``FortVectorEnv``,
``gymnasium.make_vec("Fort-v0", vectorization_mode="vector_entry_point", reward_fn=...)``) a
``reward_fn``: after every step it receives one :class:`StepEvents` of numpy arrays over the B
games and returns the B rewards the step hands back, in a few vectorised numpy operations, with
no Python loop over the games and no state copied out of C++.

    def margin_bonus(ev: StepEvents) -> np.ndarray:     # +0.1 a point of final margin
        return ev.reward + 0.1 * np.where(ev.done & ~ev.illegal, ev.margin(), 0)

    env = FortBatchVecEnv(64, reward_fn=margin_bonus)

:func:`final_margin_bonus` is that example, ready made. Per-step events are the episode ends
(``done``, ``illegal``, ``won``) and the final score breakdown of each ended game
(``end_scores``, every seat's row); dense per-step score features are the built-in ``shaping``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fort_env.game.errors import ConfigError
from fort_env.views.scoring import SCORE_COLUMNS

__all__ = ["RewardFn", "StepEvents", "apply_reward_fn", "final_margin_bonus"]

TOTAL = SCORE_COLUMNS.index("total")


@dataclass(frozen=True)
class StepEvents:
    """One step of B games, as a reward function sees it (row i is env i's; read-only arrays).

    Attributes:
        reward: float32 ``(B,)``, the built-in reward of the step (``reward``, ``shaping``,
            ``illegal_reward``).
        done: bool ``(B,)``, the learner's episode ended in the step.
        illegal: bool ``(B,)``, ... because its action was illegal (no scores then).
        seat: int64 ``(B,)``, the learner's seat in the game the step was played in (the ended
            game's where ``done``).
        won: bool ``(B,)``, where ``done`` and not ``illegal``: the learner is among the winners.
        end_scores: int32 ``(B, 4, 6)``, where ``done`` and not ``illegal``: the ended game's
            score breakdown, row p seat p's (columns ``SCORE_COLUMNS``; rows past
            ``num_players`` are zeros); zeros elsewhere.
        num_players: n.
    """

    reward: np.ndarray
    done: np.ndarray
    illegal: np.ndarray
    seat: np.ndarray
    won: np.ndarray
    end_scores: np.ndarray
    num_players: int

    def totals(self) -> np.ndarray:
        """int32 ``(B, n)``: each seat's final total (zeros where no game ended)."""
        return self.end_scores[:, : self.num_players, TOTAL]

    def margin(self) -> np.ndarray:
        """int64 ``(B,)``: the learner's final total minus the best rival's (0 where no game
        ended): ``score_margin``'s numerator."""
        totals = self.totals().astype(np.int64)
        rows = np.arange(len(totals))
        own = totals[rows, self.seat]
        rivals = totals.copy()
        rivals[rows, self.seat] = np.iinfo(np.int64).min
        best = rivals.max(axis=1) if self.num_players > 1 else np.zeros_like(own)
        ended = self.done & ~self.illegal
        out: np.ndarray = np.where(ended, own - best, 0)
        return out


RewardFn = Callable[[StepEvents], np.ndarray]
"""A batched reward function: :class:`StepEvents` -> float ``(B,)`` rewards."""


def apply_reward_fn(fn: RewardFn, events: StepEvents) -> np.ndarray:
    """``fn(events)`` checked: a float32 ``(B,)`` array of finite rewards.

    The values are checked after the cast to float32, the dtype the step hands back: a reward
    past float32's range (about 3.4e38) is refused, not turned into an infinity.

    Raises:
        ConfigError: the result is not an array of B real numbers (bools, ints or floats: not
            complex numbers, strings or other objects), or a value is not finite in float32
            (naming the env and the value).
    """
    b = len(events.done)
    got = fn(events)
    try:
        raw = np.asarray(got)
    except (TypeError, ValueError):  # a ragged list, a tensor numpy cannot read
        raw = None
    if raw is None or raw.dtype.kind not in "biuf":
        what = type(got).__name__ if raw is None else f"{type(got).__name__} of {raw.dtype}"
        raise ConfigError(f"reward_fn must return {b} numbers (real: bool, int or float), got "
                          f"{what}")  # fmt: skip
    if raw.shape != (b,):
        raise ConfigError(f"reward_fn must return shape ({b},), got {raw.shape}")
    with np.errstate(over="ignore"):  # a value past float32's range: refused just below
        rewards = raw.astype(np.float32)
    if not np.isfinite(rewards).all():
        bad = int(np.flatnonzero(~np.isfinite(rewards))[0])
        raise ConfigError(
            f"reward_fn returned a non-finite reward for env {bad}: {raw[bad]!r} (rewards are "
            f"float32, finite within +-{float(np.finfo(np.float32).max):.3g})"
        )
    return rewards


def final_margin_bonus(weight: float = 0.1) -> RewardFn:
    """The module docstring's example: the built-in reward plus ``weight`` times the learner's
    final score margin (own total minus the best rival's) when a game ends."""

    def reward_fn(ev: StepEvents) -> np.ndarray:
        out: np.ndarray = ev.reward + weight * ev.margin()
        return out

    return reward_fn
