"""The final rewards of a Fort game, one per seat, in each reward mode of the envs
(``fort_env.envs.aec``'s module docstring, "Rewards"): ``"win_loss"``, ``"rank"``,
``"score_margin"``. Every env of ``fort_env.envs`` gives these; the compiled batch computes the
same in C++ (``tests/test_self_play.py`` compares them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fort_env.core import FortState
from fort_env.game.constants import SCORE_TRIGGER
from fort_env.game.errors import ConfigError
from fort_env.game.fields import P_FORT_LEVEL

__all__ = [
    "ILLEGAL_ACTION_REWARD", "REWARD_MODES", "SCORE_MARGIN_SCALE", "final_rewards",
    "rank_rewards", "score_margin_rewards",
]  # fmt: skip

REWARD_MODES = ("win_loss", "rank", "score_margin")
SCORE_MARGIN_SCALE = float(SCORE_TRIGGER)  # "score_margin" divides point differences by this
ILLEGAL_ACTION_REWARD = -1.0  # TerminateIllegalWrapper's reward for an illegal action


def rank_rewards(standings: Sequence[tuple[int, int]]) -> np.ndarray:
    """``"rank"`` rewards, float64 shape ``(n,)``, from each seat's ``(total, fort_level)``.

    Place ``k`` (0 first) is worth ``1 - 2 k / (n - 1)``; tied seats share the mean of their
    places.
    """
    n = len(standings)
    out = np.empty(n)
    for p, key in enumerate(standings):
        better = sum(k > key for k in standings)
        tied = sum(k == key for k in standings)
        places = np.arange(better, better + tied)
        out[p] = float(np.mean(1.0 - 2.0 * places / (n - 1)))
    return out


def score_margin_rewards(totals: Sequence[int]) -> np.ndarray:
    """``"score_margin"`` rewards, float64 shape ``(n,)``: (own - best rival) / scale."""
    arr = np.asarray(totals, dtype=np.float64)
    best_rival = np.array([np.delete(arr, p).max() for p in range(len(arr))])
    margins: np.ndarray = (arr - best_rival) / SCORE_MARGIN_SCALE
    return margins


def final_rewards(state: FortState, mode: str) -> np.ndarray:
    """Rewards of a finished game, float64 shape ``(num_players,)`` (module docstring, Rewards).

    Raises:
        ConfigError: an unknown ``mode``.
        ValueError: the game is not over.
    """
    if not state.is_terminal():
        raise ValueError("final_rewards needs a finished game")
    if mode == "win_loss":
        return state.returns()
    totals = [row["total"] for row in state.score_breakdown()]
    if mode == "rank":
        levels = state.players[:, P_FORT_LEVEL].tolist()  # the level; the breakdown has its points
        return rank_rewards(list(zip(totals, levels, strict=True)))
    if mode == "score_margin":
        return score_margin_rewards(totals)
    raise ConfigError(f"reward must be one of {REWARD_MODES}, got {mode!r}")
